//! A Chat Completions request as an OpenAI Responses request (`POST
//! {base}/responses`), for a proxy in front of a Responses upstream
//! (`--provider openai-responses`, `azure-responses`). The answer needs no
//! translation here: the router reads the Responses event stream with its
//! adapter.
//!
//! The rules, and what has no equivalent, are in docs/proxy.md ("In front of
//! a Responses upstream").

use serde_json::{Map, Value, json};

use super::chat_body::{
    ToolChoice, UserPart, bad, max_tokens, messages, no_role, number, role, text_of, tool_call_id,
    tool_calls, tool_choice, user_parts,
};
use super::error::ApiError;
use super::text_tools::function_tools;
use crate::convert::Dialect;
use crate::core::{ToolCall, WireFormat};

/// The Responses body for `chat`, a checked Chat Completions body. Always
/// streaming, and stored nowhere upstream: every request carries the whole
/// conversation.
pub(crate) fn responses_body(chat: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    if chat.get("stop").is_some_and(|stop| !stop.is_null()) {
        return Err(bad(
            "a Responses upstream has no stop sequences: leave out `stop`",
            "stop",
        ));
    }
    let mut body = Map::new();
    if let Some(model) = chat.get("model") {
        body.insert("model".to_owned(), model.clone());
    }
    let mut input = Vec::new();
    for (idx, message) in messages(chat).iter().enumerate() {
        match role(message) {
            role @ ("system" | "developer") => {
                let text = text_of(message.get("content"), idx)?;
                input.push(json!({"type": "message", "role": role, "content": text}));
            }
            "user" => input.push(user_item(message.get("content"), idx)?),
            "assistant" => assistant_items(message, idx, &mut input)?,
            "tool" => {
                let id = tool_call_id(message, idx)?;
                let text = text_of(message.get("content"), idx)?;
                input.push(json!({"type": "function_call_output", "call_id": id, "output": text}));
            }
            other => return Err(no_role(other, "Responses", idx)),
        }
    }
    body.insert("input".to_owned(), Value::Array(input));
    let tools = function_tools(chat);
    if !tools.is_empty() {
        body.insert(
            "tools".to_owned(),
            Dialect::OpenAiResponses.declare(&tools).value,
        );
        if let Some(choice) = tool_choice(chat)? {
            let choice = match choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::None => json!("none"),
                ToolChoice::Required => json!("required"),
                ToolChoice::Named(name) => json!({"type": "function", "name": name}),
            };
            body.insert("tool_choice".to_owned(), choice);
        }
        if let Some(parallel) = chat.get("parallel_tool_calls").filter(|v| v.is_boolean()) {
            body.insert("parallel_tool_calls".to_owned(), parallel.clone());
        }
    }
    if let Some(n) = max_tokens(chat)? {
        body.insert("max_output_tokens".to_owned(), n);
    }
    for key in ["temperature", "top_p"] {
        if let Some(n) = number(chat, key) {
            body.insert(key.to_owned(), n.clone());
        }
    }
    body.insert("store".to_owned(), Value::Bool(false));
    body.insert("stream".to_owned(), Value::Bool(true));
    Ok(body)
}

/// A user message as one `message` item: `input_text` and `input_image`
/// parts (an inline image stays a `data:` URL, as Responses takes it).
fn user_item(content: Option<&Value>, idx: usize) -> Result<Value, ApiError> {
    let parts: Vec<Value> = user_parts(content, "Responses", idx)?
        .into_iter()
        .map(|part| match part {
            UserPart::Text(text) => json!({"type": "input_text", "text": text}),
            UserPart::InlineImage { media_type, data } => json!({"type": "input_image",
                "image_url": format!("data:{media_type};base64,{data}")}),
            UserPart::ImageUrl(url) => json!({"type": "input_image", "image_url": url}),
        })
        .collect();
    Ok(json!({"type": "message", "role": "user", "content": parts}))
}

/// An assistant message as items, as the converters replay a turn: its text
/// as an `output_text` message (when it has any), then a `function_call` per
/// call. Its `reasoning_content` is dropped (Responses wants its own reasoning
/// items back, encrypted).
fn assistant_items(message: &Value, idx: usize, input: &mut Vec<Value>) -> Result<(), ApiError> {
    let text = text_of(message.get("content"), idx)?;
    let calls: Vec<ToolCall> = tool_calls(message, idx)?
        .into_iter()
        .map(|call| {
            let arguments = match call.input {
                Value::Object(arguments) => Some(arguments),
                _ => None,
            };
            ToolCall::new(call.id, call.name, arguments, WireFormat::OpenAiResponses)
        })
        .collect();
    input.extend(Dialect::OpenAiResponses.assistant_turn(&text, &calls));
    Ok(())
}

#[cfg(test)]
mod tests;
