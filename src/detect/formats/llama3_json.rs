//! Llama 3.1 / 3.2 / 3.3 JSON tool calls: an optional `<|python_tag|>`, then
//! `{"name": "NAME", "parameters": {...}}` (`arguments` accepted, extra keys
//! such as `"type": "function"` ignored), several calls joined by `; `.
//!
//! After `<|python_tag|>` only a JSON object is a call (the model also writes
//! Python there for the code interpreter; that stays text). Bare JSON is a call
//! only at the start of the message and only when its `name` (first key, or
//! second after `"type": "function"`) is a registered tool, decided within the
//! probe's look-ahead: JSON later in an answer, or naming anything else, is text.
//!
//! The tokens that end a Llama 3.x or 4 turn (`<|eot_id|>`, `<|eom_id|>` after
//! a call, `<|end_of_text|>`, `<|eot|>`, `<|eom|>`) are framing tokens,
//! removed from the text.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, ListParser, ListSpec, probe_list};
use super::super::json_tokenizer::{Directive, JsonEvent, JsonTokenizer, TokStatus};
use super::framing::LLAMA;

const TAG: &str = "<|python_tag|>";
/// Llama's end-of-turn tokens.
const FRAMING: &[&str] = LLAMA;

static SPEC: ListSpec = ListSpec::name_arguments(
    WireFormat::Llama3Json,
    Body::Objects {
        separator: Some(b';'),
    },
    None,
);

/// The Llama 3.x JSON dialect.
pub(crate) struct Llama3Json;

impl TextFormat for Llama3Json {
    fn start_bytes(&self) -> &'static [u8] {
        b"<{"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        if input.starts_with('<') {
            return probe_list(input, TAG, true, &SPEC, cx);
        }
        if !cx.at_start {
            return Probe::NoMatch;
        }
        match bare_name_guard(input, cx) {
            Some(true) => Probe::Match(Box::new(ListParser::new(&SPEC, 0))),
            Some(false) => Probe::NoMatch,
            None => cx.need_more(),
        }
    }
}

/// Whether the object at the start of `input` begins with `"name": "TOOL"`
/// (optionally after `"type": "function"`) naming a registered tool; `None`
/// when the look-ahead ends first.
fn bare_name_guard(input: &str, cx: &ProbeContext<'_>) -> Option<bool> {
    #[derive(PartialEq)]
    enum Want {
        FirstKey,
        TypeValue,
        NameKey,
        NameValue,
    }
    let mut want = Want::FirstKey;
    let mut depth = 0usize;
    let mut decided: Option<bool> = None;
    let mut tok = JsonTokenizer::new();
    let decide = |d: bool, decided: &mut Option<bool>| {
        *decided = Some(d);
        Directive::Stop
    };
    let status = tok.feed(input, &mut |ev| match ev {
        JsonEvent::ObjectStart(_) if depth == 0 => {
            depth = 1;
            Directive::Continue
        }
        JsonEvent::Key(k) if want == Want::FirstKey => match k {
            "name" => {
                want = Want::NameValue;
                Directive::Continue
            }
            "type" => {
                want = Want::TypeValue;
                Directive::Continue
            }
            _ => decide(false, &mut decided),
        },
        JsonEvent::Key("name") if want == Want::NameKey => {
            want = Want::NameValue;
            Directive::Continue
        }
        JsonEvent::Str("function") if want == Want::TypeValue => {
            want = Want::NameKey;
            Directive::Continue
        }
        JsonEvent::Str(name) if want == Want::NameValue => {
            decide(cx.catalog.contains(name), &mut decided)
        }
        _ => decide(false, &mut decided),
    });
    match (decided, status) {
        (Some(d), _) => Some(d),
        (None, TokStatus::NeedMore) => None,
        _ => Some(false),
    }
}
