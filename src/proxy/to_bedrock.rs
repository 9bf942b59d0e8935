//! A Chat Completions request as a Bedrock ConverseStream request, for a proxy
//! in front of Amazon Bedrock (`--provider bedrock`). The model goes in the
//! URL, not the body. The answer needs no translation here: the router reads
//! the AWS event stream with its Bedrock adapter.
//!
//! The rules, and what has no equivalent, are in docs/proxy.md ("In front of
//! a Bedrock upstream").

use serde_json::{Map, Value, json};

use super::chat_body::{
    ToolChoice, UserPart, bad, max_tokens, messages, no_role, number, push_turn, role, stop,
    text_of, tool_call_id, tool_calls, tool_choice, user_parts,
};
use super::error::ApiError;
use super::text_tools::function_tools;
use crate::convert::{Dialect, image_format};

/// What a `toolResult` with no content carries: Bedrock rejects blank text.
const EMPTY_RESULT: &str = "(no output)";

/// The ConverseStream body for `chat`, a checked Chat Completions body.
pub(crate) fn converse_body(chat: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    let mut body = Map::new();
    let mut system = Vec::new();
    let mut turns: Vec<Value> = Vec::new();
    let mut has_tool_blocks = false;
    for (idx, message) in messages(chat).iter().enumerate() {
        let (turn_role, blocks) = match role(message) {
            "system" | "developer" => {
                let text = text_of(message.get("content"), idx)?;
                if !text.trim().is_empty() {
                    system.push(json!({"text": text}));
                }
                continue;
            }
            "user" => ("user", user_blocks(message, idx)?),
            "assistant" => {
                let blocks = assistant_blocks(message, idx)?;
                has_tool_blocks |= blocks.iter().any(|b| b.get("toolUse").is_some());
                ("assistant", blocks)
            }
            "tool" => {
                has_tool_blocks = true;
                ("user", vec![tool_result(message, idx)?])
            }
            other => return Err(no_role(other, "Bedrock", idx)),
        };
        push_turn(&mut turns, turn_role, "content", blocks);
    }
    body.insert("messages".to_owned(), Value::Array(turns));
    if !system.is_empty() {
        body.insert("system".to_owned(), Value::Array(system));
    }
    let tools = function_tools(chat);
    let choice = tool_choice(chat)?;
    // Bedrock has no "no call" choice: `none` sends no tools, unless the
    // conversation holds calls or results (Bedrock then wants `toolConfig`).
    if !tools.is_empty() && (choice != Some(ToolChoice::None) || has_tool_blocks) {
        let mut config = Map::new();
        config.insert("tools".to_owned(), Dialect::Bedrock.declare(&tools).value);
        let choice = match choice {
            Some(ToolChoice::Auto) => Some(json!({"auto": {}})),
            Some(ToolChoice::Required) => Some(json!({"any": {}})),
            Some(ToolChoice::Named(name)) => Some(json!({"tool": {"name": name}})),
            Some(ToolChoice::None) | None => None,
        };
        if let Some(choice) = choice {
            config.insert("toolChoice".to_owned(), choice);
        }
        body.insert("toolConfig".to_owned(), Value::Object(config));
    }
    let mut inference = Map::new();
    if let Some(n) = max_tokens(chat)? {
        inference.insert("maxTokens".to_owned(), n);
    }
    for (from, to) in [("temperature", "temperature"), ("top_p", "topP")] {
        if let Some(n) = number(chat, from) {
            inference.insert(to.to_owned(), n.clone());
        }
    }
    if let Some(stops) = stop(chat)? {
        inference.insert("stopSequences".to_owned(), stops);
    }
    if !inference.is_empty() {
        body.insert("inferenceConfig".to_owned(), Value::Object(inference));
    }
    Ok(body)
}

/// A user message's blocks: text, and inline PNG, JPEG, GIF or WebP images.
fn user_blocks(message: &Value, idx: usize) -> Result<Vec<Value>, ApiError> {
    let parts = user_parts(message.get("content"), "Bedrock", idx)?;
    let mut out = Vec::with_capacity(parts.len());
    for (n, part) in parts.into_iter().enumerate() {
        let param = || format!("messages[{idx}].content[{n}]");
        out.push(match part {
            UserPart::Text(text) => json!({"text": text}),
            UserPart::InlineImage { media_type, data } => {
                let format = image_format(media_type).ok_or_else(|| {
                    bad(
                        "a Bedrock upstream takes PNG, JPEG, GIF and WebP images",
                        &param(),
                    )
                })?;
                json!({"image": {"format": format, "source": {"bytes": data}}})
            }
            UserPart::ImageUrl(_) => {
                return Err(bad(
                    "a Bedrock upstream takes images inline only (`data:TYPE;base64,…`)",
                    &param(),
                ));
            }
        });
    }
    Ok(out)
}

/// An assistant message's blocks: its text, then a `toolUse` block per call.
fn assistant_blocks(message: &Value, idx: usize) -> Result<Vec<Value>, ApiError> {
    let mut blocks = Vec::new();
    let text = text_of(message.get("content"), idx)?;
    if !text.trim().is_empty() {
        blocks.push(json!({"text": text}));
    }
    for call in tool_calls(message, idx)? {
        blocks.push(json!({"toolUse": {
            "toolUseId": call.id, "name": call.name, "input": call.input}}));
    }
    Ok(blocks)
}

/// A `tool` message as a `toolResult` block: a JSON object as a `json`
/// block, any other text as a `text` block.
fn tool_result(message: &Value, idx: usize) -> Result<Value, ApiError> {
    let id = tool_call_id(message, idx)?;
    let text = text_of(message.get("content"), idx)?;
    let block = match serde_json::from_str::<Value>(&text) {
        Ok(json @ Value::Object(_)) => json!({"json": json}),
        _ if text.trim().is_empty() => json!({"text": EMPTY_RESULT}),
        _ => json!({"text": text}),
    };
    Ok(json!({"toolResult": {"toolUseId": id, "content": [block]}}))
}

#[cfg(test)]
mod tests;
