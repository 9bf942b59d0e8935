//! JSON `tool_use` objects in text: `{"type":"tool_use","id":"...","name":"...","input":{...}}`.
//!
//! The object opens a candidate when its first key is `type`, `id`, `name` or
//! `input`; it is a call only if `type` is `"tool_use"` (otherwise it is text).

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_call::{CallObject, EnvelopeHandler, Verdict, probe_envelope};
use super::super::json_tokenizer::{Directive, JsonEvent};
use super::super::sink::CallSink;

/// The JSON `tool_use` dialect.
pub(crate) struct JsonToolUse;

impl TextFormat for JsonToolUse {
    fn start_bytes(&self) -> &'static [u8] {
        b"{"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        probe_envelope::<ToolUseHandler>(input, cx, |key| {
            matches!(key, "type" | "id" | "name" | "input")
        })
    }

    fn fence_envelope(&self) -> bool {
        true
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Key {
    #[default]
    Other,
    Type,
    Id,
    Name,
    Input,
}

/// Reads `tool_use` objects.
#[derive(Debug, Default)]
pub(crate) struct ToolUseHandler {
    depth: usize,
    key: Key,
    tool_use: Option<bool>,
    object: CallObject,
    verdict: Option<Verdict>,
}

impl ToolUseHandler {
    fn try_start(&mut self, sink: &mut CallSink<'_>, force: bool) {
        let o = &self.object;
        let ready = self.tool_use == Some(true) && (force || o.id.is_some() || o.args.begun());
        self.object.try_start(sink, WireFormat::JsonToolUse, ready);
    }
}
impl EnvelopeHandler for ToolUseHandler {
    fn event(&mut self, ev: JsonEvent<'_>, base: usize, sink: &mut CallSink<'_>) -> Directive {
        if self.verdict.is_some() {
            return Directive::Stop;
        }
        match ev {
            JsonEvent::ObjectStart(_) | JsonEvent::ArrayStart(_) => self.depth += 1,
            JsonEvent::ObjectEnd(_) | JsonEvent::ArrayEnd(_) => self.depth -= 1,
            JsonEvent::Key(k) if self.depth == 1 => {
                self.key = match k {
                    "type" => Key::Type,
                    "id" => Key::Id,
                    "name" => Key::Name,
                    "input" => Key::Input,
                    _ => Key::Other,
                };
                if self.key == Key::Input {
                    return Directive::Raw;
                }
            }
            JsonEvent::Str(s) if self.depth == 1 => {
                match self.key {
                    Key::Type => {
                        self.tool_use = Some(s == "tool_use");
                        if s != "tool_use" {
                            self.verdict = Some(Verdict::Reject);
                            return Directive::Stop;
                        }
                    }
                    Key::Id => self.object.id = Some(s.to_owned()),
                    // A started call keeps the name it started with.
                    Key::Name if self.object.call.is_none() => {
                        self.object.name = Some(s.to_owned())
                    }
                    _ => {}
                }
                self.try_start(sink, false);
            }
            JsonEvent::Scalar(_)
                if self.depth == 1 && matches!(self.key, Key::Type | Key::Name) =>
            {
                self.verdict = Some(Verdict::Reject);
                return Directive::Stop;
            }
            JsonEvent::RawStart(kind, at) => {
                self.object.args.start_at(kind, base + at, sink);
                self.try_start(sink, false);
            }
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
        if self.tool_use != Some(true) {
            return Err(Verdict::Reject);
        }
        // The handler is done: its name and id move into the call.
        self.try_start(sink, true);
        let no_name = "the tool_use object has no name";
        self.object
            .end(base, end, WireFormat::JsonToolUse, no_name, sink)
    }
}
