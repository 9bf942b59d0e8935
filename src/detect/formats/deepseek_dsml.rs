//! DeepSeek V3.2 and V4 DSML: `<｜DSML｜function_calls>` (V3.2) or
//! `<｜DSML｜tool_calls>` (V4) holding `<｜DSML｜invoke name="NAME">` elements
//! with `<｜DSML｜parameter name="P" string="true|false">value</｜DSML｜parameter>`.
//!
//! The `string` flag types the value (`true`: the raw text is the string;
//! `false`: the text is JSON, and text that is not JSON is typed as without
//! the flag); the tool's schema types it when the flag is absent. An invoke's
//! body may instead be one JSON object, the arguments (streamed raw). The end
//! of sentence, `<｜end▁of▁sentence｜>`, is a framing token (removed from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, ParamSyntax, XmlSpec};
use super::anthropic_invoke::tag_then;
use super::framing::DEEPSEEK_EOS;

/// The two block names: (open, close).
const BLOCKS: [(&str, &str); 2] = [
    ("<｜DSML｜function_calls>", "</｜DSML｜function_calls>"),
    ("<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"),
];
/// DeepSeek's end of sentence.
const FRAMING: &[&str] = &[DEEPSEEK_EOS];

/// The DeepSeek DSML dialect.
pub(crate) struct DeepSeekDsml;

impl TextFormat for DeepSeekDsml {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let mut verdict = Probe::NoMatch;
        for (open, close) in BLOCKS {
            match tag_then(input, open, "<｜DSML｜invoke".as_bytes(), cx, || {
                Box::new(XmlCallParser::new(XmlSpec {
                    format: WireFormat::DeepSeekDsml,
                    open_len: open.len(),
                    block_close: Some(close),
                    entry: EntrySyntax::DsmlInvoke,
                    param: ParamSyntax::DsmlParameter,
                    entities: false,
                }))
            }) {
                Probe::NoMatch => {}
                Probe::NeedMore => verdict = Probe::NeedMore,
                matched => return matched,
            }
        }
        verdict
    }
}
