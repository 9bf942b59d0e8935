//! Liquid LFM2: `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`, a
//! pythonic call list between special tokens (or a JSON list of
//! `{"name", "arguments"}` envelopes when the system prompt asks for JSON).
//! The end of a message, `<|im_end|>`, is a framing token (removed from the
//! text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::py_call::{ListSpec, PyListParser};
use super::anthropic_invoke::tag_then;
use super::framing::IM_END;

const OPEN: &str = "<|tool_call_start|>";
const CLOSE: &str = "<|tool_call_end|>";
/// LFM2's end of message.
const FRAMING: &[&str] = &[IM_END];

/// The LFM2 dialect.
pub(crate) struct Lfm2;

impl TextFormat for Lfm2 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        tag_then(input, OPEN, b"[", cx, || {
            Box::new(PyListParser::new(ListSpec {
                format: WireFormat::Lfm2,
                open_len: OPEN.len(),
                bracketed: true,
                close: Some(CLOSE),
                json_entries: true,
            }))
        })
    }
}
