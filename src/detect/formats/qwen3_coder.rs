//! Qwen3-Coder: `<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>`.
//! The end of a message and of the text (`<|im_end|>`, `<|endoftext|>`) are
//! framing tokens, removed from the text.
//!
//! A call lacking `</function>` ends at `</tool_call>` (after a value, the
//! block's end counts as the next structural tag).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, ParamSyntax, XmlSpec};
use super::anthropic_invoke::tag_then;
use super::framing::{ENDOFTEXT, IM_END};

const OPEN: &str = "<tool_call>";
/// Qwen's end of message and end of text.
const FRAMING: &[&str] = &[IM_END, ENDOFTEXT];

/// The Qwen3-Coder dialect.
pub(crate) struct Qwen3Coder;

impl TextFormat for Qwen3Coder {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        tag_then(input, OPEN, b"<function=", cx, || {
            Box::new(XmlCallParser::new(XmlSpec {
                format: WireFormat::Qwen3Coder,
                open_len: OPEN.len(),
                block_close: Some("</tool_call>"),
                entry: EntrySyntax::FunctionEq,
                param: ParamSyntax::ParameterEq,
            }))
        })
    }
}
