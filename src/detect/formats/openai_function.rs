//! OpenAI function-call JSON in text:
//! `{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"NAME","arguments":"{\"a\":1}"}}]}`.
//!
//! Each element of `tool_calls` is a call; `arguments` may be the usual JSON
//! string (decoded as it streams) or an object.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_call::{
    Element, EnvelopeHandler, Verdict, element_args, element_raw, probe_envelope,
};
use super::super::json_tokenizer::{Directive, JsonEvent};
use super::super::sink::CallSink;

/// The OpenAI function-call dialect.
pub(crate) struct OpenAiFunction;

impl TextFormat for OpenAiFunction {
    fn start_bytes(&self) -> &'static [u8] {
        b"{"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        probe_envelope::<ToolCallsHandler>(input, cx, |key| key == "tool_calls")
    }

    fn fence_envelope(&self) -> bool {
        true
    }
}

/// The last key read at one depth of the envelope, as far as it matters: the
/// envelope's (depth 1), an element's (depth 3) and a function object's
/// (depth 4). Keys are compared where they are read, never kept as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Key {
    #[default]
    Other,
    /// `tool_calls` (depth 1).
    ToolCalls,
    /// `id` (depth 3).
    Id,
    /// `function` (depth 3).
    Function,
    /// `name` (depth 4).
    Name,
    /// `arguments` or `parameters` (depth 4).
    Args,
}

/// Reads `{"tool_calls": [...]}` envelopes.
#[derive(Debug, Default)]
pub(crate) struct ToolCallsHandler {
    depth: usize,
    key1: Key,
    key3: Key,
    key4: Key,
    in_list: bool,
    element: Option<Element>,
    elements: usize,
    any_started: bool,
    verdict: Option<Verdict>,
}

/// Starts an element's call once its name is a tool and its id is known, its
/// arguments have begun, or it ended (`force`).
fn try_start(el: &mut Element, sink: &mut CallSink<'_>, force: bool) {
    let o = &el.object;
    let ready = force || o.id.is_some() || o.args.begun();
    el.object.try_start(sink, WireFormat::OpenAiFunction, ready);
}

impl ToolCallsHandler {
    fn end_element(&mut self, base: usize, at: usize, sink: &mut CallSink<'_>) -> Directive {
        let Some(mut el) = self.element.take() else {
            return Directive::Continue;
        };
        let end = base + at + 1;
        // The element is done: its name and id move into the call.
        try_start(&mut el, sink, true);
        let no_name = "a tool_calls entry has no function name";
        match el
            .object
            .end(el.start, end, WireFormat::OpenAiFunction, no_name, sink)
        {
            Ok(()) => Directive::Continue,
            Err(v) => {
                self.verdict = Some(v);
                Directive::Stop
            }
        }
    }
}

impl EnvelopeHandler for ToolCallsHandler {
    fn event(&mut self, ev: JsonEvent<'_>, base: usize, sink: &mut CallSink<'_>) -> Directive {
        if self.verdict.is_some() {
            return Directive::Stop;
        }
        match ev {
            JsonEvent::ArrayStart(_) => {
                self.depth += 1;
                if self.depth == 2 && self.key1 == Key::ToolCalls {
                    self.in_list = true;
                }
            }
            JsonEvent::ArrayEnd(_) => {
                self.depth -= 1;
                if self.depth == 1 {
                    self.in_list = false;
                }
            }
            JsonEvent::ObjectStart(at) => {
                self.depth += 1;
                if self.depth == 3 && self.in_list {
                    self.elements += 1;
                    self.element = Some(Element {
                        start: base + at,
                        ..Element::default()
                    });
                }
            }
            JsonEvent::ObjectEnd(at) => {
                self.depth -= 1;
                if self.depth == 2 && self.in_list {
                    return self.end_element(base, at, sink);
                }
            }
            JsonEvent::Key(k) => match self.depth {
                1 => {
                    self.key1 = match k {
                        "tool_calls" => Key::ToolCalls,
                        _ => Key::Other,
                    }
                }
                3 => {
                    self.key3 = match k {
                        "id" => Key::Id,
                        "function" => Key::Function,
                        _ => Key::Other,
                    }
                }
                4 if self.key3 == Key::Function && self.element.is_some() => {
                    self.key4 = match k {
                        "name" => Key::Name,
                        "arguments" | "parameters" => Key::Args,
                        _ => Key::Other,
                    };
                    if self.key4 == Key::Args {
                        return Directive::Raw;
                    }
                }
                _ => {}
            },
            JsonEvent::Str(s) => {
                let Some(el) = self.element.as_mut() else {
                    return Directive::Continue;
                };
                match self.depth {
                    3 if self.key3 == Key::Id => el.object.id = Some(s.to_owned()),
                    // A started call keeps the name it started with.
                    4 if self.key3 == Key::Function
                        && self.key4 == Key::Name
                        && el.object.call.is_none() =>
                    {
                        el.object.name = Some(s.to_owned())
                    }
                    _ => return Directive::Continue,
                }
                try_start(el, sink, false);
                self.any_started |= el.object.call.is_some();
            }
            JsonEvent::RawStart(kind, at) => {
                if let Some(el) = self.element.as_mut() {
                    el.object.args.start_at(kind, base + at, sink);
                    try_start(el, sink, false);
                    self.any_started |= el.object.call.is_some();
                }
            }
            JsonEvent::RawChunk(c) => element_args(&mut self.element, c, sink),
            ev => element_raw(&mut self.element, ev, base, sink),
        }
        Directive::Continue
    }

    fn verdict(&mut self) -> Option<Verdict> {
        self.verdict.take()
    }

    fn started(&self) -> bool {
        self.any_started
    }

    fn finish(
        &mut self,
        _base: usize,
        _end: usize,
        _sink: &mut CallSink<'_>,
    ) -> Result<(), Verdict> {
        if self.elements == 0 {
            return Err(Verdict::Reject);
        }
        Ok(())
    }
}
