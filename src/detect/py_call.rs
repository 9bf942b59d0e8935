//! The call parser shared by the pythonic dialects: a list of calls
//! `[f(a=1), g()]` (bare, or inside a wrapper such as `<|tool_call_start|>`),
//! or one call per line inside a block (Olmo 3's `<function_calls>`).
//!
//! Each call's keyword arguments go through [`ArgsConv`], which streams them as
//! JSON while the model writes them. A call's `CallEnd` waits for the end of
//! its list (or block): a list that fails (no `[`, an element that is not
//! `name(`, junk where `,` or `]` belongs, cut off) gives its whole text
//! back, so prose that happens to start like a call list never runs a tool.
//!
//! One element does not take its neighbours down. An element
//! naming an unknown tool goes back as text on its own. So does a broken
//! call, once its `name(` is read: arguments that are not literals (a name,
//! an operator, `b'…'`, a positional argument, an infinite number) or do not
//! convert; it is skipped from where it broke to its end by the rule of
//! [`CallSkip`] (after the `)` that balances its `(`, or before the list's
//! `]` or closing wrapper when it never balances), goes back as text with an
//! `invalid` diagnostic (a call it had started never ends), and the list goes
//! on. A JSON envelope (LFM2) that is valid JSON but not a call (no name,
//! arguments that are not an object) goes back the same way. The list's own
//! markup (`[`, `,`, `]`, wrappers) stays in the region when any element is
//! a call; with none, the whole list goes back.

use crate::core::{DiagnosticKind, JsonObject, ToolCall, WireFormat};

use super::config::MAX_TAG_GAP;
use super::format::{CallParser, Parsed, body_end};
use super::json_call::{ArgsCapture, CallKey};
use super::json_tokenizer::{Directive, JsonEvent, JsonTokenizer, TokStatus};
use super::py_literal::{ArgsConv, Step, Syntax};
use super::resync::{Broken, CallSkip, Rule, Skip};
use super::scan::{leading_ws, starts};
use super::sink::{CallSink, finished_call};

/// The longest tool name read in a list.
const MAX_NAME: usize = 256;

/// The shape of one pythonic dialect.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListSpec {
    pub(crate) format: WireFormat,
    /// Bytes of the opening wrapper the probe confirmed (0 for a bare list).
    pub(crate) open_len: usize,
    /// Calls inside `[…]` (else one per line, Olmo 3).
    pub(crate) bracketed: bool,
    /// The closing wrapper, if any (optional at end of stream).
    pub(crate) close: Option<&'static str>,
    /// Elements may also be JSON envelopes `{"name": …, "arguments": {…}}` (LFM2).
    pub(crate) json_entries: bool,
}

/// Where a list parser is.
enum LState {
    /// Consuming the wrapper the probe confirmed. -> ListOpen / Entry.
    Opening { left: usize },
    /// Whitespace, then `[` (or, with JSON entries, one bare envelope `{`). -> Entry / Json.
    ListOpen,
    /// An element, `]` (bracketed) or the closing wrapper (lines). -> Name / Json / Close / done.
    Entry,
    /// Reading a tool name. -> Args.
    Name,
    /// Inside a call's arguments. -> AfterEntry.
    Args(Box<ArgsConv>),
    /// Inside a JSON envelope element. -> AfterEntry.
    Json(Box<JsonEntry>),
    /// A broken call, skipped to its end ([`CallSkip`]). -> AfterEntry.
    Skip(Box<Broken>),
    /// After an element: `,` or `]` (bracketed). -> Entry / Close.
    AfterEntry,
    /// After `]`: whitespace and the closing wrapper. -> done.
    Close,
}

/// A call whose body is complete, waiting for its list to end.
struct Ended {
    index: usize,
    call: ToolCall,
    end: usize,
}

/// The parser of one pythonic call region.
pub(crate) struct PyListParser {
    spec: ListSpec,
    state: LState,
    /// Region offset where the current element starts.
    start: usize,
    name: String,
    call: Option<(usize, String)>,
    ended: Vec<Ended>,
    entries: usize,
    /// One JSON envelope without the list (LFM2 `<|tool_call_start|>{…}`).
    bare: bool,
}

impl PyListParser {
    pub(crate) fn new(spec: ListSpec) -> Self {
        Self {
            state: LState::Opening {
                left: spec.open_len,
            },
            spec,
            start: 0,
            name: String::new(),
            call: None,
            ended: Vec::new(),
            entries: 0,
            bare: false,
        }
    }

    /// The list ended well: every call it holds ends now.
    fn flush_ended(&mut self, sink: &mut CallSink<'_>) {
        for e in self.ended.drain(..) {
            sink.end(e.index, e.call, e.end);
        }
    }

    fn done(&mut self, used: usize, sink: &mut CallSink<'_>) -> Parsed {
        self.flush_ended(sink);
        Parsed::done(used)
    }

    /// The current element ended at region offset `end`.
    fn end_entry(&mut self, arguments: JsonObject, end: usize, sink: &mut CallSink<'_>) {
        self.entries += 1;
        match self.call.take() {
            Some((index, id)) => self.ended.push(Ended {
                index,
                call: finished_call(id, &self.name, arguments, self.spec.format),
                end,
            }),
            None => sink.unknown(self.start, end, &self.name, self.spec.format),
        }
    }
}

impl PyListParser {
    /// The call being read broke (`why`) with brackets open whose closers
    /// are `open`: skip it.
    #[cold]
    #[inline(never)]
    fn break_call(&mut self, why: String, open: Vec<u8>) {
        self.entries += 1;
        let unknown = self.call.take().is_none();
        let name = std::mem::take(&mut self.name);
        let skip = CallSkip::new(open, self.spec.bracketed, self.spec.close);
        let broken = Broken::new(self.start, Some(name), unknown, why, Rule::Call(skip));
        self.state = LState::Skip(broken);
    }

    /// The element ending at region offset `end` is complete but not a call
    /// (`why`): it goes back as text.
    #[cold]
    #[inline(never)]
    fn broken_entry(&mut self, end: usize, why: &str, sink: &mut CallSink<'_>) {
        self.entries += 1;
        self.call = None;
        let name = (!self.name.is_empty()).then(|| std::mem::take(&mut self.name));
        sink.broken(self.start, end, name, self.spec.format, why.to_owned());
        self.state = LState::AfterEntry;
    }
}

fn invalid(used: usize, message: impl Into<String>) -> Parsed {
    Parsed::abandon(used, DiagnosticKind::Invalid, message)
}

/// A byte of a tool name in a call list.
pub(crate) fn call_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

impl CallParser for PyListParser {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match &mut self.state {
                LState::Opening { left } => {
                    let n = (*left).min(bytes.len() - i);
                    i += n;
                    *left -= n;
                    if *left > 0 {
                        return Parsed::need_more(i);
                    }
                    self.state = if self.spec.bracketed {
                        LState::ListOpen
                    } else {
                        LState::Entry
                    };
                }
                LState::ListOpen => {
                    i += leading_ws(&bytes[i..]);
                    match bytes.get(i) {
                        None => return Parsed::need_more(i),
                        Some(b'[') => {
                            i += 1;
                            self.state = LState::Entry;
                        }
                        Some(b'{') if self.spec.json_entries => {
                            self.bare = true;
                            self.start = sink.base + i;
                            self.state = LState::Json(Box::new(JsonEntry::new(self.spec.format)));
                        }
                        Some(_) => return invalid(i, "expected `[` to open the call list"),
                    }
                }
                LState::Entry => {
                    // Between the lines of a block, a comma is a separator too.
                    let lines = !self.spec.bracketed;
                    let ws = bytes[i..]
                        .iter()
                        .take_while(|&&b| b.is_ascii_whitespace() || (lines && b == b','))
                        .count();
                    let j = i + ws;
                    if lines && self.entries > 0 && ws > MAX_TAG_GAP {
                        // A longer run ends the block before it, whatever follows:
                        // the run alone decides, so where the deltas were cut (and
                        // how much of the run was held) never matters.
                        return self.done(i, sink);
                    }
                    let Some(&b) = bytes.get(j) else {
                        if eof && !self.spec.bracketed && self.entries > 0 {
                            // The block lacks only its closing wrapper.
                            return self.done(i, sink);
                        }
                        // Between the lines of a block, whitespace is held (a
                        // bounded run) in case the block ends here.
                        let hold = !self.spec.bracketed && ws <= MAX_TAG_GAP;
                        return Parsed::need_more(if hold { i } else { j });
                    };
                    if self.spec.bracketed && b == b']' {
                        if self.entries == 0 {
                            return invalid(j, "the call list is empty");
                        }
                        i = j + 1;
                        if self.spec.close.is_none() {
                            return self.done(i, sink);
                        }
                        self.state = LState::Close;
                        continue;
                    }
                    if !self.spec.bracketed
                        && let Some(close) = self.spec.close
                    {
                        match starts(&bytes[j..], close.as_bytes()) {
                            Some(true) if self.entries > 0 => {
                                return self.done(j + close.len(), sink);
                            }
                            Some(true) => return invalid(j, "the block holds no call"),
                            None if !eof => {
                                return Parsed::need_more(if ws <= MAX_TAG_GAP { i } else { j });
                            }
                            _ => {}
                        }
                    }
                    if b.is_ascii_alphabetic() || b == b'_' {
                        self.start = sink.base + j;
                        self.name.clear();
                        self.state = LState::Name;
                        i = j;
                    } else if b == b'{' && self.spec.json_entries {
                        self.start = sink.base + j;
                        self.state = LState::Json(Box::new(JsonEntry::new(self.spec.format)));
                        i = j;
                    } else if !self.spec.bracketed && self.entries > 0 {
                        // Not another call: the block ends before this.
                        return self.done(i, sink);
                    } else {
                        return invalid(j, "expected a call");
                    }
                }
                LState::Name => {
                    let n = bytes[i..]
                        .iter()
                        .take_while(|&&b| call_name_byte(b))
                        .count();
                    if self.name.len() + n > MAX_NAME {
                        return invalid(i, "a tool name is too long");
                    }
                    self.name.push_str(&input[i..i + n]);
                    i += n;
                    match bytes.get(i) {
                        None => return Parsed::need_more(i),
                        Some(b'(') => {
                            i += 1;
                            self.call = sink
                                .is_tool(&self.name)
                                .then(|| sink.start(None, &self.name, self.spec.format));
                            self.state = LState::Args(Box::new(ArgsConv::new(Syntax::Python)));
                        }
                        Some(_) => {
                            return invalid(i, format!("expected `(` after `{}`", self.name));
                        }
                    }
                }
                LState::Args(conv) => {
                    let index = self.call.as_ref().map(|c| c.0);
                    match conv.feed_streaming(&input[i..], eof, &self.name, index, sink) {
                        Step::NeedMore(n) => return Parsed::need_more(i + n),
                        Step::Invalid(n, message) => {
                            i += n;
                            let open = conv.closers();
                            self.break_call(message, open);
                        }
                        Step::Done(n) => {
                            i += n;
                            let arguments = if self.call.is_some() {
                                match conv.arguments() {
                                    Ok(a) => a,
                                    Err(message) => {
                                        self.broken_entry(sink.base + i, &message, sink);
                                        continue;
                                    }
                                }
                            } else {
                                JsonObject::new()
                            };
                            self.state = LState::AfterEntry;
                            self.end_entry(arguments, sink.base + i, sink);
                        }
                    }
                }
                LState::Json(entry) => {
                    let JsonEntry { tok, handler } = &mut **entry;
                    let status = tok.feed(&input[i..], &mut |ev| handler.event(ev, sink));
                    match status {
                        TokStatus::NeedMore => return Parsed::need_more(bytes.len()),
                        TokStatus::Invalid(n) | TokStatus::Stopped(n) => {
                            return invalid(i + n, "the call envelope is not valid json");
                        }
                        TokStatus::Done(n) => {
                            i += n;
                            let Some(name) = handler.name.clone() else {
                                self.name.clear();
                                self.broken_entry(sink.base + i, "the call has no name", sink);
                                continue;
                            };
                            handler.try_start(sink);
                            self.name = name;
                            self.call = handler.call.take();
                            let arguments = match &self.call {
                                Some((index, _)) => match handler.args.finish(*index, sink) {
                                    Ok(a) => a,
                                    Err(_) => {
                                        let why = "arguments are not a json object";
                                        self.broken_entry(sink.base + i, why, sink);
                                        continue;
                                    }
                                },
                                None => JsonObject::new(),
                            };
                            self.state = LState::AfterEntry;
                            self.end_entry(arguments, sink.base + i, sink);
                        }
                    }
                }
                LState::Skip(broken) => {
                    let to = match broken.skip(&bytes[i..], eof) {
                        Skip::To(n) => i + n,
                        Skip::NeedMore(n) if !eof => return Parsed::need_more(i + n),
                        Skip::NeedMore(_) => bytes.len(),
                    };
                    // The state is the skip matched above.
                    if let LState::Skip(broken) =
                        std::mem::replace(&mut self.state, LState::AfterEntry)
                    {
                        broken.give_back(sink.base + to, self.spec.format, sink);
                    }
                    i = to;
                }
                LState::AfterEntry => {
                    if self.bare {
                        self.state = LState::Close;
                        continue;
                    }
                    if !self.spec.bracketed {
                        self.state = LState::Entry;
                        continue;
                    }
                    i += leading_ws(&bytes[i..]);
                    match bytes.get(i) {
                        None => return Parsed::need_more(i),
                        Some(b',') => {
                            i += 1;
                            self.state = LState::Entry;
                        }
                        Some(b']') => {
                            i += 1;
                            if self.spec.close.is_none() {
                                return self.done(i, sink);
                            }
                            self.state = LState::Close;
                        }
                        Some(_) => return invalid(i, "expected `,` or `]` after a call"),
                    }
                }
                LState::Close => {
                    // The list is complete; only the closing wrapper may be missing.
                    return match body_end(bytes, i, self.spec.close, eof) {
                        Some(end) => self.done(end, sink),
                        None => Parsed::need_more(i),
                    };
                }
            }
        }
    }
}

/// A JSON envelope element `{"name": …, "arguments": {…}}` of a call list.
struct JsonEntry {
    tok: JsonTokenizer,
    handler: EntryHandler,
}

impl JsonEntry {
    fn new(format: WireFormat) -> Self {
        Self {
            tok: JsonTokenizer::new(),
            handler: EntryHandler {
                format,
                depth: 0,
                key: CallKey::Other,
                name: None,
                call: None,
                args: ArgsCapture::default(),
            },
        }
    }
}

/// Reads one envelope; the arguments stream once the name is known.
struct EntryHandler {
    format: WireFormat,
    depth: usize,
    key: CallKey,
    name: Option<String>,
    call: Option<(usize, String)>,
    args: ArgsCapture,
}

impl EntryHandler {
    fn try_start(&mut self, sink: &mut CallSink<'_>) {
        if self.call.is_none()
            && let Some(name) = &self.name
            && sink.is_tool(name)
        {
            self.call = Some(sink.start(None, name, self.format));
        }
        self.args.flush(self.call.as_ref().map(|c| c.0), sink);
    }

    fn event(&mut self, ev: JsonEvent<'_>, sink: &mut CallSink<'_>) -> Directive {
        match ev {
            JsonEvent::ObjectStart(_) | JsonEvent::ArrayStart(_) => self.depth += 1,
            JsonEvent::ObjectEnd(_) | JsonEvent::ArrayEnd(_) => {
                self.depth = self.depth.saturating_sub(1)
            }
            JsonEvent::Key(k) if self.depth == 1 => {
                self.key = match k {
                    "name" => CallKey::Name,
                    "arguments" | "parameters" => CallKey::Args,
                    _ => CallKey::Other,
                };
                if self.key == CallKey::Args {
                    return Directive::Raw;
                }
            }
            // A started call keeps the name it started with (as in the JSON lists).
            JsonEvent::Str(s)
                if self.depth == 1 && self.key == CallKey::Name && self.call.is_none() =>
            {
                self.name = Some(s.to_owned());
                self.try_start(sink);
            }
            JsonEvent::RawStart(kind, _) => self.args.start(kind),
            JsonEvent::RawChunk(c) => {
                self.args.push(c, self.call.as_ref().map(|c| c.0), sink);
            }
            _ => {}
        }
        Directive::Continue
    }
}
