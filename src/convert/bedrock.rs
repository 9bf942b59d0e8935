//! Amazon Bedrock Converse: `toolSpec` declarations, assistant `toolUse`
//! blocks, and `toolResult` blocks.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use super::content::{Part, Structured, image_format, is_error, parts};
use super::schema::{input_schema_value, tool_description};
use crate::core::ToolCall;

/// What a `toolResult` with no content carries: Bedrock rejects an empty
/// `content` list and blank text.
const EMPTY_RESULT: &str = "(no output)";

/// The `toolConfig.tools` array: `{"toolSpec":{name, description, inputSchema:{json}}}`.
pub(super) fn tools(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|tool| {
                let mut spec = Map::new();
                spec.insert("name".to_owned(), Value::String(tool.name.to_string()));
                if let Some(description) = tool_description(tool) {
                    spec.insert("description".to_owned(), Value::String(description));
                }
                spec.insert(
                    "inputSchema".to_owned(),
                    json!({"json": input_schema_value(tool)}),
                );
                json!({"toolSpec": spec})
            })
            .collect(),
    )
}

/// The assistant message: a `text` block (when there is text), then one
/// `toolUse` block per call.
pub(super) fn assistant_message(text: &str, calls: &[ToolCall]) -> Value {
    let mut content = Vec::with_capacity(calls.len() + 1);
    if !text.is_empty() {
        content.push(json!({"text": text}));
    }
    for call in calls {
        content.push(json!({
            "toolUse": {"toolUseId": call.id, "name": call.name, "input": call.arguments},
        }));
    }
    json!({"role": "assistant", "content": content})
}

/// The `toolResult` block answering one call (it goes into a `user` message).
/// `structuredContent` becomes a `json` block (text blocks that merely repeat it
/// are left out), text a `text` block, JPEG/PNG/GIF/WebP images `image` blocks
/// (base64 in `source.bytes`), anything else its text placeholder. `status` is
/// `"error"` for errors and absent otherwise.
pub(super) fn tool_result_block(call: &ToolCall, result: &CallToolResult) -> Value {
    let mut content: Vec<Value> = parts(result, Structured::Separate)
        .iter()
        .map(block)
        .collect();
    if let Some(structured) = &result.structured_content {
        content.push(json!({"json": structured}));
    }
    if content.is_empty() {
        content.push(json!({"text": EMPTY_RESULT}));
    }
    let mut out = Map::new();
    out.insert("toolUseId".to_owned(), Value::String(call.id.clone()));
    out.insert("content".to_owned(), Value::Array(content));
    if is_error(result) {
        out.insert("status".to_owned(), json!("error"));
    }
    json!({"toolResult": out})
}

fn block(part: &Part<'_>) -> Value {
    match part {
        Part::Image { mime, data } => match image_format(mime) {
            Some(format) => json!({"image": {"format": format, "source": {"bytes": data}}}),
            None => json!({"text": part.to_text()}),
        },
        other => json!({"text": other.to_text()}),
    }
}
