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
use super::quote::{Control, bounds, escaped, quoted};

/// `root` and the rules it reaches, `root` first and named `root`.
pub(crate) fn write(g: &Grammar, root: &Node) -> String {
    let w = Writer {
        g,
        root: match root {
            Node::Rule(id) => Some(*id),
            _ => None,
        },
    };
    let order = g.reachable(root);
    // About the size of the rules' text, so that it is rarely copied as it grows.
    let mut out = String::with_capacity(64 * (order.len() + 1));
    if w.root.is_none() {
        out.push_str("root ::= ");
        w.node(root, &mut out, Ctx::Top);
        out.push('\n');
    }
    for id in order {
        out.push_str(w.name(id));
        out.push_str(" ::= ");
        w.node(&g.get(id).body, &mut out, Ctx::Top);
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

struct Writer<'a> {
    g: &'a Grammar,
    /// The rule written as `root`, if the root is one.
    root: Option<RuleId>,
}

impl<'a> Writer<'a> {
    fn name(&self, id: RuleId) -> &'a str {
        let name = self.g.get(id).name.as_str();
        if Some(id) == self.root {
            "root"
        } else if name == "root" {
            "root-rule"
        } else {
            name
        }
    }

    fn node(&self, n: &Node, out: &mut String, ctx: Ctx) {
        match n {
            Node::Empty => out.push_str("\"\""),
            Node::Lit(s) => quoted(s, Control::Gbnf, out),
            Node::Class(c) => class(c, out),
            Node::Rule(id) => out.push_str(self.name(*id)),
            Node::Text { lowered, .. } => out.push_str(self.name(*lowered)),
            Node::Mark(_, inner) => self.node(inner, out, ctx),
            Node::Seq(parts) => {
                let wrap = ctx == Ctx::Atom;
                if wrap {
                    out.push('(');
                }
                // Runs of literals (marked or not) as one literal, written
                // piece by piece.
                let mut in_run = false;
                let mut first = true;
                for part in parts {
                    if let Some(text) = part.lit_text() {
                        if !text.is_empty() && !in_run {
                            if !first {
                                out.push(' ');
                            }
                            out.push('"');
                            in_run = true;
                            first = false;
                        }
                        escaped(text, Control::Gbnf, out);
                        continue;
                    }
                    if in_run {
                        out.push('"');
                        in_run = false;
                    }
                    if !first {
                        out.push(' ');
                    }
                    self.node(part, out, Ctx::Item);
                    first = false;
                }
                if in_run {
                    out.push('"');
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
                    self.node(option, out, Ctx::Item);
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
                self.node(inner, out, Ctx::Atom);
                bounds(*min, *max, out);
                if wrap {
                    out.push(')');
                }
            }
        }
    }
}

/// `c` as `\uHHHH` (four hex digits: see the module's header).
fn escaped_char(c: char, out: &mut String) {
    let _ = write!(out, "\\u{:04X}", c as u32);
}

/// A char inside `[…]`: the class syntax's own chars and control chars as
/// `\uHHHH`.
fn class_char(c: char, out: &mut String) {
    match c {
        '\\' | ']' | '[' | '^' | '-' | '"' => escaped_char(c, out),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x20 || c == '\u{7f}' => escaped_char(c, out),
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
