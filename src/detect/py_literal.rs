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
//! written as strings, as Python's `json.dumps` does), a set of scalars and
//! strings (`{'a', 1}`) becomes an array in source order, duplicates kept as
//! written (`{}` is the empty dict). Anything else (names, calls, operators,
//! a container in a set, bytes, f-strings, positional arguments) makes the
//! call invalid.
//!
//! A `{` is a dict or a set, which only the byte after its first entry
//! tells (`:` or `,`/`}`): nothing from the `{` on is emitted until then (the
//! look-behind is that one key or element, a scalar or a string), and a set's
//! first entry, written as a key, is rewritten as an element.
//!
//! Typed by schema: the top-level value of a parameter whose declared type is
//! `integer`, `number`, `boolean`, `array` or `object` and that is written as
//! a string literal is held to its end and converted when it converts cleanly
//! (`passengers="3"` gives `3`), else it stays a string; a number written for
//! a `string` parameter becomes a string (`zip=2139` gives `"2139"`). Every
//! other value keeps its literal's type.

use crate::core::{JsonObject, ParamType, ToolShape};

use super::json_value::parse_arguments;
use super::scan::{escape_json_into, starts};
use super::sink::CallSink;

mod frames;
mod scalars;
mod strings;

use scalars::{number_json, number_len};
#[cfg(test)]
mod tests;

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
    /// A Python set, written as an array.
    Set,
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
    /// List/Tuple/Set: an element or the closer. -> a value state / close.
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
    /// Where the innermost `{` belongs in `json` while it may still be a dict
    /// or a set (its `{` or `[` is not written yet; nothing from here is emitted).
    brace: Option<usize>,
    /// The last key written was a scalar (quoted as a key; unquoted if its
    /// `{` turns out to be a set).
    key_scalar: bool,
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
            brace: None,
            key_scalar: false,
        }
    }

    /// Feeds `input` like [`feed`](Self::feed), typed by the schema of tool
    /// `name`, and emits the JSON it added as the argument text of call
    /// `index` (nothing while no call is open: an unknown tool's arguments are
    /// converted but not streamed).
    pub(crate) fn feed_streaming(
        &mut self,
        input: &str,
        eof: bool,
        name: &str,
        index: Option<usize>,
        sink: &mut CallSink<'_>,
    ) -> Step {
        let catalog = sink.catalog;
        let step = self.feed(input, eof, catalog.get(name));
        if let Some(index) = index {
            // An undecided `{` (dict or set) holds back what follows it.
            let upto = self.brace.unwrap_or(self.json.len());
            if let Some(fragment) = self.json.get(self.emitted..upto) {
                sink.args(index, fragment);
                self.emitted = upto;
            }
        }
        step
    }

    /// The finished arguments (once `Done` was returned) as an object, or why
    /// they are not one.
    pub(crate) fn arguments(&self) -> Result<JsonObject, String> {
        parse_arguments(&self.json)
            .map_err(|e| format!("the arguments do not convert to json: {e}"))
    }

    /// The closers of the open brackets, the argument list's own first:
    /// where the skip of a broken call starts.
    #[cold]
    pub(crate) fn closers(&self) -> Vec<u8> {
        self.frames
            .iter()
            .map(|f| match (f.kind, self.syntax) {
                (Kind::Args, Syntax::Python) | (Kind::Tuple, _) => b')',
                (Kind::Args, Syntax::Gemma) | (Kind::Dict | Kind::Set, _) => b'}',
                (Kind::List, _) => b']',
            })
            .collect()
    }

    /// The arguments JSON written so far (complete once `Done` was returned).
    #[cfg(test)]
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
                    if self.skip_or_close(b) {
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
                            if self.top().kind == Kind::Args {
                                self.top_ty = None;
                            }
                            match self.value(Role::Key, bytes, i, eof) {
                                Ok(n) => i += n,
                                Err(step) => return step,
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
                        if let Some(at) = self.brace.take() {
                            // The first key of a `{`: a dict.
                            self.json.insert(at, '{');
                        }
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
                    } else if self.brace.is_some() && (b == b',' || b == b'}') {
                        // The first element of a `{`: a set.
                        i += 1;
                        self.become_set();
                        if b == b'}' {
                            self.close();
                        } else {
                            self.state = St::ElemOrClose;
                        }
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
                    let role = if self.top().kind == Kind::Args {
                        Role::Top(self.top_ty)
                    } else {
                        Role::Plain
                    };
                    match self.value(role, bytes, i, eof) {
                        Ok(n) => i += n,
                        Err(step) => return step,
                    }
                }
                St::ElemOrClose => {
                    if self.skip_or_close(b) {
                        i += 1;
                    } else {
                        if self.split_quote(bytes, i, eof) {
                            return Step::NeedMore(i);
                        }
                        self.begin_entry();
                        match self.value(Role::Plain, bytes, i, eof) {
                            Ok(n) => i += n,
                            Err(step) => return step,
                        }
                    }
                }
                St::CommaOrClose => {
                    if is_ws(b) {
                        i += 1;
                    } else if b == b',' {
                        i += 1;
                        self.state = match self.top().kind {
                            Kind::List | Kind::Tuple | Kind::Set => St::ElemOrClose,
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

    /// Starts a value at `bytes[i]` (not whitespace). `Ok(Some(n))`: consumed
    /// n bytes; `Ok(None)`: undecided, nothing consumed.
    /// Starts a value in `role` at `bytes[i]` (not whitespace): the bytes it
    /// consumed, or the step to return (more input needed, or invalid).
    fn value(&mut self, role: Role, bytes: &[u8], i: usize, eof: bool) -> Result<usize, Step> {
        self.role = role;
        match self.start_value(bytes, i, eof) {
            Ok(Some(n)) => Ok(n),
            Ok(None) => Err(Step::NeedMore(i)),
            Err(m) => Err(Step::Invalid(i, m)),
        }
    }

    fn start_value(&mut self, bytes: &[u8], i: usize, eof: bool) -> Result<Option<usize>, String> {
        let b = bytes[i];
        match (self.syntax, b) {
            (Syntax::Python, b'\'' | b'"') => {
                self.begin_string();
                self.state = St::Quote { raw: false };
                Ok(Some(0))
            }
            (Syntax::Gemma, b'<') => match starts(&bytes[i..], GEMMA_QUOTE.as_bytes()) {
                Some(true) => {
                    self.begin_string();
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
