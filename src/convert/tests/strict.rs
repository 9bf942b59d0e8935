//! OpenAI strict mode: every object closed, every property required, optional
//! ones nullable; fallbacks for what strict mode cannot express.

use serde_json::json;

use super::*;
use crate::convert::openai_strict::strict_schema;
use crate::convert::{NoteKind, openai_chat, openai_responses, restore_optional_nulls};

fn notes_of(notes: &[crate::convert::ConversionNote]) -> Vec<(NoteKind, &str)> {
    notes.iter().map(|n| (n.kind, n.path.as_str())).collect()
}

#[test]
fn simple_tool_becomes_strict() {
    let out = openai_chat::strict_tools(&[read_file()]);
    check(
        &out.value,
        json!([{"type": "function", "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path."},
                    "encoding": {"type": ["string", "null"], "enum": ["utf-8", "latin1", null]}
                },
                "required": ["path", "encoding"],
                "additionalProperties": false
            },
            "strict": true
        }}]),
    );
    assert_eq!(notes_of(&out.notes), vec![(NoteKind::Dropped, "")]);
}

#[test]
fn nested_tool_is_closed_and_nullable_at_every_level() {
    let out = strict_schema("create_issue", &object(create_issue_schema()));
    let expected = json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "labels": {"type": "array", "items": {"type": "string", "enum": ["bug", "feature"]}},
            "assignee": {"anyOf": [{"$ref": "#/$defs/user"}, {"type": "null"}]},
            "due": {"type": ["string", "null"], "format": "date"},
            "priority": {"type": ["integer", "null"], "enum": [1, 2, 3, null]},
            "meta": {
                "type": ["object", "null"],
                "properties": {
                    "source": {"anyOf": [{"const": "api"}, {"type": "null"}]},
                    "links": {
                        "type": ["array", "null"],
                        "items": {
                            "type": "object",
                            "properties": {"url": {"type": "string"}},
                            "required": ["url"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["source", "links"],
                "additionalProperties": false
            }
        },
        "required": ["title", "labels", "assignee", "due", "priority", "meta"],
        "additionalProperties": false,
        "$defs": {
            "user": {
                "type": "object",
                "properties": {
                    "login": {"type": "string"},
                    "id": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
                },
                "required": ["login", "id"],
                "additionalProperties": false
            }
        }
    });
    check(&Value::Object(out.schema.unwrap()), expected);
    assert_eq!(
        notes_of(&out.notes),
        vec![
            (NoteKind::Dropped, "/properties/title"),
            (
                NoteKind::Dropped,
                "/properties/meta/properties/links/items/properties/url"
            ),
        ]
    );
}

#[test]
fn tool_without_parameters_gets_an_empty_closed_object() {
    let out = openai_responses::strict_tools(&[get_time()]);
    check(
        &out.value,
        json!([{"type": "function", "name": "get_time", "description": "Current time",
                "parameters": {"type": "object", "properties": {}, "required": [],
                               "additionalProperties": false},
                "strict": true}]),
    );
    assert!(out.notes.is_empty());
}

#[test]
fn unions_and_all_of_are_rewritten() {
    let schema = json!({
        "type": "object",
        "properties": {
            "value": {"type": ["string", "integer"], "description": "A value."},
            "shape": {"oneOf": [
                {"type": "object", "properties": {"r": {"type": "number"}}},
                {"type": "object", "properties": {"w": {"type": "number"}}}
            ]},
            "both": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "boolean"}}}
            ]},
            "mode": {"enum": ["fast", null]}
        },
        "required": ["value"]
    });
    let out = strict_schema("t", &object(schema));
    check(
        &Value::Object(out.schema.unwrap()),
        json!({
            "type": "object",
            "properties": {
                "value": {"type": ["string", "integer"], "description": "A value."},
                "shape": {"anyOf": [
                    {"type": "object", "properties": {"r": {"type": ["number", "null"]}},
                     "required": ["r"], "additionalProperties": false},
                    {"type": "object", "properties": {"w": {"type": ["number", "null"]}},
                     "required": ["w"], "additionalProperties": false},
                    {"type": "null"}
                ]},
                "both": {"type": ["object", "null"],
                         "properties": {"a": {"type": "string"}, "b": {"type": ["boolean", "null"]}},
                         "required": ["a", "b"], "additionalProperties": false},
                "mode": {"enum": ["fast", null]}
            },
            "required": ["value", "shape", "both", "mode"],
            "additionalProperties": false
        }),
    );
    assert_eq!(
        notes_of(&out.notes),
        vec![
            (NoteKind::Rewritten, "/properties/shape"),
            (NoteKind::Rewritten, "/properties/both"),
        ]
    );
}

#[test]
fn free_form_objects_fall_back_to_the_plain_schema() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 9},
            "vars": {"type": "object", "additionalProperties": {"type": "string"}}
        }
    });
    let set_env = tool(json!({"name": "set_env", "inputSchema": schema.clone()}));
    let out = openai_chat::strict_tools(&[set_env]);
    check(
        &out.value,
        json!([{"type": "function", "function": {
            "name": "set_env", "parameters": schema, "strict": false}}]),
    );
    // Only the reason for the fallback is reported, not the voided rewrite.
    assert_eq!(
        notes_of(&out.notes),
        vec![(NoteKind::StrictFallback, "/properties/vars")]
    );
}

#[test]
fn other_inexpressible_schemas_fall_back() {
    for (schema, path) in [
        (
            json!({"type": "object", "properties": {"o": {"type": "object"}}}),
            "/properties/o",
        ),
        (
            json!({"type": "object", "properties": {"x": {}}}),
            "/properties/x",
        ),
        (
            json!({"type": "object", "properties": {"x": true}}),
            "/properties/x",
        ),
        (
            json!({"type": "object", "patternProperties": {"^a": {}}}),
            "",
        ),
        (json!({"anyOf": [{"type": "object"}]}), ""),
        (json!({"type": "object", "additionalProperties": true}), ""),
        (json!({"type": "string"}), ""),
        (
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/m"}},
                   "$defs": {"m": {"type": "object"}}}),
            "/$defs/m",
        ),
    ] {
        let out = strict_schema("t", &object(schema.clone()));
        assert!(out.schema.is_none(), "{schema} should fall back");
        assert_eq!(
            notes_of(&out.notes),
            vec![(NoteKind::StrictFallback, path)],
            "{schema}"
        );
    }
}

#[test]
fn nesting_beyond_ten_objects_falls_back() {
    let mut schema = json!({"type": "string"});
    for _ in 0..11 {
        schema = json!({"type": "object", "properties": {"n": schema}, "required": ["n"]});
    }
    assert!(strict_schema("t", &object(schema)).schema.is_none());
    let mut ten = json!({"type": "string"});
    for _ in 0..10 {
        ten = json!({"type": "object", "properties": {"n": ten}, "required": ["n"]});
    }
    assert!(strict_schema("t", &object(ten)).schema.is_some());
}

#[test]
fn restoring_removes_the_nulls_strict_mode_added() {
    let schema = object(create_issue_schema());
    let mut args = object(json!({
        "title": "x",
        "labels": [],
        "assignee": null,
        "due": null,
        "priority": null,
        "meta": {"source": null, "links": [{"url": "u"}]}
    }));
    restore_optional_nulls(&schema, &mut args);
    check(
        &Value::Object(args),
        // `due` allows null in the original schema, so its null stays.
        json!({"title": "x", "labels": [], "due": null, "meta": {"links": [{"url": "u"}]}}),
    );
}

#[test]
fn restoring_recurses_through_refs_and_array_items() {
    let schema = object(json!({
        "type": "object",
        "properties": {"users": {"type": "array", "items": {"$ref": "#/$defs/user"}}},
        "$defs": {"user": {"type": "object",
                           "properties": {"login": {"type": "string"}, "bio": {"type": "string"}},
                           "required": ["login"]}}
    }));
    let mut args = object(json!({"users": [{"login": "a", "bio": null}, {"login": null}]}));
    restore_optional_nulls(&schema, &mut args);
    // A null for a required property is the model's mistake: it stays for the validator.
    check(
        &Value::Object(args),
        json!({"users": [{"login": "a"}, {"login": null}]}),
    );
}
