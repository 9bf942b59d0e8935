//! IBM Granite: `<|tool_call|>[{"name": "NAME", "arguments": {...}}, ...]`
//! (Granite 3.0, a special token) and `<tool_call>[...]` (3.1 to 3.3, a plain
//! string). `<tool_call>` is shared with Hermes (`{` next), Qwen3-Coder
//! (`<function=`) and GLM (a name): Granite's is the one followed by `[`.
//! Key order is free (3.1+ often writes `arguments` first); several objects in
//! the array are parallel calls. The end of a message, `<|end_of_text|>`, is a
//! framing token (removed from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, ListSpec, probe_list};

const TOKEN: &str = "<|tool_call|>";
const TAG: &str = "<tool_call>";
/// The end of a message in Granite's chat template.
const FRAMING: &[&str] = &["<|end_of_text|>"];

static SPEC: ListSpec = ListSpec::name_arguments(WireFormat::Granite, Body::Array, None);

/// The Granite dialect.
pub(crate) struct Granite;

impl TextFormat for Granite {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        match probe_list(input, TOKEN, true, &SPEC, cx) {
            Probe::NoMatch => probe_list(input, TAG, true, &SPEC, cx),
            decided => decided,
        }
    }
}
