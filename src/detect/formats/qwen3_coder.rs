//! Qwen3-Coder: `<tool_call><function=NAME><parameter=P>value</parameter></function></tool_call>`.
//! The end of a message and of the text (`<|im_end|>`, `<|endoftext|>`) are
//! framing tokens, removed from the text.
//!
//! A call lacking `</function>` ends at `</tool_call>` (after a value, the
//! block's end counts as the next structural tag). A value lacking
//! `</parameter>` ends where a line opens another parameter the tool's schema
//! declares (`<parameter=state>`, not the current one nor one already given).
//!
//! The model sometimes leaves out `<tool_call>`: a bare
//! `<function=NAME>…</function>` is a call too when NAME is a registered tool
//! and the Qwen3-Coder body follows (whitespace, then `<parameter=` or
//! `</function>`); anything else is text. No other dialect opens with
//! `<function=` (Anthropic's `<function_calls>` differs at its tenth byte).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::scan::{starts, tag_gap};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, Open, ParamSyntax, XmlSpec, match_open, name_byte};
use super::anthropic_invoke::tag_then;
use super::framing::{ENDOFTEXT, IM_END};

const OPEN: &str = "<tool_call>";
/// A call's own opening, the whole opener of a bare call.
const FUNCTION: &str = "<function=";
const FUNCTION_CLOSE: &str = "</function>";
const PARAMETER: &str = "<parameter=";
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
        if input.as_bytes().get(1) == Some(&b'f') {
            return bare_function(input, cx);
        }
        tag_then(input, OPEN, b"<function=", cx, || {
            Box::new(XmlCallParser::new(XmlSpec {
                format: WireFormat::Qwen3Coder,
                open_len: OPEN.len(),
                block_close: Some("</tool_call>"),
                entry: EntrySyntax::FunctionEq,
                param: ParamSyntax::ParameterEq,
                entities: false,
            }))
        })
    }
}

/// A bare `<function=NAME>` of a registered tool, then at most
/// [`MAX_TAG_GAP`](super::super::config::MAX_TAG_GAP) bytes of whitespace and `<parameter=` or `</function>`:
/// one call, ended by `</function>`.
fn bare_function(input: &str, cx: &ProbeContext<'_>) -> Probe {
    let longest = cx.catalog.longest_name();
    let (name, len) = match match_open(input, FUNCTION, ">", name_byte, longest) {
        Open::Match(name, len) => (name, len),
        Open::NeedMore => return cx.need_more(),
        Open::NoMatch => return Probe::NoMatch,
    };
    if !cx.catalog.contains(&name) {
        return Probe::NoMatch;
    }
    let rest = &input.as_bytes()[len..];
    let Some(ws) = tag_gap(rest) else {
        return Probe::NoMatch;
    };
    let next = &rest[ws..];
    match (
        starts(next, PARAMETER.as_bytes()),
        starts(next, FUNCTION_CLOSE.as_bytes()),
    ) {
        (Some(true), _) | (_, Some(true)) => {}
        (None, _) | (_, None) => return cx.need_more(),
        _ => return Probe::NoMatch,
    }
    Probe::Match(Box::new(XmlCallParser::new(XmlSpec {
        format: WireFormat::Qwen3Coder,
        open_len: len,
        block_close: None,
        entry: EntrySyntax::Headed {
            name,
            close: FUNCTION_CLOSE,
        },
        param: ParamSyntax::ParameterEq,
        entities: false,
    })))
}
