//! String literals of the pythonic converter: Python's quotes, prefixes and
//! escapes, and Gemma 4's `<|"|>` strings, streamed as JSON-escaped fragments
//! (or held for a typed top-level value).

use crate::core::ParamType;

use super::super::json_tokenizer::{hex_value, surrogate_pair};
use super::super::scan::{find1, find2, starts};
use super::super::xml_syntax::typed_value;
use super::{ArgsConv, GEMMA_QUOTE, Role, St, Syntax};

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
    /// Whether a Gemma string delimiter at `i` is split (decide nothing yet).
    #[inline]
    pub(super) fn split_quote(&self, bytes: &[u8], i: usize, eof: bool) -> bool {
        self.syntax == Syntax::Gemma
            && !eof
            && starts(&bytes[i..], GEMMA_QUOTE.as_bytes()).is_none()
    }

    /// A string literal begins: held whole for a typed top-level value, else
    /// its JSON string is opened.
    #[inline]
    pub(super) fn begin_string(&mut self) {
        self.hold = self.role != Role::Key && self.hold_string();
        self.held.clear();
        if !self.hold {
            self.json.push('"');
        }
    }

    /// Whether a string in the current role is held for conversion.
    #[inline]
    pub(super) fn hold_string(&self) -> bool {
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

    /// At a quote byte: opens a single- or triple-quoted string (or an empty
    /// one). `None`: the quote run is split.
    #[inline]
    pub(super) fn open_quote(
        &mut self,
        bytes: &[u8],
        i: usize,
        eof: bool,
        raw: bool,
    ) -> Option<usize> {
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

    /// A string (with any adjacent continuation) ended.
    #[inline]
    pub(super) fn end_string(&mut self) {
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

    #[inline]
    pub(super) fn put_char(&mut self, c: char) {
        let mut buf = [0u8; 4];
        let s: &str = c.encode_utf8(&mut buf);
        self.put(s);
    }

    /// Scans Python string content from `i`. Returns (position, closed).
    #[inline]
    pub(super) fn scan_str(
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
            let Some(rel) = find2(quote, b'\\', &bytes[i..]) else {
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
    #[inline]
    pub(super) fn scan_gstr(&mut self, input: &str, mut i: usize, eof: bool) -> (usize, bool) {
        let bytes = input.as_bytes();
        loop {
            let Some(rel) = find1(b'<', &bytes[i..]) else {
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
