//! OpenAI Responses: flat function `tools`, `function_call` items, and
//! `function_call_output` items.

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value, json};

use super::content::{Part, Structured, flag_error, image_format, is_error, join_text, parts};
use super::note::Declarations;
use super::openai_chat::{arguments_string, function, strict_declarations};
use crate::core::ToolCall;

/// The `tools` array: `{"type":"function", name, description, parameters,
/// "strict": false}`. `strict` is written out because the Responses API
/// defaults it to `true`, which the unchanged schema would usually fail.
pub(super) fn tools(tools: &[Tool]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|t| flatten(function(t), Some(false)))
            .collect(),
    )
}

/// The `tools` array in strict mode (see [`openai_chat::strict_tools`](super::openai_chat::strict_tools)).
pub(super) fn strict_tools(tools: &[Tool]) -> Declarations {
    strict_declarations(tools, |function| flatten(function, None))
}

/// The input items that replay the assistant's turn: an assistant `message`
/// with the text before the calls (when there is any), then one
/// `function_call` item per call (`arguments` a JSON string).
pub(super) fn assistant_items(text: &str, calls: &[ToolCall]) -> Vec<Value> {
    let mut items = Vec::with_capacity(calls.len() + 1);
    if !text.is_empty() {
        items.push(json!({
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text}],
        }));
    }
    for call in calls {
        items.push(json!({
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": arguments_string(&call.arguments),
        }));
    }
    items
}

/// The `function_call_output` item answering one call. `output` is a string
/// when the result is all text; with images or PDF files it is a list of
/// `input_text` / `input_image` / `input_file` parts. Errors are marked `Error: `.
pub(super) fn function_call_output(call: &ToolCall, result: &CallToolResult) -> Value {
    let parts = parts(result, Structured::AsText);
    let error = is_error(result);
    let rich = parts.iter().any(|p| rich_part(p).is_some());
    let output = if rich {
        let mut list = Vec::with_capacity(parts.len() + 1);
        if error {
            list.push(json!({"type": "input_text", "text": "Error:"}));
        }
        for part in &parts {
            list.push(
                rich_part(part)
                    .unwrap_or_else(|| json!({"type": "input_text", "text": part.to_text()})),
            );
        }
        Value::Array(list)
    } else {
        Value::String(flag_error(join_text(&parts), error))
    };
    json!({"type": "function_call_output", "call_id": call.id, "output": output})
}

/// An image or PDF part as an input part; `None` for what stays text.
fn rich_part(part: &Part<'_>) -> Option<Value> {
    match part {
        Part::Image { mime, data } => {
            let format = image_format(mime)?;
            Some(json!({
                "type": "input_image",
                "image_url": format!("data:image/{format};base64,{data}"),
            }))
        }
        Part::Blob {
            uri,
            mime: Some(mime),
            data,
        } if mime.eq_ignore_ascii_case("application/pdf") => Some(json!({
            "type": "input_file",
            "filename": file_name(uri),
            "file_data": format!("data:application/pdf;base64,{data}"),
        })),
        _ => None,
    }
}

/// The last path segment of a URI, or `file.pdf`.
fn file_name(uri: &str) -> String {
    uri.rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("file.pdf")
        .to_owned()
}

/// `{name, description, parameters, strict}` to `{"type":"function", ...}`.
fn flatten(function: Value, strict: Option<bool>) -> Value {
    let mut flat = Map::new();
    flat.insert("type".to_owned(), json!("function"));
    if let Value::Object(fields) = function {
        flat.extend(fields);
    }
    if let Some(strict) = strict {
        flat.insert("strict".to_owned(), Value::Bool(strict));
    }
    Value::Object(flat)
}
