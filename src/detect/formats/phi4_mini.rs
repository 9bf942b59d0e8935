//! Phi-4-mini: `functools[{"name": "NAME", "arguments": {...}}, ...]`, the plain
//! word `functools` directly followed by a JSON array of call objects.
//!
//! Off by default (a plain word as a start marker; see
//! [`DEFAULT_TEXT_FORMATS`](crate::detect::DEFAULT_TEXT_FORMATS)): a stream or
//! provider profile selects it. Even then only `functools[` followed by an
//! object opens a region, so `functools[0]` in prose stays text. The end of a
//! message and of the text (`<|end|>`, `<|endoftext|>`) are framing tokens
//! (removed from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, ListSpec, probe_list};
use super::framing::ENDOFTEXT;

const MARKER: &str = "functools";
/// Phi's end of message and end of text.
const FRAMING: &[&str] = &["<|end|>", ENDOFTEXT];

static SPEC: ListSpec = ListSpec::name_arguments(WireFormat::Phi4Mini, Body::Array, None);

/// The Phi-4-mini dialect.
pub(crate) struct Phi4Mini;

impl TextFormat for Phi4Mini {
    fn start_bytes(&self) -> &'static [u8] {
        b"<f"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        probe_list(input, MARKER, false, &SPEC, cx)
    }
}
