//! GLM-4.5/4.6 and GLM-4.7/5: `<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>…</tool_call>`.
//!
//! One grammar, two layouts: GLM-4.5/4.6 write a newline after the name and
//! after each tag (`<tool_call>NAME\n<arg_key>…`), GLM-4.7/5 write nothing
//! between them. A call is GLM when `<tool_call>` (and optional whitespace) is
//! followed by a name and then `<arg_key>` or `</tool_call>`; `{` after the tag
//! is Hermes, `<function=` Qwen3-Coder, `[` Granite. Values are typed by the
//! tool's schema (XML value rules). One block per call.
//!
//! How the two formats coexist: with both enabled (the default) the layout
//! decides, so each call reports the format it was written in: whitespace
//! after the name is [`WireFormat::Glm45`], none is [`WireFormat::Glm47`]. A
//! stream that enables only one of them accepts both layouts and reports that
//! one.
//!
//! The tokens that end GLM's turn (`<|user|>`, `<|observation|>` after a call,
//! `<|endoftext|>`) are framing tokens, removed from the text.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::scan::{starts, tag_gap};
use super::super::xml_call::XmlCallParser;
use super::super::xml_syntax::{EntrySyntax, ParamSyntax, XmlSpec};
use super::framing::ENDOFTEXT;

const OPEN: &str = "<tool_call>";
const CLOSE: &str = "</tool_call>";
const ARG_KEY: &str = "<arg_key>";
/// The longest tool name a probe reads.
const MAX_NAME: usize = 128;
/// The tokens that end GLM's turn: the next role's header, and end of text.
const FRAMING: &[&str] = &["<|user|>", "<|observation|>", ENDOFTEXT];

/// GLM-4.5/4.6: whitespace between the name and the first tag.
pub(crate) struct Glm45;

/// GLM-4.7/5: nothing between the name and the first tag.
pub(crate) struct Glm47;

impl TextFormat for Glm45 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        probe(WireFormat::Glm45, WireFormat::Glm47, input, cx)
    }
}

impl TextFormat for Glm47 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        probe(WireFormat::Glm47, WireFormat::Glm45, input, cx)
    }
}

/// A byte of a tool name written after `<tool_call>`.
fn name_byte(b: u8) -> bool {
    !b.is_ascii_whitespace()
        && !matches!(
            b,
            b'<' | b'>' | b'{' | b'}' | b'[' | b']' | b'"' | b'\'' | b'(' | b')' | b','
        )
}

/// The probe of `this` layout; `other` is the other layout's format (when it
/// is disabled, `this` takes both layouts).
fn probe(this: WireFormat, other: WireFormat, input: &str, cx: &ProbeContext<'_>) -> Probe {
    let bytes = input.as_bytes();
    match starts(bytes, OPEN.as_bytes()) {
        Some(true) => {}
        Some(false) => return Probe::NoMatch,
        None => return cx.need_more(),
    }
    let Some(lead) = tag_gap(&bytes[OPEN.len()..]) else {
        return Probe::NoMatch;
    };
    let name_at = OPEN.len() + lead;
    let n = bytes[name_at..]
        .iter()
        .take(MAX_NAME + 1)
        .take_while(|&&b| name_byte(b))
        .count();
    let after = name_at + n;
    if n > MAX_NAME {
        return Probe::NoMatch;
    }
    if after == bytes.len() {
        return cx.need_more();
    }
    if n == 0 {
        return Probe::NoMatch;
    }
    let Some(gap) = tag_gap(&bytes[after..]) else {
        return Probe::NoMatch;
    };
    let next = &bytes[after + gap..];
    let confirmed = match (
        starts(next, ARG_KEY.as_bytes()),
        starts(next, CLOSE.as_bytes()),
    ) {
        (Some(true), _) | (_, Some(true)) => true,
        (None, _) | (_, None) => return cx.need_more(),
        _ => false,
    };
    if !confirmed {
        return Probe::NoMatch;
    }
    let layout = if gap > 0 {
        WireFormat::Glm45
    } else {
        WireFormat::Glm47
    };
    if layout != this && cx.config.formats.contains(&other) {
        return Probe::NoMatch;
    }
    Probe::Match(Box::new(XmlCallParser::new(XmlSpec {
        format: this,
        open_len: after,
        block_close: None,
        entry: EntrySyntax::Headed {
            name: input[name_at..after].to_owned(),
            close: CLOSE,
        },
        param: ParamSyntax::ArgKey,
        entities: false,
    })))
}
