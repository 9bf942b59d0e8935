//! Fixed values (`enum`, `const`) written in a value syntax, and strings
//! other than a few words.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use compact_str::CompactString;
use serde_json::Value;

use super::super::ir::{CharClass, Node};
use super::string::{GEMMA_QUOTE, Syntax, write_quoted};

/// `value` written in `syntax`; `None` where the syntax cannot write it (a
/// Gemma string holding its own delimiter, a key that is not a bare name).
pub(crate) fn literal_text(value: &Value, syntax: Syntax) -> Option<CompactString> {
    let mut out = CompactString::const_new("");
    write_literal(value, syntax, &mut out).then_some(out)
}

/// The string `s` written in `syntax`, as [`literal_text`] writes it.
pub(crate) fn string_text(s: &str, syntax: Syntax) -> Option<CompactString> {
    let mut out = CompactString::const_new("");
    write_string(s, syntax, &mut out).then_some(out)
}

fn write_string(s: &str, syntax: Syntax, out: &mut CompactString) -> bool {
    if syntax == Syntax::Gemma {
        if s.contains('<') {
            return false;
        }
        out.push_str(GEMMA_QUOTE);
        out.push_str(s);
        out.push_str(GEMMA_QUOTE);
    } else {
        write_quoted(s, syntax, out);
    }
    true
}

fn write_literal(value: &Value, syntax: Syntax, out: &mut CompactString) -> bool {
    let python = syntax == Syntax::Python;
    match value {
        Value::Null => out.push_str(if python { "None" } else { "null" }),
        Value::Bool(b) => out.push_str(match (b, python) {
            (true, true) => "True",
            (false, true) => "False",
            (true, false) => "true",
            (false, false) => "false",
        }),
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => return write_string(s, syntax, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(separator(syntax));
                }
                if !write_literal(item, syntax, out) {
                    return false;
                }
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(separator(syntax));
                }
                if syntax == Syntax::Gemma {
                    if is_bare_key(k) {
                        out.push_str(k);
                    } else if k.contains('<') {
                        return false;
                    } else {
                        out.push_str(GEMMA_QUOTE);
                        out.push_str(k);
                        out.push_str(GEMMA_QUOTE);
                    }
                    out.push(':');
                } else {
                    write_quoted(k, syntax, out);
                    out.push_str(": ");
                }
                if !write_literal(v, syntax, out) {
                    return false;
                }
            }
            out.push('}');
        }
    }
    true
}

/// The separator between items and members in `syntax`.
pub(crate) fn separator(syntax: Syntax) -> &'static str {
    if syntax == Syntax::Gemma { "," } else { ", " }
}

/// A key Gemma 4 and Python keyword arguments write bare: an identifier.
pub(crate) fn is_bare_key(k: &str) -> bool {
    let mut chars = k.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && k.len() <= 128
}

/// Strings of chars from `class` (any length, `min` at least) other than
/// each of `words`: a walk down the words' shared prefixes, free text
/// wherever the prefix stops being one. `tail` is the rule for any string
/// of `class` (`class*`).
pub(crate) fn other_than(class: &CharClass, words: &[&str], tail: &Node, min: u32) -> Node {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| w.chars().all(|c| class.contains(c)))
        .collect();
    walk(class, &words, 0, tail, min)
}

fn walk(class: &CharClass, words: &[&str], at: usize, tail: &Node, min: u32) -> Node {
    if words.is_empty() {
        return if min == 0 {
            tail.clone()
        } else {
            Node::seq([
                Node::repeat(Node::Class(class.clone()), min, Some(min)),
                tail.clone(),
            ])
        };
    }
    let mut options = Vec::new();
    // End here unless a word ends here.
    if min == 0 && !words.iter().any(|w| w.len() == at) {
        options.push(Node::Empty);
    }
    let next: BTreeSet<char> = words
        .iter()
        .filter_map(|w| w[at..].chars().next())
        .collect();
    let free: Vec<char> = next.iter().copied().collect();
    let rest_min = min.saturating_sub(1);
    options.push(Node::seq([
        Node::Class(class.minus(&free)),
        if rest_min == 0 {
            tail.clone()
        } else {
            Node::seq([
                Node::repeat(Node::Class(class.clone()), rest_min, Some(rest_min)),
                tail.clone(),
            ])
        },
    ]));
    for c in next {
        let inner: Vec<&str> = words
            .iter()
            .copied()
            .filter(|w| w[at..].starts_with(c))
            .collect();
        options.push(Node::seq([
            Node::char(c),
            walk(class, &inner, at + c.len_utf8(), tail, rest_min),
        ]));
    }
    Node::alt(options)
}
