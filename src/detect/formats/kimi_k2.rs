//! Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{..}<|tool_call_end|>…<|tool_calls_section_end|>`.
//!
//! The `functions.NAME:IDX` text is kept as the call id (the model refers to
//! it in the tool result); the name is between `functions.` and the last `:`.
//! Whitespace is allowed between the tokens. `<|tool_call_begin|>` alone is
//! not a start marker: calls open only inside a section. The end of a
//! message, `<|im_end|>`, is a framing token (removed from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::section_call::{Header, SectionParser, SectionSpec};
use super::anthropic_invoke::tag_then;
use super::framing::IM_END;

const OPEN: &str = "<|tool_calls_section_begin|>";
const CALL_BEGIN: &str = "<|tool_call_begin|>";
/// Kimi's end of message.
const FRAMING: &[&str] = &[IM_END];

/// The Kimi K2 dialect.
pub(crate) struct KimiK2;

impl TextFormat for KimiK2 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        tag_then(input, OPEN, CALL_BEGIN.as_bytes(), cx, || {
            Box::new(SectionParser::new(SectionSpec {
                format: WireFormat::KimiK2,
                open_len: OPEN.len(),
                call_begin: CALL_BEGIN,
                call_end: "<|tool_call_end|>",
                section_end: "<|tool_calls_section_end|>",
                header: Header::Kimi,
            }))
        })
    }
}
