//! Reading a checked Chat Completions body, for the translations into the
//! other wires' requests (`to_anthropic.rs`, `to_gemini.rs`, `to_ollama.rs`,
//! `to_bedrock.rs`): the messages, their text, images, calls and results,
//! and the sampling fields. Every refusal names the field (`param`).

use serde_json::{Map, Value, json};

use super::error::ApiError;
use crate::core::echo;

/// A `400` for `param`.
pub(crate) fn bad(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::bad_request(message, Some(param))
}

/// The body's `messages` (empty when it has none).
pub(crate) fn messages(chat: &Map<String, Value>) -> &[Value] {
    chat.get("messages")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// A message's `role` (empty when it has none).
pub(crate) fn role(message: &Value) -> &str {
    message.get("role").and_then(Value::as_str).unwrap_or("")
}

/// The refusal of a message whose role `wire` has no equivalent for.
pub(crate) fn no_role(role: &str, wire: &str, idx: usize) -> ApiError {
    bad(
        format!(
            "a message of role `{}` has no {wire} equivalent",
            echo(role)
        ),
        &format!("messages[{idx}].role"),
    )
}

/// A message's content as plain text: the string, or its text parts joined.
pub(crate) fn text_of(content: Option<&Value>, idx: usize) -> Result<String, ApiError> {
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

/// A part of a user message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum UserPart<'a> {
    /// A text part (never empty).
    Text(&'a str),
    /// An `image_url` part given inline: `data:TYPE;base64,DATA`.
    InlineImage {
        /// Its media type (`image/png`).
        media_type: &'a str,
        /// Its bytes, base64.
        data: &'a str,
    },
    /// An `image_url` part given by URL.
    ImageUrl(&'a str),
}

/// A user message's content as parts: text and images. Other parts are
/// refused (`wire` names the upstream in the message).
pub(crate) fn user_parts<'a>(
    content: Option<&'a Value>,
    wire: &str,
    idx: usize,
) -> Result<Vec<UserPart<'a>>, ApiError> {
    let parts = match content {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(text)) => {
            return Ok((!text.is_empty())
                .then_some(UserPart::Text(text))
                .into_iter()
                .collect());
        }
        Some(Value::Array(parts)) => parts,
        Some(_) => {
            return Err(bad(
                "`content` must be a string or an array of parts",
                &format!("messages[{idx}].content"),
            ));
        }
    };
    let mut out = Vec::with_capacity(parts.len());
    for (n, part) in parts.iter().enumerate() {
        let param = format!("messages[{idx}].content[{n}]");
        match part.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = part.get("text").and_then(Value::as_str).unwrap_or("");
                if !text.is_empty() {
                    out.push(UserPart::Text(text));
                }
            }
            Some("image_url") => {
                let url = part
                    .get("image_url")
                    .and_then(|i| i.get("url").or(Some(i)))
                    .and_then(Value::as_str)
                    .ok_or_else(|| bad("an `image_url` part needs a `url`", &param))?;
                let Some(data_url) = url.strip_prefix("data:") else {
                    out.push(UserPart::ImageUrl(url));
                    continue;
                };
                let Some((media_type, data)) = data_url.split_once(";base64,") else {
                    return Err(bad(
                        "a `data:` image URL must be base64 (`data:TYPE;base64,…`)",
                        &param,
                    ));
                };
                out.push(UserPart::InlineImage { media_type, data });
            }
            _ => {
                return Err(bad(
                    format!("only text and image_url parts have a {wire} equivalent"),
                    &param,
                ));
            }
        }
    }
    Ok(out)
}

/// One call of an assistant message.
#[derive(Debug, PartialEq)]
pub(crate) struct Call<'a> {
    /// Its `id`.
    pub(crate) id: &'a str,
    /// The function's name.
    pub(crate) name: &'a str,
    /// Its arguments as an object (`{}` for none).
    pub(crate) input: Value,
    /// The provider signature the client gave back with it: Google's
    /// `extra_content.google.thought_signature` (a non-empty string).
    pub(crate) signature: Option<&'a str>,
}

/// An assistant message's `tool_calls`, their arguments parsed into objects.
pub(crate) fn tool_calls(message: &Value, idx: usize) -> Result<Vec<Call<'_>>, ApiError> {
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut out = Vec::with_capacity(calls.len());
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
        let signature = call
            .get("extra_content")
            .and_then(|extra| extra.get("google")?.get("thought_signature")?.as_str())
            .filter(|s| !s.is_empty());
        out.push(Call {
            id,
            name,
            input,
            signature,
        });
    }
    Ok(out)
}

/// A `tool` message's `tool_call_id`.
pub(crate) fn tool_call_id(message: &Value, idx: usize) -> Result<&str, ApiError> {
    message
        .get("tool_call_id")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            bad(
                "a tool message needs a `tool_call_id`",
                &format!("messages[{idx}].tool_call_id"),
            )
        })
}

/// The name of the function a `tool` message answers: the call of that id
/// in an earlier assistant message, else the message's own `name`.
pub(crate) fn answered_name<'a>(
    messages: &'a [Value],
    message: &'a Value,
    id: &str,
) -> Option<&'a str> {
    messages
        .iter()
        .filter(|m| role(m) == "assistant")
        .filter_map(|m| m.get("tool_calls").and_then(Value::as_array))
        .flatten()
        .find(|call| call.get("id").and_then(Value::as_str) == Some(id))
        .and_then(|call| call.get("function")?.get("name")?.as_str())
        .or_else(|| message.get("name").and_then(Value::as_str))
}

/// `max_completion_tokens`, else `max_tokens`; `None` when neither is given.
pub(crate) fn max_tokens(chat: &Map<String, Value>) -> Result<Option<Value>, ApiError> {
    let given = ["max_completion_tokens", "max_tokens"]
        .iter()
        .find_map(|key| chat.get(*key).filter(|v| !v.is_null()).map(|v| (key, v)));
    match given {
        None => Ok(None),
        Some((_, n @ Value::Number(_))) => Ok(Some(n.clone())),
        Some((key, _)) => Err(bad(format!("`{key}` must be a number"), key)),
    }
}

/// `stop` as a list of strings; `None` when absent or empty.
pub(crate) fn stop(chat: &Map<String, Value>) -> Result<Option<Value>, ApiError> {
    match chat.get("stop") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(stop)) => Ok(Some(json!([stop]))),
        Some(Value::Array(stops)) if stops.iter().all(Value::is_string) => {
            Ok((!stops.is_empty()).then(|| Value::Array(stops.clone())))
        }
        Some(_) => Err(bad("`stop` must be a string or strings", "stop")),
    }
}

/// A numeric field (`temperature`, `top_p`, `seed`), when it is a number.
pub(crate) fn number<'a>(chat: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    chat.get(key).filter(|v| v.is_number())
}

/// The request's `tool_choice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ToolChoice<'a> {
    /// `auto`: the model decides.
    Auto,
    /// `none`: no call.
    None,
    /// `required`: at least one call.
    Required,
    /// `{"type": "function", "function": {"name"}}`: this function.
    Named(&'a str),
}

/// `tool_choice`, `None` when absent.
pub(crate) fn tool_choice(chat: &Map<String, Value>) -> Result<Option<ToolChoice<'_>>, ApiError> {
    match chat.get("tool_choice") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(c)) if c == "auto" => Ok(Some(ToolChoice::Auto)),
        Some(Value::String(c)) if c == "required" => Ok(Some(ToolChoice::Required)),
        Some(Value::String(c)) if c == "none" => Ok(Some(ToolChoice::None)),
        Some(Value::Object(c)) => c
            .get("function")
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .map(|name| Some(ToolChoice::Named(name)))
            .ok_or_else(|| bad("a named `tool_choice` needs `function.name`", "tool_choice")),
        Some(_) => Err(bad(
            "`tool_choice` must be auto, required, none or a named function",
            "tool_choice",
        )),
    }
}

/// Appends `items` to `turns` as a turn of `role` (`{"role", key: items}`),
/// into the last turn when it has the same role: the wires that want
/// alternating turns get a `tool` message and the user's next words as one.
pub(crate) fn push_turn(turns: &mut Vec<Value>, role: &str, key: &str, items: Vec<Value>) {
    if items.is_empty() {
        return;
    }
    if let Some(last) = turns.last_mut()
        && last["role"] == role
        && let Some(Value::Array(content)) = last.get_mut(key)
    {
        content.extend(items);
        return;
    }
    let mut turn = Map::new();
    turn.insert("role".to_owned(), Value::String(role.to_owned()));
    turn.insert(key.to_owned(), Value::Array(items));
    turns.push(Value::Object(turn));
}
