//! InternLM2 / 2.5 and Intern-S1:
//! `<|action_start|><|plugin|>\n{"name": "NAME", "parameters": {...}}<|action_end|>`.
//! Whitespace is allowed between the two opening tokens (SGLang writes a
//! space); `arguments` is accepted for `parameters`. Other actions
//! (`<|interpreter|>`, the built-in code interpreter) are not tool calls and
//! stay text. The end of a message, `<|im_end|>`, is a framing token (removed
//! from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, ListParser, ListSpec, probe_list};
use super::super::scan::{leading_ws, starts};
use super::framing::IM_END;

const START: &str = "<|action_start|>";
const PLUGIN: &str = "<|plugin|>";
/// InternLM2's end of message.
const FRAMING: &[&str] = &[IM_END];

static SPEC: ListSpec = ListSpec::name_arguments(
    WireFormat::InternLm2,
    Body::Objects { separator: None },
    Some("<|action_end|>"),
);

/// The InternLM2 dialect.
pub(crate) struct InternLm2;

impl TextFormat for InternLm2 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let bytes = input.as_bytes();
        match starts(bytes, START.as_bytes()) {
            Some(false) => return Probe::NoMatch,
            None => return cx.need_more(),
            Some(true) => {}
        }
        let ws = leading_ws(&bytes[START.len()..]);
        let at = START.len() + ws;
        match probe_list(&input[at..], PLUGIN, true, &SPEC, cx) {
            Probe::Match(_) => {
                let json = at + PLUGIN.len() + leading_ws(&bytes[at + PLUGIN.len()..]);
                Probe::Match(Box::new(ListParser::new(&SPEC, json)))
            }
            decided => decided,
        }
    }
}
