//! Olmo 3: `<function_calls>get_weather(city="Paris")\nget_time(timezone="UTC")</function_calls>`,
//! one pythonic call per line (JSON's `true`/`false`/`null` accepted as well).
//!
//! `<function_calls>` also opens the Anthropic legacy dialect; what follows
//! decides: `<invoke` is Anthropic's (probed first), a name and `(` is Olmo's.
//! The end of a message and of the text (`<|im_end|>`, `<|endoftext|>`) are
//! framing tokens (removed from the text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::py_call::{ListSpec, PyListParser, call_name_byte};
use super::super::scan::starts;
use super::super::xml_syntax::{Open, match_open};
use super::framing::{ENDOFTEXT, IM_END};

const OPEN: &str = "<function_calls>";
const CLOSE: &str = "</function_calls>";
/// Olmo 3's end of message and end of text.
const FRAMING: &[&str] = &[IM_END, ENDOFTEXT];

/// The Olmo 3 dialect.
pub(crate) struct Olmo3;

impl TextFormat for Olmo3 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let bytes = input.as_bytes();
        match starts(bytes, OPEN.as_bytes()) {
            Some(true) => {}
            Some(false) => return Probe::NoMatch,
            None => return cx.need_more(),
        }
        let rest = &input[OPEN.len()..];
        let ws = rest.bytes().take_while(u8::is_ascii_whitespace).count();
        let call = &rest[ws..];
        if call
            .bytes()
            .next()
            .is_some_and(|b| !(b.is_ascii_alphabetic() || b == b'_'))
        {
            return Probe::NoMatch;
        }
        match match_open(call, "", "(", call_name_byte, 256) {
            Open::Match(..) => Probe::Match(Box::new(PyListParser::new(ListSpec {
                format: WireFormat::Olmo3,
                open_len: OPEN.len(),
                bracketed: false,
                close: Some(CLOSE),
                json_entries: false,
            }))),
            Open::NeedMore => cx.need_more(),
            Open::NoMatch => Probe::NoMatch,
        }
    }
}
