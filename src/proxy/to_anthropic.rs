//! A Chat Completions request as an Anthropic Messages request, for a proxy in
//! front of an Anthropic upstream (`--provider anthropic`). The answer needs
//! no translation here: the router reads the Messages event stream with its
//! Anthropic adapter, and the front door writes it in its own shape.
//!
//! The rules, and what has no equivalent, are in docs/proxy.md ("In front of
//! an Anthropic upstream").

use serde_json::{Map, Value, json};

use super::error::ApiError;
use super::text_tools::function_tools;
use crate::convert::Dialect;

/// `max_tokens` when the client gives none: Anthropic requires one.
pub(crate) const DEFAULT_MAX_TOKENS: u64 = 4096;

fn bad(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::bad_request(message, Some(param))
}

/// The Messages body for `chat`, a checked Chat Completions body (`messages`
/// is an array). Always streaming.
pub(crate) fn messages_body(chat: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    let mut body = Map::new();
    if let Some(model) = chat.get("model") {
        body.insert("model".to_owned(), model.clone());
    }
    let mut system = Vec::new();
    let mut turns: Vec<Value> = Vec::new();
    let empty = Vec::new();
    let messages = chat
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (idx, message) in messages.iter().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let (turn_role, blocks) = match role {
            "system" | "developer" => {
                system.push(text_of(message.get("content"), idx)?);
                continue;
            }
            "user" => ("user", user_blocks(message.get("content"), idx)?),
            "assistant" => ("assistant", assistant_blocks(message, idx)?),
            "tool" => ("user", vec![tool_result(message, idx)?]),
            other => {
                return Err(bad(
                    format!(
                        "a message of role `{}` has no Anthropic equivalent",
                        crate::core::echo(other)
                    ),
                    &format!("messages[{idx}].role"),
                ));
            }
        };
        push_turn(&mut turns, turn_role, blocks);
    }
    if !system.is_empty() {
        body.insert("system".to_owned(), Value::String(system.join("\n\n")));
    }
    body.insert("messages".to_owned(), Value::Array(turns));
    let max_tokens = ["max_completion_tokens", "max_tokens"]
        .iter()
        .find_map(|key| chat.get(*key).filter(|v| !v.is_null()).map(|v| (key, v)));
    let max_tokens = match max_tokens {
        None => Value::from(DEFAULT_MAX_TOKENS),
        Some((_, n @ Value::Number(_))) => n.clone(),
        Some((key, _)) => return Err(bad(format!("`{key}` must be a number"), key)),
    };
    body.insert("max_tokens".to_owned(), max_tokens);
    match chat.get("stop") {
        None | Some(Value::Null) => {}
        Some(Value::String(stop)) => {
            body.insert("stop_sequences".to_owned(), json!([stop]));
        }
        Some(Value::Array(stops)) if stops.iter().all(Value::is_string) => {
            if !stops.is_empty() {
                body.insert("stop_sequences".to_owned(), Value::Array(stops.clone()));
            }
        }
        Some(_) => return Err(bad("`stop` must be a string or strings", "stop")),
    }
    for key in ["temperature", "top_p"] {
        if let Some(n @ Value::Number(_)) = chat.get(key) {
            body.insert(key.to_owned(), n.clone());
        }
    }
    let tools = function_tools(chat);
    if !tools.is_empty() {
        body.insert("tools".to_owned(), Dialect::Anthropic.declare(&tools).value);
        if let Some(choice) = tool_choice(chat)? {
            body.insert("tool_choice".to_owned(), choice);
        }
    }
    body.insert("stream".to_owned(), Value::Bool(true));
    Ok(body)
}

/// Appends `blocks` as a turn of `role`, into the last turn when it has the
/// same role (a `tool` message and the user's next words are one user turn).
fn push_turn(turns: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if blocks.is_empty() {
        return;
    }
    if let Some(last) = turns.last_mut()
        && last["role"] == role
        && let Some(Value::Array(content)) = last.get_mut("content")
    {
        content.extend(blocks);
        return;
    }
    turns.push(json!({"role": role, "content": blocks}));
}

/// A message's content as plain text: the string, or its text parts joined.
fn text_of(content: Option<&Value>, idx: usize) -> Result<String, ApiError> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::with_capacity(parts.len());
            for (n, part) in parts.iter().enumerate() {
                match part.get("text").and_then(Value::as_str) {
                    Some(text) => texts.push(text),
                    None => {
                        return Err(bad(
                            "only text parts have an equivalent here",
                            &format!("messages[{idx}].content[{n}]"),
                        ));
                    }
                }
            }
            Ok(texts.join("\n"))
        }
        Some(_) => Err(bad(
            "`content` must be a string or an array of parts",
            &format!("messages[{idx}].content"),
        )),
    }
}

/// A user message's content as blocks: text, and images (`image_url` parts:
/// a `data:` URL becomes a `base64` source, any other URL a `url` source).
fn user_blocks(content: Option<&Value>, idx: usize) -> Result<Vec<Value>, ApiError> {
    let Some(Value::Array(parts)) = content else {
        let text = text_of(content, idx)?;
        return Ok(text_block(text).into_iter().collect());
    };
    let mut blocks = Vec::with_capacity(parts.len());
    for (n, part) in parts.iter().enumerate() {
        let param = format!("messages[{idx}].content[{n}]");
        match part.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = part.get("text").and_then(Value::as_str).unwrap_or("");
                blocks.extend(text_block(text.to_owned()));
            }
            Some("image_url") => {
                let url = part
                    .get("image_url")
                    .and_then(|i| i.get("url").or(Some(i)))
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("an `image_url` part needs a `url`", &param))?;
                blocks.push(image_block(url, &param)?);
            }
            _ => {
                return Err(bad(
                    "only text and image_url parts have an Anthropic equivalent",
                    &param,
                ));
            }
        }
    }
    Ok(blocks)
}

fn text_block(text: String) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

/// An image block for an `image_url`.
fn image_block(url: &str, param: &str) -> Result<Value, ApiError> {
    let Some(data_url) = url.strip_prefix("data:") else {
        return Ok(json!({"type": "image", "source": {"type": "url", "url": url}}));
    };
    let Some((media_type, data)) = data_url.split_once(";base64,") else {
        return Err(bad(
            "a `data:` image URL must be base64 (`data:TYPE;base64,…`)",
            param,
        ));
    };
    Ok(json!({"type": "image",
        "source": {"type": "base64", "media_type": media_type, "data": data}}))
}

/// An assistant message's blocks: its text, then a `tool_use` block per call.
/// Its `reasoning_content` is dropped (Anthropic wants signed thinking back).
fn assistant_blocks(message: &Value, idx: usize) -> Result<Vec<Value>, ApiError> {
    let mut blocks: Vec<Value> = text_block(text_of(message.get("content"), idx)?)
        .into_iter()
        .collect();
    let empty = Vec::new();
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (n, call) in calls.iter().enumerate() {
        let param = format!("messages[{idx}].tool_calls[{n}]");
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a tool call needs an `id`", &param))?;
        let function = call.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| bad("a tool call needs a function `name`", &param))?;
        let input = match function.and_then(|f| f.get("arguments")) {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::String(text)) if text.trim().is_empty() => Value::Object(Map::new()),
            Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
                Ok(object @ Value::Object(_)) => object,
                _ => {
                    return Err(bad(
                        "a tool call's `arguments` must be a JSON object",
                        &param,
                    ));
                }
            },
            Some(_) => {
                return Err(bad(
                    "a tool call's `arguments` must be a JSON string",
                    &param,
                ));
            }
        };
        blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
    }
    Ok(blocks)
}

/// A `tool` message as a `tool_result` block.
fn tool_result(message: &Value, idx: usize) -> Result<Value, ApiError> {
    let id = message
        .get("tool_call_id")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            bad(
                "a tool message needs a `tool_call_id`",
                &format!("messages[{idx}].tool_call_id"),
            )
        })?;
    let text = text_of(message.get("content"), idx)?;
    Ok(json!({"type": "tool_result", "tool_use_id": id, "content": text}))
}

/// `tool_choice` and `parallel_tool_calls` as Anthropic's `tool_choice`.
fn tool_choice(chat: &Map<String, Value>) -> Result<Option<Value>, ApiError> {
    let mut choice = match chat.get("tool_choice") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) if c == "auto" => Some(json!({"type": "auto"})),
        Some(Value::String(c)) if c == "required" => Some(json!({"type": "any"})),
        Some(Value::String(c)) if c == "none" => Some(json!({"type": "none"})),
        Some(Value::Object(c)) => {
            let name = c
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .ok_or_else(|| bad("a named `tool_choice` needs `function.name`", "tool_choice"))?;
            Some(json!({"type": "tool", "name": name}))
        }
        Some(_) => {
            return Err(bad(
                "`tool_choice` must be auto, required, none or a named function",
                "tool_choice",
            ));
        }
    };
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
