//! Hermes / Qwen 2.5: `<tool_call>{"name": "NAME", "arguments": {...}}</tool_call>`.
//!
//! Key order is free, `parameters` is accepted for `arguments`, an `arguments`
//! string holding an object is decoded, and a call without arguments is `{}`.
//! Several blocks in a row are parallel calls. The end of a message and of the
//! text (`<|im_end|>`, `<|endoftext|>`) are framing tokens, removed from the text.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_call::{CallKey, CallObject, EnvelopeHandler, JsonCallParser, Verdict};
use super::super::json_tokenizer::{Directive, JsonEvent};
use super::super::scan::leading_ws;
use super::super::sink::CallSink;
use super::anthropic_invoke::tag_then;
use super::framing::{ENDOFTEXT, IM_END};

const OPEN: &str = "<tool_call>";
/// Hermes (ChatML) and Qwen end of message and end of text.
const FRAMING: &[&str] = &[IM_END, ENDOFTEXT];

/// The Hermes dialect.
pub(crate) struct Hermes;

impl TextFormat for Hermes {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let prefix = input
            .as_bytes()
            .get(OPEN.len()..)
            .map_or(0, |rest| OPEN.len() + leading_ws(rest));
        tag_then(input, OPEN, b"{", cx, || {
            Box::new(JsonCallParser::new(
                prefix,
                Some("</tool_call>"),
                HermesHandler::default(),
            ))
        })
    }
}

/// Reads `{"name", "arguments"}` envelopes.
#[derive(Debug, Default)]
pub(crate) struct HermesHandler {
    depth: usize,
    key: CallKey,
    object: CallObject,
    verdict: Option<Verdict>,
}

impl EnvelopeHandler for HermesHandler {
    fn event(&mut self, ev: JsonEvent<'_>, base: usize, sink: &mut CallSink<'_>) -> Directive {
        if self.verdict.is_some() {
            return Directive::Stop;
        }
        match ev {
            JsonEvent::ObjectStart(_) | JsonEvent::ArrayStart(_) => self.depth += 1,
            JsonEvent::ObjectEnd(_) | JsonEvent::ArrayEnd(_) => self.depth -= 1,
            JsonEvent::Key(k) if self.depth == 1 => {
                self.key = match k {
                    "name" => CallKey::Name,
                    "id" => CallKey::Id,
                    "arguments" | "parameters" => CallKey::Args,
                    _ => CallKey::Other,
                };
                if self.key == CallKey::Args {
                    return Directive::Raw;
                }
            }
            JsonEvent::Str(s) if self.depth == 1 => match self.key {
                // A started call keeps the name it started with.
                CallKey::Name if self.object.call.is_none() => {
                    self.object.name = Some(s.to_owned());
                    self.object.try_start(sink, WireFormat::Hermes, true);
                }
                CallKey::Id => self.object.id = Some(s.to_owned()),
                _ => {}
            },
            JsonEvent::RawChunk(c) => self.object.push_args(c, sink),
            ev => self.object.raw(ev, base, sink),
        }
        Directive::Continue
    }

    fn verdict(&mut self) -> Option<Verdict> {
        self.verdict.take()
    }

    fn started(&self) -> bool {
        self.object.call.is_some()
    }

    fn finish(&mut self, base: usize, end: usize, sink: &mut CallSink<'_>) -> Result<(), Verdict> {
        // The handler is done: its name and id move into the call.
        self.object.try_start(sink, WireFormat::Hermes, true);
        self.object
            .end(base, end, WireFormat::Hermes, "the call has no name", sink)
    }
}
