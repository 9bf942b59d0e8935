//! JSON Schema helpers the dialect converters share: descriptions, `$ref`
//! resolution, `allOf` merging, type names.

use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::core::JsonObject;

/// How deep a converter walks a schema before it gives up on the rest; a guard
/// against stack exhaustion on adversarial input, far beyond any real schema.
pub(crate) const MAX_WALK_DEPTH: usize = 64;

/// The description a provider sees: `description`, else `title`, else the
/// annotations' title; `None` when the tool has none of them.
pub(crate) fn tool_description(tool: &Tool) -> Option<String> {
    tool.description
        .as_deref()
        .map(str::to_owned)
        .or_else(|| tool.title.clone())
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()))
        .filter(|d| !d.is_empty())
}

/// The tool's input schema as a JSON value (cloned).
pub(crate) fn input_schema_value(tool: &Tool) -> Value {
    Value::Object(tool.input_schema.as_ref().clone())
}

/// Resolves a local reference (`#/$defs/X`, `#/definitions/X`, any `#/…`
/// pointer) against the root schema. Remote references give `None`.
pub(crate) fn resolve_ref<'a>(root: &'a JsonObject, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return None;
    }
    let mut segments = pointer.strip_prefix('/')?.split('/');
    let first = segments.next()?;
    let mut current = root.get(&unescape(first))?;
    for segment in segments {
        current = match current {
            Value::Object(map) => map.get(&unescape(segment))?,
            Value::Array(items) => items.get(unescape(segment).parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(current)
}

fn unescape(segment: &str) -> String {
    segment.replace("~1", "/").replace("~0", "~")
}

/// Merges the branches of an `allOf` into one schema: `properties` are united
/// (a later branch's property replaces an earlier one of the same name),
/// `required` lists are united in order, any other keyword keeps its first value.
/// Non-object branches are skipped.
pub(crate) fn merge_all_of(outer: &JsonObject, branches: &[Value]) -> JsonObject {
    let mut merged: JsonObject = outer
        .iter()
        .filter(|(k, _)| k.as_str() != "allOf")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for branch in branches.iter().filter_map(Value::as_object) {
        for (key, value) in branch {
            match key.as_str() {
                "properties" => {
                    let target = merged
                        .entry("properties")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let (Value::Object(target), Value::Object(source)) = (target, value) {
                        for (name, schema) in source {
                            target.insert(name.clone(), schema.clone());
                        }
                    }
                }
                "required" => {
                    let target = merged
                        .entry("required")
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let (Value::Array(target), Value::Array(source)) = (target, value) {
                        for name in source {
                            if !target.contains(name) {
                                target.push(name.clone());
                            }
                        }
                    }
                }
                _ => {
                    merged.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
        }
    }
    merged
}

/// The type names a schema declares (`"type": "x"` or `"type": [..]`).
pub(crate) fn declared_types(schema: &JsonObject) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The names listed in a schema's `required` array.
pub(crate) fn required_names(schema: &JsonObject) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Whether a schema is exactly the null type (`{"type": "null"}`).
pub(crate) fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// Follows local `$ref`s (bounded) to the schema they name.
pub(crate) fn follow<'s>(root: &'s JsonObject, mut schema: &'s JsonObject) -> &'s JsonObject {
    for _ in 0..MAX_WALK_DEPTH {
        let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve_ref(root, r))
            .and_then(Value::as_object)
        else {
            break;
        };
        schema = target;
    }
    schema
}
