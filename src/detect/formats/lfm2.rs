//! Liquid LFM2: `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`, a
//! pythonic call list between special tokens (or a JSON list of
//! `{"name", "arguments"}` envelopes when the system prompt asks for JSON, or
//! one such envelope without the list). The end of a message, `<|im_end|>`, is
//! a framing token (removed from the text).

use crate::core::WireFormat;

use super::super::format::{CallParser, Probe, ProbeContext, TextFormat};
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
        match tag_then(input, OPEN, b"[", cx, parser) {
            Probe::NoMatch => tag_then(input, OPEN, b"{", cx, parser),
            verdict => verdict,
        }
    }
}

/// The list parser (it also reads one envelope without the list).
fn parser() -> Box<dyn CallParser> {
    Box::new(PyListParser::new(ListSpec {
        format: WireFormat::Lfm2,
        open_len: OPEN.len(),
        bracketed: true,
        close: Some(CLOSE),
        json_entries: true,
    }))
}
