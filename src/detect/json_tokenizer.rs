//! An incremental JSON tokenizer for call envelopes: one top-level value, fed in
//! pieces, each byte examined once.
//!
//! It reports structure (objects, arrays, keys, small strings and scalars) to a
//! callback. When the callback answers [`Directive::Raw`] to a key, the value of
//! that key is not tokenized but passed through as [`JsonEvent::RawChunk`]s: raw
//! JSON text for objects, arrays and scalars, decoded content for strings (so an
//! `"arguments": "{\"a\":1}"` string yields the text `{"a":1}`). Escapes and
//! surrogate pairs split between pieces are carried in the decoder's state.

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Container {
    Object,
    Array,
}

/// The open containers, innermost last: one bit per level (set for an
/// array) for the first 64 levels, a vector only beyond them. An envelope
/// is a few levels deep, so a tokenizer allocates nothing for its stack.
#[derive(Debug, Default)]
struct ContainerStack {
    bits: u64,
    depth: usize,
    deeper: Vec<Container>,
}

impl ContainerStack {
    const INLINE: usize = 64;

    fn push(&mut self, c: Container) {
        if self.depth < Self::INLINE {
            let bit = 1u64 << self.depth;
            self.bits = (self.bits & !bit) | if c == Container::Array { bit } else { 0 };
        } else {
            self.deeper.push(c);
        }
        self.depth += 1;
    }

    fn last(&self) -> Option<Container> {
        match self.depth {
            0 => None,
            d if d <= Self::INLINE => Some(if self.bits >> (d - 1) & 1 == 1 {
                Container::Array
            } else {
                Container::Object
            }),
            _ => self.deeper.last().copied(),
        }
    }

    fn pop(&mut self) {
        if self.depth > Self::INLINE {
            self.deeper.pop();
        }
        self.depth = self.depth.saturating_sub(1);
    }

    fn is_empty(&self) -> bool {
        self.depth == 0
    }
}

/// Escape state of a string decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Escape {
    #[default]
    None,
    Backslash,
    Unicode {
        digits: u8,
        value: u16,
    },
}

/// The character a one-byte JSON escape stands for, by the byte after the
/// backslash; 0 for `u` (four hex digits follow) and for bytes that are no
/// escape.
pub(crate) static SIMPLE_ESCAPES: [u8; 256] = {
    let mut table = [0u8; 256];
    table[b'"' as usize] = b'"';
    table[b'\\' as usize] = b'\\';
    table[b'/' as usize] = b'/';
    table[b'b' as usize] = 0x08;
    table[b'f' as usize] = 0x0c;
    table[b'n' as usize] = b'\n';
    table[b'r' as usize] = b'\r';
    table[b't' as usize] = b'\t';
    table
};

/// The value of hex digits (`None` if one is not a hex digit): a `\u`
/// escape's four, here and in the Python-literal converter.
#[inline]
pub(crate) fn hex_value(bytes: &[u8]) -> Option<u32> {
    bytes.iter().try_fold(0u32, |v, &b| {
        let d = char::from(b).to_digit(16)?;
        Some(v * 16 + d)
    })
}

/// The code point a UTF-16 surrogate pair stands for: `high` in
/// D800–DBFF, `low` in DC00–DFFF.
#[inline]
pub(crate) fn surrogate_pair(high: u32, low: u32) -> u32 {
    0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
}

/// Decodes JSON string content incrementally.
#[derive(Debug, Clone, Default)]
pub(crate) struct StrDecoder {
    escape: Escape,
    high: Option<u16>,
}

impl StrDecoder {
    /// Between escapes: the next byte that is neither `"` nor `\\` decodes to itself.
    pub(crate) fn is_plain(&self) -> bool {
        self.escape == Escape::None && self.high.is_none()
    }

    /// Decodes from `input` into `out` up to the closing quote; returns the offset
    /// just after the quote, or `None` when the string goes on. `Err(offset)` on an
    /// invalid escape.
    pub(crate) fn decode(&mut self, input: &str, out: &mut String) -> Result<Option<usize>, usize> {
        let bytes = input.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match self.escape {
                Escape::None if self.high.is_none() => {
                    // Runs of plain text, and the clusters of one-byte escapes
                    // between them, by table: file content inside a JSON string
                    // inside a JSON string is mostly `\\\"` and `\\\\` between
                    // short runs, where a branch on which escape it is
                    // mispredicts. `\u`, a bad escape and an escape cut by the
                    // end of the input go through the states.
                    'fast: loop {
                        let Some(rel) = super::scan::find2(b'"', b'\\', &bytes[i..]) else {
                            out.push_str(&input[i..]);
                            return Ok(None);
                        };
                        if rel > 0 {
                            out.push_str(&input[i..i + rel]);
                        }
                        i += rel;
                        if bytes[i] == b'"' {
                            return Ok(Some(i + 1));
                        }
                        // The whole cluster this backslash opens, without a
                        // search per escape (measured: a `find2` each made
                        // 4 KB chunks 7-11 % slower).
                        while bytes.get(i) == Some(&b'\\') {
                            let decoded = bytes
                                .get(i + 1)
                                .map_or(0, |&c| SIMPLE_ESCAPES[usize::from(c)]);
                            if decoded == 0 {
                                break 'fast;
                            }
                            out.push(char::from(decoded));
                            i += 2;
                        }
                    }
                    self.escape = Escape::Backslash;
                    i += 1;
                }
                Escape::None => {
                    // A high surrogate waits for its low half: byte by byte
                    // until it is settled.
                    if bytes[i] == b'\\' {
                        self.escape = Escape::Backslash;
                        i += 1;
                        continue;
                    }
                    self.flush_high(out);
                }
                Escape::Backslash => {
                    let c = bytes[i];
                    i += 1;
                    if c == b'u' {
                        self.escape = Escape::Unicode {
                            digits: 0,
                            value: 0,
                        };
                        continue;
                    }
                    let decoded = SIMPLE_ESCAPES[usize::from(c)];
                    if decoded == 0 {
                        return Err(i - 1);
                    }
                    self.flush_high(out);
                    out.push(char::from(decoded));
                    self.escape = Escape::None;
                }
                Escape::Unicode { digits, value } => {
                    let c = bytes[i];
                    let Some(d) = (c as char).to_digit(16) else {
                        return Err(i);
                    };
                    i += 1;
                    let value = (value << 4) | d as u16;
                    if digits < 3 {
                        self.escape = Escape::Unicode {
                            digits: digits + 1,
                            value,
                        };
                        continue;
                    }
                    self.escape = Escape::None;
                    self.code_unit(value, out);
                }
            }
        }
        Ok(None)
    }

    /// Appends one UTF-16 code unit from a `\u` escape, pairing surrogates.
    fn code_unit(&mut self, unit: u16, out: &mut String) {
        match unit {
            0xD800..=0xDBFF => {
                self.flush_high(out);
                self.high = Some(unit);
            }
            0xDC00..=0xDFFF => match self.high.take() {
                Some(high) => {
                    let c = surrogate_pair(u32::from(high), u32::from(unit));
                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                }
                None => out.push('\u{FFFD}'),
            },
            _ => {
                self.flush_high(out);
                out.push(char::from_u32(unit as u32).unwrap_or('\u{FFFD}'));
            }
        }
    }

    /// A high surrogate not followed by a low one becomes U+FFFD.
    fn flush_high(&mut self, out: &mut String) {
        if self.high.take().is_some() {
            out.push('\u{FFFD}');
        }
    }
}

/// The raw-capture scanner for objects and arrays.
#[derive(Debug, Clone, Copy, Default)]
struct RawScan {
    kind: Option<ValueKind>,
    brackets: BracketScan,
}

/// Finds where a JSON object or array that starts at its first byte ends,
/// without tokenizing it: nesting depth, inside a string, after a backslash.
/// Fed in pieces; string contents are skipped with `memchr`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BracketScan {
    depth: usize,
    in_str: bool,
    escaped: bool,
}

impl BracketScan {
    /// Scans `bytes` from `i`; returns where it stopped and whether the
    /// outermost bracket closed there (just before the returned offset).
    pub(crate) fn scan(&mut self, bytes: &[u8], mut i: usize) -> (usize, bool) {
        while i < bytes.len() {
            if self.in_str {
                match super::scan::skip_json_string(bytes, i, self.escaped) {
                    Ok(next) => {
                        self.in_str = false;
                        self.escaped = false;
                        i = next;
                    }
                    Err(escaped) => {
                        self.escaped = escaped;
                        return (bytes.len(), false);
                    }
                }
                continue;
            }
            let c = bytes[i];
            i += 1;
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return (i, true);
                    }
                }
                _ => {}
            }
        }
        (i, false)
    }
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
                self.raw.brackets.in_str && !self.raw.brackets.escaped
            }
            _ => false,
        };
        inside && !input.is_empty() && super::scan::find2(b'"', b'\\', input.as_bytes()).is_none()
    }

    /// Feeds the next piece.
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
                            ..RawScan::default()
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

    /// Scans a raw-captured value from `i`; returns where it stopped.
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{Directive, JsonEvent, JsonTokenizer, StrDecoder, TokStatus};

    /// How one character is written inside a JSON string.
    #[derive(Debug, Clone, Copy)]
    enum Spelling {
        /// Its short escape where it has one (`/` too, as `\/`), else `\u`
        /// below U+0020, else itself.
        Plain,
        /// `\uXXXX`, as a surrogate pair above U+FFFF.
        Unicode,
    }

    /// `s` as a JSON string body with each character spelled its way, then
    /// the closing quote.
    fn encode(s: &str, spellings: &[Spelling]) -> String {
        let mut out = String::new();
        for (k, c) in s.chars().enumerate() {
            match spellings.get(k % spellings.len().max(1)).copied() {
                Some(Spelling::Unicode) => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                _ => match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '/' => out.push_str("\\/"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                },
            }
        }
        out.push('"');
        out
    }

    /// `input` cut at `cuts` (moved down to character boundaries, empty
    /// pieces left out): each piece with its offset in `input`.
    fn pieces<'a>(input: &'a str, cuts: &[usize]) -> Vec<(usize, &'a str)> {
        let mut cuts: Vec<usize> = cuts
            .iter()
            .map(|&c| {
                (0..=c.min(input.len()))
                    .rev()
                    .find(|&c| input.is_char_boundary(c))
                    .unwrap_or(0)
            })
            .collect();
        cuts.push(input.len());
        cuts.sort_unstable();
        let mut out = Vec::new();
        let mut from = 0;
        for cut in cuts {
            if cut > from {
                out.push((from, &input[from..cut]));
                from = cut;
            }
        }
        out
    }

    /// Feeds `input` cut at `cuts` (moved to character boundaries); returns
    /// what was decoded and where the string ended, counted in `input`.
    fn decode_split(input: &str, cuts: &[usize]) -> (String, Result<Option<usize>, usize>) {
        let mut decoder = StrDecoder::default();
        let mut out = String::new();
        for (from, piece) in pieces(input, cuts) {
            match decoder.decode(piece, &mut out) {
                Ok(None) => {}
                Ok(Some(end)) => return (out, Ok(Some(from + end))),
                Err(at) => return (out, Err(from + at)),
            }
        }
        (out, Ok(None))
    }

    fn spelling() -> impl Strategy<Value = Spelling> {
        prop_oneof![3 => Just(Spelling::Plain), 1 => Just(Spelling::Unicode)]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any string, spelled any mix of ways and cut anywhere, decodes to
        /// itself, and the decoder stops just after the closing quote.
        #[test]
        fn decodes_every_spelling_under_every_split(
            s in "[a-z \"\\\\/\n\r\t\u{8}\u{c}\u{1}é日😀]{0,40}",
            spellings in proptest::collection::vec(spelling(), 1..5),
            cuts in proptest::collection::vec(0usize..400, 0..10),
        ) {
            let body = encode(&s, &spellings);
            let input = format!("{body}, \"next\"");
            let (out, end) = decode_split(&input, &cuts);
            prop_assert_eq!(end, Ok(Some(body.len())));
            prop_assert_eq!(out, s);
        }

        /// A raw-captured string inside an envelope, cut anywhere: its
        /// chunks make the string, `RawEnd` reports it whole and where it
        /// ended, and the tokens after it and the end of the value are
        /// found where they are (the string's pieces skip the loop).
        #[test]
        fn a_raw_string_under_every_split_streams_and_ends_whole(
            s in "[a-z \"\\\\/\n\t\u{1}é😀]{0,30}",
            spellings in proptest::collection::vec(spelling(), 1..4),
            cuts in proptest::collection::vec(0usize..200, 0..8),
        ) {
            let body = encode(&s, &spellings);
            let input = format!("{{\"a\":\"{body},\"b\":[1]}} tail");
            let quote = "{\"a\":".len();
            let end = quote + 1 + body.len();
            let done = input.len() - " tail".len();
            let (events, status) = tokenize_split(&input, &cuts);
            let chunks: String = events
                .iter()
                .filter_map(|e| e.strip_prefix("chunk "))
                .collect();
            prop_assert_eq!(chunks, s.clone());
            let rest: Vec<String> = events
                .into_iter()
                .filter(|e| !e.starts_with("chunk "))
                .collect();
            // `,"b":[1]}` after the string: `[` five bytes past its end.
            let want = vec![
                "object_start 0".to_owned(),
                "key a".to_owned(),
                format!("raw_start String {quote}"),
                format!("raw_end {end} {s:?}"),
                "key b".to_owned(),
                format!("array_start {}", end + 5),
                "scalar 1".to_owned(),
                format!("array_end {}", end + 7),
                format!("object_end {}", done - 1),
            ];
            prop_assert_eq!(rest, want);
            prop_assert_eq!(status, Ok(done));
        }
    }

    /// Feeds `input` cut at `cuts` (moved to character boundaries) with key
    /// `a` raw-captured; returns the events, one line each, and where the
    /// value ended in `input` (or the error status).
    fn tokenize_split(input: &str, cuts: &[usize]) -> (Vec<String>, Result<usize, String>) {
        let mut tok = JsonTokenizer::new();
        let mut events = Vec::new();
        for (from, piece) in pieces(input, cuts) {
            let status = tok.feed(piece, &mut |ev| {
                let directive = match ev {
                    JsonEvent::Key("a") => Directive::Raw,
                    _ => Directive::Continue,
                };
                events.push(match ev {
                    JsonEvent::ObjectStart(at) => format!("object_start {at}"),
                    JsonEvent::ObjectEnd(at) => format!("object_end {at}"),
                    JsonEvent::ArrayStart(at) => format!("array_start {at}"),
                    JsonEvent::ArrayEnd(at) => format!("array_end {at}"),
                    JsonEvent::Key(k) => format!("key {k}"),
                    JsonEvent::Str(v) => format!("str {v}"),
                    JsonEvent::Scalar(v) => format!("scalar {v}"),
                    JsonEvent::RawStart(kind, at) => format!("raw_start {kind:?} {at}"),
                    JsonEvent::RawChunk(c) => format!("chunk {c}"),
                    JsonEvent::RawEnd { at, string } => match string {
                        Some(s) => format!("raw_end {at} {s:?}"),
                        None => format!("raw_end {at}"),
                    },
                });
                directive
            });
            match status {
                TokStatus::NeedMore => {}
                TokStatus::Done(n) => return (events, Ok(from + n)),
                other => return (events, Err(format!("{other:?} after {from}"))),
            }
        }
        (events, Err("unfinished".to_owned()))
    }

    #[test]
    fn nesting_past_the_inline_stack_closes_each_container_in_order() {
        // 70 levels, arrays and objects alternating by level, so that the
        // levels past the 64 kept in bits are told apart by the vector.
        let depth = 70;
        let mut input = String::new();
        for level in 0..depth {
            input.push_str(if level % 2 == 0 { "[" } else { "{\"k\":" });
        }
        input.push('1');
        for level in (0..depth).rev() {
            input.push(if level % 2 == 0 { ']' } else { '}' });
        }
        let done = input.len();
        input.push_str(" tail");
        let (events, status) = tokenize_split(&input, &[]);
        assert_eq!(status, Ok(done));
        let closes: Vec<&str> = events
            .iter()
            .filter_map(|e| e.split(' ').next())
            .filter(|e| e.ends_with("_end"))
            .collect();
        let want: Vec<&str> = (0..depth)
            .rev()
            .map(|level| {
                if level % 2 == 0 {
                    "array_end"
                } else {
                    "object_end"
                }
            })
            .collect();
        assert_eq!(closes, want);
        // A close of the wrong kind at level 66 is invalid, not accepted.
        let mut wrong = input[..done].to_owned();
        let at = done - depth + (depth - 1 - 66);
        let swapped = if wrong.as_bytes()[at] == b']' {
            "}"
        } else {
            "]"
        };
        wrong.replace_range(at..at + 1, swapped);
        let (_, status) = tokenize_split(&wrong, &[]);
        assert!(status.is_err(), "{status:?}");
    }

    #[test]
    fn clusters_of_escapes_decode_whole_and_cut_inside() {
        // A line of file content inside arguments inside a JSON string: the
        // shape the open_ai_function dialect streams.
        let input = r#"say \\\"hi\\\" C:\\\\dir\\n\/x\b\f\r\t" tail"#;
        let want = "say \\\"hi\\\" C:\\\\dir\\n/x\u{8}\u{c}\r\t";
        for cut in 0..=input.len() {
            let (out, end) = decode_split(input, &[cut]);
            assert_eq!(end, Ok(Some(input.len() - " tail".len())), "cut at {cut}");
            assert_eq!(out, want, "cut at {cut}");
        }
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        for (input, want) in [
            (r#"\ud83dx""#, "\u{fffd}x"),
            (r#"\ud83d\n""#, "\u{fffd}\n"),
            (r#"\ud83d""#, "\u{fffd}"),
            (r#"\ud83d\ud83d\ude00""#, "\u{fffd}😀"),
            (r#"\ude00a""#, "\u{fffd}a"),
            (r#"\ud83d\u0041""#, "\u{fffd}A"),
        ] {
            for cut in 0..=input.len() {
                let (out, end) = decode_split(input, &[cut]);
                assert_eq!(end, Ok(Some(input.len())), "{input} cut at {cut}");
                assert_eq!(out, want, "{input} cut at {cut}");
            }
        }
    }

    #[test]
    fn a_bad_escape_is_reported_where_it_is() {
        for (input, at) in [(r#"ab\qcd""#, 3), (r#"\\\x""#, 3), (r#"\u00g0""#, 4)] {
            for cut in 0..=input.len() {
                assert_eq!(
                    decode_split(input, &[cut]).1,
                    Err(at),
                    "{input} cut at {cut}"
                );
            }
        }
    }

    /// `plain_raw` after each piece of a raw-captured object fed in pieces,
    /// and what the loop that a piece it allows skips would have reported:
    /// exactly one `RawChunk` of the whole piece.
    #[test]
    fn plain_raw_holds_only_inside_a_string_of_a_raw_object() {
        let pieces = [
            "{\"a\":\"x", // inside the string "x…
            "yz",         // plain, inside
            "w\\",        // holds a backslash, and ends on it
            "q",          // the escaped byte
            "rs",         // plain, inside
            "\"",         // the string closes
            ",\"b\":1",   // outside any string
            "}",
        ];
        // Whether the piece after each one may skip the tokenizer: inside a
        // string, no escape pending, and no quote or backslash in that piece.
        let allowed = [true, false, false, true, false, false, false, false];
        let mut tok = JsonTokenizer::raw_value();
        for (i, piece) in pieces.iter().enumerate() {
            let next = pieces.get(i + 1).copied().unwrap_or("x");
            tok.feed(piece, &mut |_| Directive::Continue);
            assert_eq!(
                tok.plain_raw(next),
                allowed[i],
                "after {piece:?}, before {next:?}"
            );
            if allowed[i] {
                let mut probe = JsonTokenizer::raw_value();
                for p in &pieces[..=i] {
                    probe.feed(p, &mut |_| Directive::Continue);
                }
                let mut seen = Vec::new();
                probe.run(next, &mut |ev| {
                    seen.push(format!("{ev:?}"));
                    Directive::Continue
                });
                assert_eq!(seen, [format!("RawChunk({next:?})")]);
            }
        }
        // Nothing plain outside a raw capture, nor in a raw-captured string.
        assert!(!JsonTokenizer::new().plain_raw("abc"));
        let mut string = JsonTokenizer::raw_value();
        string.feed("\"ab", &mut |_| Directive::Continue);
        assert!(!string.plain_raw("cd"));
    }
}
