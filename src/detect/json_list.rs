//! The parser shared by the dialects that write calls as JSON call objects after
//! a marker: one JSON array of call objects (`[TOOL_CALLS] [{..}, {..}]`,
//! `<|tool_call|>[..]`, `<tool_calls>[..]</tool_calls>`, `functools[..]`,
//! `<|START_ACTION|>[..]<|END_ACTION|>`), or one call object, optionally
//! followed by more joined by a separator (`{..}; {..}` in Llama 3.x JSON),
//! then an optional closing tag. The key names of a call object are
//! configurable ([`CallKeys`]).
//!
//! Each element is a call of its own: it starts as soon as its name is known
//! to be a registered tool (or, when the dialect has an id key, once the id is
//! known too, so the `CallStart` carries the model's id), its arguments stream
//! as raw JSON, and it ends at the element's `}`. An element naming an unknown
//! tool goes back as text with a diagnostic while the others stay calls; the
//! shared wrapper (marker, brackets, commas, closing tag) stays in the region
//! when any element is a call, and the whole block goes back as text when none
//! is. A broken element (well-formed
//! JSON that is not a valid call object: no name, arguments that are not an
//! object) goes back as text in the same way, with an `invalid` diagnostic.

use crate::core::{DiagnosticKind, WireFormat};

use super::config::MAX_TAG_GAP;
use super::format::{CallParser, Parsed, Probe, ProbeContext, body_end};
use super::json_call::{CallKey, Element, Verdict, element_args, element_raw};
use super::json_tokenizer::{Directive, JsonEvent, JsonTokenizer, TokStatus};
use super::scan::{leading_ws, starts};
use super::sink::CallSink;

/// The key names of one dialect's call objects (the first of each list is the
/// documented one; the others are accepted too).
#[derive(Debug)]
pub(crate) struct CallKeys {
    /// The tool name.
    pub(crate) name: &'static [&'static str],
    /// The arguments (an object, or a string holding one).
    pub(crate) args: &'static [&'static str],
    /// The call id, if the dialect writes one. With an id key, a call starts
    /// only once its id (or the element's end) is seen.
    pub(crate) id: &'static [&'static str],
}

/// `{"name": .., "arguments" | "parameters": ..}`, no id.
pub(crate) const NAME_ARGUMENTS: CallKeys = CallKeys {
    name: &["name"],
    args: &["arguments", "parameters"],
    id: &[],
};

/// What follows the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Body {
    /// One JSON array whose elements are call objects.
    Array,
    /// One call object; with a separator byte, more may follow, each after the
    /// separator and optional whitespace.
    Objects {
        /// The byte joining calls (`;` in Llama 3.x JSON).
        separator: Option<u8>,
    },
}

/// One dialect's shape.
#[derive(Debug)]
pub(crate) struct ListSpec {
    /// The dialect the calls are reported in.
    pub(crate) format: WireFormat,
    /// The call object's keys.
    pub(crate) keys: &'static CallKeys,
    /// Array or objects.
    pub(crate) body: Body,
    /// The closing tag after the body, if any (optional at end of stream).
    pub(crate) close: Option<&'static str>,
}

impl ListSpec {
    /// A dialect whose call objects are `{"name": …, "arguments": …}`.
    pub(crate) const fn name_arguments(
        format: WireFormat,
        body: Body,
        close: Option<&'static str>,
    ) -> Self {
        Self {
            format,
            keys: &NAME_ARGUMENTS,
            body,
            close,
        }
    }
}

/// Where a list parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Consuming the marker the probe confirmed. -> Value.
    Prefix { left: usize },
    /// Inside a JSON value. -> Between / Close / done.
    Value,
    /// After an object of a separated sequence: separator or the end. -> Value / Close / done.
    Between,
    /// After the body: whitespace and the closing tag. -> done.
    Close,
}

/// The parser of a list dialect's region.
pub(crate) struct ListParser {
    spec: &'static ListSpec,
    state: State,
    tok: JsonTokenizer,
    tok_base: Option<usize>,
    calls: CallObjects,
}

impl ListParser {
    /// A parser whose region starts with `prefix_len` bytes of marker (and
    /// whitespace) before the JSON body.
    pub(crate) fn new(spec: &'static ListSpec, prefix_len: usize) -> Self {
        Self {
            spec,
            state: State::Prefix { left: prefix_len },
            tok: JsonTokenizer::new(),
            tok_base: None,
            calls: CallObjects::new(spec),
        }
    }

    fn after_value(&self) -> State {
        match self.spec.body {
            Body::Objects { separator: Some(_) } => State::Between,
            _ => State::Close,
        }
    }
}

impl CallParser for ListParser {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.state {
                State::Prefix { left } => {
                    let n = left.min(bytes.len() - i);
                    i += n;
                    if left > n {
                        self.state = State::Prefix { left: left - n };
                        return Parsed::need_more(i);
                    }
                    self.state = State::Value;
                }
                State::Value => {
                    let base = *self.tok_base.get_or_insert(sink.base + i);
                    let Self { tok, calls, .. } = self;
                    let status = tok.feed(&input[i..], &mut |ev| calls.event(ev, base, sink));
                    match status {
                        TokStatus::NeedMore => return Parsed::need_more(bytes.len()),
                        TokStatus::Stopped(n) => {
                            return match self.calls.verdict.take() {
                                Some(Verdict::Invalid(m)) => {
                                    Parsed::abandon(i + n, DiagnosticKind::Invalid, m)
                                }
                                _ => Parsed::reject(),
                            };
                        }
                        TokStatus::Invalid(n) => {
                            if self.calls.committed() {
                                return Parsed::abandon(
                                    i + n,
                                    DiagnosticKind::Invalid,
                                    "the call list is not valid json",
                                );
                            }
                            return Parsed::reject();
                        }
                        TokStatus::Done(n) => {
                            i += n;
                            self.state = self.after_value();
                        }
                    }
                }
                State::Between => {
                    let Body::Objects {
                        separator: Some(sep),
                    } = self.spec.body
                    else {
                        self.state = State::Close;
                        continue;
                    };
                    // ws* SEP ws* `{`: another call object; anything else ends the body.
                    let rest = &bytes[i..];
                    let ws1 = leading_ws(rest);
                    let next = match rest.get(ws1) {
                        None => None,
                        Some(&b) if b == sep => {
                            let ws2 = leading_ws(&rest[ws1 + 1..]);
                            rest.get(ws1 + 1 + ws2).map(|&b| (b == b'{', ws1 + 1 + ws2))
                        }
                        Some(_) => Some((false, 0)),
                    };
                    match next {
                        Some((true, skip)) if skip <= MAX_TAG_GAP => {
                            i += skip;
                            self.tok = JsonTokenizer::new();
                            self.tok_base = None;
                            self.calls.next_value();
                            self.state = State::Value;
                        }
                        None if !eof && rest.len() <= MAX_TAG_GAP => {
                            return Parsed::need_more(i);
                        }
                        _ => self.state = State::Close,
                    }
                }
                State::Close => {
                    return match body_end(bytes, i, self.spec.close, eof) {
                        Some(end) => Parsed::done(end),
                        None => Parsed::need_more(i),
                    };
                }
            }
        }
    }
}

/// Reads the call objects of a body and emits their calls.
#[derive(Debug)]
struct CallObjects {
    spec: &'static ListSpec,
    /// Nesting depth of the value being tokenized.
    depth: usize,
    /// The depth of a call object's own keys (2 in an array, 1 alone).
    element_depth: usize,
    key: CallKey,
    element: Option<Element>,
    /// A registered name was seen or a call ended: broken JSON from here on is
    /// a broken call, not text that merely looked like one.
    named: bool,
    verdict: Option<Verdict>,
}

impl CallObjects {
    fn new(spec: &'static ListSpec) -> Self {
        Self {
            spec,
            depth: 0,
            element_depth: match spec.body {
                Body::Array => 2,
                Body::Objects { .. } => 1,
            },
            key: CallKey::Other,
            element: None,
            named: false,
            verdict: None,
        }
    }

    /// A new top-level value of a separated sequence begins.
    fn next_value(&mut self) {
        self.depth = 0;
        self.key = CallKey::Other;
        self.element = None;
    }

    fn committed(&self) -> bool {
        self.named
    }

    fn classify(&self, k: &str) -> CallKey {
        let keys = self.spec.keys;
        if keys.name.contains(&k) {
            CallKey::Name
        } else if keys.args.contains(&k) {
            CallKey::Args
        } else if keys.id.contains(&k) {
            CallKey::Id
        } else {
            CallKey::Other
        }
    }

    fn stop(&mut self, message: &str) -> Directive {
        self.verdict = Some(Verdict::Invalid(message.to_owned()));
        Directive::Stop
    }

    fn try_start(&mut self, sink: &mut CallSink<'_>, force: bool) {
        let format = self.spec.format;
        let wait_id = !self.spec.keys.id.is_empty();
        let Some(el) = self.element.as_mut() else {
            return;
        };
        let ready = force || !wait_id || el.object.id.is_some();
        self.named |= el.object.try_start(sink, format, ready);
    }

    fn end_element(&mut self, base: usize, at: usize, sink: &mut CallSink<'_>) -> Directive {
        self.try_start(sink, true);
        let Some(mut el) = self.element.take() else {
            return Directive::Continue;
        };
        let end = base + at + 1;
        let no_name = "a call object has no name";
        match el
            .object
            .end(el.start, end, self.spec.format, no_name, sink)
        {
            Ok(()) => Directive::Continue,
            Err(Verdict::Invalid(why)) => {
                // Its neighbours stay calls; a call it started never ends.
                let name = el.object.name.take();
                sink.broken(el.start, end, name, self.spec.format, why);
                Directive::Continue
            }
            Err(v) => {
                self.verdict = Some(v);
                Directive::Stop
            }
        }
    }

    fn event(&mut self, ev: JsonEvent<'_>, base: usize, sink: &mut CallSink<'_>) -> Directive {
        if self.verdict.is_some() {
            return Directive::Stop;
        }
        let ed = self.element_depth;
        match ev {
            JsonEvent::ObjectStart(at) => {
                self.depth += 1;
                if self.depth == ed {
                    self.element = Some(Element {
                        start: base + at,
                        ..Element::default()
                    });
                    self.key = CallKey::Other;
                }
            }
            JsonEvent::ObjectEnd(at) => {
                let was = self.depth;
                self.depth = self.depth.saturating_sub(1);
                if was == ed {
                    return self.end_element(base, at, sink);
                }
            }
            JsonEvent::ArrayStart(_) => {
                self.depth += 1;
                if self.depth == ed {
                    return self.stop("a call entry is not an object");
                }
            }
            JsonEvent::ArrayEnd(_) => self.depth = self.depth.saturating_sub(1),
            JsonEvent::Key(k) if self.depth == ed => {
                self.key = self.classify(k);
                if self.key == CallKey::Args {
                    return Directive::Raw;
                }
            }
            JsonEvent::Str(s) | JsonEvent::Scalar(s) if self.depth == ed => {
                let Some(el) = self.element.as_mut() else {
                    return Directive::Continue;
                };
                match self.key {
                    // A started call keeps the name it started with.
                    CallKey::Name if el.object.call.is_none() => {
                        el.object.name = Some(s.to_owned())
                    }
                    CallKey::Id => el.object.id = Some(s.to_owned()),
                    _ => return Directive::Continue,
                }
                self.try_start(sink, false);
            }
            JsonEvent::Str(_) | JsonEvent::Scalar(_) if self.depth + 1 == ed => {
                return self.stop("a call entry is not an object");
            }
            JsonEvent::RawStart(kind, at) => {
                if let Some(el) = self.element.as_mut() {
                    el.object.args.start_at(kind, base + at, sink);
                }
                self.try_start(sink, false);
            }
            JsonEvent::RawChunk(c) => element_args(&mut self.element, c, sink),
            ev => element_raw(&mut self.element, ev, base, sink),
        }
        Directive::Continue
    }
}

/// Probes `marker`, then (when `gap`) optional whitespace, then the body's
/// opener: `[` and a `{` after optional whitespace for an array, `{` for
/// objects. Builds the parser on a match.
pub(crate) fn probe_list(
    input: &str,
    marker: &str,
    gap: bool,
    spec: &'static ListSpec,
    cx: &ProbeContext<'_>,
) -> Probe {
    let bytes = input.as_bytes();
    match starts(bytes, marker.as_bytes()) {
        Some(false) => return Probe::NoMatch,
        None => return cx.need_more(),
        Some(true) => {}
    }
    let at = marker.len()
        + if gap {
            leading_ws(&bytes[marker.len()..])
        } else {
            0
        };
    let opened = match (spec.body, bytes.get(at)) {
        (_, None) => None,
        (Body::Array, Some(b'[')) => {
            let inner = at + 1 + leading_ws(&bytes[at + 1..]);
            bytes.get(inner).map(|&b| b == b'{')
        }
        (Body::Objects { .. }, Some(b'{')) => Some(true),
        _ => Some(false),
    };
    match opened {
        Some(true) => Probe::Match(Box::new(ListParser::new(spec, at))),
        Some(false) => Probe::NoMatch,
        None => cx.need_more(),
    }
}
