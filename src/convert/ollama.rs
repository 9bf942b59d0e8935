//! Ollama `/api/chat`: `tools`, assistant `tool_calls` (arguments as an
//! object), and `tool` messages.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Value, json};

use super::content::{Part, Structured, flag_error, is_error, join_text, parts};
use crate::core::ToolCall;

/// The `tools` array, the same shape as OpenAI Chat's
/// (`{"type":"function","function":{name, description, parameters}}`).
pub(super) fn tools(tools: &[Tool]) -> Value {
    super::openai_chat::tools(tools)
}

/// The assistant message: `content` is the text before the calls (`""` when
/// none), `tool_calls` one `{"function":{name, arguments}}` per call with the
/// arguments as a JSON object.
pub(super) fn assistant_message(text: &str, calls: &[ToolCall]) -> Value {
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|c| json!({"function": {"name": c.name, "arguments": c.arguments}}))
        .collect();
    let mut message = json!({"role": "assistant", "content": text});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    message
}

/// The `tool` message answering one call: `tool_name`, the result as text in
/// `content` (errors marked `Error: `), and images' base64 data in `images`.
pub(super) fn tool_message(call: &ToolCall, result: &CallToolResult) -> Value {
    let all = parts(result, Structured::AsText);
    let images: Vec<&str> = all
        .iter()
        .filter_map(|p| match p {
            Part::Image { data, .. } => Some(*data),
            _ => None,
        })
        .collect();
    let text = flag_error(join_text(&all), is_error(result));
    let mut message = json!({"role": "tool", "tool_name": call.name, "content": text});
    if !images.is_empty() {
        message["images"] = json!(images);
    }
    message
}
