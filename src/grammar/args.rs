//! A tool's arguments in each argument style: one JSON object, XML
//! parameters, Python keyword arguments, Gemma 4's object.
//!
//! The named styles type each top-level value the way the detector reads it
//! (`ToolShape`, from the tool's input schema): a parameter the detector
//! reads as text is written as text (raw in XML, a string literal in Python
//! and Gemma), the others as JSON or as the dialect's literals. Where that
//! reading and the schema disagree (a parameter read as text whose schema
//! allows no string), the tool is [`GrammarError::Unrepresentable`].

use serde_json::{Map, Value};

use super::dialect::{ArgsStyle, KeyBytes, Part, ValueLayout};
use super::error::GrammarError;
use super::ir::{CharClass, Mark, Node, ValueText};
use super::schema::{Converter, Only, Syntax, format_text, is_bare_key, keyword, other_than};
use crate::core::{JsonObject, ParamType, ToolShape};

/// The arguments of the tool at `index`, whose input schema is `schema`.
pub(crate) fn args_node<'g>(
    conv: &mut Converter<'g>,
    index: usize,
    root: &'g JsonObject,
    style: ArgsStyle,
) -> Result<Node, GrammarError> {
    let obj: &Map<String, Value> = match root.get("$ref") {
        Some(Value::String(target)) => match conv.resolve(conv.pointer(target)?)? {
            Value::Object(obj) => obj,
            _ => return Err(conv.schema_error("the input schema is not an object")),
        },
        _ => root,
    };
    if let Some(ty) = keyword(obj, "type") {
        let object = match ty {
            Value::String(t) => t == "object",
            Value::Array(ts) => ts.iter().any(|t| t == "object"),
            _ => false,
        };
        if !object {
            return Err(conv.schema_error("the input schema does not describe an object"));
        }
    }
    let hint = format!("{}-args", conv.tool);
    if style == ArgsStyle::Json {
        let node = conv.arguments(root, Syntax::Json)?;
        let rule = conv.g.rule(&hint, node)?;
        return Ok(Node::mark(Mark::JsonArgs(index), rule));
    }
    if ["anyOf", "oneOf", "allOf", "not", "if"]
        .iter()
        .any(|k| keyword(obj, k).is_some())
    {
        return Err(
            conv.unrepresentable("named arguments cannot follow a union of argument objects")
        );
    }
    // The detector types parameters from the input schema as given.
    let shape = ToolShape::from_input_schema(root);
    let empty_props = Map::new();
    let props = match keyword(obj, "properties") {
        Some(Value::Object(p)) => p,
        _ => &empty_props,
    };
    let required: Vec<&str> = match keyword(obj, "required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    static ANY: Value = Value::Bool(true);
    let mut params: Vec<(&str, &Value)> = props
        .iter()
        .filter(|(_, s)| **s != Value::Bool(false))
        .map(|(k, s)| (k.as_str(), s))
        .collect();
    for name in &required {
        if !props.contains_key(*name) {
            params.push((name, &ANY));
        }
    }
    let mut items = Vec::with_capacity(params.len());
    for (name, prop) in params {
        let typing = shape.typing(name).unwrap_or((ParamType::String, false));
        let member = param_node(conv, name, prop, typing, style)?;
        items.push((Node::mark(Mark::Param, member), required.contains(&name)));
    }
    let sep = match style {
        ArgsStyle::PythonKwargs => Node::lit(", "),
        ArgsStyle::Gemma => Node::lit(","),
        _ => Node::Empty,
    };
    let members = conv.members(items, sep, None)?;
    let node = if style == ArgsStyle::Gemma {
        Node::seq([Node::lit("{"), members, Node::lit("}")])
    } else {
        members
    };
    conv.g.rule(&hint, node)
}

/// One named argument in `style`.
fn param_node(
    conv: &mut Converter<'_>,
    name: &str,
    prop: &Value,
    (ty, nullable): (ParamType, bool),
    style: ArgsStyle,
) -> Result<Node, GrammarError> {
    let text = ty == ParamType::String;
    let key = Node::mark(Mark::Key, Node::lit(name));
    match style {
        ArgsStyle::PythonKwargs | ArgsStyle::Gemma => {
            if !is_bare_key(name) {
                return Err(conv.unrepresentable(format!("`{name}` is not a bare argument name")));
            }
            let (syntax, how, eq) = if style == ArgsStyle::Gemma {
                (Syntax::Gemma, ValueText::Gemma, ":")
            } else {
                (Syntax::Python, ValueText::Python, "=")
            };
            let value = if text {
                conv.value_of(prop, syntax, Only::StringOrNull { null: nullable })?
            } else {
                conv.value(prop, syntax)?
            };
            Ok(Node::seq([
                key,
                Node::lit(eq),
                Node::mark(Mark::Value(how), value),
            ]))
        }
        ArgsStyle::Xml {
            param,
            layout,
            opener_ends_value,
            flag,
            key_bytes,
        } => {
            let ok = match key_bytes {
                KeyBytes::TagName => name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')),
                KeyBytes::Attribute => !name
                    .bytes()
                    .any(|b| matches!(b, b'<' | b'>' | b'"' | b'\n')),
            };
            if !ok || name.is_empty() || name.len() > 128 {
                return Err(conv.unrepresentable(format!("`{name}` cannot be a parameter's tag")));
            }
            // DSML's flag decides: `string="true"` is raw text whatever the
            // schema; `string="false"` is JSON.
            let raw = if flag { text && !nullable } else { text };
            let (value, how) = if raw {
                let node = raw_value(conv, prop, layout, opener_ends_value, nullable && !flag)?;
                (
                    node,
                    ValueText::Raw {
                        nullable: nullable && !flag,
                    },
                )
            } else {
                (conv.value(prop, Syntax::JsonInXml)?, ValueText::Json)
            };
            let value = Node::mark(Mark::Value(how), value);
            Ok(Node::seq(param.iter().map(|part| match part {
                Part::Lit(s) => Node::lit(*s),
                Part::Key => key.clone(),
                Part::Value => value.clone(),
                Part::Flag => Node::lit(if raw { "true" } else { "false" }),
                _ => Node::Empty,
            })))
        }
        ArgsStyle::Json => Err(conv.schema_error("json arguments have no named parameters")),
    }
}

/// An XML value's raw text for a parameter read as a string.
fn raw_value(
    conv: &mut Converter<'_>,
    prop: &Value,
    layout: ValueLayout,
    opener_ends_value: bool,
    nullable: bool,
) -> Result<Node, GrammarError> {
    conv.g.charge(1)?;
    let prop = conv.resolve(prop)?;
    let empty = Map::new();
    let obj = match prop {
        Value::Object(obj) => obj,
        _ => &empty,
    };
    let fits = |s: &str| {
        !s.contains('<')
            && (layout == ValueLayout::Wrapped || !s.starts_with('\n') && !s.ends_with('\n'))
            && !(nullable && matches!(s, "null" | "None"))
    };
    let fixed: Option<Vec<Value>> = match (keyword(obj, "const"), keyword(obj, "enum")) {
        (Some(v), _) => Some(vec![v.clone()]),
        (_, Some(Value::Array(vs))) => Some(vs.clone()),
        _ => None,
    };
    let mut options = Vec::new();
    if let Some(values) = fixed {
        for v in values {
            match v {
                Value::String(s) if fits(&s) => options.push(Node::lit(s)),
                Value::Null if nullable => options.push(Node::lit("null")),
                _ => {}
            }
        }
    } else if let Some(Value::Array(branches)) =
        keyword(obj, "anyOf").or_else(|| keyword(obj, "oneOf"))
    {
        for branch in branches {
            match raw_value(conv, branch, layout, opener_ends_value, nullable) {
                Ok(node) => options.push(node),
                Err(GrammarError::Unrepresentable { .. }) => {}
                Err(e) => return Err(e),
            }
        }
    } else {
        let string = match keyword(obj, "type") {
            None => true,
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "string"),
            Some(_) => false,
        };
        if string {
            options.push(raw_string(conv, obj, layout, opener_ends_value, nullable)?);
        }
        if nullable {
            options.push(Node::lit("null"));
        }
    }
    if options.is_empty() {
        return Err(conv.unrepresentable(
            "a parameter the detector reads as text, whose schema allows no string it can write",
        ));
    }
    Ok(Node::alt(options))
}

/// Raw text for a string schema: no `<` where a length is bounded (one char
/// per unit); otherwise also `<` followed by a char that cannot make it a
/// closing tag (nor, with `opener_ends_value`, an opening one).
fn raw_string(
    conv: &mut Converter<'_>,
    obj: &Map<String, Value>,
    layout: ValueLayout,
    opener_ends_value: bool,
    nullable: bool,
) -> Result<Node, GrammarError> {
    if let Some(text) = keyword(obj, "format")
        .and_then(Value::as_str)
        .and_then(format_text)
    {
        return Ok(text);
    }
    let cap = conv.limits.max_repeat;
    let read = |k: &str| keyword(obj, k).and_then(Value::as_u64);
    let lo = read("minLength").map_or(0, |m| m.min(u64::from(cap)) as u32);
    let hi = read("maxLength")
        .filter(|&m| m <= u64::from(cap))
        .map(|m| (m as u32).max(lo));
    let chars = CharClass::not(&[('<', '<')]);
    let inner = CharClass::not(&[('<', '<'), ('\n', '\n')]);
    if nullable {
        // One line, and not a word that reads as null; a length bound is
        // loosened to its minimum.
        let class = if layout == ValueLayout::Inline {
            inner
        } else {
            chars
        };
        let key = if layout == ValueLayout::Inline {
            "raw-line"
        } else {
            "raw-chars"
        };
        let tail = conv.g.shared(key, |_| {
            Ok(Node::repeat(Node::Class(class.clone()), 0, None))
        })?;
        return Ok(other_than(&class, &["null", "None"], &tail, lo));
    }
    let bounded = lo > 0 || hi.is_some();
    match (layout, bounded) {
        (ValueLayout::Wrapped, true) => Ok(Node::repeat(Node::Class(chars), lo, hi)),
        (ValueLayout::Inline, true) => {
            let mut options = Vec::new();
            if lo == 0 {
                options.push(Node::Empty);
            }
            if lo <= 1 && hi.is_none_or(|h| h >= 1) {
                options.push(Node::Class(inner.clone()));
            }
            if hi.is_none_or(|h| h >= 2) {
                options.push(Node::seq([
                    Node::Class(inner.clone()),
                    Node::repeat(Node::Class(chars), lo.saturating_sub(2), hi.map(|h| h - 2)),
                    Node::Class(inner),
                ]));
            }
            Ok(Node::alt(options))
        }
        (layout, false) => {
            let mut after_lt = vec![('<', '<'), ('/', '/')];
            if opener_ends_value {
                after_lt.push(('p', 'p'));
            }
            let unit = Node::alt(vec![
                Node::Class(chars),
                Node::seq([Node::lit("<"), Node::Class(CharClass::not(&after_lt))]),
            ]);
            let key = if opener_ends_value {
                "raw-units-p"
            } else {
                "raw-units"
            };
            let units = conv.g.shared(key, |_| Ok(Node::repeat(unit, 0, None)))?;
            if layout == ValueLayout::Wrapped {
                return Ok(units);
            }
            after_lt.push(('\n', '\n'));
            let edge = Node::alt(vec![
                Node::Class(inner),
                Node::seq([Node::lit("<"), Node::Class(CharClass::not(&after_lt))]),
            ]);
            let edge_key = if opener_ends_value {
                "raw-edge-p"
            } else {
                "raw-edge"
            };
            let edge = conv.g.shared(edge_key, |_| Ok(edge))?;
            Ok(Node::opt(Node::seq([
                edge.clone(),
                Node::opt(Node::seq([units, edge])),
            ])))
        }
    }
}
