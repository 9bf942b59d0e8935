//! MiniMax-M2: `<minimax:tool_call><invoke name="NAME"><parameter name="P">value</parameter></invoke></minimax:tool_call>`.
//!
//! The inner grammar is Anthropic legacy's, so the values follow the same
//! rules (typed by schema, no entity decoding). One wrapper may hold several
//! invokes (parallel calls). The chat template opens reasoning in the prompt
//! (`<think>\n`), so the output starts inside it: a provider profile sets
//! [`DetectConfig::start_in_reasoning`]. The end of a message, `[e~[`, is a
//! framing token (removed from the text).
//!
//! [`DetectConfig::start_in_reasoning`]: crate::detect::DetectConfig::start_in_reasoning

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, ParamSyntax, XmlSpec};
use super::anthropic_invoke::tag_then;

const OPEN: &str = "<minimax:tool_call>";
/// The chat template's end of a message (a special token).
const FRAMING: &[&str] = &["[e~["];

/// The MiniMax-M2 dialect.
pub(crate) struct MinimaxM2;

impl TextFormat for MinimaxM2 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<["
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        tag_then(input, OPEN, b"<invoke", cx, || {
            Box::new(XmlCallParser::new(XmlSpec {
                format: WireFormat::MinimaxM2,
                open_len: OPEN.len(),
                block_close: Some("</minimax:tool_call>"),
                entry: EntrySyntax::InvokeName,
                param: ParamSyntax::ParameterName,
                entities: false,
            }))
        })
    }
}
