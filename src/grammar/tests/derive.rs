//! A generator over the grammar's own representation: random strings the
//! grammar allows, with the spans its marks name, and the calls those spans
//! mean, read by small one-shot oracles (serde_json for JSON; the Python and
//! Gemma literal subsets the grammar writes).

use serde_json::{Map, Value};

use super::super::ir::{CharClass, Grammar, Mark, Node, RuleId, ValueText};

/// A small deterministic random source (xorshift), seeded by proptest.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    pub(super) fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    pub(super) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// A marked span of the derived text.
#[derive(Debug, Clone)]
pub(super) struct Span {
    pub(super) mark: Mark,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) children: Vec<Span>,
}

/// Chars tried for a negated class: some of every kind the grammar cares
/// about (markup, quotes, escapes, newlines, non-ASCII).
const SAMPLE: &[char] = &[
    'a', 'b', 'z', 'N', 'n', 'u', 'l', 'p', 'Q', '0', '7', ' ', ' ', '\n', '\t', '"', '\'', '\\',
    '/', '<', '>', '{', '}', '[', ']', ',', ':', '=', '|', '-', '_', '.', 'é', '€', '😀', '#',
];

/// Free text that opens nothing in any dialect.
const TEXT: &[char] = &[
    'a', 'b', 'c', 'x', 'y', ' ', ' ', '.', ',', '!', '\n', 'é', '?',
];

pub(super) struct Deriver<'g> {
    g: &'g Grammar,
    rng: Rng,
    /// Each rule's minimal derivation height (how deep its shortest
    /// derivation nests rules).
    height: Vec<u32>,
    depth: u32,
    pub(super) out: String,
}

const MAX_DEPTH: u32 = 24;

impl<'g> Deriver<'g> {
    pub(super) fn new(g: &'g Grammar, seed: u64) -> Self {
        let mut height = vec![u32::MAX; g.rules.len()];
        // Fixed point: a rule's height is one more than its body's.
        for _ in 0..g.rules.len() + 1 {
            let mut changed = false;
            for (i, rule) in g.rules.iter().enumerate() {
                let h = node_height(&rule.body, &height).saturating_add(1);
                if h < height[i] {
                    height[i] = h;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        Self {
            g,
            rng: Rng::new(seed),
            height,
            depth: 0,
            out: String::new(),
        }
    }

    /// Derives `node`; the marked spans it holds.
    pub(super) fn derive(&mut self, node: &Node) -> Vec<Span> {
        let mut spans = Vec::new();
        self.walk(node, &mut spans);
        spans
    }

    fn tight(&self) -> bool {
        self.depth > MAX_DEPTH
    }

    fn walk(&mut self, node: &Node, spans: &mut Vec<Span>) {
        match node {
            Node::Empty => {}
            Node::Lit(s) => self.out.push_str(s),
            Node::Class(c) => {
                let ch = self.pick(c);
                self.out.push(ch);
            }
            Node::Seq(parts) => {
                for part in parts {
                    self.walk(part, spans);
                }
            }
            Node::Alt(options) => {
                let i = if self.tight() {
                    // The option that ends soonest.
                    (0..options.len())
                        .min_by_key(|&i| node_height(&options[i], &self.height))
                        .unwrap_or(0)
                } else {
                    self.rng.below(options.len())
                };
                self.walk(&options[i], spans);
            }
            Node::Repeat { node, min, max } => {
                let n = if self.tight() {
                    *min
                } else {
                    let span = max.map_or(3, |m| (m - min).min(3));
                    min + self.rng.below(span as usize + 1) as u32
                };
                for _ in 0..n {
                    self.walk(node, spans);
                }
            }
            Node::Rule(id) => {
                self.depth += 1;
                let body = &self.g.get(*id).body;
                self.walk(body, spans);
                self.depth -= 1;
            }
            Node::Text { words, .. } => {
                let n = self.rng.below(12);
                for _ in 0..n {
                    let c = TEXT[self.rng.below(TEXT.len())];
                    self.out.push(c);
                }
                // Never a word the text may not hold (none is made of these chars).
                debug_assert!(!words.iter().any(|w| self.out.ends_with(w.as_str())));
            }
            Node::Mark(mark, inner) => {
                let start = self.out.len();
                let mut children = Vec::new();
                self.walk(inner, &mut children);
                spans.push(Span {
                    mark: mark.clone(),
                    start,
                    end: self.out.len(),
                    children,
                });
            }
        }
    }

    fn pick(&mut self, c: &CharClass) -> char {
        if !c.negated && !c.ranges.is_empty() {
            let (a, b) = c.ranges[self.rng.below(c.ranges.len())];
            for _ in 0..8 {
                let x = a as u32 + self.rng.below((b as u32 - a as u32 + 1) as usize) as u32;
                if let Some(ch) = char::from_u32(x) {
                    return ch;
                }
            }
            return a;
        }
        let allowed: Vec<char> = SAMPLE
            .iter()
            .copied()
            .filter(|&ch| c.contains(ch))
            .collect();
        if allowed.is_empty() {
            return 'a';
        }
        allowed[self.rng.below(allowed.len())]
    }
}

fn node_height(node: &Node, heights: &[u32]) -> u32 {
    match node {
        Node::Empty | Node::Lit(_) | Node::Class(_) | Node::Text { .. } => 0,
        Node::Seq(parts) => parts
            .iter()
            .map(|p| node_height(p, heights))
            .max()
            .unwrap_or(0),
        Node::Alt(options) => options
            .iter()
            .map(|p| node_height(p, heights))
            .min()
            .unwrap_or(0),
        Node::Repeat { node, min, .. } => {
            if *min == 0 {
                0
            } else {
                node_height(node, heights)
            }
        }
        Node::Rule(RuleId(i)) => heights.get(*i).copied().unwrap_or(u32::MAX),
        Node::Mark(_, inner) => node_height(inner, heights),
    }
}

/// A call a derivation means.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Expected {
    pub(super) name: String,
    pub(super) arguments: Map<String, Value>,
}

/// The calls the marked spans of `text` mean.
pub(super) fn expected_calls(text: &str, spans: &[Span]) -> Result<Vec<Expected>, String> {
    let mut calls = Vec::new();
    let mut ordered = Vec::new();
    collect(spans, &Mark::Call, &mut ordered);
    for call in ordered {
        let mut names = Vec::new();
        collect(&call.children, &Mark::Name, &mut names);
        let name = names
            .first()
            .map(|s| text[s.start..s.end].to_owned())
            .ok_or("a call without a name")?;
        let mut arguments = Map::new();
        let mut json = Vec::new();
        collect_json_args(&call.children, &mut json);
        if let Some(span) = json.first() {
            let v: Value =
                serde_json::from_str(&text[span.start..span.end]).map_err(|e| e.to_string())?;
            arguments = v
                .as_object()
                .cloned()
                .ok_or("json arguments that are not an object")?;
        }
        let mut params = Vec::new();
        collect(&call.children, &Mark::Param, &mut params);
        for param in params {
            let mut keys = Vec::new();
            collect(&param.children, &Mark::Key, &mut keys);
            let key = keys.first().ok_or("a parameter without a key")?;
            let value = param
                .children
                .iter()
                .find_map(|s| match s.mark {
                    Mark::Value(how) => Some((how, s)),
                    _ => None,
                })
                .ok_or("a parameter without a value")?;
            let raw = &text[value.1.start..value.1.end];
            let decoded = match value.0 {
                ValueText::Json => serde_json::from_str(raw).map_err(|e| format!("{e}: {raw}"))?,
                ValueText::Raw { nullable } => {
                    if nullable && raw == "null" {
                        Value::Null
                    } else {
                        Value::String(raw.to_owned())
                    }
                }
                ValueText::Python => Literal::new(raw, false).whole()?,
                ValueText::Gemma => Literal::new(raw, true).whole()?,
            };
            arguments.insert(text[key.start..key.end].to_owned(), decoded);
        }
        calls.push(Expected { name, arguments });
    }
    Ok(calls)
}

fn collect<'s>(spans: &'s [Span], mark: &Mark, out: &mut Vec<&'s Span>) {
    for span in spans {
        if &span.mark == mark {
            out.push(span);
        } else {
            collect(&span.children, mark, out);
        }
    }
}

fn collect_json_args<'s>(spans: &'s [Span], out: &mut Vec<&'s Span>) {
    for span in spans {
        if matches!(span.mark, Mark::JsonArgs(_)) {
            out.push(span);
        } else {
            collect_json_args(&span.children, out);
        }
    }
}

/// The oracle of the Python and Gemma literals the grammar writes.
struct Literal<'a> {
    s: &'a str,
    at: usize,
    gemma: bool,
}

const GEMMA_QUOTE: &str = "<|\"|>";

impl<'a> Literal<'a> {
    fn new(s: &'a str, gemma: bool) -> Self {
        Self { s, at: 0, gemma }
    }

    fn whole(mut self) -> Result<Value, String> {
        let v = self.value()?;
        if self.at != self.s.len() {
            return Err(format!("trailing text in `{}`", self.s));
        }
        Ok(v)
    }

    fn rest(&self) -> &'a str {
        &self.s[self.at..]
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.rest().starts_with(t) {
            self.at += t.len();
            true
        } else {
            false
        }
    }

    fn sep(&mut self) -> bool {
        if self.gemma {
            self.eat(",")
        } else {
            self.eat(", ")
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        let (t, f, n) = if self.gemma {
            ("true", "false", "null")
        } else {
            ("True", "False", "None")
        };
        if self.eat(t) {
            return Ok(Value::Bool(true));
        }
        if self.eat(f) {
            return Ok(Value::Bool(false));
        }
        if self.eat(n) {
            return Ok(Value::Null);
        }
        if self.gemma && self.rest().starts_with(GEMMA_QUOTE) {
            return self.gemma_string().map(Value::String);
        }
        if self.rest().starts_with('"') {
            return self.quoted().map(Value::String);
        }
        if self.eat("[") {
            let mut items = Vec::new();
            if !self.eat("]") {
                loop {
                    items.push(self.value()?);
                    if self.eat("]") {
                        break;
                    }
                    if !self.sep() {
                        return Err(format!("bad list in `{}`", self.s));
                    }
                }
            }
            return Ok(Value::Array(items));
        }
        if self.eat("{") {
            let mut map = Map::new();
            if !self.eat("}") {
                loop {
                    let key = if self.gemma {
                        if self.rest().starts_with(GEMMA_QUOTE) {
                            self.gemma_string()?
                        } else {
                            let n = self
                                .rest()
                                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                                .unwrap_or(self.rest().len());
                            let k = self.rest()[..n].to_owned();
                            self.at += n;
                            k
                        }
                    } else {
                        self.quoted()?
                    };
                    if !(if self.gemma {
                        self.eat(":")
                    } else {
                        self.eat(": ")
                    }) {
                        return Err(format!("bad dict in `{}`", self.s));
                    }
                    map.insert(key, self.value()?);
                    if self.eat("}") {
                        break;
                    }
                    if !self.sep() {
                        return Err(format!("bad dict in `{}`", self.s));
                    }
                }
            }
            return Ok(Value::Object(map));
        }
        let n = self
            .rest()
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E')))
            .unwrap_or(self.rest().len());
        let number = &self.rest()[..n];
        self.at += n;
        serde_json::from_str(number).map_err(|e| format!("{e}: number `{number}`"))
    }

    fn quoted(&mut self) -> Result<String, String> {
        let bytes = self.rest().as_bytes();
        let mut i = 1;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 2,
                b'"' => break,
                _ => i += 1,
            }
        }
        let text = &self.rest()[..=i.min(bytes.len() - 1)];
        self.at += text.len();
        serde_json::from_str(text).map_err(|e| format!("{e}: string {text}"))
    }

    fn gemma_string(&mut self) -> Result<String, String> {
        self.at += GEMMA_QUOTE.len();
        let end = self
            .rest()
            .find(GEMMA_QUOTE)
            .ok_or("an unclosed gemma string")?;
        let s = self.rest()[..end].to_owned();
        self.at += end + GEMMA_QUOTE.len();
        Ok(s)
    }
}
