//! A Chat Completions request as an Anthropic Messages request, for a proxy in
//! front of an Anthropic upstream (`--provider anthropic`). The answer needs
//! no translation here: the router reads the Messages event stream with its
//! Anthropic adapter, and the front door writes it in its own shape.
//!
//! The rules, and what has no equivalent, are in docs/proxy.md ("In front of
//! an Anthropic upstream").

use serde_json::{Map, Value, json};

use super::chat_body::{
    ToolChoice, UserPart, max_tokens, messages, no_role, number, push_turn, role, stop, text_of,
    tool_call_id, tool_calls, tool_choice, user_parts,
};
use super::error::ApiError;
use super::text_tools::function_tools;
use crate::convert::Dialect;

/// `max_tokens` when the client gives none: Anthropic requires one.
pub(crate) const DEFAULT_MAX_TOKENS: u64 = 4096;

/// The Messages body for `chat`, a checked Chat Completions body (`messages`
/// is an array). Always streaming.
pub(crate) fn messages_body(chat: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    let mut body = Map::new();
    if let Some(model) = chat.get("model") {
        body.insert("model".to_owned(), model.clone());
    }
    let mut system = Vec::new();
    let mut turns: Vec<Value> = Vec::new();
    for (idx, message) in messages(chat).iter().enumerate() {
        let (turn_role, blocks) = match role(message) {
            "system" | "developer" => {
                system.push(text_of(message.get("content"), idx)?);
                continue;
            }
            "user" => ("user", user_blocks(message.get("content"), idx)?),
            "assistant" => ("assistant", assistant_blocks(message, idx)?),
            "tool" => ("user", vec![tool_result(message, idx)?]),
            other => return Err(no_role(other, "Anthropic", idx)),
        };
        push_turn(&mut turns, turn_role, "content", blocks);
    }
    if !system.is_empty() {
        body.insert("system".to_owned(), Value::String(system.join("\n\n")));
    }
    body.insert("messages".to_owned(), Value::Array(turns));
    let max_tokens = max_tokens(chat)?.unwrap_or_else(|| Value::from(DEFAULT_MAX_TOKENS));
    body.insert("max_tokens".to_owned(), max_tokens);
    if let Some(stops) = stop(chat)? {
        body.insert("stop_sequences".to_owned(), stops);
    }
    for key in ["temperature", "top_p"] {
        if let Some(n) = number(chat, key) {
            body.insert(key.to_owned(), n.clone());
        }
    }
    let tools = function_tools(chat);
    if !tools.is_empty() {
        body.insert("tools".to_owned(), Dialect::Anthropic.declare(&tools).value);
        if let Some(choice) = anthropic_tool_choice(chat)? {
            body.insert("tool_choice".to_owned(), choice);
        }
    }
    body.insert("stream".to_owned(), Value::Bool(true));
    Ok(body)
}

/// A user message's content as blocks: text, and images (an inline image
/// becomes a `base64` source, any other URL a `url` source).
fn user_blocks(content: Option<&Value>, idx: usize) -> Result<Vec<Value>, ApiError> {
    let parts = user_parts(content, "Anthropic", idx)?;
    Ok(parts
        .into_iter()
        .map(|part| match part {
            UserPart::Text(text) => json!({"type": "text", "text": text}),
            UserPart::InlineImage { media_type, data } => json!({"type": "image",
                "source": {"type": "base64", "media_type": media_type, "data": data}}),
            UserPart::ImageUrl(url) => {
                json!({"type": "image", "source": {"type": "url", "url": url}})
            }
        })
        .collect())
}

fn text_block(text: String) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

/// An assistant message's blocks: its text, then a `tool_use` block per call.
/// Its `reasoning_content` is dropped (Anthropic wants signed thinking back).
fn assistant_blocks(message: &Value, idx: usize) -> Result<Vec<Value>, ApiError> {
    let mut blocks: Vec<Value> = text_block(text_of(message.get("content"), idx)?)
        .into_iter()
        .collect();
    for call in tool_calls(message, idx)? {
        blocks.push(
            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}),
        );
    }
    Ok(blocks)
}

/// A `tool` message as a `tool_result` block.
fn tool_result(message: &Value, idx: usize) -> Result<Value, ApiError> {
    let id = tool_call_id(message, idx)?;
    let text = text_of(message.get("content"), idx)?;
    Ok(json!({"type": "tool_result", "tool_use_id": id, "content": text}))
}

/// `tool_choice` and `parallel_tool_calls` as Anthropic's `tool_choice`.
fn anthropic_tool_choice(chat: &Map<String, Value>) -> Result<Option<Value>, ApiError> {
    let mut choice = tool_choice(chat)?.map(|choice| match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Named(name) => json!({"type": "tool", "name": name}),
    });
    if chat.get("parallel_tool_calls") == Some(&Value::Bool(false)) {
        let choice = choice.get_or_insert_with(|| json!({"type": "auto"}));
        if choice["type"] != "none" {
            choice["disable_parallel_tool_use"] = Value::Bool(true);
        }
    }
    Ok(choice)
}

#[cfg(test)]
mod tests;
