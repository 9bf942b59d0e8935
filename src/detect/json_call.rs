//! The call parser shared by the JSON dialects: an optional wrapper tag, one JSON
//! envelope read by [`JsonTokenizer`], an optional closing tag. What the
//! envelope means is up to an [`EnvelopeHandler`], one per dialect.

use crate::core::{DiagnosticKind, JsonObject, WireFormat};

use super::format::{CallParser, Parsed, Probe, ProbeContext, Tail, closing_tag};
use super::json_tokenizer::{Directive, JsonEvent, JsonTokenizer, TokStatus, ValueKind};
use super::scan::leading_ws;
use super::sink::{CallSink, finished_call};

/// A handler's decision that the envelope is not (or not a valid) call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Not a call: scan the text again.
    Reject,
    /// A call envelope that is broken.
    Invalid(String),
}

/// The meaning of one dialect's envelope.
pub(crate) trait EnvelopeHandler: Send {
    /// One structural event; `base` is the region offset of the tokenizer's byte 0.
    fn event(&mut self, ev: JsonEvent<'_>, base: usize, sink: &mut CallSink<'_>) -> Directive;
    /// A decision taken during `event` (returned there as `Directive::Stop`).
    fn verdict(&mut self) -> Option<Verdict>;
    /// Whether a call was started (a broken envelope is then `Invalid`, not `Reject`).
    fn started(&self) -> bool;
    /// The top-level value ended at region offset `end`.
    fn finish(&mut self, base: usize, end: usize, sink: &mut CallSink<'_>) -> Result<(), Verdict>;
}

/// Where a JSON call parser is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonState {
    /// Consuming the wrapper opener the probe confirmed. -> Json.
    Prefix { left: usize },
    /// Inside the envelope. -> Suffix / done.
    Json,
    /// After the envelope: whitespace and the closing tag, if any. -> done.
    Suffix,
}

/// A JSON dialect's call parser.
pub(crate) struct JsonCallParser<H> {
    state: JsonState,
    suffix: Option<&'static str>,
    tok: JsonTokenizer,
    tok_base: Option<usize>,
    handler: H,
}

impl<H: EnvelopeHandler> JsonCallParser<H> {
    /// A parser that skips `prefix_len` bytes, reads one envelope, then an
    /// optional `suffix` tag.
    pub(crate) fn new(prefix_len: usize, suffix: Option<&'static str>, handler: H) -> Self {
        Self {
            state: JsonState::Prefix { left: prefix_len },
            suffix,
            tok: JsonTokenizer::new(),
            tok_base: None,
            handler,
        }
    }
}

impl<H: EnvelopeHandler> CallParser for JsonCallParser<H> {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.state {
                JsonState::Prefix { left } => {
                    let n = left.min(bytes.len() - i);
                    i += n;
                    if left > n {
                        self.state = JsonState::Prefix { left: left - n };
                        return Parsed::need_more(i);
                    }
                    self.state = JsonState::Json;
                }
                JsonState::Json => {
                    let base = *self.tok_base.get_or_insert(sink.base + i);
                    let Self { tok, handler, .. } = self;
                    let status = tok.feed(&input[i..], &mut |ev| handler.event(ev, base, sink));
                    match status {
                        TokStatus::NeedMore => {
                            return Parsed::need_more(bytes.len());
                        }
                        TokStatus::Stopped(n) => {
                            return match self.handler.verdict() {
                                Some(Verdict::Invalid(m)) => {
                                    Parsed::abandon(i + n, DiagnosticKind::Invalid, m)
                                }
                                _ => Parsed::reject(),
                            };
                        }
                        TokStatus::Invalid(n) => {
                            if self.handler.started() {
                                return Parsed::abandon(
                                    i + n,
                                    DiagnosticKind::Invalid,
                                    "the call envelope is not valid json",
                                );
                            }
                            return Parsed::reject();
                        }
                        TokStatus::Done(n) => {
                            i += n;
                            let end = sink.base + i;
                            match self.handler.finish(base, end, sink) {
                                Ok(()) => {}
                                Err(Verdict::Reject) => return Parsed::reject(),
                                Err(Verdict::Invalid(m)) => {
                                    return Parsed::abandon(i, DiagnosticKind::Invalid, m);
                                }
                            }
                            if self.suffix.is_none() {
                                return Parsed::done(i);
                            }
                            self.state = JsonState::Suffix;
                        }
                    }
                }
                JsonState::Suffix => {
                    let Some(suffix) = self.suffix else {
                        return Parsed::done(i);
                    };
                    return match closing_tag(bytes, i, suffix.as_bytes(), eof, usize::MAX) {
                        Tail::Closed(end) => Parsed::done(end),
                        Tail::Absent | Tail::Ended => Parsed::done(i),
                        Tail::NeedMore => Parsed::need_more(i),
                    };
                }
            }
        }
    }
}

/// Which key of a call object the tokenizer is in, as far as it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum CallKey {
    #[default]
    Other,
    /// The tool name's key.
    Name,
    /// The call id's key.
    Id,
    /// The arguments' key.
    Args,
}

/// A call object being read (an envelope, or one element of a list): its name
/// and id as they arrive, its call once started, its arguments.
#[derive(Debug, Default)]
pub(crate) struct CallObject {
    pub(crate) name: Option<String>,
    pub(crate) id: Option<String>,
    /// The started call's index and id.
    pub(crate) call: Option<(usize, String)>,
    pub(crate) args: ArgsCapture,
}

impl CallObject {
    /// Starts the call once its name is a registered tool and `ready` (the
    /// dialect's own condition: the id known, the arguments begun, the object
    /// ended) holds, then emits what the arguments held back. Returns whether
    /// the name was found to be a tool here (the call was not started before).
    #[inline]
    pub(crate) fn try_start(
        &mut self,
        sink: &mut CallSink<'_>,
        format: WireFormat,
        ready: bool,
    ) -> bool {
        let mut named = false;
        if self.call.is_none()
            && let Some(name) = &self.name
            && sink.is_tool(name)
        {
            named = true;
            if ready {
                self.call = Some(sink.start(self.id.as_deref(), name, format));
            }
        }
        self.args.flush(self.call.as_ref().map(|c| c.0), sink);
        named
    }

    /// The arguments' raw events (`RawStart`, `RawEnd` at region offsets from
    /// `base`, `RawChunk`); other events are ignored.
    #[inline(always)]
    pub(crate) fn raw(&mut self, ev: JsonEvent<'_>, base: usize, sink: &mut CallSink<'_>) {
        match ev {
            JsonEvent::RawStart(kind, at) => self.args.start_at(kind, base + at, sink),
            JsonEvent::RawEnd { at, string } => self.args.end_at(base + at, string),
            JsonEvent::RawChunk(c) => self.push_args(c, sink),
            _ => {}
        }
    }

    /// A piece of the arguments (a `RawChunk`: the per-delta path, which
    /// handlers match first so that it takes one dispatch).
    #[inline(always)]
    pub(crate) fn push_args(&mut self, chunk: &str, sink: &mut CallSink<'_>) {
        self.args.push(chunk, self.call.as_ref().map(|c| c.0), sink);
    }

    /// The object spanning region offsets `start..end` ended (after a last
    /// [`try_start`](Self::try_start)): its call ends, or an unknown tool's
    /// object is given back as text. `no_name` is the error when it has no name.
    pub(crate) fn end(
        &mut self,
        start: usize,
        end: usize,
        format: WireFormat,
        no_name: &str,
        sink: &mut CallSink<'_>,
    ) -> Result<(), Verdict> {
        let Some(name) = self.name.take() else {
            return Err(Verdict::Invalid(no_name.to_owned()));
        };
        let Some((index, id)) = self.call.take() else {
            sink.unknown(start, end, &name, format);
            return Ok(());
        };
        let arguments = match self.args.finish(index, sink) {
            Ok(arguments) => arguments,
            Err(verdict) => {
                // The name stays for the diagnostic of a broken list element.
                self.name = Some(name);
                return Err(verdict);
            }
        };
        sink.end(index, finished_call(id, name, arguments, format), end);
        Ok(())
    }
}

/// One call object of a list (an element), from its `{` at region offset `start`.
#[derive(Debug, Default)]
pub(crate) struct Element {
    pub(crate) start: usize,
    pub(crate) object: CallObject,
}

/// [`CallObject::push_args`] for the element being read, if any.
#[inline]
pub(crate) fn element_args(element: &mut Option<Element>, chunk: &str, sink: &mut CallSink<'_>) {
    if let Some(el) = element {
        el.object.push_args(chunk, sink);
    }
}

/// [`CallObject::raw`] for the element being read, if any.
#[inline]
pub(crate) fn element_raw(
    element: &mut Option<Element>,
    ev: JsonEvent<'_>,
    base: usize,
    sink: &mut CallSink<'_>,
) {
    if let Some(el) = element {
        el.object.raw(ev, base, sink);
    }
}

/// Captures an arguments value: streams it when it is an object (raw text) or a
/// string (decoded text, which must hold an object); holds anything else.
#[derive(Debug, Default)]
pub(crate) struct ArgsCapture {
    kind: Option<ValueKind>,
    /// The value's text as far as it is kept: all of it, except while a
    /// span is read from the region or a string's streamed pieces are
    /// skipped (see `string_from`), when it holds only what was held back
    /// before the call started.
    text: String,
    /// How much of `text` was emitted; `emitted == text.len()` means
    /// nothing is held back.
    emitted: usize,
    /// Region offsets where an object's text starts and (once known) ends,
    /// when the handler reports them ([`start_at`](Self::start_at)): the
    /// text is then read back from the region at the end, and only what is
    /// held before the call starts is kept here.
    span: Option<(usize, Option<usize>)>,
    /// For a string value begun at [`start_at`](Self::start_at): the length
    /// of `text` when it began. Its pieces are then not copied once they
    /// can be emitted as they come; [`end_at`](Self::end_at) puts the whole
    /// decoded string, which the tokenizer collects anyway, in their place.
    string_from: Option<usize>,
    /// Whether a piece of that string was emitted without being copied.
    skipped: bool,
}

impl ArgsCapture {
    /// The value began.
    pub(crate) fn start(&mut self, kind: ValueKind) {
        self.kind = Some(kind);
    }

    /// The value began at region offset `at`. An object is then not copied
    /// as it streams: [`finish`](Self::finish) parses it from the region
    /// (one copy at most, where [`push`](Self::push) would make one per
    /// piece).
    ///
    /// Only the first value of a capture is read from the region. A key that
    /// comes twice (`"arguments":"0","arguments":{…}`) streams both values,
    /// and its arguments are what both make together, as without the region:
    /// the first value's text is then taken from the region into the copy.
    pub(crate) fn start_at(&mut self, kind: ValueKind, at: usize, sink: &CallSink<'_>) {
        let fresh = self.kind.is_none() && self.text.is_empty() && self.span.is_none();
        self.unspan(sink);
        self.kind = Some(kind);
        if fresh && kind == ValueKind::Object {
            self.span = Some((at, None));
        }
        if kind == ValueKind::String {
            self.string_from = Some(self.text.len());
        }
    }

    /// Back from reading the region to keeping a copy: the copy gets the
    /// whole value so far. What is held in the copy is a prefix of the value
    /// (pieces are only copied before the call starts, then emitted as they
    /// come), so what follows it in the region was emitted. A span whose
    /// text cannot be read stays, ended nowhere: `finish` then fails.
    fn unspan(&mut self, sink: &CallSink<'_>) {
        let Some((start, Some(end))) = self.span else {
            return;
        };
        let Some(full) = sink.region_text(start, end) else {
            self.span = Some((start, None));
            return;
        };
        self.emitted += full.len().saturating_sub(self.text.len());
        self.text = full.into_owned();
        self.span = None;
    }

    /// The value that began at [`start_at`](Self::start_at) ended just
    /// before region offset `at`; a string's whole decoded content is
    /// `string` (from [`JsonEvent::RawEnd`]), taken when nothing was held
    /// before it (the tokenizer gets the spare buffer back).
    pub(crate) fn end_at(&mut self, at: usize, string: Option<&mut String>) {
        if let Some((_, end)) = &mut self.span {
            *end = Some(at);
        }
        if let (Some(from), Some(string)) = (self.string_from.take(), string)
            && std::mem::take(&mut self.skipped)
        {
            // Every piece was emitted: what was held before the call
            // started was flushed when it started, the rest as it came.
            self.text.truncate(from);
            if self.text.is_empty() {
                std::mem::swap(&mut self.text, string);
            } else {
                self.text.push_str(string);
            }
            self.emitted = self.text.len();
        }
    }

    /// Whether the value has begun.
    pub(crate) fn begun(&self) -> bool {
        self.kind.is_some()
    }

    /// More of the value, emitted at once when the call has started and the
    /// value streams (else held until [`flush`](Self::flush)).
    ///
    /// With nothing held back, the fragment is emitted from `s` itself rather
    /// than read back from `text`: a small copy ends in masked vector stores
    /// (glibc's AVX-512 `memmove`), and a load of bytes that such a store has
    /// just written waits for the store to retire instead of being forwarded
    /// from it (measured: most of the time a 4-byte delta spent in `flush`).
    pub(crate) fn push(&mut self, s: &str, index: Option<usize>, sink: &mut CallSink<'_>) {
        if let (Some(index), Some(ValueKind::Object | ValueKind::String)) = (index, self.kind)
            && self.emitted == self.text.len()
        {
            sink.args(index, s);
            if self.string_from.is_some() {
                self.skipped = true;
            } else if self.span.is_none() {
                self.text.push_str(s);
                self.emitted = self.text.len();
            }
            return;
        }
        self.text.push_str(s);
        self.flush(index, sink);
    }

    /// Emits what is new, when the call has started and the value streams.
    pub(crate) fn flush(&mut self, index: Option<usize>, sink: &mut CallSink<'_>) {
        let (Some(index), Some(ValueKind::Object | ValueKind::String)) = (index, self.kind) else {
            return;
        };
        if self.emitted < self.text.len() {
            sink.args(index, &self.text[self.emitted..]);
            self.emitted = self.text.len();
        }
    }

    /// The finished arguments object; emits `{}` when there were none.
    pub(crate) fn finish(
        &mut self,
        index: usize,
        sink: &mut CallSink<'_>,
    ) -> Result<JsonObject, Verdict> {
        self.flush(Some(index), sink);
        let empty = |sink: &mut CallSink<'_>| {
            sink.args(index, "{}");
            Ok(JsonObject::new())
        };
        let parse = |text: &str| {
            super::json_value::parse_arguments(text)
                .map_err(|e| Verdict::Invalid(format!("arguments are not a json object: {e}")))
        };
        if let Some((start, end)) = self.span {
            let invalid = || Verdict::Invalid("arguments are not a json object".to_owned());
            let text = end
                .and_then(|end| sink.region_text(start, end))
                .ok_or_else(invalid)?;
            return parse(&text);
        }
        match self.kind {
            None => empty(sink),
            Some(ValueKind::Object | ValueKind::String) if is_json_whitespace(&self.text) => {
                empty(sink)
            }
            Some(ValueKind::Scalar) if self.text == "null" => empty(sink),
            Some(ValueKind::Object | ValueKind::String) => parse(&self.text),
            Some(_) => Err(Verdict::Invalid(
                "arguments are not a json object".to_owned(),
            )),
        }
    }
}

/// Whether `s` is empty or only JSON whitespace (space, tab, LF, CR). Not
/// `str::trim`: that also strips characters such as U+000B, which are not JSON
/// whitespace, so streamed fragments followed by `{}` would not be JSON.
pub(crate) fn is_json_whitespace(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// Probes a bare JSON envelope (no wrapper tag): a call region opens when the
/// object's first key is one that `opens` accepts, read by a default `H`.
pub(crate) fn probe_envelope<H>(
    input: &str,
    cx: &ProbeContext<'_>,
    opens: fn(&str) -> bool,
) -> Probe
where
    H: EnvelopeHandler + Default + 'static,
{
    match first_key(input) {
        FirstKey::Key(k) if opens(k) => {
            Probe::Match(Box::new(JsonCallParser::new(0, None, H::default())))
        }
        FirstKey::NeedMore if !cx.eof => Probe::NeedMore,
        _ => Probe::NoMatch,
    }
}

/// Reads `{` ws* `"KEY"` at the start of `input`: the first key of an object.
enum FirstKey<'a> {
    Key(&'a str),
    NeedMore,
    NotAnObject,
}

fn first_key(input: &str) -> FirstKey<'_> {
    let bytes = input.as_bytes();
    if bytes.first() != Some(&b'{') {
        return FirstKey::NotAnObject;
    }
    let ws = leading_ws(&bytes[1..]);
    let q = 1 + ws;
    match bytes.get(q) {
        None => return FirstKey::NeedMore,
        Some(b'"') => {}
        Some(_) => return FirstKey::NotAnObject,
    }
    match super::scan::find2(b'"', b'\\', &bytes[q + 1..]) {
        None if bytes.len() - q > 32 => FirstKey::NotAnObject,
        None => FirstKey::NeedMore,
        Some(rel) if bytes[q + 1 + rel] == b'"' => FirstKey::Key(&input[q + 1..q + 1 + rel]),
        Some(_) => FirstKey::NotAnObject,
    }
}
