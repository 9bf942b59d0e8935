//! OpenAI strict mode (`"strict": true`): rewrites an input schema into the
//! subset Structured Outputs accepts, or reports why it cannot.
//!
//! Every object gets `additionalProperties: false` and lists all its properties
//! in `required`; a property that was optional becomes nullable instead. The
//! router then undoes that with [`restore_optional_nulls`] before validating.

use serde_json::{Map, Value, json};

use super::note::{ConversionNote, NoteKind, NoteSink, child_path};
use super::schema::{
    MAX_WALK_DEPTH, declared_types, follow, is_null_schema, merge_all_of, required_names,
    resolve_ref,
};
use crate::core::JsonObject;

/// Keywords strict mode accepts; any other keyword is dropped with a note.
const KEPT: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// String formats strict mode accepts.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Object nesting levels strict mode allows.
const MAX_NESTING: usize = 10;
/// Object properties strict mode allows in one schema, all levels together.
const MAX_PROPERTIES: usize = 5000;
/// Values strict mode allows in one `enum`.
const MAX_ENUM_VALUES: usize = 1000;

/// The outcome of [`strict_schema`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StrictSchema {
    /// The strict schema, or `None` when strict mode cannot express the input
    /// schema (the notes then hold a [`NoteKind::StrictFallback`] saying why).
    pub schema: Option<JsonObject>,
    /// Keywords dropped or rewritten on the way.
    pub notes: Vec<ConversionNote>,
}

/// Rewrites `schema` (a tool's `inputSchema`) for OpenAI strict mode.
pub(crate) fn strict_schema(tool: &str, schema: &JsonObject) -> StrictSchema {
    let mut walker = StrictWalker {
        root: schema,
        sink: NoteSink::new(tool),
        n_properties: 0,
    };
    let outcome = if schema.contains_key("anyOf") || schema.contains_key("oneOf") {
        walker.fallback("", "the root is a union; strict mode needs a root object")
    } else {
        walker.walk_object(schema, "", 0, 0)
    };
    let schema = match outcome {
        // A definition strict mode cannot express voids the whole schema.
        Ok(Value::Object(mut out)) => walker.walk_defs(schema).map(|defs| {
            out.extend(defs);
            out
        }),
        Ok(_) | Err(Fallback) => None,
    };
    // A fallback voids the rewrite: only the fallback note stays meaningful.
    let mut notes = walker.sink.into_notes();
    if schema.is_none() {
        notes.retain(|n| n.kind == NoteKind::StrictFallback);
    }
    StrictSchema { schema, notes }
}

/// Removes the `null` values strict mode made the model send for parameters
/// that were optional in `schema` (the original `inputSchema`), recursively in
/// nested objects and array items, so that the arguments validate against the
/// original schema. A `null` stays when the original property allows null.
pub fn restore_optional_nulls(schema: &JsonObject, arguments: &mut JsonObject) {
    restore_object(schema, schema, arguments, 0);
}

/// Strict mode cannot express the schema; the note was already recorded.
#[derive(Debug)]
struct Fallback;

struct StrictWalker<'a> {
    root: &'a JsonObject,
    sink: NoteSink<'a>,
    n_properties: usize,
}

impl StrictWalker<'_> {
    fn fallback<T>(&mut self, path: &str, why: &str) -> Result<T, Fallback> {
        self.sink.push(path, NoteKind::StrictFallback, why);
        Err(Fallback)
    }

    fn walk_defs(&mut self, schema: &JsonObject) -> Option<JsonObject> {
        let mut out = JsonObject::new();
        for key in ["$defs", "definitions"] {
            let Some(Value::Object(defs)) = schema.get(key) else {
                continue;
            };
            let mut converted = Map::new();
            for (name, def) in defs {
                let path = child_path(&child_path("", key), name);
                let value = self.walk(def, &path, 1, 0).ok()?;
                converted.insert(name.clone(), value);
            }
            out.insert(key.to_owned(), Value::Object(converted));
        }
        Some(out)
    }

    /// Converts one schema. `nesting` counts enclosing objects, `depth` every level.
    fn walk(
        &mut self,
        schema: &Value,
        path: &str,
        nesting: usize,
        depth: usize,
    ) -> Result<Value, Fallback> {
        if depth > MAX_WALK_DEPTH {
            return self.fallback(path, "the schema nests too deeply to convert");
        }
        let Value::Object(input) = schema else {
            return self.fallback(
                path,
                "a boolean schema allows any value; strict mode cannot",
            );
        };
        self.walk_object(input, path, nesting, depth)
    }

    /// [`walk`](Self::walk) for a schema that is an object.
    fn walk_object(
        &mut self,
        input: &JsonObject,
        path: &str,
        nesting: usize,
        depth: usize,
    ) -> Result<Value, Fallback> {
        let merged;
        let input = match input.get("allOf").and_then(Value::as_array) {
            Some(branches) => {
                let resolved: Vec<Value> = branches
                    .iter()
                    .map(|b| self.deref(b).unwrap_or_else(|| b.clone()))
                    .collect();
                merged = merge_all_of(input, &resolved);
                self.sink
                    .push(path, NoteKind::Rewritten, "`allOf` merged into one schema");
                &merged
            }
            None => input,
        };
        let mut out = JsonObject::new();
        for (key, value) in input {
            match key.as_str() {
                "properties" | "required" | "additionalProperties" | "$defs" | "definitions" => {}
                "items" => {
                    if !value.is_object() {
                        return self.fallback(path, "tuple `items` cannot be expressed");
                    }
                    let item_path = child_path(path, "items");
                    let item = self.walk(value, &item_path, nesting, depth + 1)?;
                    out.insert(key.clone(), item);
                }
                "anyOf" | "oneOf" => {
                    let Some(branches) = value.as_array() else {
                        return self.fallback(path, "`anyOf` is not an array");
                    };
                    if key == "oneOf" {
                        self.sink.push(
                            path,
                            NoteKind::Rewritten,
                            "`oneOf` became `anyOf` (the router still validates exclusivity)",
                        );
                    }
                    let mut converted = Vec::with_capacity(branches.len());
                    for (idx, branch) in branches.iter().enumerate() {
                        let branch_path = child_path(&child_path(path, key), &idx.to_string());
                        converted.push(self.walk(branch, &branch_path, nesting, depth + 1)?);
                    }
                    out.insert("anyOf".to_owned(), Value::Array(converted));
                }
                "patternProperties" => {
                    return self.fallback(path, "`patternProperties` (free-form keys)");
                }
                "prefixItems" => return self.fallback(path, "tuple `prefixItems`"),
                "enum" => {
                    if value.as_array().is_some_and(|v| v.len() > MAX_ENUM_VALUES) {
                        return self.fallback(path, "an `enum` of more than 1000 values");
                    }
                    out.insert(key.clone(), value.clone());
                }
                "format" => match value.as_str() {
                    Some(f) if FORMATS.contains(&f) => {
                        out.insert(key.clone(), value.clone());
                    }
                    _ => self.sink.push(
                        path,
                        NoteKind::Dropped,
                        format!("`format: {value}` is not a strict-mode format"),
                    ),
                },
                _ if KEPT.contains(&key.as_str()) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => self.sink.push(
                    path,
                    NoteKind::Dropped,
                    format!("`{key}` is not supported in strict mode"),
                ),
            }
        }
        let types = declared_types(input);
        let is_object = types.contains(&"object") || input.contains_key("properties");
        if path.is_empty() && !is_object {
            return self.fallback(path, "the root is not an object schema");
        }
        if is_object {
            self.object(input, &mut out, path, nesting + 1, depth)?;
        } else if types.is_empty()
            && !["anyOf", "$ref", "enum", "const"]
                .iter()
                .any(|k| out.contains_key(*k))
        {
            return self.fallback(path, "a schema without `type` allows any value");
        }
        Ok(Value::Object(out))
    }

    fn object(
        &mut self,
        input: &JsonObject,
        out: &mut JsonObject,
        path: &str,
        nesting: usize,
        depth: usize,
    ) -> Result<(), Fallback> {
        if nesting > MAX_NESTING {
            return self.fallback(path, "objects nest more than 10 levels deep");
        }
        match input.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => {
                return self.fallback(path, "`additionalProperties` allows free-form keys");
            }
        }
        let properties = match input.get("properties") {
            Some(Value::Object(props)) => props,
            Some(_) => return self.fallback(path, "`properties` is not an object"),
            None if path.is_empty() => &Map::new(),
            None => return self.fallback(path, "an object without `properties` is free-form"),
        };
        self.n_properties += properties.len();
        if self.n_properties > MAX_PROPERTIES {
            return self.fallback(path, "more than 5000 properties in one schema");
        }
        let required = required_names(input);
        let props_path = child_path(path, "properties");
        let mut converted = Map::new();
        for (name, prop) in properties {
            let prop_path = child_path(&props_path, name);
            let mut value = self.walk(prop, &prop_path, nesting, depth + 1)?;
            if !required.contains(&name.as_str()) {
                value = make_nullable(value);
            }
            converted.insert(name.clone(), value);
        }
        let all: Vec<Value> = properties
            .keys()
            .map(|k| Value::String(k.clone()))
            .collect();
        if !out.contains_key("type") {
            out.insert("type".to_owned(), json!("object"));
        }
        out.insert("properties".to_owned(), Value::Object(converted));
        out.insert("required".to_owned(), Value::Array(all));
        out.insert("additionalProperties".to_owned(), Value::Bool(false));
        Ok(())
    }

    /// The target of a branch that is a local `$ref`, for merging.
    fn deref(&self, schema: &Value) -> Option<Value> {
        let reference = schema.get("$ref")?.as_str()?;
        resolve_ref(self.root, reference).cloned()
    }
}

/// Makes a converted schema also accept `null`.
fn make_nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let null = Value::String("null".to_owned());
    match map.get_mut("type") {
        Some(Value::String(t)) if t == "null" => return Value::Object(map),
        Some(Value::String(t)) => {
            let single = Value::String(std::mem::take(t));
            map.insert("type".to_owned(), Value::Array(vec![single, null]));
        }
        Some(Value::Array(types)) => {
            if !types.contains(&null) {
                types.push(null);
            }
        }
        _ => {
            let enum_has_null = map
                .get("enum")
                .and_then(Value::as_array)
                .is_some_and(|v| v.contains(&Value::Null));
            if enum_has_null || map.get("const") == Some(&Value::Null) {
                return Value::Object(map);
            }
            if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
                if !branches.iter().any(is_null_schema) {
                    branches.push(json!({"type": "null"}));
                }
                return Value::Object(map);
            }
            return json!({"anyOf": [Value::Object(map), {"type": "null"}]});
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Value::Object(map)
}

/// Whether a schema explicitly admits `null`.
fn allows_null(schema: &JsonObject) -> bool {
    declared_types(schema).contains(&"null")
        || schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(is_null_schema))
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|v| v.contains(&Value::Null))
}

fn restore_object(root: &JsonObject, schema: &JsonObject, args: &mut JsonObject, depth: usize) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    let schema = follow(root, schema);
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    let required = required_names(schema);
    args.retain(|name, value| {
        let optional = !required.contains(&name.as_str());
        let keeps_null = properties
            .get(name)
            .and_then(Value::as_object)
            .is_some_and(|p| allows_null(follow(root, p)));
        !(value.is_null() && optional && !keeps_null)
    });
    for (name, value) in args.iter_mut() {
        let Some(prop) = properties.get(name).and_then(Value::as_object) else {
            continue;
        };
        restore_value(root, follow(root, prop), value, depth + 1);
    }
}

fn restore_value(root: &JsonObject, schema: &JsonObject, value: &mut Value, depth: usize) {
    match value {
        Value::Object(inner) => restore_object(root, schema, inner, depth),
        Value::Array(items) => {
            let Some(item_schema) = schema.get("items").and_then(Value::as_object) else {
                return;
            };
            let item_schema = follow(root, item_schema);
            for item in items {
                restore_value(root, item_schema, item, depth + 1);
            }
        }
        _ => {}
    }
}
