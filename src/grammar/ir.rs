//! The grammar's own representation: named rules whose bodies are sequences,
//! alternatives, bounded repeats, literals and character classes, before any
//! writer turns them into GBNF, Lark or a structural tag.
//!
//! Two node kinds carry more than text: [`Node::Text`] (free text that never
//! holds one of some words: a writer spells it natively, or uses the rule
//! [`lower_text`](super::text::lower_text) built for it) and [`Node::Mark`]
//! (what a span means: a call, its name, its arguments; writers skip it, the
//! structural-tag writer reads [`Mark::JsonArgs`]).

use std::collections::HashMap;

use compact_str::CompactString;

use super::error::GrammarError;

/// The index of a rule in its [`Grammar`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct RuleId(pub(crate) usize);

/// One character out of a set: ranges of chars, or every char but them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CharClass {
    pub(crate) negated: bool,
    /// Inclusive ranges, in no particular order.
    pub(crate) ranges: Vec<(char, char)>,
}

impl CharClass {
    /// The chars of `ranges`.
    pub(crate) fn of(ranges: &[(char, char)]) -> Self {
        Self {
            negated: false,
            ranges: ranges.to_vec(),
        }
    }

    /// Every char but those of `ranges`.
    pub(crate) fn not(ranges: &[(char, char)]) -> Self {
        Self {
            negated: true,
            ranges: ranges.to_vec(),
        }
    }

    /// Whether `c` is in the class.
    pub(crate) fn contains(&self, c: char) -> bool {
        let listed = self.ranges.iter().any(|&(a, b)| a <= c && c <= b);
        listed != self.negated
    }

    /// The same class without the chars of `other` (a negated class grows its
    /// list; a positive one is split around them).
    pub(crate) fn minus(&self, other: &[char]) -> Self {
        if self.negated {
            let mut ranges = self.ranges.clone();
            ranges.extend(other.iter().map(|&c| (c, c)));
            return Self::not(&ranges);
        }
        let mut ranges = Vec::new();
        for &(a, b) in &self.ranges {
            let mut start = a as u32;
            let end = b as u32;
            let mut cuts: Vec<u32> = other
                .iter()
                .map(|&c| c as u32)
                .filter(|&c| c >= start && c <= end)
                .collect();
            cuts.sort_unstable();
            for cut in cuts {
                if cut > start
                    && let (Some(x), Some(y)) = (char::from_u32(start), char::from_u32(cut - 1))
                {
                    ranges.push((x, y));
                }
                start = cut + 1;
            }
            if start <= end
                && let (Some(x), Some(y)) = (char::from_u32(start), char::from_u32(end))
            {
                ranges.push((x, y));
            }
        }
        Self::of(&ranges)
    }
}

/// How the text of a value span reads back, for the derivation tests and
/// for the structural tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ValueText {
    /// JSON text.
    Json,
    /// A Python literal (`True`, `None`, `'…'`).
    Python,
    /// A Gemma 4 literal (`<|"|>…<|"|>` strings, bare keys).
    Gemma,
    /// Raw text read as a string; `nullable`: `null` reads as null.
    Raw {
        /// `null` (the grammar's only spelling of it) reads as null.
        nullable: bool,
    },
}

/// What a span of the output means.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Mark {
    /// One call.
    Call,
    /// The tool name of the call.
    Name,
    /// The call's arguments as one JSON object, of the tool at this index.
    JsonArgs(usize),
    /// One named argument (an XML parameter, a Python keyword argument).
    Param,
    /// The argument's name.
    Key,
    /// The argument's value, read as said.
    Value(ValueText),
}

/// A grammar expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    /// The empty string.
    Empty,
    /// Exactly this text (never empty); up to 24 bytes held inline, as most
    /// literals are (punctuation, keys, enum values).
    Lit(CompactString),
    /// One char of the class.
    Class(CharClass),
    /// Each in turn.
    Seq(Vec<Node>),
    /// One of them.
    Alt(Vec<Node>),
    /// `min` to `max` (unbounded when `None`) times.
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
    /// The body of a rule.
    Rule(RuleId),
    /// Free text holding none of `words`; `lowered` spells it with plain
    /// nodes (the rule [`lower_text`](super::text::lower_text) built).
    Text { words: Vec<String>, lowered: RuleId },
    /// A span with a meaning.
    Mark(Mark, Box<Node>),
}

impl Node {
    /// A literal; empty text is [`Node::Empty`].
    pub(crate) fn lit(s: impl Into<CompactString>) -> Node {
        let s = s.into();
        if s.is_empty() {
            Node::Empty
        } else {
            Node::Lit(s)
        }
    }

    /// The literal of one char.
    pub(crate) fn char(c: char) -> Node {
        Node::Lit(CompactString::from(c.encode_utf8(&mut [0; 4]) as &str))
    }

    /// A sequence, flattened, without empty parts.
    pub(crate) fn seq(parts: impl IntoIterator<Item = Node>) -> Node {
        let parts = parts.into_iter();
        let mut out: Vec<Node> = Vec::with_capacity(parts.size_hint().0);
        for part in parts {
            match part {
                Node::Empty => {}
                Node::Seq(inner) => out.extend(inner),
                Node::Lit(s) => match out.last_mut() {
                    Some(Node::Lit(prev)) => prev.push_str(&s),
                    _ => out.push(Node::Lit(s)),
                },
                other => out.push(other),
            }
        }
        match out.len() {
            0 => Node::Empty,
            1 => out.pop().unwrap_or(Node::Empty),
            _ => Node::Seq(out),
        }
    }

    /// One of the alternatives (a single one is itself).
    pub(crate) fn alt(mut options: Vec<Node>) -> Node {
        if options.len() == 1 {
            return options.pop().unwrap_or(Node::Empty);
        }
        Node::Alt(options)
    }

    /// `node` zero or one time.
    pub(crate) fn opt(node: Node) -> Node {
        Node::repeat(node, 0, Some(1))
    }

    /// `node` `min` to `max` times.
    pub(crate) fn repeat(node: Node, min: u32, max: Option<u32>) -> Node {
        match (min, max) {
            (_, Some(0)) => Node::Empty,
            (1, Some(1)) => node,
            _ if node == Node::Empty => Node::Empty,
            _ => Node::Repeat {
                node: Box::new(node),
                min,
                max,
            },
        }
    }

    /// A span marked with its meaning.
    pub(crate) fn mark(mark: Mark, node: Node) -> Node {
        Node::Mark(mark, Box::new(node))
    }

    /// The number of nodes in this expression (rules referenced count once).
    pub(crate) fn size(&self) -> usize {
        match self {
            Node::Seq(parts) | Node::Alt(parts) => 1 + parts.iter().map(Node::size).sum::<usize>(),
            Node::Repeat { node, .. } | Node::Mark(_, node) => 1 + node.size(),
            _ => 1,
        }
    }

    /// Whether [`Node::size`] is more than `limit`, counting no further.
    pub(crate) fn larger_than(&self, limit: usize) -> bool {
        fn count(node: &Node, left: &mut usize) -> bool {
            if *left == 0 {
                return true;
            }
            *left -= 1;
            match node {
                Node::Seq(parts) | Node::Alt(parts) => parts.iter().any(|p| count(p, left)),
                Node::Repeat { node, .. } | Node::Mark(_, node) => count(node, left),
                _ => false,
            }
        }
        let mut left = limit;
        count(self, &mut left)
    }

    /// The text of a literal, marked or not.
    pub(crate) fn lit_text(&self) -> Option<&str> {
        match self {
            Node::Lit(s) => Some(s),
            Node::Mark(_, inner) => inner.lit_text(),
            _ => None,
        }
    }
}

/// The bounds that decide the grammar of a number: an integer's nearest
/// integers inside them, or a number's bounds as given (each `f64`'s bits and
/// whether it is exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RangeKey {
    /// `type: integer`.
    Integer(Option<i128>, Option<i128>),
    /// `type: number`.
    Number(Option<(u64, bool)>, Option<(u64, bool)>),
}

/// A named rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) name: CompactString,
    pub(crate) body: Node,
}

/// The rules of one grammar, and the budget their construction spends.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grammar {
    pub(crate) rules: Vec<Rule>,
    /// The number of rules named after each sanitized hint.
    names: HashMap<CompactString, usize>,
    /// Shared rules by key (`ws`, `json-string`, …), made once.
    shared: HashMap<String, RuleId>,
    /// Shared rules of numbers by their bounds, made once (a tool set
    /// repeats a few ranges; each is dozens of nodes).
    ranges: HashMap<RangeKey, RuleId>,
    /// Nodes and rules made so far, against `budget`.
    spent: usize,
    budget: usize,
}

impl Grammar {
    /// An empty grammar that may spend `budget` units of work.
    pub(crate) fn with_budget(budget: usize) -> Self {
        Self {
            budget,
            ..Self::default()
        }
    }

    /// Spends `units` of the budget.
    pub(crate) fn charge(&mut self, units: usize) -> Result<(), GrammarError> {
        self.spent += units;
        if self.spent > self.budget {
            return Err(GrammarError::Budget { limit: self.budget });
        }
        Ok(())
    }

    /// Reserves a rule named after `hint` (its body set later with [`Grammar::set`]).
    pub(crate) fn reserve(&mut self, hint: &str) -> Result<RuleId, GrammarError> {
        self.charge(1)?;
        let base = sanitize(hint);
        let n = match self.names.get_mut(base.as_str()) {
            Some(n) => {
                *n += 1;
                *n
            }
            None => {
                self.names.insert(base.clone(), 1);
                1
            }
        };
        let name = if n == 1 {
            base
        } else {
            let mut name = base;
            name.push('-');
            push_decimal(&mut name, n);
            name
        };
        self.rules.push(Rule {
            name,
            body: Node::Empty,
        });
        Ok(RuleId(self.rules.len() - 1))
    }

    /// Sets the body of a reserved rule.
    pub(crate) fn set(&mut self, id: RuleId, body: Node) -> Result<(), GrammarError> {
        self.charge(body.size())?;
        if let Some(rule) = self.rules.get_mut(id.0) {
            rule.body = body;
        }
        Ok(())
    }

    /// A new rule; its reference.
    pub(crate) fn rule(&mut self, hint: &str, body: Node) -> Result<Node, GrammarError> {
        let id = self.reserve(hint)?;
        self.set(id, body)?;
        Ok(Node::Rule(id))
    }

    /// The shared rule under `key`, made by `make` the first time.
    pub(crate) fn shared(
        &mut self,
        key: &str,
        make: impl FnOnce(&mut Self) -> Result<Node, GrammarError>,
    ) -> Result<Node, GrammarError> {
        if let Some(&id) = self.shared.get(key) {
            return Ok(Node::Rule(id));
        }
        let id = self.reserve(key)?;
        self.shared.insert(key.to_owned(), id);
        let body = make(self)?;
        self.set(id, body)?;
        Ok(Node::Rule(id))
    }

    /// The shared rule of the numbers of `key`, whose body `make` gives the
    /// first time.
    pub(crate) fn shared_range(
        &mut self,
        key: RangeKey,
        make: impl FnOnce() -> Node,
    ) -> Result<Node, GrammarError> {
        if let Some(&id) = self.ranges.get(&key) {
            return Ok(Node::Rule(id));
        }
        let hint = match key {
            RangeKey::Integer(..) => "integer",
            RangeKey::Number(..) => "number",
        };
        let id = self.reserve(hint)?;
        self.ranges.insert(key, id);
        self.set(id, make())?;
        Ok(Node::Rule(id))
    }

    /// The shared rule under `key`, if made.
    pub(crate) fn shared_id(&self, key: &str) -> Option<RuleId> {
        self.shared.get(key).copied()
    }

    /// Files a reserved rule as the shared rule under `key`.
    pub(crate) fn register_shared(&mut self, key: &str, id: RuleId) {
        self.shared.insert(key.to_owned(), id);
    }

    /// The rule of `id`.
    pub(crate) fn get(&self, id: RuleId) -> &Rule {
        &self.rules[id.0]
    }

    /// The ids of the rules `root` reaches, `root` first.
    pub(crate) fn reachable(&self, root: &Node) -> Vec<RuleId> {
        let mut seen = vec![false; self.rules.len()];
        let mut order = Vec::new();
        let mut stack = Vec::new();
        collect_refs(root, &mut stack);
        while let Some(id) = stack.pop() {
            if seen.get(id.0).copied().unwrap_or(true) {
                continue;
            }
            seen[id.0] = true;
            order.push(id);
            let from = stack.len();
            collect_refs(&self.rules[id.0].body, &mut stack);
            stack[from..].reverse();
        }
        order
    }
}

/// The rules a node names directly (a text node names its lowered rule).
pub(crate) fn collect_refs(node: &Node, out: &mut Vec<RuleId>) {
    match node {
        Node::Rule(id) => out.push(*id),
        Node::Text { lowered, .. } => out.push(*lowered),
        Node::Seq(parts) | Node::Alt(parts) => {
            // Pushed in reverse so that a stack visits them in order.
            for part in parts.iter().rev() {
                collect_refs(part, out);
            }
        }
        Node::Repeat { node, .. } | Node::Mark(_, node) => collect_refs(node, out),
        Node::Empty | Node::Lit(_) | Node::Class(_) => {}
    }
}

/// A rule name every writer accepts: lowercase ASCII letters, digits and `-`,
/// starting with a letter.
fn sanitize(hint: &str) -> CompactString {
    // Most hints are names already (`member`, `members-first`, `integer`).
    let plain = hint.len() <= 48
        && hint.starts_with(|c: char| c.is_ascii_lowercase())
        && !hint.ends_with('-')
        && !hint.contains("--")
        && hint
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if plain {
        return CompactString::from(hint);
    }
    let mut out = CompactString::with_capacity(hint.len() + 1);
    for c in hint.chars().take(48) {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() || !trimmed.starts_with(|c: char| c.is_ascii_lowercase()) {
        let mut named = CompactString::const_new("r-");
        named.push_str(trimmed);
        named.truncate(named.trim_end_matches('-').len());
        named
    } else if trimmed.len() == out.len() {
        out
    } else {
        CompactString::from(trimmed)
    }
}

/// `n` in decimal, appended to `out`.
fn push_decimal(out: &mut CompactString, mut n: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}
