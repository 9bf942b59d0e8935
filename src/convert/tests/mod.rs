//! Converter tests: every expectation is hand-written from the provider docs.

#![allow(clippy::unwrap_used)] // tests may unwrap

mod assistant;
mod declarations;
mod gemini;
mod never_panics;
mod odd_input;
mod results;
mod round_trip;
mod strict;
mod xml;

use rmcp::model::{CallToolResult, ContentBlock, Resource, ResourceContents, Tool};
use serde_json::{Value, json};

use crate::core::{JsonObject, ToolCall, WireFormat};

/// Compares JSON values and prints both sides, pretty, on a mismatch.
#[track_caller]
fn check(actual: &Value, expected: Value) {
    assert!(
        *actual == expected,
        "converted JSON differs\n--- actual\n{}\n--- expected\n{}",
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(&expected).unwrap()
    );
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn tool(entry: Value) -> Tool {
    serde_json::from_value(entry).unwrap()
}

/// A simple tool with one required and one optional enum parameter, and `$schema`.
fn read_file_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path."},
            "encoding": {"type": "string", "enum": ["utf-8", "latin1"]}
        },
        "required": ["path"]
    })
}

/// Nested objects, arrays, enums, optional fields, `$ref`/`$defs`, nullable
/// types, `const`, formats, a non-string enum, `additionalProperties: false`.
fn create_issue_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1},
            "labels": {"type": "array", "items": {"type": "string", "enum": ["bug", "feature"]}},
            "assignee": {"$ref": "#/$defs/user"},
            "due": {"type": ["string", "null"], "format": "date"},
            "priority": {"type": "integer", "enum": [1, 2, 3]},
            "meta": {
                "type": "object",
                "properties": {
                    "source": {"const": "api"},
                    "links": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"url": {"type": "string", "format": "uri"}},
                            "required": ["url"]
                        }
                    }
                }
            }
        },
        "required": ["title", "labels"],
        "additionalProperties": false,
        "$defs": {
            "user": {
                "type": "object",
                "properties": {
                    "login": {"type": "string"},
                    "id": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
                },
                "required": ["login"]
            }
        }
    })
}

fn read_file() -> Tool {
    tool(
        json!({"name": "read_file", "description": "Read a file.", "inputSchema": read_file_schema()}),
    )
}

fn create_issue() -> Tool {
    tool(json!({
        "name": "create_issue",
        "title": "Create issue",
        "description": "Open an issue.",
        "inputSchema": create_issue_schema()
    }))
}

/// No parameters, no description: the title stands in.
fn get_time() -> Tool {
    tool(json!({"name": "get_time", "title": "Current time", "inputSchema": {"type": "object"}}))
}

fn three_tools() -> Vec<Tool> {
    vec![read_file(), create_issue(), get_time()]
}

fn call(id: &str, name: &str, arguments: Value) -> ToolCall {
    ToolCall::new(id, name, Some(object(arguments)), WireFormat::OpenAiChat)
}

fn read_call() -> ToolCall {
    call("call_1", "read_file", json!({"path": "a.txt"}))
}

/// 8 bytes once decoded (the PNG signature).
const PNG: &str = "iVBORw0KGgo=";
/// 4 bytes once decoded (`RIFF`).
const WAV: &str = "UklGRg==";
/// 5 bytes once decoded (`%PDF-`).
const PDF: &str = "JVBERi0=";

fn text_result() -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text("line one")])
}

/// One block of every content type.
fn mixed_result() -> CallToolResult {
    CallToolResult::success(vec![
        ContentBlock::text("Here:"),
        ContentBlock::image(PNG, "image/png"),
        ContentBlock::audio(WAV, "audio/wav"),
        ContentBlock::resource(ResourceContents::text("hello", "file:///notes.txt")),
        ContentBlock::resource(
            ResourceContents::blob(PDF, "file:///doc.pdf").with_mime_type("application/pdf"),
        ),
        ContentBlock::resource_link(
            Resource::new("file:///big.log", "big.log")
                .with_mime_type("text/plain")
                .with_description("Full log"),
        ),
    ])
}

/// The plain-text rendering of [`mixed_result`], by hand.
const MIXED_TEXT: &str = "Here:\n[image image/png, 8 bytes]\n[audio audio/wav, 4 bytes]\n[resource file:///notes.txt]\nhello\n[resource file:///doc.pdf (application/pdf), 5 bytes]\n[resource link file:///big.log: big.log (text/plain) - Full log]";

/// `CallToolResult::structured` puts the serialized copy in a text block.
fn structured_result() -> CallToolResult {
    CallToolResult::structured(json!({"temp": 21}))
}

fn structured_only_result() -> CallToolResult {
    let mut result = CallToolResult::success(Vec::new());
    result.structured_content = Some(json!({"ok": true}));
    result
}

fn error_result() -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text("disk full")])
}

fn error_image_result() -> CallToolResult {
    CallToolResult::error(vec![
        ContentBlock::text("bad"),
        ContentBlock::image(PNG, "image/png"),
    ])
}

fn empty_result() -> CallToolResult {
    CallToolResult::success(Vec::new())
}
