//! The grammar as GBNF, llama.cpp's grammar format (`root ::= …`), which
//! XGrammar's EBNF also reads. Bounds are written `{m,n}` and are small: the
//! converter never makes one larger than its `max_repeat`, since llama.cpp
//! expands each into that many rules.
//!
//! Escaped chars are written `\uHHHH`, never `\xHH`: llama.cpp reads two hex
//! digits after `\x`, XGrammar every hex digit that follows (`[\x5Cbf]` is
//! one char to it, U+5CBF), and both read exactly four after `\u`.

use std::fmt::Write as _;

use super::ir::{CharClass, Grammar, Node, RuleId};

/// `root` and the rules it reaches, `root` first and named `root`.
pub(crate) fn write(g: &Grammar, root: &Node) -> String {
    let mut out = String::new();
    let root_id = match root {
        Node::Rule(id) => Some(*id),
        _ => None,
    };
    let name = |id: RuleId| -> String {
        if Some(id) == root_id {
            "root".to_owned()
        } else if g.get(id).name == "root" {
            "root-rule".to_owned()
        } else {
            g.get(id).name.clone()
        }
    };
    if root_id.is_none() {
        out.push_str("root ::= ");
        node(root, &name, &mut out, Ctx::Top);
        out.push('\n');
    }
    for id in g.reachable(root) {
        out.push_str(&name(id));
        out.push_str(" ::= ");
        node(&g.get(id).body, &name, &mut out, Ctx::Top);
        out.push('\n');
    }
    out
}

/// Where a node is written: what needs parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// A rule's body: alternatives as they are.
    Top,
    /// An item of a sequence: alternatives in parentheses.
    Item,
    /// Under a repetition: anything but an atom in parentheses.
    Atom,
}

fn node(n: &Node, name: &dyn Fn(RuleId) -> String, out: &mut String, ctx: Ctx) {
    match n {
        Node::Empty => out.push_str("\"\""),
        Node::Lit(s) => literal(s, out),
        Node::Class(c) => class(c, out),
        Node::Rule(id) => out.push_str(&name(*id)),
        Node::Text { lowered, .. } => out.push_str(&name(*lowered)),
        Node::Mark(_, inner) => node(inner, name, out, ctx),
        Node::Seq(parts) => {
            let wrap = ctx == Ctx::Atom;
            if wrap {
                out.push('(');
            }
            // Runs of literals (marked or not) as one literal.
            let mut run = String::new();
            let mut first = true;
            for part in parts {
                if let Some(text) = literal_text(part) {
                    run.push_str(&text);
                    continue;
                }
                if !run.is_empty() {
                    if !first {
                        out.push(' ');
                    }
                    literal(&std::mem::take(&mut run), out);
                    first = false;
                }
                if !first {
                    out.push(' ');
                }
                node(part, name, out, Ctx::Item);
                first = false;
            }
            if !run.is_empty() {
                if !first {
                    out.push(' ');
                }
                literal(&run, out);
            }
            if wrap {
                out.push(')');
            }
        }
        Node::Alt(options) => {
            let wrap = ctx != Ctx::Top;
            if wrap {
                out.push('(');
            }
            for (i, option) in options.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                node(option, name, out, Ctx::Item);
            }
            if wrap {
                out.push(')');
            }
        }
        Node::Repeat {
            node: inner,
            min,
            max,
        } => {
            let wrap = ctx == Ctx::Atom;
            if wrap {
                out.push('(');
            }
            node(inner, name, out, Ctx::Atom);
            match (min, max) {
                (0, Some(1)) => out.push('?'),
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (m, None) => {
                    let _ = write!(out, "{{{m},}}");
                }
                (m, Some(n)) if m == n => {
                    let _ = write!(out, "{{{m}}}");
                }
                (m, Some(n)) => {
                    let _ = write!(out, "{{{m},{n}}}");
                }
            }
            if wrap {
                out.push(')');
            }
        }
    }
}

/// The text of a literal, marked or not.
fn literal_text(n: &Node) -> Option<String> {
    match n {
        Node::Lit(s) => Some(s.clone()),
        Node::Mark(_, inner) => literal_text(inner),
        _ => None,
    }
}

/// A quoted literal: `"`, `\` and control chars escaped, the rest as it is.
pub(crate) fn literal(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => escaped(c, out),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `c` as `\uHHHH` (four hex digits: see the module's header).
fn escaped(c: char, out: &mut String) {
    let _ = write!(out, "\\u{:04X}", c as u32);
}

/// A char inside `[…]`: the class syntax's own chars and control chars as
/// `\uHHHH`.
fn class_char(c: char, out: &mut String) {
    match c {
        '\\' | ']' | '[' | '^' | '-' | '"' => escaped(c, out),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || c == '\u{7f}' => {
            let _ = write!(out, "\\x{:02X}", c as u32);
        }
        c => out.push(c),
    }
}

fn class(c: &CharClass, out: &mut String) {
    out.push('[');
    if c.negated {
        out.push('^');
        if c.ranges.is_empty() {
            // Every char: every char but NUL.
            out.push_str("\\u0000");
        }
    }
    for &(a, b) in &c.ranges {
        class_char(a, out);
        if a != b {
            out.push('-');
            class_char(b, out);
        }
    }
    out.push(']');
}
