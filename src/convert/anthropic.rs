//! Anthropic Messages: `tools` with `input_schema`, assistant `tool_use`
//! blocks, and `tool_result` blocks.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use super::content::{Part, Structured, image_format, is_error, parts};
use super::schema::{input_schema_value, tool_description};
use crate::core::ToolCall;

/// The `tools` array: `{name, description, input_schema}`, schema unchanged.
pub(super) fn tools(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|tool| {
                let mut out = Map::new();
                out.insert("name".to_owned(), Value::String(tool.name.to_string()));
                if let Some(description) = tool_description(tool) {
                    out.insert("description".to_owned(), Value::String(description));
                }
                out.insert("input_schema".to_owned(), input_schema_value(tool));
                Value::Object(out)
            })
            .collect(),
    )
}

/// The assistant message: a `text` block with the text before the calls (when
/// there is any), then one `tool_use` block per call.
pub(super) fn assistant_message(text: &str, calls: &[ToolCall]) -> Value {
    let mut content = Vec::with_capacity(calls.len() + 1);
    if !text.is_empty() {
        content.push(json!({"type": "text", "text": text}));
    }
    for call in calls {
        content.push(json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            "input": call.arguments,
        }));
    }
    json!({"role": "assistant", "content": content})
}

/// The `tool_result` block answering one call (it goes into a `user` message).
/// Text stays text, JPEG/PNG/GIF/WebP images become `image` blocks, embedded
/// PDFs `document` blocks, anything else its text placeholder; `is_error: true`
/// is set only for errors; `content` is left out when the result has none.
pub(super) fn tool_result_block(call: &ToolCall, result: &CallToolResult) -> Value {
    let content: Vec<Value> = parts(result, Structured::AsText)
        .iter()
        .map(block)
        .collect();
    let mut out = Map::new();
    out.insert("type".to_owned(), json!("tool_result"));
    out.insert("tool_use_id".to_owned(), Value::String(call.id.clone()));
    if !content.is_empty() {
        out.insert("content".to_owned(), Value::Array(content));
    }
    if is_error(result) {
        out.insert("is_error".to_owned(), Value::Bool(true));
    }
    Value::Object(out)
}

fn block(part: &Part<'_>) -> Value {
    match part {
        Part::Image { mime, data } if image_format(mime).is_some() => {
            let format = image_format(mime).unwrap_or("png");
            json!({
                "type": "image",
                "source": {"type": "base64", "media_type": format!("image/{format}"), "data": data},
            })
        }
        Part::Blob {
            mime: Some(mime),
            data,
            ..
        } if mime.eq_ignore_ascii_case("application/pdf") => json!({
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": data},
        }),
        other => json!({"type": "text", "text": other.to_text()}),
    }
}
