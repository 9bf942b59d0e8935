//! Step-3: `<｜tool_calls_begin｜>` (full-width `｜`, plain `_`) holding calls
//! `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME"><steptml:parameter name="P">value</steptml:parameter>…</steptml:invoke><｜tool_call_end｜>`,
//! then `<｜tool_calls_end｜>`. Values are typed by the tool's schema. The end
//! of a turn in Step-3's chat template, `<|EOT|>`, is a framing token (removed
//! from the text).
//!
//! As vLLM's tests write them, the `function<｜tool_sep｜>` header may be left
//! out, or followed by the tool name again (`function<｜tool_sep｜>NAME\n<steptml:invoke …>`):
//! the invoke's name names the call, and a name written again that is not the
//! invoke's makes the call broken. A stray `<｜tool_sep｜>` between calls
//! belongs to the section.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, ParamSyntax, XmlSpec};
use super::anthropic_invoke::tag_then;

const OPEN: &str = "<｜tool_calls_begin｜>";
/// The end of a turn.
const FRAMING: &[&str] = &["<|EOT|>"];

/// The Step-3 dialect.
pub(crate) struct Step3;

impl TextFormat for Step3 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        tag_then(
            input,
            OPEN,
            "<｜tool_call_begin｜>".as_bytes(),
            cx,
            || {
                Box::new(XmlCallParser::new(XmlSpec {
                    format: WireFormat::Step3,
                    open_len: OPEN.len(),
                    block_close: Some("<｜tool_calls_end｜>"),
                    entry: EntrySyntax::StepInvoke,
                    param: ParamSyntax::StepParameter,
                    entities: false,
                }))
            },
        )
    }
}
