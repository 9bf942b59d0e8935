//! Google Gemini (and Vertex AI): `functionDeclarations` with reduced schemas,
//! `model` content with `functionCall` parts, and `functionResponse` parts.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use super::content::{Structured, is_error, join_text, parts, plain_text};
use super::gemini_schema::{gemini_schema, has_no_parameters};
use super::note::Declarations;
use super::schema::{input_schema_value, tool_description};
use crate::core::ToolCall;

/// The request's `tools` array: one entry `{"functionDeclarations": [...]}`.
pub(super) fn tools(tools: &[Tool]) -> Declarations {
    let declarations = function_declarations(tools);
    Declarations {
        value: json!([{"functionDeclarations": declarations.value}]),
        notes: declarations.notes,
    }
}

/// The `functionDeclarations` array: `{name, description, parameters}`, the
/// schema reduced by [`gemini_schema`](super::gemini_schema). A tool without
/// parameters has no `parameters` (Gemini rejects an `OBJECT` without properties).
pub(super) fn function_declarations(tools: &[Tool]) -> Declarations {
    let mut notes = Vec::new();
    let value = tools
        .iter()
        .map(|tool| {
            let (parameters, tool_notes) = gemini_schema(&tool.name, &input_schema_value(tool));
            notes.extend(tool_notes);
            let mut out = Map::new();
            out.insert("name".to_owned(), Value::String(tool.name.to_string()));
            if let Some(description) = tool_description(tool) {
                out.insert("description".to_owned(), Value::String(description));
            }
            if !has_no_parameters(&parameters) {
                out.insert("parameters".to_owned(), parameters);
            }
            Value::Object(out)
        })
        .collect();
    Declarations {
        value: Value::Array(value),
        notes,
    }
}

/// The `model` content that replays the turn: a `text` part (when there is
/// text), then one `functionCall` part `{name, args}` per call.
pub(super) fn model_content(text: &str, calls: &[ToolCall]) -> Value {
    let mut content_parts = Vec::with_capacity(calls.len() + 1);
    if !text.is_empty() {
        content_parts.push(json!({"text": text}));
    }
    for call in calls {
        content_parts.push(json!({"functionCall": {"name": call.name, "args": call.arguments}}));
    }
    json!({"role": "model", "parts": content_parts})
}

/// The `functionResponse` part answering one call (it goes into a `user`
/// content). `response` follows Gemini's convention: `{"error": text}` for an
/// error; otherwise `{"output": structuredContent}` when there is structured
/// content (plus `"content"`: the text of any other blocks), else
/// `{"output": text}`. Non-text blocks appear as text placeholders.
pub(super) fn function_response_part(call: &ToolCall, result: &CallToolResult) -> Value {
    let response = if is_error(result) {
        json!({"error": plain_text(result)})
    } else if let Some(structured) = &result.structured_content {
        let rest = parts(result, Structured::Separate);
        if rest.is_empty() {
            json!({"output": structured})
        } else {
            json!({"output": structured, "content": join_text(&rest)})
        }
    } else {
        json!({"output": plain_text(result)})
    };
    json!({"functionResponse": {"name": call.name, "response": response}})
}
