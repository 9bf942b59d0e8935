//! Pythonic call lists (Llama 3.2, 3.3, 4; ToolACE): `[get_weather(city='Paris'), get_time()]`,
//! bare or inside Llama 4's `<|python_start|>…<|python_end|>`.
//!
//! `[` is everywhere in prose and Markdown, so a bare list opens only at `[`
//! directly followed by a registered tool name and `(`: `[1]`, `[get_weather]`
//! and `[links](…)` stay text. Keyword arguments are Python literals mapped to
//! JSON and typed by the tool's schema (see `py_literal`). The tokens that end
//! a Llama 3.x or 4 turn (`<|eot_id|>`, `<|eom|>`, …) are framing tokens,
//! removed from the text.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::py_call::{ListSpec, PyListParser, call_name_byte};
use super::super::xml_syntax::{Open, match_open};
use super::anthropic_invoke::tag_then;
use super::framing::LLAMA;

const OPEN: &str = "<|python_start|>";
const CLOSE: &str = "<|python_end|>";
/// Llama's end-of-turn tokens.
const FRAMING: &[&str] = LLAMA;

/// The pythonic dialect.
pub(crate) struct Pythonic;

impl TextFormat for Pythonic {
    fn start_bytes(&self) -> &'static [u8] {
        b"[<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let spec = |open_len, close| ListSpec {
            format: WireFormat::Pythonic,
            open_len,
            bracketed: true,
            close,
            json_entries: false,
        };
        if input.starts_with('<') {
            return tag_then(input, OPEN, b"[", cx, || {
                Box::new(PyListParser::new(spec(OPEN.len(), Some(CLOSE))))
            });
        }
        match match_open(input, "[", "(", call_name_byte, cx.catalog.longest_name()) {
            Open::Match(name, _) if cx.catalog.contains(&name) => {
                Probe::Match(Box::new(PyListParser::new(spec(0, None))))
            }
            Open::NeedMore if could_be_tool(&input[1..], cx) => cx.need_more(),
            _ => Probe::NoMatch,
        }
    }
}

/// Whether `partial` (a name still being written) can begin a registered name.
pub(crate) fn could_be_tool(partial: &str, cx: &ProbeContext<'_>) -> bool {
    partial.is_empty() || cx.catalog.names().any(|n| n.starts_with(partial))
}
