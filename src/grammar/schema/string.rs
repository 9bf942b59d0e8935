//! Strings in each value syntax: the units one char is written as (JSON
//! escapes, Python escapes, Gemma's raw text, an XML value's raw text), length
//! bounds as bounded repeats of units, and the formats that convert cheaply.

use compact_str::CompactString;

use super::super::ir::{CharClass, Node};

/// How strings (and the rest of a value) are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Syntax {
    /// JSON.
    Json,
    /// JSON inside an XML value: no `<` in strings (written `\u003c`), so no
    /// string can hold the value's closing tag.
    JsonInXml,
    /// Python literals (`True`, `None`, `"…"` with escapes).
    Python,
    /// Gemma 4 literals (`<|"|>…<|"|>` strings, bare keys).
    Gemma,
}

impl Syntax {
    /// The key of this syntax's shared rules.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Syntax::Json => "json",
            Syntax::JsonInXml => "jsonx",
            Syntax::Python => "py",
            Syntax::Gemma => "gemma",
        }
    }

    /// The key of the shared rule of one string unit (`json-char`, …;
    /// Gemma's are `gemma-char` and `gemma-unit`, made where they are used).
    pub(crate) fn char_key(self) -> &'static str {
        match self {
            Syntax::Json => "json-char",
            Syntax::JsonInXml => "jsonx-char",
            Syntax::Python => "py-char",
            Syntax::Gemma => "gemma-char",
        }
    }

    /// The key of the shared rule of any string (`json-string`, …).
    pub(crate) fn string_key(self) -> &'static str {
        match self {
            Syntax::Json => "json-string",
            Syntax::JsonInXml => "jsonx-string",
            Syntax::Python => "py-string",
            Syntax::Gemma => "gemma-string",
        }
    }
}

/// A hex digit.
fn hex() -> Node {
    Node::Class(CharClass::of(&[('0', '9'), ('a', 'f'), ('A', 'F')]))
}

/// `u` and four hex digits naming a char that is not a surrogate (a lone
/// surrogate is an error in JSON readers, `serde_json` among them).
fn unicode_escape() -> Node {
    let not_d = CharClass::of(&[('0', '9'), ('a', 'c'), ('A', 'C'), ('e', 'f'), ('E', 'F')]);
    Node::seq([
        Node::lit("u"),
        Node::alt(vec![
            Node::seq([Node::Class(not_d), Node::repeat(hex(), 3, Some(3))]),
            Node::seq([
                Node::Class(CharClass::of(&[('d', 'd'), ('D', 'D')])),
                Node::Class(CharClass::of(&[('0', '7')])),
                Node::repeat(hex(), 2, Some(2)),
            ]),
        ]),
    ])
}

/// One char of a quoted string in `syntax` (one unit: a plain char or an
/// escape), for JSON and Python. Gemma's unit is [`gemma_unit`].
pub(crate) fn quoted_unit(syntax: Syntax) -> Node {
    let mut plain = vec![('"', '"'), ('\\', '\\'), ('\0', '\u{1f}')];
    if syntax == Syntax::JsonInXml {
        plain.push(('<', '<'));
    }
    // Python reads `\/` as two chars: only JSON writes it.
    let simple: &[(char, char)] = if syntax == Syntax::Python {
        &[
            ('"', '"'),
            ('\\', '\\'),
            ('b', 'b'),
            ('f', 'f'),
            ('n', 'n'),
            ('r', 'r'),
            ('t', 't'),
        ]
    } else {
        &[
            ('"', '"'),
            ('\\', '\\'),
            ('/', '/'),
            ('b', 'b'),
            ('f', 'f'),
            ('n', 'n'),
            ('r', 'r'),
            ('t', 't'),
        ]
    };
    Node::alt(vec![
        Node::Class(CharClass::not(&plain)),
        Node::seq([
            Node::lit("\\"),
            Node::alt(vec![Node::Class(CharClass::of(simple)), unicode_escape()]),
        ]),
    ])
}

/// The delimiter of a Gemma 4 string.
pub(crate) const GEMMA_QUOTE: &str = "<|\"|>";

/// One char of a Gemma 4 string: anything but `<`; with `pairs`, also `<`
/// followed by a char other than `|` and `<` (two chars: only where no
/// length bound counts units).
pub(crate) fn gemma_unit(pairs: bool) -> Node {
    let single = Node::Class(CharClass::not(&[('<', '<')]));
    if !pairs {
        return single;
    }
    Node::alt(vec![
        single,
        Node::seq([
            Node::lit("<"),
            Node::Class(CharClass::not(&[('<', '<'), ('|', '|')])),
        ]),
    ])
}

/// The text of a string `format` that converts cheaply (`date`, `time`,
/// `date-time`, `uuid`); `None` for the others, which are loosened.
pub(crate) fn format_text(format: &str) -> Option<Node> {
    let d = |n: u32| Node::repeat(Node::Class(CharClass::of(&[('0', '9')])), n, Some(n));
    let c = |a: char, b: char| Node::Class(CharClass::of(&[(a, b)]));
    let date = || {
        Node::seq([
            d(4),
            Node::lit("-"),
            Node::alt(vec![
                Node::seq([Node::lit("0"), c('1', '9')]),
                Node::seq([Node::lit("1"), c('0', '2')]),
            ]),
            Node::lit("-"),
            Node::alt(vec![
                Node::seq([Node::lit("0"), c('1', '9')]),
                Node::seq([c('1', '2'), c('0', '9')]),
                Node::seq([Node::lit("3"), c('0', '1')]),
            ]),
        ])
    };
    let hour = || {
        Node::alt(vec![
            Node::seq([c('0', '1'), c('0', '9')]),
            Node::seq([Node::lit("2"), c('0', '3')]),
        ])
    };
    let time = || {
        Node::seq([
            hour(),
            Node::lit(":"),
            c('0', '5'),
            c('0', '9'),
            Node::lit(":"),
            c('0', '5'),
            c('0', '9'),
            Node::opt(Node::seq([
                Node::lit("."),
                Node::repeat(c('0', '9'), 1, Some(6)),
            ])),
            Node::alt(vec![
                Node::lit("Z"),
                Node::seq([
                    Node::Class(CharClass::of(&[('+', '+'), ('-', '-')])),
                    hour(),
                    Node::lit(":"),
                    c('0', '5'),
                    c('0', '9'),
                ]),
            ]),
        ])
    };
    let h = |n: u32| {
        Node::repeat(
            Node::Class(CharClass::of(&[('0', '9'), ('a', 'f')])),
            n,
            Some(n),
        )
    };
    Some(match format {
        "date" => date(),
        "time" => time(),
        "date-time" => Node::seq([date(), Node::lit("T"), time()]),
        "uuid" => Node::seq([
            h(8),
            Node::lit("-"),
            h(4),
            Node::lit("-"),
            h(4),
            Node::lit("-"),
            h(4),
            Node::lit("-"),
            h(12),
        ]),
        _ => return None,
    })
}

/// A string's text in a JSON or Python literal, appended to `out`: `s` in
/// quotes with `serde_json`'s escapes (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`,
/// `\t`, other control chars as `\u00xx`), which mean the same in Python; in
/// JSON inside an XML value `<` is written `\u003c`.
pub(crate) fn write_quoted(s: &str, syntax: Syntax, out: &mut CompactString) {
    let lt = syntax == Syntax::JsonInXml;
    out.push('"');
    // Only ASCII bytes are escaped: runs between them are copied whole.
    let mut start = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            0x0c => "\\f",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            b'<' if lt => "\\u003c",
            0..0x20 => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        start = i + 1;
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push_str(short);
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}
