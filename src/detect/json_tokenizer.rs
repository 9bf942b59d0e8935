//! An incremental JSON tokenizer for call envelopes: one top-level value, fed in
//! pieces, each byte examined once.
//!
//! It reports structure (objects, arrays, keys, small strings and scalars) to a
//! callback. When the callback answers [`Directive::Raw`] to a key, the value of
//! that key is not tokenized but passed through as [`JsonEvent::RawChunk`]s: raw
//! JSON text for objects, arrays and scalars, decoded content for strings (so an
//! `"arguments": "{\"a\":1}"` string yields the text `{"a":1}`). Escapes and
//! surrogate pairs split between pieces are carried in the decoder's state.

mod decode;
mod raw;
mod stack;

#[cfg(test)]
mod tests;

pub(crate) use decode::{SIMPLE_ESCAPES, StrDecoder, hex_value, surrogate_pair};
pub(crate) use raw::BracketScan;
use raw::RawScan;
use stack::{Container, ContainerStack};

/// What a raw-captured value turned out to be, from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// `{`.
    Object,
    /// `[`.
    Array,
    /// `"`: chunks are the decoded content, without quotes.
    String,
    /// A number, `true`, `false` or `null`.
    Scalar,
}

/// One piece of structure. Offsets are byte positions since the tokenizer began.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum JsonEvent<'a> {
    /// `{` at the offset.
    ObjectStart(usize),
    /// `}` at the offset.
    ObjectEnd(usize),
    /// `[` at the offset.
    ArrayStart(usize),
    /// `]` at the offset.
    ArrayEnd(usize),
    /// A complete object key (decoded).
    Key(&'a str),
    /// A complete string value (decoded), not raw-captured.
    Str(&'a str),
    /// A complete number or literal, not raw-captured.
    Scalar(&'a str),
    /// A raw-captured value begins, its first byte at the offset.
    RawStart(ValueKind, usize),
    /// More of a raw-captured value.
    RawChunk(&'a str),
    /// The raw-captured value ended just before `at`; for a string, `string`
    /// is its whole decoded content (what its `RawChunk`s made together).
    RawEnd {
        /// The offset just past the value.
        at: usize,
        /// A string's decoded content; `None` for other kinds. The owner may
        /// take the string (swap in an empty one): the tokenizer clears it
        /// after the event either way.
        string: Option<&'a mut String>,
    },
}

/// The callback's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Directive {
    /// Tokenize on.
    Continue,
    /// Capture the value of the key just reported raw.
    Raw,
    /// Stop at once: the caller has decided.
    Stop,
}

/// The outcome of one `feed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokStatus {
    /// All input consumed; the value is not complete.
    NeedMore,
    /// The top-level value ended; this many bytes of the input belong to it.
    Done(usize),
    /// The input is not JSON at this byte of the input.
    Invalid(usize),
    /// The callback asked to stop; this many bytes of the input were consumed.
    Stopped(usize),
}

/// Where the tokenizer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Expecting a value (skipping whitespace). -> InString / InScalar / InRaw / AfterValue (on `{`/`[` push).
    Value,
    /// After a value: `,` or a closing bracket. -> Key / Value / Done.
    AfterValue,
    /// Just after `{`: a key or `}`. -> InKey / AfterValue.
    KeyOrEnd,
    /// After `,` in an object: a key. -> InKey.
    Key,
    /// Inside a key string. -> Colon.
    InKey,
    /// After a key: `:`. -> Value.
    Colon,
    /// Inside a string value. -> AfterValue.
    InString,
    /// Inside a number or literal. -> AfterValue (at a delimiter, not consumed).
    InScalar,
    /// Inside a raw-captured value. -> AfterValue.
    InRaw,
    /// The top-level value is complete.
    Done,
}

/// An incremental tokenizer for one top-level JSON value.
#[derive(Debug, Default)]
pub(crate) struct JsonTokenizer {
    state: StateCell,
    stack: ContainerStack,
    buf: String,
    decoder: StrDecoder,
    raw: RawScan,
    raw_next: bool,
    /// A `<` outside the strings of a raw-captured object or array makes it
    /// invalid there ([`raw_value_before_tag`](Self::raw_value_before_tag)).
    tag_ends_raw: bool,
    consumed: usize,
}

#[derive(Debug)]
struct StateCell(State);

impl Default for StateCell {
    fn default() -> Self {
        StateCell(State::Value)
    }
}

impl JsonTokenizer {
    /// A tokenizer expecting one value.
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// A tokenizer whose whole top-level value is raw-captured, as if it were
    /// the value of a key answered with [`Directive::Raw`]: `RawStart`,
    /// `RawChunk`s, `RawEnd`. For arguments objects that stand alone (the
    /// special-token section dialects, Mistral v11 `[ARGS]{...}`).
    pub(crate) fn raw_value() -> Self {
        Self {
            raw_next: true,
            ..Self::default()
        }
    }

    /// [`raw_value`](Self::raw_value) for arguments that stand between special
    /// tokens (the section dialects): a `<` outside the object's strings, which
    /// JSON never has there, makes the value invalid at once
    /// ([`TokStatus::Invalid`] at the `<`), so that arguments whose brackets
    /// never balance end at the call's end token instead of running on.
    pub(crate) fn raw_value_before_tag() -> Self {
        Self {
            raw_next: true,
            tag_ends_raw: true,
            ..Self::default()
        }
    }

    /// Whether all of `input` lies inside a string of a raw-captured object
    /// or array and holds no quote and no backslash (none pending either):
    /// then feeding it only reports it as one `RawChunk`, which
    /// [`feed`](Self::feed) does without the loop. Not for a raw-captured
    /// string (open_ai_function's arguments): its pieces are rarely free of
    /// backslashes, and the check measured slower than it saves there.
    #[inline]
    fn plain_raw(&self, input: &str) -> bool {
        let inside = match (self.state.0, self.raw.kind) {
            (State::InRaw, Some(ValueKind::Object | ValueKind::Array)) => {
                self.raw.brackets.in_string_content()
            }
            _ => false,
        };
        inside && !input.is_empty() && super::scan::find2(b'"', b'\\', input.as_bytes()).is_none()
    }

    /// Feeds the next piece. Always inlined into its one caller per handler
    /// (`JsonCallParser::parse`, the list and section parsers): out of line,
    /// every event goes through the closure call and the per-delta path of the
    /// JSON dialects costs about a tenth more.
    #[inline(always)]
    pub(crate) fn feed<F>(&mut self, input: &str, on: &mut F) -> TokStatus
    where
        F: FnMut(JsonEvent<'_>) -> Directive,
    {
        // Most pieces of a long arguments object are plain text inside one
        // of its strings: one `RawChunk`, without the loop.
        if self.plain_raw(input) {
            if on(JsonEvent::RawChunk(input)) == Directive::Stop {
                return TokStatus::Stopped(input.len());
            }
            self.consumed += input.len();
            return TokStatus::NeedMore;
        }
        // Inside a raw-captured string (open_ai_function's arguments) the
        // piece goes straight to the string decoder; the loop takes over
        // only for what follows the closing quote.
        let mut from = 0;
        if self.state.0 == State::InRaw && self.raw.kind == Some(ValueKind::String) {
            let mut stopped = false;
            let mut on = |ev: JsonEvent<'_>| {
                let d = on(ev);
                stopped |= d == Directive::Stop;
                d
            };
            match self.raw_scan(input, 0, &mut on) {
                Err(e) => return TokStatus::Invalid(e),
                Ok(n) if stopped => return TokStatus::Stopped(n),
                Ok(n) if n == input.len() => {
                    self.consumed += n;
                    return TokStatus::NeedMore;
                }
                Ok(n) => {
                    self.consumed += n;
                    from = n;
                }
            }
        }
        match self.run(&input[from..], on) {
            TokStatus::NeedMore => {
                self.consumed += input.len() - from;
                TokStatus::NeedMore
            }
            TokStatus::Done(n) => {
                self.consumed += n;
                TokStatus::Done(from + n)
            }
            TokStatus::Invalid(n) => TokStatus::Invalid(from + n),
            TokStatus::Stopped(n) => TokStatus::Stopped(from + n),
        }
    }

    #[inline(always)]
    fn run<F>(&mut self, input: &str, on: &mut F) -> TokStatus
    where
        F: FnMut(JsonEvent<'_>) -> Directive,
    {
        let stopped = std::cell::Cell::new(false);
        let mut on = |ev: JsonEvent<'_>| {
            let d = on(ev);
            if d == Directive::Stop {
                stopped.set(true);
            }
            d
        };
        self.run_inner(input, &mut on, &stopped)
    }

    /// The tokenizer's loop, inlined with `run` and `feed` into each caller
    /// (see [`feed`](Self::feed)).
    #[inline(always)]
    fn run_inner<F>(
        &mut self,
        input: &str,
        on: &mut F,
        stopped: &std::cell::Cell<bool>,
    ) -> TokStatus
    where
        F: FnMut(JsonEvent<'_>) -> Directive,
    {
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if stopped.get() {
                return TokStatus::Stopped(i);
            }
            let at = self.consumed + i;
            match self.state.0 {
                State::Done => return TokStatus::Done(i),
                State::Value => {
                    let c = bytes[i];
                    if c.is_ascii_whitespace() {
                        i += 1;
                        continue;
                    }
                    if self.raw_next {
                        self.raw_next = false;
                        let kind = match c {
                            b'{' => ValueKind::Object,
                            b'[' => ValueKind::Array,
                            b'"' => ValueKind::String,
                            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => ValueKind::Scalar,
                            _ => return TokStatus::Invalid(i),
                        };
                        on(JsonEvent::RawStart(kind, at));
                        self.buf.clear();
                        self.raw = RawScan {
                            kind: Some(kind),
                            brackets: if self.tag_ends_raw {
                                BracketScan::stopping_at_tags()
                            } else {
                                BracketScan::default()
                            },
                        };
                        self.state.0 = State::InRaw;
                        if kind == ValueKind::String {
                            i += 1;
                        }
                        continue;
                    }
                    match c {
                        b'{' => {
                            self.stack.push(Container::Object);
                            on(JsonEvent::ObjectStart(at));
                            self.state.0 = State::KeyOrEnd;
                        }
                        b'[' => {
                            self.stack.push(Container::Array);
                            on(JsonEvent::ArrayStart(at));
                            self.state.0 = State::Value;
                        }
                        b'"' => {
                            self.buf.clear();
                            self.decoder = StrDecoder::default();
                            self.state.0 = State::InString;
                        }
                        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                            self.buf.clear();
                            self.state.0 = State::InScalar;
                            continue;
                        }
                        b']' if self.stack.last() == Some(Container::Array) => {
                            // `[ ]` split so that the look-ahead above missed it.
                            self.stack.pop();
                            on(JsonEvent::ArrayEnd(at));
                            self.after_value();
                        }
                        _ => return TokStatus::Invalid(i),
                    }
                    i += 1;
                }
                State::AfterValue => {
                    let c = bytes[i];
                    i += 1;
                    match (c, self.stack.last()) {
                        (c, _) if c.is_ascii_whitespace() => {}
                        (b',', Some(Container::Object)) => self.state.0 = State::Key,
                        (b',', Some(Container::Array)) => self.state.0 = State::Value,
                        (b'}', Some(Container::Object)) => {
                            self.stack.pop();
                            on(JsonEvent::ObjectEnd(at));
                            self.after_value();
                        }
                        (b']', Some(Container::Array)) => {
                            self.stack.pop();
                            on(JsonEvent::ArrayEnd(at));
                            self.after_value();
                        }
                        _ => return TokStatus::Invalid(i - 1),
                    }
                }
                State::KeyOrEnd | State::Key => {
                    let c = bytes[i];
                    i += 1;
                    match c {
                        c if c.is_ascii_whitespace() => {}
                        b'"' => {
                            self.buf.clear();
                            self.decoder = StrDecoder::default();
                            self.state.0 = State::InKey;
                        }
                        b'}' if self.state.0 == State::KeyOrEnd => {
                            self.stack.pop();
                            on(JsonEvent::ObjectEnd(at));
                            self.after_value();
                        }
                        _ => return TokStatus::Invalid(i - 1),
                    }
                }
                State::InKey | State::InString => {
                    match self.decoder.decode(&input[i..], &mut self.buf) {
                        Err(e) => return TokStatus::Invalid(i + e),
                        Ok(None) => i = bytes.len(),
                        Ok(Some(n)) => {
                            i += n;
                            if self.state.0 == State::InKey {
                                self.state.0 = State::Colon;
                                if on(JsonEvent::Key(&self.buf)) == Directive::Raw {
                                    self.raw_next = true;
                                }
                            } else {
                                on(JsonEvent::Str(&self.buf));
                                self.after_value();
                            }
                        }
                    }
                }
                State::Colon => {
                    let c = bytes[i];
                    i += 1;
                    match c {
                        c if c.is_ascii_whitespace() => {}
                        b':' => self.state.0 = State::Value,
                        _ => return TokStatus::Invalid(i - 1),
                    }
                }
                State::InScalar => {
                    let start = i;
                    while i < bytes.len() && is_scalar_byte(bytes[i]) {
                        i += 1;
                    }
                    self.buf.push_str(&input[start..i]);
                    if i < bytes.len() {
                        if !valid_scalar(&self.buf) {
                            return TokStatus::Invalid(i);
                        }
                        on(JsonEvent::Scalar(&self.buf));
                        self.after_value();
                    }
                }
                State::InRaw => match self.raw_scan(input, i, on) {
                    Ok(next) => i = next,
                    Err(e) => return TokStatus::Invalid(e),
                },
            }
        }
        if stopped.get() {
            return TokStatus::Stopped(bytes.len());
        }
        if self.state.0 == State::Done {
            return TokStatus::Done(bytes.len());
        }
        TokStatus::NeedMore
    }

    /// Scans a raw-captured value from `i`; returns where it stopped. On the
    /// per-delta path of a streamed arguments object: always inlined.
    #[inline(always)]
    fn raw_scan<F>(&mut self, input: &str, start: usize, on: &mut F) -> Result<usize, usize>
    where
        F: FnMut(JsonEvent<'_>) -> Directive,
    {
        let bytes = input.as_bytes();
        let kind = self.raw.kind.unwrap_or(ValueKind::Scalar);
        match kind {
            ValueKind::String => {
                // The decoded string collects in `buf` (its owner reads it
                // whole at `RawEnd`). The plain run the input starts with
                // decodes to itself: it is emitted from the input, not from
                // `buf` right after it was copied there (a load of bytes a
                // small copy has just written waits for the copy: see
                // `ArgsCapture::push`).
                let mut start = start;
                let run = if self.decoder.is_plain() {
                    let rest = &bytes[start..];
                    super::scan::find2(b'"', b'\\', rest).unwrap_or(rest.len())
                } else {
                    0
                };
                if start + run < bytes.len() {
                    // The decoder runs after the plain run: one allocation for
                    // both (the decoded text is never longer than its JSON
                    // spelling). A piece that is all plain text reserves
                    // nothing more than its own push does.
                    self.buf.reserve(input.len() - start);
                }
                if run > 0 {
                    let plain = &input[start..start + run];
                    self.buf.push_str(plain);
                    on(JsonEvent::RawChunk(plain));
                    start += run;
                    if start == bytes.len() {
                        return Ok(start);
                    }
                }
                let from = self.buf.len();
                let res = self.decoder.decode(&input[start..], &mut self.buf);
                // What decoded before a bad escape was streamed by a split
                // feed too: it is emitted for split-invariance.
                if self.buf.len() > from {
                    on(JsonEvent::RawChunk(&self.buf[from..]));
                }
                match res {
                    Err(e) => Err(start + e),
                    Ok(None) => Ok(bytes.len()),
                    Ok(Some(n)) => {
                        on(JsonEvent::RawEnd {
                            at: self.consumed + start + n,
                            string: Some(&mut self.buf),
                        });
                        self.buf.clear();
                        self.decoder = StrDecoder::default();
                        self.after_value();
                        Ok(start + n)
                    }
                }
            }
            ValueKind::Scalar => {
                let mut i = start;
                while i < bytes.len() && is_scalar_byte(bytes[i]) {
                    i += 1;
                }
                if i > start {
                    on(JsonEvent::RawChunk(&input[start..i]));
                }
                if i < bytes.len() {
                    on(JsonEvent::RawEnd {
                        at: self.consumed + i,
                        string: None,
                    });
                    self.after_value();
                }
                Ok(i)
            }
            ValueKind::Object | ValueKind::Array => {
                let (i, ended) = self.raw.brackets.scan(bytes, start);
                if i > start {
                    on(JsonEvent::RawChunk(&input[start..i]));
                }
                if ended {
                    on(JsonEvent::RawEnd {
                        at: self.consumed + i,
                        string: None,
                    });
                    self.after_value();
                } else if i < bytes.len() {
                    // A `<` outside the value's strings (`tag_ends_raw`).
                    return Err(i);
                }
                Ok(i)
            }
        }
    }

    fn after_value(&mut self) {
        self.state.0 = if self.stack.is_empty() {
            State::Done
        } else {
            State::AfterValue
        };
    }
}

/// A byte that can be part of a number or of `true`, `false`, `null`.
#[inline]
pub(crate) fn is_scalar_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')
}

fn valid_scalar(s: &str) -> bool {
    matches!(s, "true" | "false" | "null") || serde_json::from_str::<serde_json::Number>(s).is_ok()
}
