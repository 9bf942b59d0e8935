//! Hermes / Qwen 2.5: `<tool_call>{"name": "NAME", "arguments": {...}}</tool_call>`.
//!
//! Key order is free, `parameters` is accepted for `arguments`, an `arguments`
//! string holding an object is decoded, and a call without arguments is `{}`.
//! Several blocks in a row are parallel calls.

use crate::core::WireFormat;
use crate::detect::scan::leading_ws;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_call::{ArgsCapture, EnvelopeHandler, JsonCallParser, Verdict};
use super::super::json_tokenizer::{Directive, JsonEvent};
use super::super::sink::{CallSink, finished_call};
use super::anthropic_invoke::tag_then;

const OPEN: &str = "<tool_call>";

/// The Hermes dialect.
pub(crate) struct Hermes;

impl TextFormat for Hermes {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Key {
    #[default]
    Other,
    Name,
    Id,
    Args,
}

/// Reads `{"name", "arguments"}` envelopes.
#[derive(Debug, Default)]
pub(crate) struct HermesHandler {
    depth: usize,
    key: Key,
    id: Option<String>,
    name: Option<String>,
    call: Option<(usize, String)>,
    args: ArgsCapture,
    verdict: Option<Verdict>,
}

impl HermesHandler {
    fn try_start(&mut self, sink: &mut CallSink<'_>) {
        if self.call.is_none()
            && let Some(name) = &self.name
            && sink.is_tool(name)
        {
            self.call = Some(sink.start(self.id.as_deref(), name, WireFormat::Hermes));
        }
        self.args.flush(self.call.as_ref().map(|c| c.0), sink);
    }
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
                    "name" => Key::Name,
                    "id" => Key::Id,
                    "arguments" | "parameters" => Key::Args,
                    _ => Key::Other,
                };
                if self.key == Key::Args {
                    return Directive::Raw;
                }
            }
            JsonEvent::Str(s) if self.depth == 1 => match self.key {
                // A started call keeps the name it started with.
                Key::Name if self.call.is_none() => {
                    self.name = Some(s.to_owned());
                    self.try_start(sink);
                }
                Key::Id => self.id = Some(s.to_owned()),
                _ => {}
            },
            JsonEvent::RawStart(kind, at) => self.args.start_at(kind, base + at, sink),
            JsonEvent::RawEnd { at, string } => self.args.end_at(base + at, string),
            JsonEvent::RawChunk(c) => {
                self.args.push(c, self.call.as_ref().map(|c| c.0), sink);
            }
            _ => {}
        }
        Directive::Continue
    }

    fn verdict(&mut self) -> Option<Verdict> {
        self.verdict.take()
    }

    fn started(&self) -> bool {
        self.call.is_some()
    }

    fn finish(&mut self, base: usize, end: usize, sink: &mut CallSink<'_>) -> Result<(), Verdict> {
        // The handler is done: its name and id move into the call.
        self.try_start(sink);
        let Some(name) = self.name.take() else {
            return Err(Verdict::Invalid("the call has no name".to_owned()));
        };
        let Some((index, id)) = self.call.take() else {
            sink.unknown(base, end, &name, WireFormat::Hermes);
            return Ok(());
        };
        let arguments = self.args.finish(index, sink)?;
        sink.end(
            index,
            finished_call(id, name, arguments, WireFormat::Hermes),
            end,
        );
        Ok(())
    }
}
