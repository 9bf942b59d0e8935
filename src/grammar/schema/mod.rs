//! JSON Schema to grammar rules, in any value syntax ([`Syntax`]).
//!
//! Enforced: types and unions, `properties` in declared order with
//! `required` ones always written, `additionalProperties` (only where the
//! schema allows them: an object schema with a `properties` keyword, even
//! empty, gets no others unless it says so), `enum`, `const`, `anyOf`/`oneOf`, `items` and
//! `prefixItems`, local `$ref`s (each target one rule, referenced by name,
//! recursion included), integer and number bounds (digit rules), count and
//! length bounds up to [`GrammarLimits::max_repeat`], the `date`, `time`,
//! `date-time` and `uuid` formats. Loosened, left to validation: larger
//! bounds, other formats, `pattern`, `multipleOf`, `uniqueItems`,
//! `minProperties`/`maxProperties`, `oneOf`'s exclusivity, `not`,
//! conditionals; `allOf` is merged keyword by keyword.
//!
//! [`GrammarLimits::max_repeat`]: super::GrammarLimits::max_repeat

mod literal;
mod number;
mod string;

use std::collections::HashMap;

use compact_str::CompactString;
use serde_json::{Map, Value};

use super::error::GrammarError;
use super::ir::{CharClass, Grammar, Node, RangeKey, RuleId};
use super::options::GrammarLimits;
use crate::core::WireFormat;

pub(crate) use literal::{is_bare_key, literal_text, other_than};
pub(crate) use string::{GEMMA_QUOTE, Syntax, format_text, quoted_unit};

/// Which values a schema may give here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Only {
    /// Every value the schema allows.
    All,
    /// Only its strings, and `null` when `null` is set (a top-level
    /// argument the detector reads as a string).
    StringOrNull { null: bool },
}

/// Converts the schemas of one tool.
pub(crate) struct Converter<'g> {
    pub(crate) g: &'g mut Grammar,
    pub(crate) dialect: WireFormat,
    pub(crate) tool: &'g str,
    root: &'g Map<String, Value>,
    refs: HashMap<(String, Syntax), RuleId>,
    depth: usize,
    pub(crate) limits: GrammarLimits,
}

impl<'g> Converter<'g> {
    /// A converter for the tool `tool`, whose input schema is `root`.
    pub(crate) fn new(
        g: &'g mut Grammar,
        dialect: WireFormat,
        tool: &'g str,
        root: &'g Map<String, Value>,
        limits: GrammarLimits,
    ) -> Self {
        Self {
            g,
            dialect,
            tool,
            root,
            refs: HashMap::new(),
            depth: 0,
            limits,
        }
    }

    pub(crate) fn schema_error(&self, reason: impl Into<String>) -> GrammarError {
        GrammarError::Schema {
            tool: self.tool.to_owned(),
            reason: reason.into(),
        }
    }

    pub(crate) fn unrepresentable(&self, reason: impl Into<String>) -> GrammarError {
        GrammarError::Unrepresentable {
            dialect: self.dialect,
            tool: self.tool.to_owned(),
            reason: reason.into(),
        }
    }

    /// The schema a local `$ref` names (followed until it is not one).
    pub(crate) fn resolve<'s>(&self, mut schema: &'s Value) -> Result<&'s Value, GrammarError>
    where
        'g: 's,
    {
        for _ in 0..self.limits.max_depth {
            let Some(Value::String(target)) = schema.get("$ref") else {
                return Ok(schema);
            };
            schema = self.pointer(target)?;
        }
        Err(GrammarError::TooDeep {
            tool: self.tool.to_owned(),
            limit: self.limits.max_depth,
        })
    }

    pub(crate) fn pointer(&self, target: &str) -> Result<&'g Value, GrammarError> {
        let Some(path) = target.strip_prefix('#') else {
            return Err(self.schema_error(format!("`$ref` `{target}` is not local")));
        };
        let missing = || self.schema_error(format!("`$ref` `{target}` does not resolve"));
        let mut tokens = path.split('/');
        if tokens.next().is_some_and(|t| !t.is_empty()) {
            return Err(missing());
        }
        // The first step is in the root object; the rest in values.
        let Some(first) = tokens.next() else {
            return Err(self.unrepresentable("a `$ref` to the whole input schema"));
        };
        let unescape = |t: &str| t.replace("~1", "/").replace("~0", "~");
        let mut at = self.root.get(&unescape(first)).ok_or_else(missing)?;
        for token in tokens {
            let token = unescape(token);
            at = match at {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            }
            .ok_or_else(missing)?;
        }
        Ok(at)
    }

    /// The grammar of the values `schema` allows, in `syntax`.
    pub(crate) fn value(&mut self, schema: &Value, syntax: Syntax) -> Result<Node, GrammarError> {
        self.value_of(schema, syntax, Only::All)
    }

    /// The grammar of the values `schema` allows that `only` keeps.
    pub(crate) fn value_of(
        &mut self,
        schema: &Value,
        syntax: Syntax,
        only: Only,
    ) -> Result<Node, GrammarError> {
        self.g.charge(1)?;
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            self.depth -= 1;
            return Err(GrammarError::TooDeep {
                tool: self.tool.to_owned(),
                limit: self.limits.max_depth,
            });
        }
        let node = self.dispatch(schema, syntax, only);
        self.depth -= 1;
        node
    }

    fn dispatch(
        &mut self,
        schema: &Value,
        syntax: Syntax,
        only: Only,
    ) -> Result<Node, GrammarError> {
        match schema {
            Value::Bool(true) => self.unconstrained(syntax, only),
            Value::Bool(false) => Err(self.schema_error("a `false` schema allows no value")),
            Value::Object(obj) => self.dispatch_object(obj, syntax, only),
            _ => Err(self.schema_error("a schema is an object or a boolean")),
        }
    }

    /// The values an object schema allows; without a `type` or a keyword
    /// that decides it, an object (the input schema of a tool).
    pub(crate) fn arguments(
        &mut self,
        obj: &Map<String, Value>,
        syntax: Syntax,
    ) -> Result<Node, GrammarError> {
        self.g.charge(1)?;
        let decided = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"]
            .iter()
            .any(|k| keyword(obj, k).is_some());
        if decided {
            self.dispatch_object(obj, syntax, Only::All)
        } else {
            self.object(obj, syntax)
        }
    }

    fn dispatch_object(
        &mut self,
        obj: &Map<String, Value>,
        syntax: Syntax,
        only: Only,
    ) -> Result<Node, GrammarError> {
        if let Some(target) = keyword(obj, "$ref") {
            let Value::String(target) = target else {
                return Err(self.schema_error("`$ref` is not a string"));
            };
            return self.reference(target, syntax, only);
        }
        if let Some(value) = keyword(obj, "const") {
            return self.literals(std::slice::from_ref(value), syntax, only);
        }
        if let Some(values) = keyword(obj, "enum") {
            let Value::Array(values) = values else {
                return Err(self.schema_error("`enum` is not an array"));
            };
            return self.literals(values, syntax, only);
        }
        if let Some(Value::Array(parts)) = keyword(obj, "allOf") {
            let mut merged = without(obj, &["allOf"]);
            for part in parts {
                let part = self.resolve(part)?;
                if let Value::Object(part) = part {
                    self.g.charge(part.len())?;
                    merged = merge(&merged, part);
                }
            }
            return self.value_of(&Value::Object(merged), syntax, only);
        }
        if let Some(Value::Array(branches)) =
            keyword(obj, "anyOf").or_else(|| keyword(obj, "oneOf"))
        {
            let base = without(obj, &["anyOf", "oneOf"]);
            let constrained = base.keys().any(|k| is_constraint(k));
            let mut options = Vec::new();
            for branch in branches {
                let node = if constrained {
                    let branch = self.resolve(branch)?;
                    let Value::Object(branch) = branch else {
                        continue;
                    };
                    self.value_of(&Value::Object(merge(&base, branch)), syntax, only)
                } else {
                    self.value_of(branch, syntax, only)
                };
                match node {
                    Ok(node) => options.push(node),
                    // A branch that gives nothing `only` keeps is left out.
                    Err(GrammarError::Unrepresentable { .. }) if only != Only::All => {}
                    Err(e) => return Err(e),
                }
            }
            return self.options(options, only);
        }
        let types: Vec<&str> = match keyword(obj, "type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => inferred_types(obj),
        };
        if types.is_empty() {
            return self.unconstrained(syntax, only);
        }
        let mut options = Vec::new();
        for ty in types {
            if let Only::StringOrNull { null } = only
                && !(ty == "string" || ty == "null" && null)
            {
                continue;
            }
            options.push(self.typed(ty, obj, syntax)?);
        }
        self.options(options, only)
    }

    fn options(&self, options: Vec<Node>, only: Only) -> Result<Node, GrammarError> {
        if options.is_empty() {
            return Err(match only {
                Only::All => self.schema_error("no value satisfies the schema"),
                Only::StringOrNull { .. } => {
                    self.unrepresentable("an argument read as text whose schema allows no string")
                }
            });
        }
        Ok(Node::alt(options))
    }

    /// A schema with no type: any value (any string, for [`Only::StringOrNull`]).
    fn unconstrained(&mut self, syntax: Syntax, only: Only) -> Result<Node, GrammarError> {
        match only {
            Only::All => self.any_value(syntax),
            Only::StringOrNull { null } => {
                let string = self.string(&Map::new(), syntax)?;
                Ok(if null {
                    Node::alt(vec![string, self.null(syntax)])
                } else {
                    string
                })
            }
        }
    }

    fn reference(
        &mut self,
        target: &str,
        syntax: Syntax,
        only: Only,
    ) -> Result<Node, GrammarError> {
        let schema = self.pointer(target)?;
        if only != Only::All {
            return self.value_of(schema, syntax, only);
        }
        let key = (target.to_owned(), syntax);
        if let Some(&id) = self.refs.get(&key) {
            return Ok(Node::Rule(id));
        }
        let hint = format!(
            "{}-{}",
            syntax.key(),
            target.rsplit('/').next().unwrap_or("ref")
        );
        let id = self.g.reserve(&hint)?;
        self.refs.insert(key, id);
        let body = self.value(schema, syntax)?;
        self.g.set(id, body)?;
        Ok(Node::Rule(id))
    }

    fn literals(
        &mut self,
        values: &[Value],
        syntax: Syntax,
        only: Only,
    ) -> Result<Node, GrammarError> {
        self.g.charge(values.len())?;
        let options: Vec<Node> = values
            .iter()
            .filter(|v| match only {
                Only::All => true,
                Only::StringOrNull { null } => v.is_string() || null && v.is_null(),
            })
            .filter_map(|v| literal_text(v, syntax))
            .map(Node::lit)
            .collect();
        self.options(options, only)
    }

    fn typed(
        &mut self,
        ty: &str,
        obj: &Map<String, Value>,
        syntax: Syntax,
    ) -> Result<Node, GrammarError> {
        Ok(match ty {
            "string" => self.string(obj, syntax)?,
            "integer" => self.integer(obj)?,
            "number" => self.number(obj)?,
            "boolean" => {
                if syntax == Syntax::Python {
                    Node::alt(vec![Node::lit("True"), Node::lit("False")])
                } else {
                    Node::alt(vec![Node::lit("true"), Node::lit("false")])
                }
            }
            "null" => self.null(syntax),
            "object" => self.object(obj, syntax)?,
            "array" => self.array(obj, syntax)?,
            other => return Err(self.schema_error(format!("unknown type `{other}`"))),
        })
    }

    fn null(&self, syntax: Syntax) -> Node {
        Node::lit(if syntax == Syntax::Python {
            "None"
        } else {
            "null"
        })
    }

    /// Bounded whitespace between JSON tokens: nothing, a space, or a
    /// newline and up to 20 spaces or tabs of indentation.
    pub(crate) fn ws(&mut self, syntax: Syntax) -> Result<Node, GrammarError> {
        if !matches!(syntax, Syntax::Json | Syntax::JsonInXml) {
            return Ok(Node::Empty);
        }
        self.g.shared("ws", |_| {
            Ok(Node::opt(Node::alt(vec![
                Node::lit(" "),
                Node::seq([
                    Node::lit("\n"),
                    Node::repeat(
                        Node::Class(CharClass::of(&[(' ', ' '), ('\t', '\t')])),
                        0,
                        Some(20),
                    ),
                ]),
            ])))
        })
    }

    /// A `(min, max)` count or length bound, loosened where it is larger
    /// than the limit.
    fn bounds(&self, obj: &Map<String, Value>, min_key: &str, max_key: &str) -> (u32, Option<u32>) {
        let cap = self.limits.max_repeat;
        let read = |k: &str| keyword(obj, k).and_then(Value::as_u64);
        let min = read(min_key).map_or(0, |m| m.min(u64::from(cap)) as u32);
        let max = read(max_key)
            .filter(|&m| m <= u64::from(cap))
            .map(|m| m as u32);
        match max {
            Some(max) if max < min => (min, Some(min)),
            _ => (min, max),
        }
    }

    fn string(&mut self, obj: &Map<String, Value>, syntax: Syntax) -> Result<Node, GrammarError> {
        let (open, close) = if syntax == Syntax::Gemma {
            (GEMMA_QUOTE, GEMMA_QUOTE)
        } else {
            ("\"", "\"")
        };
        if let Some(text) = keyword(obj, "format")
            .and_then(Value::as_str)
            .and_then(format_text)
        {
            return Ok(Node::seq([Node::lit(open), text, Node::lit(close)]));
        }
        let (min, max) = self.bounds(obj, "minLength", "maxLength");
        let bounded = min > 0 || max.is_some();
        let unit = match syntax {
            Syntax::Gemma if bounded => self
                .g
                .shared("gemma-char", |_| Ok(string::gemma_unit(false)))?,
            Syntax::Gemma => self
                .g
                .shared("gemma-unit", |_| Ok(string::gemma_unit(true)))?,
            _ => self
                .g
                .shared(syntax.char_key(), |_| Ok(quoted_unit(syntax)))?,
        };
        if !bounded {
            return self.g.shared(syntax.string_key(), |_| {
                Ok(Node::seq([
                    Node::lit(open),
                    Node::repeat(unit, 0, None),
                    Node::lit(close),
                ]))
            });
        }
        Ok(Node::seq([
            Node::lit(open),
            Node::repeat(unit, min, max),
            Node::lit(close),
        ]))
    }

    /// An integer within the schema's bounds: one shared rule per range.
    fn integer(&mut self, obj: &Map<String, Value>) -> Result<Node, GrammarError> {
        let (lo, hi) = numeric_bounds(obj);
        let lo = lo.and_then(number::int_lower);
        let hi = hi.and_then(number::int_upper);
        self.g.shared_range(RangeKey::Integer(lo, hi), || {
            number::integer_range(lo, hi).unwrap_or_else(number::any_integer)
        })
    }

    /// A number within the schema's bounds: one shared rule per range.
    fn number(&mut self, obj: &Map<String, Value>) -> Result<Node, GrammarError> {
        let (lo, hi) = numeric_bounds(obj);
        let bits = |b: Option<number::Bound>| b.map(|b| (b.value.to_bits(), b.exclusive));
        self.g
            .shared_range(RangeKey::Number(bits(lo), bits(hi)), || {
                if lo.is_none() && hi.is_none() {
                    return number::any_number();
                }
                number::number_range(lo, hi).unwrap_or_else(number::any_number)
            })
    }

    /// Any value of `syntax` (one recursive rule per syntax).
    fn any_value(&mut self, syntax: Syntax) -> Result<Node, GrammarError> {
        let key = format!("{}-value", syntax.key());
        if let Some(node) = self.g_shared_existing(&key) {
            return Ok(node);
        }
        let id = self.g.reserve(&key)?;
        self.g.register_shared(&key, id);
        let value = Node::Rule(id);
        let string = self.string(&Map::new(), syntax)?;
        let ws = self.ws(syntax)?;
        let sep = literal::separator(syntax);
        let (item_sep, kv_sep) = match syntax {
            Syntax::Json | Syntax::JsonInXml => (
                Node::seq([Node::lit(","), ws.clone()]),
                Node::seq([ws.clone(), Node::lit(":"), ws.clone()]),
            ),
            Syntax::Gemma => (Node::lit(sep), Node::lit(":")),
            Syntax::Python => (Node::lit(sep), Node::lit(": ")),
        };
        let key_node = if syntax == Syntax::Gemma {
            Node::seq([
                Node::Class(CharClass::of(&[('a', 'z'), ('A', 'Z'), ('_', '_')])),
                Node::repeat(
                    Node::Class(CharClass::of(&[
                        ('a', 'z'),
                        ('A', 'Z'),
                        ('0', '9'),
                        ('_', '_'),
                    ])),
                    0,
                    Some(63),
                ),
            ])
        } else {
            string.clone()
        };
        let member = Node::seq([key_node, kv_sep, value.clone(), ws.clone()]);
        let object = Node::seq([
            Node::lit("{"),
            ws.clone(),
            Node::opt(Node::seq([
                member.clone(),
                Node::repeat(Node::seq([item_sep.clone(), member]), 0, None),
            ])),
            Node::lit("}"),
        ]);
        let item = Node::seq([value.clone(), ws.clone()]);
        let array = Node::seq([
            Node::lit("["),
            ws,
            Node::opt(Node::seq([
                item.clone(),
                Node::repeat(Node::seq([item_sep, item]), 0, None),
            ])),
            Node::lit("]"),
        ]);
        let object = self.g.rule(&format!("{}-object", syntax.key()), object)?;
        let array = self.g.rule(&format!("{}-array", syntax.key()), array)?;
        let (t, f) = if syntax == Syntax::Python {
            ("True", "False")
        } else {
            ("true", "false")
        };
        let body = Node::alt(vec![
            object,
            array,
            string,
            number::any_number(),
            Node::lit(t),
            Node::lit(f),
            self.null(syntax),
        ]);
        self.g.set(id, body)?;
        Ok(value)
    }

    fn g_shared_existing(&self, key: &str) -> Option<Node> {
        self.g.shared_id(key).map(Node::Rule)
    }

    /// The key of a member as written in `syntax`.
    fn key_text(&self, key: &str, syntax: Syntax) -> Option<CompactString> {
        if syntax == Syntax::Gemma && is_bare_key(key) {
            return Some(key.into());
        }
        literal::string_text(key, syntax)
    }

    fn object(&mut self, obj: &Map<String, Value>, syntax: Syntax) -> Result<Node, GrammarError> {
        let empty = Map::new();
        let props = match keyword(obj, "properties") {
            Some(Value::Object(p)) => p,
            _ => &empty,
        };
        let required: Vec<&str> = match keyword(obj, "required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        // `properties` written (even empty) declares the members.
        let declared =
            keyword(obj, "properties").is_some() || keyword(obj, "patternProperties").is_some();
        let extra: Option<Value> = match keyword(obj, "additionalProperties") {
            None if declared => None,
            None | Some(Value::Bool(true)) => Some(Value::Bool(true)),
            Some(Value::Bool(false)) => None,
            Some(other) => Some(other.clone()),
        };
        let ws = self.ws(syntax)?;
        let (sep, kv) = match syntax {
            Syntax::Json | Syntax::JsonInXml => (
                Node::seq([Node::lit(","), ws.clone()]),
                Node::seq([ws.clone(), Node::lit(":"), ws.clone()]),
            ),
            Syntax::Python => (Node::lit(", "), Node::lit(": ")),
            Syntax::Gemma => (Node::lit(","), Node::lit(":")),
        };
        let mut items: Vec<(Node, bool)> = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        for (name, schema) in props {
            if *schema == Value::Bool(false) {
                continue;
            }
            let Some(key) = self.key_text(name, syntax) else {
                return Err(self.unrepresentable(format!("the key `{name}` cannot be written")));
            };
            let value = self.value(schema, syntax)?;
            names.push(name);
            items.push((
                Node::seq([Node::lit(key), kv.clone(), value, ws.clone()]),
                required.contains(&name.as_str()),
            ));
        }
        // Required names the schema does not describe: any value (or the
        // additional properties' schema).
        for name in &required {
            if names.contains(name) {
                continue;
            }
            let Some(key) = self.key_text(name, syntax) else {
                return Err(self.unrepresentable(format!("the key `{name}` cannot be written")));
            };
            let value = match &extra {
                Some(schema) => self.value(schema, syntax)?,
                None => self.any_value(syntax)?,
            };
            names.push(name);
            items.push((
                Node::seq([Node::lit(key), kv.clone(), value, ws.clone()]),
                true,
            ));
        }
        let extra = match extra {
            Some(schema) if syntax != Syntax::Gemma => {
                let value = self.value(&schema, syntax)?;
                let key = self.extra_key(&names, syntax)?;
                Some(Node::seq([key, kv, value, ws.clone()]))
            }
            _ => None,
        };
        let members = self.members(items, sep, extra)?;
        Ok(Node::seq([Node::lit("{"), ws, members, Node::lit("}")]))
    }

    /// A key other than `names`: plain chars, no escapes.
    fn extra_key(&mut self, names: &[&str], syntax: Syntax) -> Result<Node, GrammarError> {
        let mut plain = vec![('"', '"'), ('\\', '\\'), ('\0', '\u{1f}')];
        if syntax == Syntax::JsonInXml {
            plain.push(('<', '<'));
        }
        let class = CharClass::not(&plain);
        let tail = self
            .g
            .shared(&format!("{}-plain-chars", syntax.key()), |_| {
                Ok(Node::repeat(Node::Class(class.clone()), 0, None))
            })?;
        self.g.charge(names.iter().map(|n| n.len()).sum())?;
        let inner = other_than(&class, names, &tail, 0);
        Ok(Node::seq([Node::lit("\""), inner, Node::lit("\"")]))
    }

    /// Members in declared order, each written once, the required ones always,
    /// `sep` between two; then any number of `extra` members. Each member
    /// carries its own trailing whitespace.
    pub(crate) fn members(
        &mut self,
        items: Vec<(Node, bool)>,
        sep: Node,
        extra: Option<Node>,
    ) -> Result<Node, GrammarError> {
        // `after`: the members from i on when one was written before;
        // `first`: the same when none was.
        let (mut after, mut first) = match extra {
            Some(x) => (
                Node::repeat(Node::seq([sep.clone(), x.clone()]), 0, None),
                Node::opt(Node::seq([
                    x.clone(),
                    Node::repeat(Node::seq([sep.clone(), x]), 0, None),
                ])),
            ),
            None => (Node::Empty, Node::Empty),
        };
        for (member, required) in items.into_iter().rev() {
            // Each part below is used twice: a large one is named once, so
            // that the members cost linear work, not quadratic.
            let member = self.shared_if_large("member", member)?;
            let after_ref = self.shared_if_large("members", after)?;
            if required {
                first = Node::seq([member.clone(), after_ref.clone()]);
                after = Node::seq([sep.clone(), member, after_ref]);
            } else {
                let first_ref = self.shared_if_large("members-first", first)?;
                let with = Node::seq([member.clone(), after_ref.clone()]);
                first = Node::alt(vec![with, first_ref]);
                after = Node::alt(vec![
                    Node::seq([sep.clone(), member, after_ref.clone()]),
                    after_ref,
                ]);
            }
        }
        Ok(first)
    }

    fn shared_if_large(&mut self, hint: &str, node: Node) -> Result<Node, GrammarError> {
        if !node.larger_than(12) {
            return Ok(node);
        }
        self.g.rule(hint, node)
    }

    fn array(&mut self, obj: &Map<String, Value>, syntax: Syntax) -> Result<Node, GrammarError> {
        let ws = self.ws(syntax)?;
        let sep = match syntax {
            Syntax::Json | Syntax::JsonInXml => Node::seq([Node::lit(","), ws.clone()]),
            _ => Node::lit(literal::separator(syntax)),
        };
        let (min, max) = self.bounds(obj, "minItems", "maxItems");
        let prefix: &[Value] = match keyword(obj, "prefixItems") {
            Some(Value::Array(p)) => p,
            _ => &[],
        };
        let rest = match keyword(obj, "items") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) | Some(schema @ Value::Bool(true)) => {
                Some(schema.clone())
            }
            // Draft 4 tuples: `items` as an array.
            Some(Value::Array(_)) => None,
            None if prefix.is_empty() => Some(Value::Bool(true)),
            _ => None,
        };
        let tuple: &[Value] = match (prefix.is_empty(), keyword(obj, "items")) {
            (true, Some(Value::Array(items))) => items,
            _ => prefix,
        };
        let written = max.map_or(tuple.len(), |m| tuple.len().min(m as usize));
        let mut parts = Vec::new();
        for (i, schema) in tuple.iter().take(written).enumerate() {
            let value = self.value(schema, syntax)?;
            if i > 0 {
                parts.push(sep.clone());
            }
            parts.push(value);
            parts.push(ws.clone());
        }
        if let Some(rest) = rest {
            let item = Node::seq([self.value(&rest, syntax)?, ws.clone()]);
            let n = written as u32;
            let lo = min.saturating_sub(n);
            let hi = max.map(|m| m.saturating_sub(n));
            if hi != Some(0) {
                let more = if n > 0 {
                    Node::repeat(Node::seq([sep.clone(), item]), lo, hi)
                } else if lo == 0 {
                    Node::opt(Node::seq([
                        item.clone(),
                        Node::repeat(Node::seq([sep, item]), 0, hi.map(|h| h - 1)),
                    ]))
                } else {
                    Node::seq([
                        item.clone(),
                        Node::repeat(Node::seq([sep, item]), lo - 1, hi.map(|h| h - 1)),
                    ])
                };
                parts.push(more);
            }
        }
        Ok(Node::seq(
            [Node::lit("["), ws]
                .into_iter()
                .chain(parts)
                .chain([Node::lit("]")]),
        ))
    }
}

/// `obj[key]`. Schema objects are small: a scan of a few keys costs less
/// than hashing the key, which a larger object still gets.
pub(crate) fn keyword<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if obj.len() <= 8 {
        obj.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    } else {
        obj.get(key)
    }
}

/// The keywords that constrain a value beside `anyOf`/`oneOf`.
fn is_constraint(k: &str) -> bool {
    matches!(
        k,
        "type"
            | "properties"
            | "required"
            | "additionalProperties"
            | "items"
            | "prefixItems"
            | "minimum"
            | "maximum"
            | "exclusiveMinimum"
            | "exclusiveMaximum"
            | "minLength"
            | "maxLength"
            | "minItems"
            | "maxItems"
            | "format"
            | "enum"
            | "const"
    )
}

/// The types a schema without `type` implies by its keywords.
fn inferred_types(obj: &Map<String, Value>) -> Vec<&'static str> {
    let has = |ks: &[&str]| ks.iter().any(|k| keyword(obj, k).is_some());
    let mut types = Vec::new();
    if has(&[
        "properties",
        "additionalProperties",
        "required",
        "patternProperties",
    ]) {
        types.push("object");
    }
    if has(&["items", "prefixItems", "minItems", "maxItems"]) {
        types.push("array");
    }
    if has(&["minLength", "maxLength", "pattern", "format"]) {
        types.push("string");
    }
    if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
        types.push("number");
    }
    types
}

/// The numeric bounds of a schema (draft 4's boolean `exclusive*` too).
fn numeric_bounds(obj: &Map<String, Value>) -> (Option<number::Bound>, Option<number::Bound>) {
    let num = |k: &str| keyword(obj, k).and_then(Value::as_f64);
    let flag = |k: &str| keyword(obj, k).and_then(Value::as_bool).unwrap_or(false);
    let pick = |plain: &str, excl: &str, tighter: fn(f64, f64) -> bool| {
        let a = num(plain).map(|v| number::Bound {
            value: v,
            exclusive: flag(excl),
        });
        let b = num(excl).map(|v| number::Bound {
            value: v,
            exclusive: true,
        });
        match (a, b) {
            (Some(a), Some(b)) => Some(if tighter(b.value, a.value) || b.value == a.value {
                b
            } else {
                a
            }),
            (a, b) => a.or(b),
        }
    };
    (
        pick("minimum", "exclusiveMinimum", |x, y| x > y),
        pick("maximum", "exclusiveMaximum", |x, y| x < y),
    )
}

/// `obj` without `keys`.
fn without(obj: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    obj.iter()
        .filter(|(k, _)| !keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// `over`'s keywords on top of `base`'s: `properties` and `required` united,
/// the others replaced.
fn merge(base: &Map<String, Value>, over: &Map<String, Value>) -> Map<String, Value> {
    let mut out = base.clone();
    for (k, v) in over {
        match (k.as_str(), out.get_mut(k), v) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (name, schema) in theirs {
                    mine.insert(name.clone(), schema.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(name) {
                        mine.push(name.clone());
                    }
                }
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}
