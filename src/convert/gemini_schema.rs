//! Reduces a JSON Schema to the OpenAPI subset Gemini's `Schema` object accepts.
//!
//! Whitelist: `type` (upper-case), `format` (per-type subset), `title`,
//! `description`, `nullable`, `enum` (strings), `properties`, `required`,
//! `items`, `anyOf`, `minItems`, `maxItems`, `minLength`, `maxLength`,
//! `pattern`, `minProperties`, `maxProperties`, `minimum`, `maximum`,
//! `default`, `example`. Everything else is inlined, rewritten or dropped as
//! `docs/converters.md` lists, each with a note.

use serde_json::{Map, Value, json};

use super::note::{ConversionNote, NoteKind, NoteSink, child_path};
use super::schema::{MAX_WALK_DEPTH, is_null_schema, merge_all_of, resolve_ref};
use crate::core::JsonObject;

/// Keywords copied unchanged.
const KEPT: &[&str] = &[
    "title",
    "description",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "minimum",
    "maximum",
    "default",
];

/// Reduces `schema` to what Gemini accepts. The result is always a JSON object
/// (`{}` at worst); `tool` names the notes.
pub(crate) fn gemini_schema(tool: &str, schema: &Value) -> (Value, Vec<ConversionNote>) {
    let empty = JsonObject::new();
    let root = schema.as_object().unwrap_or(&empty);
    let mut reducer = GeminiReducer {
        root,
        sink: NoteSink::new(tool),
        ref_stack: Vec::new(),
    };
    let out = reducer.reduce(schema, "", 0);
    (Value::Object(out), reducer.sink.into_notes())
}

struct GeminiReducer<'a> {
    root: &'a JsonObject,
    sink: NoteSink<'a>,
    /// References being inlined, outermost first (a repeat is a recursion).
    ref_stack: Vec<String>,
}

impl GeminiReducer<'_> {
    fn reduce(&mut self, schema: &Value, path: &str, depth: usize) -> JsonObject {
        if depth > MAX_WALK_DEPTH {
            self.sink.push(
                path,
                NoteKind::Dropped,
                "nested too deeply; replaced by `{}`",
            );
            return JsonObject::new();
        }
        let Value::Object(input) = schema else {
            if schema != &Value::Bool(true) {
                self.sink.push(
                    path,
                    NoteKind::Dropped,
                    format!("non-object schema `{schema}` replaced by `{{}}`"),
                );
            }
            return JsonObject::new();
        };
        if let Some(reference) = input.get("$ref") {
            return self.inline_ref(input, reference, path, depth);
        }
        if let Some(Value::Array(branches)) = input.get("allOf") {
            let resolved: Vec<Value> = branches.iter().map(|b| self.deref(b)).collect();
            let merged = merge_all_of(input, &resolved);
            self.sink
                .push(path, NoteKind::Rewritten, "`allOf` merged into one schema");
            return self.reduce(&Value::Object(merged), path, depth + 1);
        }
        if let Some(Value::Array(types)) = input.get("type") {
            return self.type_union(input, types, path, depth);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = input.get(key) {
                return self.union(input, key, branches, path, depth);
            }
        }
        self.plain(input, path, depth)
    }

    /// A schema without `$ref`, `allOf`, type arrays or unions.
    fn plain(&mut self, input: &JsonObject, path: &str, depth: usize) -> JsonObject {
        let mut out = JsonObject::new();
        let mut gemini_type = input
            .get("type")
            .and_then(Value::as_str)
            .and_then(|t| self.type_name(t, path));
        if input.get("type").and_then(Value::as_str) == Some("null") {
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        for (key, value) in input {
            match key.as_str() {
                "type" | "anyOf" | "oneOf" | "allOf" | "required" => {}
                _ if KEPT.contains(&key.as_str()) || key == "nullable" => {
                    if kept_value_ok(key, value) {
                        out.insert(key.clone(), value.clone());
                    } else {
                        self.drop_keyword(
                            path,
                            key,
                            &format!("its value `{value}` has the wrong type"),
                        );
                    }
                }
                "properties" => {
                    let Value::Object(props) = value else {
                        self.drop_keyword(path, key, "it is not an object");
                        continue;
                    };
                    let props_path = child_path(path, "properties");
                    let mut converted = Map::new();
                    for (name, prop) in props {
                        let prop_path = child_path(&props_path, name);
                        let reduced = self.reduce(prop, &prop_path, depth + 1);
                        converted.insert(name.clone(), Value::Object(reduced));
                    }
                    let required: Vec<Value> = input
                        .get("required")
                        .and_then(Value::as_array)
                        .map(|names| {
                            names
                                .iter()
                                .filter(|n| n.as_str().is_some_and(|n| props.contains_key(n)))
                                .cloned()
                                .collect()
                        })
                        .unwrap_or_default();
                    out.insert(key.clone(), Value::Object(converted));
                    if !required.is_empty() {
                        out.insert("required".to_owned(), Value::Array(required));
                    }
                    gemini_type.get_or_insert("OBJECT");
                }
                "items" => {
                    let items_path = child_path(path, "items");
                    let item = match value {
                        Value::Array(tuple) => {
                            self.sink.push(
                                path,
                                NoteKind::Rewritten,
                                "tuple `items` reduced to its first schema",
                            );
                            tuple.first().cloned().unwrap_or(Value::Bool(true))
                        }
                        _ => value.clone(),
                    };
                    let reduced = self.reduce(&item, &items_path, depth + 1);
                    out.insert(key.clone(), Value::Object(reduced));
                    gemini_type.get_or_insert("ARRAY");
                }
                "enum" => {}
                "const" => match value {
                    Value::String(_) => {
                        out.insert("enum".to_owned(), json!([value]));
                        gemini_type.get_or_insert("STRING");
                        self.sink.push(
                            path,
                            NoteKind::Rewritten,
                            "`const` became a one-value `enum`",
                        );
                    }
                    _ => self.drop_keyword(path, key, "Gemini has no `const` for non-strings"),
                },
                "examples" => match value.as_array().and_then(|e| e.first()) {
                    Some(first) => {
                        out.insert("example".to_owned(), first.clone());
                        self.sink.push(
                            path,
                            NoteKind::Rewritten,
                            "`examples` became `example` (its first value)",
                        );
                    }
                    None => self.drop_keyword(path, key, "it is empty"),
                },
                "example" => {
                    out.insert(key.clone(), value.clone());
                }
                "format" => {}
                "$defs" | "definitions" if path.is_empty() => {
                    self.sink.push(
                        &child_path(path, key),
                        NoteKind::Rewritten,
                        "definitions removed; every `$ref` to them is inlined",
                    );
                }
                _ => self.drop_keyword(path, key, "Gemini does not accept it"),
            }
        }
        // After the loop, so that a description the enum extends is already there.
        if let Some(values) = input.get("enum")
            && let Some(t) = self.enumeration(values, &mut out, path)
        {
            gemini_type.get_or_insert(t);
        }
        if let Some(Value::String(format)) = input.get("format") {
            let allowed: &[&str] = match gemini_type {
                Some("STRING") => &["enum", "date-time"],
                Some("INTEGER") => &["int32", "int64"],
                Some("NUMBER") => &["float", "double"],
                _ => &[],
            };
            if allowed.contains(&format.as_str()) {
                out.insert("format".to_owned(), Value::String(format.clone()));
            } else {
                self.drop_keyword(
                    path,
                    "format",
                    &format!("`{format}` is not a Gemini format"),
                );
            }
        }
        if let Some(t) = gemini_type {
            out.insert("type".to_owned(), Value::String(t.to_owned()));
        }
        out
    }

    /// `enum`: string values are kept (a `null` value becomes `nullable`);
    /// any other value moves the list into the description. Returns the type
    /// the values imply.
    fn enumeration(
        &mut self,
        value: &Value,
        out: &mut JsonObject,
        path: &str,
    ) -> Option<&'static str> {
        let Value::Array(values) = value else {
            self.drop_keyword(path, "enum", "it is not an array");
            return None;
        };
        let non_null: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
        if non_null.len() < values.len() {
            out.insert("nullable".to_owned(), Value::Bool(true));
            self.sink.push(
                path,
                NoteKind::Rewritten,
                "`null` in `enum` became `nullable`",
            );
        }
        if non_null.iter().all(|v| v.is_string()) {
            out.insert(
                "enum".to_owned(),
                Value::Array(non_null.into_iter().cloned().collect()),
            );
            return Some("STRING");
        }
        let listed: Vec<String> = non_null.iter().map(|v| v.to_string()).collect();
        let hint = format!("Allowed values: {}.", listed.join(", "));
        let description = match out.get("description").and_then(Value::as_str) {
            Some(d) if !d.is_empty() => format!("{d} {hint}"),
            _ => hint,
        };
        out.insert("description".to_owned(), Value::String(description));
        self.sink.push(
            path,
            NoteKind::Rewritten,
            "non-string `enum` moved into the description",
        );
        None
    }

    /// `"type": [..]`: `null` becomes `nullable`; one other type stays a plain
    /// type, several become an `anyOf` of one branch per type.
    fn type_union(
        &mut self,
        input: &JsonObject,
        types: &[Value],
        path: &str,
        depth: usize,
    ) -> JsonObject {
        let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
        let nullable = names.contains(&"null");
        let others: Vec<&str> = names.into_iter().filter(|t| *t != "null").collect();
        let mut out = match others.as_slice() {
            [] => {
                let mut single = input.clone();
                single.remove("type");
                self.reduce(&Value::Object(single), path, depth + 1)
            }
            [one] => {
                let mut single = input.clone();
                single.insert("type".to_owned(), Value::String((*one).to_owned()));
                self.reduce(&Value::Object(single), path, depth + 1)
            }
            many => {
                self.sink.push(
                    path,
                    NoteKind::Rewritten,
                    "a list of types became an `anyOf`",
                );
                let mut branches = Vec::with_capacity(many.len());
                for t in many {
                    let mut single = input.clone();
                    single.insert("type".to_owned(), Value::String((*t).to_owned()));
                    single.remove("description");
                    single.remove("title");
                    branches.push(Value::Object(self.reduce(
                        &Value::Object(single),
                        path,
                        depth + 1,
                    )));
                }
                let mut out = JsonObject::new();
                copy_text(input, &mut out);
                out.insert("anyOf".to_owned(), Value::Array(branches));
                out
            }
        };
        if nullable {
            self.sink.push(
                path,
                NoteKind::Rewritten,
                "`null` in `type` became `nullable`",
            );
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        out
    }

    /// `anyOf` / `oneOf`: a `{"type":"null"}` branch becomes `nullable`; a single
    /// remaining branch replaces the union; otherwise an `anyOf` of reduced branches.
    fn union(
        &mut self,
        input: &JsonObject,
        key: &str,
        branches: &[Value],
        path: &str,
        depth: usize,
    ) -> JsonObject {
        let nullable = branches.iter().any(is_null_schema);
        let rest: Vec<&Value> = branches.iter().filter(|b| !is_null_schema(b)).collect();
        let union_path = child_path(path, key);
        let mut out = match rest.as_slice() {
            [only] => {
                let idx = branches.iter().position(|b| b == *only).unwrap_or(0);
                let mut reduced =
                    self.reduce(only, &child_path(&union_path, &idx.to_string()), depth + 1);
                copy_text(input, &mut reduced);
                self.sink.push(
                    path,
                    NoteKind::Rewritten,
                    format!("`{key}` with one non-null branch became that branch"),
                );
                reduced
            }
            _ => {
                if key == "oneOf" {
                    self.sink
                        .push(path, NoteKind::Rewritten, "`oneOf` became `anyOf`");
                }
                let mut converted = Vec::with_capacity(rest.len());
                for (idx, branch) in branches.iter().enumerate() {
                    if is_null_schema(branch) {
                        continue;
                    }
                    let branch_path = child_path(&union_path, &idx.to_string());
                    converted.push(Value::Object(self.reduce(branch, &branch_path, depth + 1)));
                }
                let mut out = JsonObject::new();
                copy_text(input, &mut out);
                out.insert("anyOf".to_owned(), Value::Array(converted));
                out
            }
        };
        if nullable {
            self.sink.push(
                path,
                NoteKind::Rewritten,
                format!("a `{{\"type\":\"null\"}}` branch of `{key}` became `nullable`"),
            );
            out.insert("nullable".to_owned(), Value::Bool(true));
        }
        out
    }

    /// `$ref`: the target is inlined; sibling `description`/`title` override its
    /// own. A recursive reference becomes `{"type":"OBJECT"}`.
    fn inline_ref(
        &mut self,
        input: &JsonObject,
        reference: &Value,
        path: &str,
        depth: usize,
    ) -> JsonObject {
        let Some(reference) = reference.as_str() else {
            self.drop_keyword(path, "$ref", "it is not a string");
            return JsonObject::new();
        };
        if self.ref_stack.iter().any(|r| r == reference) {
            self.sink.push(
                path,
                NoteKind::Rewritten,
                format!("recursive `$ref` {reference} cut to an object of any shape"),
            );
            let mut out = JsonObject::new();
            copy_text(input, &mut out);
            out.insert("type".to_owned(), json!("OBJECT"));
            return out;
        }
        let Some(target) = resolve_ref(self.root, reference) else {
            self.drop_keyword(
                path,
                "$ref",
                &format!("{reference} does not resolve locally"),
            );
            return JsonObject::new();
        };
        self.sink.push(
            path,
            NoteKind::Rewritten,
            format!("`$ref` {reference} inlined"),
        );
        self.ref_stack.push(reference.to_owned());
        let mut out = self.reduce(target, path, depth + 1);
        self.ref_stack.pop();
        copy_text(input, &mut out);
        out
    }

    fn deref(&self, schema: &Value) -> Value {
        schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve_ref(self.root, r))
            .unwrap_or(schema)
            .clone()
    }

    fn type_name(&mut self, t: &str, path: &str) -> Option<&'static str> {
        Some(match t {
            "string" => "STRING",
            "integer" => "INTEGER",
            "number" => "NUMBER",
            "boolean" => "BOOLEAN",
            "array" => "ARRAY",
            "object" => "OBJECT",
            "null" => return None,
            other => {
                self.drop_keyword(
                    path,
                    "type",
                    &format!("`{other}` is not a JSON Schema type"),
                );
                return None;
            }
        })
    }

    fn drop_keyword(&mut self, path: &str, key: &str, why: &str) {
        self.sink
            .push(path, NoteKind::Dropped, format!("`{key}` dropped: {why}"));
    }
}

/// Whether a kept keyword's value has the type Gemini's `Schema` declares.
fn kept_value_ok(key: &str, value: &Value) -> bool {
    match key {
        "title" | "description" | "pattern" => value.is_string(),
        "nullable" => value.is_boolean(),
        "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties" | "maxProperties" => {
            value.is_u64()
        }
        "minimum" | "maximum" => value.is_number(),
        _ => true,
    }
}

/// Copies `title` and `description` of `from` over those of `to`.
fn copy_text(from: &JsonObject, to: &mut JsonObject) {
    for key in ["title", "description"] {
        if let Some(v) = from.get(key).filter(|v| v.is_string()) {
            to.insert(key.to_owned(), v.clone());
        }
    }
}

/// Whether the reduced root declares no parameters (Gemini rejects an
/// `OBJECT` with empty `properties`, so `parameters` is left out).
pub(crate) fn has_no_parameters(reduced: &Value) -> bool {
    reduced
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
}
