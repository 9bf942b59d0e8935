//! Cohere Command R7B and Command A: blocks of
//! `<|START_THINKING|>plan<|END_THINKING|>` (reasoning),
//! `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "NAME", "parameters": {...}}, ...]<|END_ACTION|>`
//! (calls; `tool_call_id` is kept as the call id; one call object without
//! the list is read too) and
//! `<|START_RESPONSE|>text<|END_RESPONSE|>` (the visible answer: the two
//! wrappers are removed, the text between them is ordinary text; Command A
//! also writes `<|START_TEXT|>text<|END_TEXT|>`, removed the same way).
//! The end of the turn, `<|END_OF_TURN_TOKEN|>`, is removed too.
//! All markers are special tokens, recognised anywhere.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, CallKeys, ListSpec, probe_list};
use super::super::reasoning::ReasoningParser;
use super::super::scan::starts;
use super::kept::KeptMarker;

const ACTION: &str = "<|START_ACTION|>";
const THINKING: &str = "<|START_THINKING|>";
const THINKING_END: &str = "<|END_THINKING|>";
const RESPONSE: &str = "<|START_RESPONSE|>";
const RESPONSE_END: &str = "<|END_RESPONSE|>";
const TEXT: &str = "<|START_TEXT|>";
const TEXT_END: &str = "<|END_TEXT|>";
const END_OF_TURN: &str = "<|END_OF_TURN_TOKEN|>";

static KEYS: CallKeys = CallKeys {
    name: &["tool_name", "name"],
    args: &["parameters", "arguments"],
    id: &["tool_call_id"],
};

static SPEC: ListSpec = ListSpec {
    format: WireFormat::Cohere,
    keys: &KEYS,
    body: Body::Array,
    close: Some("<|END_ACTION|>"),
};

/// One call object instead of the list (`<|START_ACTION|>{..}<|END_ACTION|>`).
static SINGLE: ListSpec = ListSpec {
    format: WireFormat::Cohere,
    keys: &KEYS,
    body: Body::Objects { separator: None },
    close: Some("<|END_ACTION|>"),
};

/// The Cohere dialect.
pub(crate) struct Cohere;

impl TextFormat for Cohere {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let bytes = input.as_bytes();
        // Every marker starts `<|`: other start bytes are decided at once.
        if bytes.get(1).is_some_and(|&b| b != b'|') {
            return Probe::NoMatch;
        }
        // `<|START_` / `<|END_` first, then which block.
        for (tag, kind) in [
            (THINKING, Block::Thinking),
            (RESPONSE, Block::Wrapper),
            (RESPONSE_END, Block::Wrapper),
            (TEXT, Block::Wrapper),
            (TEXT_END, Block::Wrapper),
            (END_OF_TURN, Block::Wrapper),
        ] {
            match starts(bytes, tag.as_bytes()) {
                Some(true) => {
                    return Probe::Match(match kind {
                        Block::Thinking => Box::new(ReasoningParser::new(tag.len(), THINKING_END)),
                        Block::Wrapper => Box::new(KeptMarker::new(tag.len())),
                    });
                }
                None if !cx.eof => return Probe::NeedMore,
                _ => {}
            }
        }
        match probe_list(input, ACTION, true, &SPEC, cx) {
            Probe::NoMatch => probe_list(input, ACTION, true, &SINGLE, cx),
            verdict => verdict,
        }
    }
}

#[derive(Clone, Copy)]
enum Block {
    Thinking,
    Wrapper,
}
