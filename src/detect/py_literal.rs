//! Python and Gemma literals to JSON, incrementally: the argument list of one
//! call (`f(a=1, b='x')` after its `(`, or Gemma 4's `{a:1,b:<|"|>x<|"|>}`
//! after its `{`) becomes the call's arguments JSON text while the model
//! writes it.
//!
//! [`ArgsConv`] is a byte-level state machine with an explicit stack of open
//! containers. Each byte is examined once; what it cannot decide at the end of
//! a piece is either kept in its own state (a number or keyword being read, a
//! string's held content) or left unconsumed as a bounded look-ahead (a split
//! escape, at most 12 bytes; a split quote run or `<|"|>`, at most 4). The
//! JSON it writes only grows: string contents are written as JSON-escaped
//! fragments as they arrive; a scalar (number, keyword) is written once it
//! ends, since its JSON form depends on its last byte.
//!
//! Mapping: `'…'`, `"…"`, triple-quoted and `r`/`u`-prefixed strings with
//! Python's escapes (unknown escapes and `\N{…}` keep their backslash, as
//! Python keeps unknown ones; surrogate pairs written as two `\u` escapes are
//! joined, a lone surrogate becomes U+FFFD); adjacent strings are
//! concatenated; ints (with `_`, hex, octal, binary), floats (`.5`, `5.`,
//! `1e3`); `True`/`False`/`None` and JSON's `true`/`false`/`null`; lists and
//! tuples become arrays (a parenthesised single value `(x)` is read as the
//! tuple `(x,)`), dicts become objects (number, boolean and `None` keys are
//! written as strings, as Python's `json.dumps` does). Anything else (names,
//! calls, operators, sets, bytes, f-strings, positional arguments) makes the
//! call invalid.
//!
//! Typed by schema: the top-level value of a parameter whose declared type is
//! `integer`, `number`, `boolean`, `array` or `object` and that is written as
//! a string literal is held to its end and converted when it converts cleanly
//! (`passengers="3"` gives `3`), else it stays a string; a number written for
//! a `string` parameter becomes a string (`zip=2139` gives `"2139"`). Every
//! other value keeps its literal's type.

use crate::core::{ParamType, ToolShape};

use super::json_tokenizer::{hex_value, surrogate_pair};
use super::scan::{escape_json_into, starts};
use super::sink::CallSink;
use super::xml_syntax::typed_value;

/// The deepest nesting of containers accepted (serde_json's own limit is 128).
const MAX_DEPTH: usize = 100;

/// The longest key or keyword read into the token buffer.
const MAX_NAME: usize = 256;

/// Gemma 4's string delimiter.
pub(crate) const GEMMA_QUOTE: &str = "<|\"|>";

/// The literal syntax of a dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    /// Python call arguments: `key=value`, closed by `)`, quoted strings.
    Python,
    /// Gemma 4: `key:value`, closed by `}`, bare keys, `<|"|>` strings.
    Gemma,
}

/// One step of the converter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// Needs more input; this many bytes were consumed.
    NeedMore(usize),
    /// The argument list closed; this many bytes (the closer included) belong to it.
    Done(usize),
    /// Not a literal argument list; the offending byte's offset and why.
    Invalid(usize, String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The call's argument list (becomes the arguments object).
    Args,
    List,
    Tuple,
    Dict,
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    kind: Kind,
    /// Entries written so far (for the `,` before the next one).
    count: usize,
}

/// Where the converter is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// Args/Dict: a key or the closer (after the opener or a comma). -> KeyName / value (as key) / close.
    KeyOrClose,
    /// Reading a bare key into `tok`. -> Sep.
    KeyName,
    /// After a key: `=` (Python arguments) or `:`. -> Value.
    Sep,
    /// A value is required. -> a value state.
    Value,
    /// List/Tuple: an element or the closer. -> a value state / close.
    ElemOrClose,
    /// After a value: a comma or the closer. -> KeyOrClose / ElemOrClose / close.
    CommaOrClose,
    /// At a quote byte that opens a Python string (`raw`: an `r` prefix). -> Str.
    Quote { raw: bool },
    /// Reading a keyword (or a string prefix) into `tok`. -> scalar end / Quote.
    Ident,
    /// Reading a number into `tok`. -> scalar end.
    Number,
    /// Inside a Python string. -> AfterStr.
    Str { quote: u8, triple: bool, raw: bool },
    /// Inside a Gemma `<|"|>` string. -> string end.
    GStr,
    /// A Python string closed; an adjacent one may continue it. -> Quote / string end.
    AfterStr,
    /// The argument list closed.
    Done,
}

/// The role of the value being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Inside a container.
    Plain,
    /// A dict key: written as a JSON string.
    Key,
    /// A parameter's value, with its declared type if the schema has one.
    Top(Option<ParamType>),
}

/// The incremental converter of one call's argument list.
#[derive(Debug)]
pub(crate) struct ArgsConv {
    syntax: Syntax,
    frames: Vec<Frame>,
    state: St,
    role: Role,
    /// A keyword, number or bare key being read.
    tok: String,
    /// The content of a string held for conversion by schema.
    held: String,
    /// The current string is held, not streamed.
    hold: bool,
    /// The key waiting for its separator is in `tok` (not yet written).
    key_in_tok: bool,
    /// The declared type of the parameter whose value comes next.
    top_ty: Option<ParamType>,
    /// The arguments JSON written so far.
    json: String,
    /// How much of `json` has been emitted as argument text.
    emitted: usize,
}

/// What one escape sequence decodes to.
enum Esc {
    /// The escape is split: more input needed.
    More,
    /// A line continuation: drop this many bytes.
    Skip(usize),
    /// This many bytes decode to the character.
    Char(usize, char),
    /// Not an escape Python decodes: keep the backslash as a character.
    Keep,
}

impl ArgsConv {
    /// A converter positioned just after the call's opener (`(` or `{`).
    pub(crate) fn new(syntax: Syntax) -> Self {
        Self {
            syntax,
            frames: vec![Frame {
                kind: Kind::Args,
                count: 0,
            }],
            state: St::KeyOrClose,
            role: Role::Plain,
            tok: String::new(),
            held: String::new(),
            hold: false,
            key_in_tok: false,
            top_ty: None,
            json: String::new(),
            emitted: 0,
        }
    }

    /// Feeds `input` like [`feed`](Self::feed) and emits the JSON it added as
    /// the argument text of call `index` (nothing while no call is open: an
    /// unknown tool's arguments are converted but not streamed).
    pub(crate) fn feed_streaming(
        &mut self,
        input: &str,
        eof: bool,
        shape: Option<&ToolShape>,
        index: Option<usize>,
        sink: &mut CallSink<'_>,
    ) -> Step {
        let step = self.feed(input, eof, shape);
        if let Some(index) = index {
            sink.args(index, &self.json[self.emitted..]);
            self.emitted = self.json.len();
        }
        step
    }

    /// The arguments JSON written so far (complete once `Done` was returned).
    pub(crate) fn json(&self) -> &str {
        &self.json
    }

    /// Consumes as much of `input` as can be decided. `shape` types the
    /// parameters (none for an unknown tool).
    pub(crate) fn feed(&mut self, input: &str, eof: bool, shape: Option<&ToolShape>) -> Step {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            if self.state == St::Done {
                return Step::Done(i);
            }
            let Some(&b) = bytes.get(i) else {
                // The scalar being read may end exactly here only if a closer
                // follows; that closer is not here yet.
                return Step::NeedMore(i);
            };
            match self.state {
                St::KeyOrClose => {
                    if is_ws(b) {
                        i += 1;
                    } else if b == self.closer() {
                        self.close();
                        i += 1;
                    } else {
                        let literal_key = match self.syntax {
                            Syntax::Python => self.top().kind == Kind::Dict,
                            Syntax::Gemma => b == b'<',
                        };
                        if literal_key {
                            if self.split_quote(bytes, i, eof) {
                                return Step::NeedMore(i);
                            }
                            // A key written as a literal: written as a JSON string key.
                            self.begin_entry();
                            self.role = Role::Key;
                            if self.top().kind == Kind::Args {
                                self.top_ty = None;
                            }
                            match self.start_value(bytes, i, eof) {
                                Ok(Some(n)) => i += n,
                                Ok(None) => return Step::NeedMore(i),
                                Err(m) => return Step::Invalid(i, m),
                            }
                        } else if key_start(self.syntax, b) {
                            self.tok.clear();
                            self.state = St::KeyName;
                        } else {
                            return Step::Invalid(
                                i,
                                format!("unexpected `{}` where a key belongs", b as char),
                            );
                        }
                    }
                }
                St::KeyName => {
                    let n = bytes[i..]
                        .iter()
                        .take_while(|&&c| key_byte(self.syntax, c))
                        .count();
                    if self.tok.len() + n > MAX_NAME {
                        return Step::Invalid(i, "a key is too long".to_owned());
                    }
                    self.tok.push_str(&input[i..i + n]);
                    i += n;
                    if i < bytes.len() {
                        self.key_in_tok = true;
                        self.state = St::Sep;
                    }
                }
                St::Sep => {
                    let sep = match self.syntax {
                        Syntax::Python if self.top().kind == Kind::Args => b'=',
                        _ => b':',
                    };
                    if is_ws(b) {
                        i += 1;
                    } else if b == sep {
                        i += 1;
                        if self.key_in_tok {
                            if self.tok.is_empty() {
                                return Step::Invalid(i, "an empty key".to_owned());
                            }
                            self.key_in_tok = false;
                            self.begin_entry();
                            self.json.push('"');
                            escape_json_into(&self.tok, &mut self.json);
                            self.json.push('"');
                            if self.top().kind == Kind::Args {
                                self.top_ty = shape.and_then(|s| s.param(&self.tok));
                            }
                        }
                        self.json.push(':');
                        self.state = St::Value;
                    } else if self.syntax == Syntax::Python && self.top().kind == Kind::Args {
                        return Step::Invalid(
                            i,
                            "positional arguments are not supported".to_owned(),
                        );
                    } else {
                        return Step::Invalid(i, format!("expected `{}` after a key", sep as char));
                    }
                }
                St::Value => {
                    if is_ws(b) {
                        i += 1;
                        continue;
                    }
                    self.role = if self.top().kind == Kind::Args {
                        Role::Top(self.top_ty)
                    } else {
                        Role::Plain
                    };
                    match self.start_value(bytes, i, eof) {
                        Ok(Some(n)) => i += n,
                        Ok(None) => return Step::NeedMore(i),
                        Err(m) => return Step::Invalid(i, m),
                    }
                }
                St::ElemOrClose => {
                    if is_ws(b) {
                        i += 1;
                    } else if b == self.closer() {
                        self.close();
                        i += 1;
                    } else {
                        if self.split_quote(bytes, i, eof) {
                            return Step::NeedMore(i);
                        }
                        self.begin_entry();
                        self.role = Role::Plain;
                        match self.start_value(bytes, i, eof) {
                            Ok(Some(n)) => i += n,
                            Ok(None) => return Step::NeedMore(i),
                            Err(m) => return Step::Invalid(i, m),
                        }
                    }
                }
                St::CommaOrClose => {
                    if is_ws(b) {
                        i += 1;
                    } else if b == b',' {
                        i += 1;
                        self.state = match self.top().kind {
                            Kind::List | Kind::Tuple => St::ElemOrClose,
                            Kind::Args | Kind::Dict => St::KeyOrClose,
                        };
                    } else if b == self.closer() {
                        self.close();
                        i += 1;
                    } else {
                        return Step::Invalid(
                            i,
                            format!("unexpected `{}` after a value", b as char),
                        );
                    }
                }
                St::Quote { raw } => match self.open_quote(bytes, i, eof, raw) {
                    Some(n) => i += n,
                    None => return Step::NeedMore(i),
                },
                St::Ident => {
                    let n = bytes[i..]
                        .iter()
                        .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                        .count();
                    if self.tok.len() + n > MAX_NAME {
                        return Step::Invalid(i, "a name is too long".to_owned());
                    }
                    self.tok.push_str(&input[i..i + n]);
                    i += n;
                    let Some(&end) = bytes.get(i) else { continue };
                    if self.syntax == Syntax::Python && (end == b'\'' || end == b'"') {
                        let raw = match self.tok.as_str() {
                            "r" | "R" => true,
                            "u" | "U" => false,
                            other => {
                                return Step::Invalid(
                                    i,
                                    format!("`{other}` strings are not literals"),
                                );
                            }
                        };
                        if !self.hold {
                            self.json.push('"');
                        }
                        self.state = St::Quote { raw };
                        continue;
                    }
                    let text = match self.tok.as_str() {
                        "True" | "true" => "true",
                        "False" | "false" => "false",
                        "None" | "null" => "null",
                        other => return Step::Invalid(i, format!("`{other}` is not a literal")),
                    };
                    self.end_scalar(text, false);
                }
                St::Number => {
                    let n = number_len(bytes, i, &self.tok);
                    self.tok.push_str(&input[i..i + n]);
                    i += n;
                    if i < bytes.len() {
                        let Some(text) = number_json(&self.tok) else {
                            return Step::Invalid(i, format!("`{}` is not a number", self.tok));
                        };
                        self.end_scalar(&text, true);
                    }
                }
                St::Str { quote, triple, raw } => {
                    match self.scan_str(input, i, eof, quote, triple, raw) {
                        (n, true) => {
                            i = n;
                            self.state = St::AfterStr;
                        }
                        (n, false) => return Step::NeedMore(n),
                    }
                }
                St::GStr => match self.scan_gstr(input, i, eof) {
                    (n, true) => {
                        i = n;
                        self.end_string();
                    }
                    (n, false) => return Step::NeedMore(n),
                },
                St::AfterStr => {
                    if is_ws(b) {
                        i += 1;
                    } else if b == b'\'' || b == b'"' {
                        self.state = St::Quote { raw: false };
                    } else if matches!(b, b'r' | b'R' | b'u' | b'U') {
                        match bytes.get(i + 1) {
                            None if !eof => return Step::NeedMore(i),
                            Some(b'\'' | b'"') => {
                                self.state = St::Quote {
                                    raw: matches!(b, b'r' | b'R'),
                                };
                                i += 1;
                            }
                            _ => self.end_string(),
                        }
                    } else {
                        self.end_string();
                    }
                }
                St::Done => return Step::Done(i),
            }
        }
    }

    fn top(&self) -> Frame {
        *self
            .frames
            .last()
            .expect("a frame is open until the state is Done")
    }

    fn closer(&self) -> u8 {
        match (self.top().kind, self.syntax) {
            (Kind::Args, Syntax::Python) | (Kind::Tuple, _) => b')',
            (Kind::Args, Syntax::Gemma) | (Kind::Dict, _) => b'}',
            (Kind::List, _) => b']',
        }
    }

    /// Writes the separator before a new entry of the innermost container.
    fn begin_entry(&mut self) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        if frame.count > 0 {
            self.json.push(',');
        } else if frame.kind == Kind::Args {
            self.json.push('{');
        }
        frame.count += 1;
    }

    /// Closes the innermost container.
    fn close(&mut self) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        match frame.kind {
            Kind::Args if frame.count == 0 => self.json.push_str("{}"),
            Kind::Args | Kind::Dict => self.json.push('}'),
            Kind::List | Kind::Tuple => self.json.push(']'),
        }
        self.state = if self.frames.is_empty() {
            St::Done
        } else {
            St::CommaOrClose
        };
    }

    fn open(&mut self, kind: Kind) -> Result<(), String> {
        if self.role == Role::Key {
            return Err("a container cannot be a key".to_owned());
        }
        if self.frames.len() >= MAX_DEPTH {
            return Err(format!("values nest deeper than {MAX_DEPTH}"));
        }
        self.json.push(if kind == Kind::Dict { '{' } else { '[' });
        self.frames.push(Frame { kind, count: 0 });
        self.state = if kind == Kind::Dict {
            St::KeyOrClose
        } else {
            St::ElemOrClose
        };
        Ok(())
    }

    /// Whether a Gemma string delimiter at `i` is split (decide nothing yet).
    fn split_quote(&self, bytes: &[u8], i: usize, eof: bool) -> bool {
        self.syntax == Syntax::Gemma
            && !eof
            && starts(&bytes[i..], GEMMA_QUOTE.as_bytes()).is_none()
    }

    /// Whether a string in the current role is held for conversion.
    fn hold_string(&self) -> bool {
        matches!(
            self.role,
            Role::Top(Some(
                ParamType::Integer
                    | ParamType::Number
                    | ParamType::Boolean
                    | ParamType::Array
                    | ParamType::Object
            ))
        )
    }

    /// Starts a value at `bytes[i]` (not whitespace). `Ok(Some(n))`: consumed
    /// n bytes; `Ok(None)`: undecided, nothing consumed.
    fn start_value(&mut self, bytes: &[u8], i: usize, eof: bool) -> Result<Option<usize>, String> {
        let b = bytes[i];
        match (self.syntax, b) {
            (Syntax::Python, b'\'' | b'"') => {
                self.hold = self.role != Role::Key && self.hold_string();
                self.held.clear();
                if !self.hold {
                    self.json.push('"');
                }
                self.state = St::Quote { raw: false };
                Ok(Some(0))
            }
            (Syntax::Gemma, b'<') => match starts(&bytes[i..], GEMMA_QUOTE.as_bytes()) {
                Some(true) => {
                    self.hold = self.role != Role::Key && self.hold_string();
                    self.held.clear();
                    if !self.hold {
                        self.json.push('"');
                    }
                    self.state = St::GStr;
                    Ok(Some(GEMMA_QUOTE.len()))
                }
                None if !eof => Ok(None),
                _ => Err("unexpected `<` where a value belongs".to_owned()),
            },
            (_, b'[') => self.open(Kind::List).map(|()| Some(1)),
            (Syntax::Python, b'(') => self.open(Kind::Tuple).map(|()| Some(1)),
            (_, b'{') => self.open(Kind::Dict).map(|()| Some(1)),
            (_, b'0'..=b'9' | b'.' | b'-' | b'+') => {
                self.tok.clear();
                self.state = St::Number;
                Ok(Some(0))
            }
            (_, b'a'..=b'z' | b'A'..=b'Z' | b'_') => {
                self.tok.clear();
                self.hold = self.role != Role::Key && self.hold_string();
                self.held.clear();
                self.state = St::Ident;
                Ok(Some(0))
            }
            _ => Err(format!("unexpected `{}` where a value belongs", b as char)),
        }
    }

    /// At a quote byte: opens a single- or triple-quoted string (or an empty
    /// one). `None`: the quote run is split.
    fn open_quote(&mut self, bytes: &[u8], i: usize, eof: bool, raw: bool) -> Option<usize> {
        let q = bytes[i];
        match bytes.get(i + 1) {
            None if !eof => None,
            Some(&c) if c == q => match bytes.get(i + 2) {
                None if !eof => None,
                Some(&d) if d == q => {
                    self.state = St::Str {
                        quote: q,
                        triple: true,
                        raw,
                    };
                    Some(3)
                }
                _ => {
                    self.state = St::AfterStr;
                    Some(2)
                }
            },
            _ => {
                self.state = St::Str {
                    quote: q,
                    triple: false,
                    raw,
                };
                Some(1)
            }
        }
    }

    /// A scalar ended: writes its JSON form for its role.
    fn end_scalar(&mut self, text: &str, number: bool) {
        self.hold = false;
        let quoted = self.role == Role::Key
            || (number && matches!(self.role, Role::Top(Some(ParamType::String))));
        if quoted {
            self.json.push('"');
            self.json.push_str(text);
            self.json.push('"');
        } else {
            self.json.push_str(text);
        }
        self.after_value();
    }

    /// A string (with any adjacent continuation) ended.
    fn end_string(&mut self) {
        if self.hold {
            let ty = match self.role {
                Role::Top(Some(ty)) => ty,
                _ => ParamType::String,
            };
            let value = typed_value(&self.held, ty);
            self.json.push_str(&value.to_string());
            self.held.clear();
            self.hold = false;
        } else {
            self.json.push('"');
        }
        self.after_value();
    }

    fn after_value(&mut self) {
        self.state = if self.role == Role::Key {
            St::Sep
        } else {
            St::CommaOrClose
        };
        self.role = Role::Plain;
    }

    fn put(&mut self, s: &str) {
        if self.hold {
            self.held.push_str(s);
        } else {
            escape_json_into(s, &mut self.json);
        }
    }

    fn put_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        let s: &str = c.encode_utf8(&mut buf);
        self.put(s);
    }

    /// Scans Python string content from `i`. Returns (position, closed).
    fn scan_str(
        &mut self,
        input: &str,
        mut i: usize,
        eof: bool,
        quote: u8,
        triple: bool,
        raw: bool,
    ) -> (usize, bool) {
        let bytes = input.as_bytes();
        loop {
            let Some(rel) = super::scan::find2(quote, b'\\', &bytes[i..]) else {
                self.put(&input[i..]);
                return (bytes.len(), false);
            };
            let j = i + rel;
            self.put(&input[i..j]);
            if bytes[j] == quote {
                if !triple {
                    return (j + 1, true);
                }
                match (bytes.get(j + 1), bytes.get(j + 2)) {
                    (Some(&a), Some(&c)) if a == quote && c == quote => return (j + 3, true),
                    (None, _) if !eof => return (j, false),
                    (Some(&a), None) if a == quote && !eof => return (j, false),
                    _ => {
                        self.put(&input[j..j + 1]);
                        i = j + 1;
                    }
                }
                continue;
            }
            // A backslash.
            if raw {
                match bytes.get(j + 1) {
                    None if !eof => return (j, false),
                    Some(&c) if c == quote || c == b'\\' => {
                        self.put(&input[j..j + 2]);
                        i = j + 2;
                    }
                    _ => {
                        self.put("\\");
                        i = j + 1;
                    }
                }
                continue;
            }
            match escape(&bytes[j..], eof) {
                Esc::More => return (j, false),
                Esc::Skip(n) => i = j + n,
                Esc::Char(n, c) => {
                    self.put_char(c);
                    i = j + n;
                }
                Esc::Keep => {
                    self.put("\\");
                    i = j + 1;
                }
            }
        }
    }

    /// Scans Gemma string content from `i`. Returns (position, closed).
    fn scan_gstr(&mut self, input: &str, mut i: usize, eof: bool) -> (usize, bool) {
        let bytes = input.as_bytes();
        loop {
            let Some(rel) = super::scan::find1(b'<', &bytes[i..]) else {
                self.put(&input[i..]);
                return (bytes.len(), false);
            };
            let j = i + rel;
            self.put(&input[i..j]);
            match starts(&bytes[j..], GEMMA_QUOTE.as_bytes()) {
                Some(true) => return (j + GEMMA_QUOTE.len(), true),
                None if !eof => return (j, false),
                _ => {
                    self.put("<");
                    i = j + 1;
                }
            }
        }
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `b` may start a bare key.
fn key_start(syntax: Syntax, b: u8) -> bool {
    match syntax {
        Syntax::Python => b.is_ascii_alphabetic() || b == b'_' || b >= 0x80,
        Syntax::Gemma => key_byte(syntax, b),
    }
}

/// Whether `b` continues a bare key.
fn key_byte(syntax: Syntax, b: u8) -> bool {
    match syntax {
        Syntax::Python => b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80,
        Syntax::Gemma => {
            !is_ws(b) && !matches!(b, b':' | b',' | b'{' | b'}' | b'[' | b']' | b'<' | b'>')
        }
    }
}

/// The length of the number characters at `bytes[i..]`, given the token so far.
///
/// Whether the number has a radix prefix (`0x`, `0o`, `0b`: no exponent sign) is
/// read from the whole token, the part already held and the part being
/// scanned alike, so where the deltas cut the token does not change it.
fn number_len(bytes: &[u8], i: usize, tok: &str) -> usize {
    let held = tok.as_bytes();
    let mut second = held.get(1).copied();
    let mut prev = held.last().copied();
    let mut n = 0;
    for &c in &bytes[i..] {
        let radix = matches!(second, Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'));
        let ok = c.is_ascii_alphanumeric()
            || c == b'_'
            || c == b'.'
            || (matches!(c, b'+' | b'-')
                && (prev.is_none() || (!radix && matches!(prev, Some(b'e' | b'E')))));
        if !ok {
            break;
        }
        if held.len() + n == 1 {
            second = Some(c);
        }
        prev = Some(c);
        n += 1;
    }
    n
}

/// The JSON text of a Python (or JSON) number literal, if it is one and is finite.
pub(crate) fn number_json(tok: &str) -> Option<String> {
    let mut neg = false;
    let mut body = tok;
    while let Some(rest) = body.strip_prefix(['-', '+']) {
        if body.starts_with('-') {
            neg = !neg;
        }
        body = rest;
    }
    let digits: String = body.chars().filter(|&c| c != '_').collect();
    let sign = if neg { "-" } else { "" };
    let lower = digits.to_ascii_lowercase();
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = lower.strip_prefix(prefix) {
            let v = u128::from_str_radix(rest, radix).ok()?;
            return Some(format!("{sign}{v}"));
        }
    }
    let (mantissa, exp) = match lower.find('e') {
        Some(p) => (&lower[..p], Some(&lower[p + 1..])),
        None => (lower.as_str(), None),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(p) => (&mantissa[..p], Some(&mantissa[p + 1..])),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(int) || !frac.is_none_or(all_digits) {
        return None;
    }
    if int.is_empty() && frac.is_none_or(str::is_empty) {
        return None;
    }
    let int = int.trim_start_matches('0');
    let mut out = String::with_capacity(tok.len() + 3);
    out.push_str(sign);
    out.push_str(if int.is_empty() { "0" } else { int });
    if let Some(frac) = frac {
        out.push('.');
        out.push_str(if frac.is_empty() { "0" } else { frac });
    }
    if let Some(exp) = exp {
        let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        if digits.is_empty() || !all_digits(digits) {
            return None;
        }
        out.push('e');
        out.push_str(exp);
    }
    // JSON cannot hold an infinite number; serde_json would refuse it later.
    let finite = out.parse::<f64>().is_ok_and(f64::is_finite);
    finite.then_some(out)
}

/// Decodes the escape at `b` (which starts with a backslash).
fn escape(b: &[u8], eof: bool) -> Esc {
    let Some(&c) = b.get(1) else {
        return if eof { Esc::Keep } else { Esc::More };
    };
    let simple = |ch: char| Esc::Char(2, ch);
    match c {
        b'\n' => Esc::Skip(2),
        b'\r' => match b.get(2) {
            Some(b'\n') => Esc::Skip(3),
            None if !eof => Esc::More,
            _ => Esc::Skip(2),
        },
        b'\\' => simple('\\'),
        b'\'' => simple('\''),
        b'"' => simple('"'),
        b'a' => simple('\u{7}'),
        b'b' => simple('\u{8}'),
        b'f' => simple('\u{c}'),
        b'n' => simple('\n'),
        b'r' => simple('\r'),
        b't' => simple('\t'),
        b'v' => simple('\u{b}'),
        b'0'..=b'7' => {
            let n = b[1..]
                .iter()
                .take(3)
                .take_while(|d| (b'0'..=b'7').contains(*d))
                .count();
            if n < 3 && 1 + n == b.len() && !eof {
                return Esc::More;
            }
            let v = b[1..1 + n]
                .iter()
                .fold(0u32, |v, d| v * 8 + u32::from(d - b'0'));
            Esc::Char(1 + n, char::from_u32(v).unwrap_or('\u{fffd}'))
        }
        b'x' => fixed_hex(b, 2, eof),
        b'U' => fixed_hex(b, 8, eof),
        b'u' => {
            let v = match fixed_hex(b, 4, eof) {
                Esc::Char(..) => hex_value(&b[2..6]).unwrap_or(0xfffd),
                other => return other,
            };
            match v {
                0xd800..=0xdbff => {
                    // A high surrogate: joined with a `\uDC00`-`\uDFFF` escape right after.
                    let next = &b[6..];
                    let pattern_ok = next.iter().take(6).enumerate().all(|(k, &x)| match k {
                        0 => x == b'\\',
                        1 => x == b'u',
                        _ => x.is_ascii_hexdigit(),
                    });
                    if pattern_ok && next.len() < 6 {
                        return if eof {
                            Esc::Char(6, '\u{fffd}')
                        } else {
                            Esc::More
                        };
                    }
                    let low = if pattern_ok {
                        hex_value(&next[2..6])
                    } else {
                        None
                    };
                    match low {
                        Some(lo @ 0xdc00..=0xdfff) => {
                            let c = surrogate_pair(v, lo);
                            Esc::Char(12, char::from_u32(c).unwrap_or('\u{fffd}'))
                        }
                        _ => Esc::Char(6, '\u{fffd}'),
                    }
                }
                _ => Esc::Char(6, char::from_u32(v).unwrap_or('\u{fffd}')),
            }
        }
        _ => Esc::Keep,
    }
}

/// `\x` (2 digits) or `\U` (8 digits): decoded, split, or kept when malformed.
fn fixed_hex(b: &[u8], digits: usize, eof: bool) -> Esc {
    let have = b.len().saturating_sub(2).min(digits);
    if !b[2..2 + have].iter().all(u8::is_ascii_hexdigit) {
        return Esc::Keep;
    }
    if have < digits {
        return if eof { Esc::Keep } else { Esc::More };
    }
    let v = hex_value(&b[2..2 + digits]).unwrap_or(0xfffd);
    Esc::Char(2 + digits, char::from_u32(v).unwrap_or('\u{fffd}'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `pieces` as a stream; returns the JSON and the bytes after the closer.
    fn run(syntax: Syntax, pieces: &[&str]) -> Result<(String, String), String> {
        let mut conv = ArgsConv::new(syntax);
        let mut pending = String::new();
        for (k, piece) in pieces.iter().enumerate() {
            pending.push_str(piece);
            let eof = k + 1 == pieces.len();
            match conv.feed(&pending, eof, None) {
                Step::NeedMore(n) => {
                    pending.drain(..n);
                }
                Step::Done(n) => {
                    let rest = format!("{}{}", &pending[n..], pieces[k + 1..].concat());
                    return Ok((conv.json().to_owned(), rest));
                }
                Step::Invalid(_, m) => return Err(m),
            }
        }
        Err("unfinished".to_owned())
    }

    /// The whole input and every one-character split agree.
    fn convert(syntax: Syntax, input: &str) -> Result<(String, String), String> {
        let whole = run(syntax, &[input]);
        let chars: Vec<&str> = input
            .char_indices()
            .map(|(i, c)| &input[i..i + c.len_utf8()])
            .collect();
        assert_eq!(
            run(syntax, &chars),
            whole,
            "one character per piece: {input}"
        );
        for cut in 1..input.len() {
            if input.is_char_boundary(cut) {
                let two = run(syntax, &[&input[..cut], &input[cut..]]);
                assert_eq!(two, whole, "cut at {cut}: {input}");
            }
        }
        whole
    }

    fn ok(json: &str, rest: &str) -> Result<(String, String), String> {
        Ok((json.to_owned(), rest.to_owned()))
    }

    #[test]
    fn numbers_map_to_json_numbers() {
        for (python, json) in [
            ("1_000", "1000"),
            ("0x1F", "31"),
            ("-0o17", "-15"),
            ("0b101", "5"),
            (".5", "0.5"),
            ("5.", "5.0"),
            ("007", "7"),
            ("-0", "-0"),
            ("1E+3", "1e+3"),
            ("2.5e-3", "2.5e-3"),
            ("+4", "4"),
        ] {
            assert_eq!(number_json(python).as_deref(), Some(json), "{python}");
        }
        for bad in ["1e", "1j", "1e999", ".", "0x", "1.2.3", "-", "12ab", "0xZZ"] {
            assert_eq!(number_json(bad), None, "{bad}");
        }
    }

    #[test]
    fn python_arguments_stream_as_json() {
        assert_eq!(
            convert(
                Syntax::Python,
                r#"a='x\ud83d\ude00y\'', b=[1, (2,), {'k': None, 3: ()}], c="""q"""  ,)] tail"#
            ),
            ok(
                r#"{"a":"x😀y'","b":[1,[2],{"k":null,"3":[]}],"c":"q"}"#,
                "] tail"
            )
        );
        assert_eq!(convert(Syntax::Python, ")"), ok("{}", ""));
        assert_eq!(
            convert(Syntax::Python, "a = 'p' r'\\q' u\"r\" )"),
            ok(r#"{"a":"p\\qr"}"#, "")
        );
    }

    #[test]
    fn gemma_arguments_stream_as_json() {
        assert_eq!(
            convert(
                Syntax::Gemma,
                "a:<|\"|>x\\n \"<|y<|\"|>,b:[true,-1.5,{c:null}],<|\"|>d e<|\"|>:1}<tool_call|>"
            ),
            ok(
                r#"{"a":"x\\n \"<|y","b":[true,-1.5,{"c":null}],"d e":1}"#,
                "<tool_call|>"
            )
        );
    }

    #[test]
    fn escapes_split_anywhere_decode_once() {
        assert_eq!(
            convert(
                Syntax::Python,
                r"a='\x41\101\u00e9\U0001F600\ud800\udc00\udc00\ud83d x\q\N{A}\z')"
            ),
            ok("{\"a\":\"AAé😀𐀀\u{fffd}\u{fffd} x\\\\q\\\\N{A}\\\\z\"}", "")
        );
    }

    #[test]
    fn malformed_argument_lists_are_invalid_not_panics() {
        for input in [
            "a=foo)",
            "'a')",
            "a=1 2)",
            "a=[1,,2])",
            "a={1, 2})",
            "a={(1,): 2})",
            "a=[1)",
            "a=1e999)",
            "a=b'x')",
            "=1)",
        ] {
            assert!(convert(Syntax::Python, input).is_err(), "{input}");
        }
        let deep = format!("a={}", "[".repeat(MAX_DEPTH + 5));
        assert!(run(Syntax::Python, &[&deep]).is_err());
        for input in ["a:<b>}", "a:x}", ":1}", "a 1}"] {
            assert!(convert(Syntax::Gemma, input).is_err(), "{input}");
        }
    }
}
