//! Anthropic legacy: `<function_calls><invoke name="NAME"><parameter name="P">value</parameter></invoke></function_calls>`.
//!
//! One block may hold several invokes (parallel calls).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::scan::{leading_ws, starts};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, ParamSyntax, XmlSpec};

const OPEN: &str = "<function_calls>";

/// The Anthropic legacy dialect.
pub(crate) struct AnthropicInvoke;

impl TextFormat for AnthropicInvoke {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        tag_then(input, OPEN, b"<invoke", cx, || {
            Box::new(XmlCallParser::new(XmlSpec {
                format: WireFormat::AnthropicInvoke,
                open_len: OPEN.len(),
                block_close: Some("</function_calls>"),
                entry: EntrySyntax::InvokeName,
                param: ParamSyntax::ParameterName,
                entities: false,
            }))
        })
    }
}

/// Matches `tag`, whitespace, then `next`; builds the parser on a match.
pub(crate) fn tag_then(
    input: &str,
    tag: &str,
    next: &[u8],
    cx: &ProbeContext<'_>,
    parser: impl FnOnce() -> Box<dyn super::super::format::CallParser>,
) -> Probe {
    let bytes = input.as_bytes();
    match starts(bytes, tag.as_bytes()) {
        Some(false) => return Probe::NoMatch,
        None => return cx.need_more(),
        Some(true) => {}
    }
    let rest = &bytes[tag.len()..];
    let ws = leading_ws(rest);
    match starts(&rest[ws..], next) {
        Some(true) => Probe::Match(parser()),
        None if !cx.eof => Probe::NeedMore,
        _ => Probe::NoMatch,
    }
}
