//! A Chat Completions request as an Ollama `/api/chat` request, for a proxy in
//! front of Ollama's native API (`--provider ollama`). The answer needs no
//! translation here: the router reads Ollama's NDJSON with its Ollama adapter.
//!
//! The rules, and what has no equivalent, are in docs/proxy.md ("In front of
//! a native Ollama upstream").

use serde_json::{Map, Value, json};

use super::chat_body::{
    ToolChoice, UserPart, answered_name, bad, max_tokens, messages, no_role, number, role, stop,
    text_of, tool_call_id, tool_calls, tool_choice, user_parts,
};
use super::error::ApiError;
use super::text_tools::function_tools;
use crate::convert::Dialect;

/// The `/api/chat` body for `chat`, a checked Chat Completions body. Always
/// streaming.
pub(crate) fn chat_body(chat: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    let mut body = Map::new();
    if let Some(model) = chat.get("model") {
        body.insert("model".to_owned(), model.clone());
    }
    let all = messages(chat);
    let mut out = Vec::with_capacity(all.len());
    for (idx, message) in all.iter().enumerate() {
        let text = |message: &Value| text_of(message.get("content"), idx);
        out.push(match role(message) {
            "system" | "developer" => json!({"role": "system", "content": text(message)?}),
            "user" => user_message(message, idx)?,
            "assistant" => assistant_message(message, idx)?,
            "tool" => {
                let id = tool_call_id(message, idx)?;
                let mut result = json!({"role": "tool", "content": text(message)?});
                if let Some(name) = answered_name(all, message, id) {
                    result["tool_name"] = Value::String(name.to_owned());
                }
                result
            }
            other => return Err(no_role(other, "Ollama", idx)),
        });
    }
    body.insert("messages".to_owned(), Value::Array(out));
    let tools = function_tools(chat);
    // Ollama has no `tool_choice`: `none` sends no tools; `required` and a
    // named function cannot be asked for and leave the choice to the model.
    if !tools.is_empty() && tool_choice(chat)? != Some(ToolChoice::None) {
        body.insert("tools".to_owned(), Dialect::Ollama.declare(&tools).value);
    }
    body.insert("stream".to_owned(), Value::Bool(true));
    let mut options = Map::new();
    if let Some(n) = max_tokens(chat)? {
        options.insert("num_predict".to_owned(), n);
    }
    for key in ["temperature", "top_p", "seed"] {
        if let Some(n) = number(chat, key) {
            options.insert(key.to_owned(), n.clone());
        }
    }
    if let Some(stops) = stop(chat)? {
        options.insert("stop".to_owned(), stops);
    }
    if !options.is_empty() {
        body.insert("options".to_owned(), Value::Object(options));
    }
    Ok(body)
}

/// A user message: its text, and its inline images as `images` (base64).
fn user_message(message: &Value, idx: usize) -> Result<Value, ApiError> {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    let parts = user_parts(message.get("content"), "Ollama", idx)?;
    for (n, part) in parts.into_iter().enumerate() {
        match part {
            UserPart::Text(text) => texts.push(text),
            UserPart::InlineImage { data, .. } => images.push(Value::String(data.to_owned())),
            UserPart::ImageUrl(_) => {
                return Err(bad(
                    "an Ollama upstream takes images inline only (`data:TYPE;base64,…`)",
                    &format!("messages[{idx}].content[{n}]"),
                ));
            }
        }
    }
    let mut out = json!({"role": "user", "content": texts.join("\n")});
    if !images.is_empty() {
        out["images"] = Value::Array(images);
    }
    Ok(out)
}

/// An assistant message: its text and its calls, arguments as objects.
fn assistant_message(message: &Value, idx: usize) -> Result<Value, ApiError> {
    let text = text_of(message.get("content"), idx)?;
    let calls: Vec<Value> = tool_calls(message, idx)?
        .into_iter()
        .map(|call| json!({"function": {"name": call.name, "arguments": call.input}}))
        .collect();
    let mut out = json!({"role": "assistant", "content": text});
    if !calls.is_empty() {
        out["tool_calls"] = Value::Array(calls);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
