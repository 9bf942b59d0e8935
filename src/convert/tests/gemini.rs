//! Gemini: schema reductions, declarations, function responses.

use serde_json::json;

use super::*;
use crate::convert::gemini_schema::gemini_schema;
use crate::convert::{NoteKind, gemini};

#[test]
fn declarations_reduce_every_schema() {
    let out = gemini::function_declarations(&three_tools());
    check(
        &out.value,
        json!([
            {"name": "read_file", "description": "Read a file.", "parameters": {
                "type": "OBJECT",
                "properties": {
                    "path": {"type": "STRING", "description": "File path."},
                    "encoding": {"type": "STRING", "enum": ["utf-8", "latin1"]}
                },
                "required": ["path"]
            }},
            {"name": "create_issue", "description": "Open an issue.", "parameters": {
                "type": "OBJECT",
                "properties": {
                    "title": {"type": "STRING", "minLength": 1},
                    "labels": {"type": "ARRAY", "items": {"type": "STRING", "enum": ["bug", "feature"]}},
                    "assignee": {
                        "type": "OBJECT",
                        "properties": {
                            "login": {"type": "STRING"},
                            "id": {"type": "INTEGER", "nullable": true}
                        },
                        "required": ["login"]
                    },
                    "due": {"type": "STRING", "nullable": true},
                    "priority": {"type": "INTEGER", "description": "Allowed values: 1, 2, 3."},
                    "meta": {
                        "type": "OBJECT",
                        "properties": {
                            "source": {"type": "STRING", "enum": ["api"]},
                            "links": {"type": "ARRAY", "items": {
                                "type": "OBJECT",
                                "properties": {"url": {"type": "STRING"}},
                                "required": ["url"]
                            }}
                        }
                    }
                },
                "required": ["title", "labels"]
            }},
            {"name": "get_time", "description": "Current time"}
        ]),
    );
    let notes: Vec<(&str, &str, NoteKind)> = out
        .notes
        .iter()
        .map(|n| (n.tool.as_str(), n.path.as_str(), n.kind))
        .collect();
    assert!(
        notes.contains(&("read_file", "", NoteKind::Dropped)),
        "$schema"
    );
    for expected in [
        ("create_issue", "/properties/assignee", NoteKind::Rewritten),
        (
            "create_issue",
            "/properties/assignee/properties/id",
            NoteKind::Rewritten,
        ),
        ("create_issue", "/properties/due", NoteKind::Rewritten),
        ("create_issue", "/properties/due", NoteKind::Dropped),
        ("create_issue", "/properties/priority", NoteKind::Rewritten),
        (
            "create_issue",
            "/properties/meta/properties/source",
            NoteKind::Rewritten,
        ),
        (
            "create_issue",
            "/properties/meta/properties/links/items/properties/url",
            NoteKind::Dropped,
        ),
        ("create_issue", "", NoteKind::Dropped),
        ("create_issue", "/$defs", NoteKind::Rewritten),
    ] {
        assert!(
            notes.contains(&expected),
            "missing note {expected:?} in {notes:?}"
        );
    }
    assert!(!notes.iter().any(|n| n.0 == "get_time"));
}

#[test]
fn unions_recursion_all_of_and_examples() {
    let schema = json!({
        "type": "object",
        "properties": {
            "node": {"$ref": "#/$defs/node"},
            "value": {"type": ["string", "integer"], "description": "A value."},
            "shape": {"oneOf": [
                {"type": "object", "properties": {"r": {"type": "number", "format": "double"}}},
                {"type": "object", "properties": {"w": {"type": "number", "exclusiveMinimum": 0}}}
            ]},
            "both": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                {"properties": {"b": {"type": "boolean"}}}
            ]},
            "mode": {"enum": ["fast", null]},
            "ex": {"type": "string", "examples": ["x", "y"], "pattern": "^x"},
            "count": {"type": "integer", "format": "int32", "minimum": 0, "default": 5}
        },
        "$defs": {"node": {"type": "object", "properties": {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
        }}}
    });
    let (reduced, notes) = gemini_schema("tree", &schema);
    check(
        &reduced,
        json!({
            "type": "OBJECT",
            "properties": {
                "node": {"type": "OBJECT", "properties": {
                    "name": {"type": "STRING"},
                    "children": {"type": "ARRAY", "items": {"type": "OBJECT"}}
                }},
                "value": {"description": "A value.", "anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]},
                "shape": {"anyOf": [
                    {"type": "OBJECT", "properties": {"r": {"type": "NUMBER", "format": "double"}}},
                    {"type": "OBJECT", "properties": {"w": {"type": "NUMBER"}}}
                ]},
                "both": {"type": "OBJECT",
                         "properties": {"a": {"type": "STRING"}, "b": {"type": "BOOLEAN"}},
                         "required": ["a"]},
                "mode": {"type": "STRING", "enum": ["fast"], "nullable": true},
                "ex": {"type": "STRING", "example": "x", "pattern": "^x"},
                "count": {"type": "INTEGER", "format": "int32", "minimum": 0, "default": 5}
            }
        }),
    );
    let recursion = notes
        .iter()
        .find(|n| n.path == "/properties/node/properties/children/items")
        .unwrap();
    assert_eq!(recursion.kind, NoteKind::Rewritten);
    assert!(recursion.detail.contains("recursive"));
    assert!(
        notes
            .iter()
            .any(|n| n.path == "/properties/shape/oneOf/1/properties/w"
                && n.kind == NoteKind::Dropped
                && n.detail.contains("exclusiveMinimum"))
    );
}

#[test]
fn non_string_const_and_unresolvable_refs_are_dropped() {
    let schema = json!({"type": "object", "properties": {
        "n": {"const": 3, "description": "Three."},
        "r": {"$ref": "https://example.com/schema.json"},
        "b": false
    }});
    let (reduced, notes) = gemini_schema("t", &schema);
    check(
        &reduced,
        json!({"type": "OBJECT", "properties": {"n": {"description": "Three."}, "r": {}, "b": {}}}),
    );
    assert_eq!(
        notes.iter().filter(|n| n.kind == NoteKind::Dropped).count(),
        3
    );
}

#[test]
fn function_responses_use_output_and_error() {
    let c = read_call();
    check(
        &gemini::function_response_part(&c, &text_result()),
        json!({"functionResponse": {"name": "read_file", "response": {"output": "line one"}}}),
    );
    check(
        &gemini::function_response_part(&c, &structured_result()),
        json!({"functionResponse": {"name": "read_file", "response": {"output": {"temp": 21}}}}),
    );
    check(
        &gemini::function_response_part(&c, &structured_only_result()),
        json!({"functionResponse": {"name": "read_file", "response": {"output": {"ok": true}}}}),
    );
    check(
        &gemini::function_response_part(&c, &error_result()),
        json!({"functionResponse": {"name": "read_file", "response": {"error": "disk full"}}}),
    );
    check(
        &gemini::function_response_part(&c, &mixed_result()),
        json!({"functionResponse": {"name": "read_file", "response": {"output": MIXED_TEXT}}}),
    );
    let mut with_image = structured_result();
    with_image
        .content
        .push(ContentBlock::image(PNG, "image/png"));
    check(
        &gemini::function_response_part(&c, &with_image),
        json!({"functionResponse": {"name": "read_file", "response": {
            "output": {"temp": 21}, "content": "[image image/png, 8 bytes]"}}}),
    );
}
