//! AI21 Jamba and Tencent Hunyuan-A13B:
//! `<tool_calls>[{"name": "NAME", "arguments": {...}}, ...]</tool_calls>`.
//!
//! `<tool_calls>` is an ordinary-looking tag, so a region opens only at
//! `<tool_calls>` followed by `[` and `{`, and it becomes calls only when an
//! element names a registered tool: a block naming only unknown tools goes
//! back as text with a diagnostic. Hunyuan wraps its visible answer in
//! `<answer>…</answer>` after its `<think>` block: `<answer>` at the start of
//! the message (only reasoning or whitespace before it) is a kept wrapper, and
//! so is `</answer>` once this stream has shown the dialect. A `<tool_calls>`
//! inside `<think>` is reasoning, like everything there. Jamba's end of
//! message, `<|eom|>`, is a framing token (removed from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, ListSpec, probe_list};
use super::super::scan::starts;
use super::kept::KeptMarker;

const OPEN: &str = "<tool_calls>";
const ANSWER: &str = "<answer>";
const ANSWER_END: &str = "</answer>";
/// Jamba's end of message.
const FRAMING: &[&str] = &["<|eom|>"];

static SPEC: ListSpec =
    ListSpec::name_arguments(WireFormat::JambaHunyuan, Body::Array, Some("</tool_calls>"));

/// The Jamba / Hunyuan-A13B dialect.
pub(crate) struct JambaHunyuan;

impl TextFormat for JambaHunyuan {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let wrappers = [
            (ANSWER, cx.at_start),
            (ANSWER_END, cx.has_seen(WireFormat::JambaHunyuan)),
        ];
        for (tag, on) in wrappers {
            if !on {
                continue;
            }
            match starts(input.as_bytes(), tag.as_bytes()) {
                Some(true) => return Probe::Match(Box::new(KeptMarker::new(tag.len()))),
                None if !cx.eof => return Probe::NeedMore,
                _ => {}
            }
        }
        probe_list(input, OPEN, true, &SPEC, cx)
    }
}
