//! The grammar in llguidance's Lark syntax.
//!
//! llguidance's lexemes are greedy: a lexeme that could run on into the
//! next one does not stop for it. So only short units (a char, an escape)
//! are terminals; everything else is a rule over them, repetitions
//! included, and runs of literals are one literal. JSON arguments are the
//! grammar's own rules, the ones the other outputs hold (not `%json`, whose
//! whitespace and defaults differ). Free text followed by a word it may not
//! hold (a trigger, a reasoning block's end) is a lazy lexeme that ends at
//! the first such word; free text at the end is a terminal `/(?s:.*)/ &
//! ~/(?s:.*)(words)(?s:.*)/`.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::build::ToolGrammar;
use super::dialect::{Layout, envelope};
use super::ir::{CharClass, Grammar, Node, RuleId, collect_refs};
use super::options::ToolChoice;
use super::quote::{Control, bounds, escaped, quoted};

/// The Lark grammar of the whole output.
pub(crate) fn write(tg: &ToolGrammar) -> String {
    let mut w = Writer {
        tg,
        g: &tg.grammar,
        terminal: HashMap::new(),
        extra: String::new(),
        n_anon: 0,
    };
    let start = match (&tg.choice, &tg.root) {
        (ToolChoice::Auto, Node::Rule(root)) => w.auto_start(*root),
        _ => {
            let mut s = String::new();
            w.node(&tg.root, &mut s, Ctx::Top);
            s
        }
    };
    let mut out = String::from("%llguidance {}\n");
    let _ = writeln!(out, "start: {start}");
    let mut roots = Vec::new();
    match &tg.lazy_root {
        // The lazy start above stands for the root.
        Some(lazy) if tg.choice == ToolChoice::Auto => collect_refs(lazy, &mut roots),
        _ => collect_refs(&tg.root, &mut roots),
    }
    for tag in &tg.tags {
        collect_refs(&tag.content, &mut roots);
    }
    let mut seen = vec![false; w.g.rules.len()];
    let mut stack = roots;
    while let Some(id) = stack.pop() {
        if std::mem::replace(&mut seen[id.0], true) {
            continue;
        }
        let body = &w.g.get(id).body;
        let mut text = String::new();
        w.node(body, &mut text, Ctx::Top);
        let _ = writeln!(out, "{}: {text}", w.name(id));
        let mut inner = Vec::new();
        collect_refs(body, &mut inner);
        stack.extend(inner);
    }
    out.push_str(&w.extra);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Top,
    Item,
    Atom,
}

struct Writer<'a> {
    tg: &'a ToolGrammar,
    g: &'a Grammar,
    /// Whether each rule is written as a terminal (`None`: being decided).
    terminal: HashMap<RuleId, Option<bool>>,
    /// Rules and terminals made while writing (lazy lexemes, text).
    extra: String,
    n_anon: usize,
}

impl Writer<'_> {
    fn name(&mut self, id: RuleId) -> String {
        let name = self.g.get(id).name.to_string();
        if self.is_terminal(id) {
            name.to_ascii_uppercase().replace('-', "_")
        } else if name == "start" {
            "start-rule".to_owned()
        } else {
            name
        }
    }

    /// Whether a rule is regular and holds no free text nor JSON arguments.
    fn is_terminal(&mut self, id: RuleId) -> bool {
        if let Some(known) = self.terminal.get(&id) {
            // A rule being decided is recursive: not a terminal.
            return known.unwrap_or(false);
        }
        let name = &self.g.get(id).name;
        if matches!(name.as_str(), "root" | "calls" | "call") {
            self.terminal.insert(id, Some(false));
            return false;
        }
        self.terminal.insert(id, None);
        let verdict = self.plain(&self.g.get(id).body.clone());
        self.terminal.insert(id, Some(verdict));
        verdict
    }

    /// Whether a node is one short unit (a char, an escape, `<` and a char)
    /// that no longer text can extend: only such rules are terminals, since
    /// llguidance's lexemes are greedy (a lexeme that could run on into the
    /// next one would not stop for it).
    fn plain(&mut self, node: &Node) -> bool {
        match node {
            Node::Empty | Node::Lit(_) | Node::Class(_) => true,
            Node::Text { .. } | Node::Mark(..) | Node::Repeat { .. } => false,
            Node::Seq(parts) | Node::Alt(parts) => parts.iter().all(|p| self.plain(p)),
            Node::Rule(id) => {
                if self.terminal.get(id) == Some(&None) {
                    return false;
                }
                self.is_terminal(*id)
            }
        }
    }

    fn anon(&mut self) -> usize {
        self.n_anon += 1;
        self.n_anon
    }

    /// `start` of a lazy grammar: the optional reasoning block, then text
    /// without a trigger, or text up to a trigger and the calls after it.
    fn auto_start(&mut self, root: RuleId) -> String {
        let body = self.g.get(root).body.clone();
        let parts = match body {
            Node::Seq(parts) => parts,
            other => vec![other],
        };
        // Free text (plain, or an answer of its own: a header then text,
        // one alternative beside the calls).
        let text_at = parts
            .iter()
            .position(|p| matches!(p, Node::Text { .. } | Node::Alt(_)));
        let mut pre = String::new();
        for part in parts.iter().take(text_at.unwrap_or(0)) {
            self.node(part, &mut pre, Ctx::Item);
            pre.push(' ');
        }
        let mut options = Vec::new();
        match text_at.and_then(|i| parts.get(i)) {
            Some(Node::Text { words, .. }) => {
                options.push(format!("{pre}{}", self.text_terminal(words)));
            }
            Some(Node::Alt(alts)) => {
                for alt in alts {
                    if let Node::Seq(seq) = alt
                        && let [Node::Lit(header), Node::Text { words, .. }] = seq.as_slice()
                    {
                        // One lexeme, header and text: beside the lazy leads,
                        // a header alone would never end.
                        let text = self.text_terminal(words);
                        let answer = format!("ANSWER_{}", self.anon());
                        let mut h = String::new();
                        quoted(header, Control::Unicode4, &mut h);
                        let _ = writeln!(self.extra, "{answer}: {h} {text}");
                        options.push(format!("{pre}{answer}"));
                    }
                }
            }
            _ => {}
        }
        let layout = envelope(self.tg.dialect).map(|e| e.layout);
        for (t, trigger) in self.tg.triggers.clone().iter().enumerate() {
            let lead = format!("lead-{}", self.anon());
            let mut trig = String::new();
            quoted(trigger, Control::Unicode4, &mut trig);
            let _ = writeln!(self.extra, "{lead}[lazy]: /(?s:.*)/ {trig}");
            let mut rests = Vec::new();
            for tag in self.tg.tags.iter().filter(|tag| tag.trigger == t) {
                let rest = Node::seq([
                    Node::lit(&tag.begin[trigger.len().min(tag.begin.len())..]),
                    tag.content.clone(),
                    Node::lit(&tag.end),
                ]);
                let mut s = String::new();
                self.node(&rest, &mut s, Ctx::Item);
                rests.push(s);
            }
            if rests.is_empty() {
                continue;
            }
            let mut more = String::new();
            if let (true, Some(Layout::PerCall { sep })) = (self.tg.parallel, layout)
                && let Some(Node::Rule(calls)) = &self.tg.lazy_root
                && let Node::Seq(p) = &self.g.get(*calls).body
                && let Some(Node::Rule(call)) = p.first()
            {
                let mut s = String::from(" (");
                if !sep.is_empty() {
                    quoted(sep, Control::Unicode4, &mut s);
                    s.push(' ');
                }
                s.push_str(&self.name(*call));
                s.push_str(")*");
                more = s;
            }
            options.push(format!("{pre}{lead} ({}){more}", rests.join(" | ")));
        }
        options.join(" | ")
    }

    /// A terminal for free text holding none of `words`.
    fn text_terminal(&mut self, words: &[String]) -> String {
        let name = format!("TEXT_{}", self.anon());
        if words.is_empty() {
            let _ = writeln!(self.extra, "{name}: /(?s:.*)/");
            return name;
        }
        let alternatives: Vec<String> = words.iter().map(|w| regex_escape(w)).collect();
        let _ = writeln!(
            self.extra,
            "{name}: /(?s:.*)/ & ~/(?s:.*)(?:{})(?s:.*)/",
            alternatives.join("|")
        );
        name
    }

    fn node(&mut self, node: &Node, out: &mut String, ctx: Ctx) {
        match node {
            Node::Empty => out.push_str("\"\""),
            Node::Lit(s) => quoted(s, Control::Unicode4, out),
            Node::Class(c) => {
                out.push('/');
                class(c, out);
                out.push('/');
            }
            Node::Rule(id) => {
                let name = self.name(*id);
                out.push_str(&name);
            }
            Node::Text { words, .. } => {
                let name = self.text_terminal(words);
                out.push_str(&name);
            }
            Node::Mark(_, inner) => self.node(inner, out, ctx),
            Node::Seq(parts) => {
                if ctx == Ctx::Atom {
                    out.push('(');
                }
                let mut i = 0;
                let mut first = true;
                while i < parts.len() {
                    if !first {
                        out.push(' ');
                    }
                    first = false;
                    // Free text up to a word it may not hold: a lazy lexeme.
                    if let (Node::Text { words, .. }, Some(Node::Lit(next))) =
                        (&parts[i], parts.get(i + 1))
                        && let Some(word) = words.iter().find(|w| next.starts_with(w.as_str()))
                    {
                        let lazy = format!("upto-{}", self.anon());
                        let mut w = String::new();
                        quoted(word, Control::Unicode4, &mut w);
                        let _ = writeln!(self.extra, "{lazy}[lazy]: /(?s:.*)/ {w}");
                        out.push_str(&lazy);
                        let rest = &next[word.len()..];
                        if !rest.is_empty() {
                            out.push(' ');
                            quoted(rest, Control::Unicode4, out);
                        }
                        i += 2;
                        continue;
                    }
                    // A run of literals (marked or not) as one literal: one
                    // lexeme, never a prefix of another.
                    if parts[i].lit_text().is_some() {
                        let mut j = i + 1;
                        while parts.get(j).and_then(Node::lit_text).is_some() {
                            j += 1;
                        }
                        out.push('"');
                        for text in parts[i..j].iter().filter_map(Node::lit_text) {
                            escaped(text, Control::Unicode4, out);
                        }
                        out.push('"');
                        i = j;
                        continue;
                    }
                    self.node(&parts[i], out, Ctx::Item);
                    i += 1;
                }
                if ctx == Ctx::Atom {
                    out.push(')');
                }
            }
            Node::Alt(options) => {
                if ctx != Ctx::Top {
                    out.push('(');
                }
                for (i, option) in options.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" | ");
                    }
                    self.node(option, out, Ctx::Item);
                }
                if ctx != Ctx::Top {
                    out.push(')');
                }
            }
            Node::Repeat {
                node: inner,
                min,
                max,
            } => {
                if ctx == Ctx::Atom {
                    out.push('(');
                }
                self.node(inner, out, Ctx::Atom);
                bounds(*min, *max, out);
                if ctx == Ctx::Atom {
                    out.push(')');
                }
            }
        }
    }
}

/// A char in a regex: ASCII punctuation and control chars as `\x{HH}`.
fn regex_char(c: char, out: &mut String) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() {
        out.push(c);
    } else {
        let _ = write!(out, "\\x{{{:02X}}}", c as u32);
    }
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        regex_char(c, &mut out);
    }
    out
}

/// A class as a regex class (without the slashes).
fn class(c: &CharClass, out: &mut String) {
    if c.negated && c.ranges.is_empty() {
        out.push_str("(?s:.)");
        return;
    }
    out.push('[');
    if c.negated {
        out.push('^');
    }
    for &(a, b) in &c.ranges {
        regex_char(a, out);
        if a != b {
            out.push('-');
            regex_char(b, out);
        }
    }
    out.push(']');
}
