//! A Chat Completions request as a Gemini `streamGenerateContent` request, for
//! a proxy in front of a Gemini or Vertex AI upstream (`--provider gemini`,
//! `vertex`). The model goes in the URL, not the body. The answer needs no
//! translation here: the router reads Gemini's SSE with its Gemini adapter.
//!
//! The rules, and what has no equivalent, are in docs/proxy.md ("In front of
//! a Gemini upstream").
//!
//! Gemini 3 signs the `functionCall` parts it sends (`thoughtSignature`) and
//! refuses a request whose earlier calls come back unsigned: each model turn's
//! first `functionCall` part is sent with the signature the client gave back
//! (`tool_calls[i].extra_content.google.thought_signature`, as Google's
//! OpenAI-compatible endpoint carries it), else with
//! [`SKIP_SIGNATURE`], the value Google documents for calls whose signature is
//! not at hand.

use serde_json::{Map, Value, json};

use super::chat_body::{
    ToolChoice, UserPart, answered_name, bad, max_tokens, messages, no_role, number, push_turn,
    role, stop, text_of, tool_call_id, tool_calls, tool_choice, user_parts,
};
use super::error::ApiError;
use super::text_tools::function_tools;
use crate::convert::Dialect;

/// The `streamGenerateContent` body for `chat`, a checked Chat Completions
/// body.
pub(crate) fn generate_body(chat: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    let mut body = Map::new();
    let all = messages(chat);
    let mut system = Vec::new();
    let mut contents: Vec<Value> = Vec::new();
    for (idx, message) in all.iter().enumerate() {
        let (turn_role, parts) = match role(message) {
            "system" | "developer" => {
                let text = text_of(message.get("content"), idx)?;
                if !text.is_empty() {
                    system.push(json!({"text": text}));
                }
                continue;
            }
            "user" => ("user", user_parts_of(message, idx)?),
            "assistant" => ("model", model_parts(message, idx)?),
            "tool" => ("user", vec![function_response(all, message, idx)?]),
            other => return Err(no_role(other, "Gemini", idx)),
        };
        push_turn(&mut contents, turn_role, "parts", parts);
    }
    for content in &mut contents {
        sign_first_call(content);
    }
    body.insert("contents".to_owned(), Value::Array(contents));
    if !system.is_empty() {
        body.insert("systemInstruction".to_owned(), json!({"parts": system}));
    }
    let tools = function_tools(chat);
    if !tools.is_empty() {
        let declared = Dialect::Gemini.declare(&tools);
        for note in &declared.notes {
            tracing::debug!(note = %note, "a tool declaration changed for Gemini");
        }
        body.insert("tools".to_owned(), declared.value);
        if let Some(config) = function_calling_config(chat)? {
            body.insert(
                "toolConfig".to_owned(),
                json!({"functionCallingConfig": config}),
            );
        }
    }
    let mut generation = Map::new();
    if let Some(n) = max_tokens(chat)? {
        generation.insert("maxOutputTokens".to_owned(), n);
    }
    for (from, to) in [("temperature", "temperature"), ("top_p", "topP")] {
        if let Some(n) = number(chat, from) {
            generation.insert(to.to_owned(), n.clone());
        }
    }
    if let Some(stops) = stop(chat)? {
        generation.insert("stopSequences".to_owned(), stops);
    }
    if !generation.is_empty() {
        body.insert("generationConfig".to_owned(), Value::Object(generation));
    }
    Ok(body)
}

/// A user message's parts: text, and inline images (`inlineData`). An image
/// by URL is refused: Gemini fetches no URLs it was not given as files.
fn user_parts_of(message: &Value, idx: usize) -> Result<Vec<Value>, ApiError> {
    let parts = user_parts(message.get("content"), "Gemini", idx)?;
    let mut out = Vec::with_capacity(parts.len());
    for (n, part) in parts.into_iter().enumerate() {
        out.push(match part {
            UserPart::Text(text) => json!({"text": text}),
            UserPart::InlineImage { media_type, data } => {
                json!({"inlineData": {"mimeType": media_type, "data": data}})
            }
            UserPart::ImageUrl(_) => {
                return Err(bad(
                    "a Gemini upstream takes images inline only (`data:TYPE;base64,…`)",
                    &format!("messages[{idx}].content[{n}]"),
                ));
            }
        });
    }
    Ok(out)
}

/// The `thoughtSignature` Google documents for a `functionCall` part whose
/// signature is not at hand (a conversation begun with another model, a client
/// that does not give signatures back): Gemini then skips its check.
pub(crate) const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

/// An assistant message's parts: its text, then a `functionCall` per call,
/// with the `thoughtSignature` the client gave back for it, if any.
fn model_parts(message: &Value, idx: usize) -> Result<Vec<Value>, ApiError> {
    let mut parts = Vec::new();
    let text = text_of(message.get("content"), idx)?;
    if !text.is_empty() {
        parts.push(json!({"text": text}));
    }
    for call in tool_calls(message, idx)? {
        let mut part = Map::new();
        part.insert(
            "functionCall".to_owned(),
            json!({"name": call.name, "args": call.input}),
        );
        if let Some(signature) = call.signature {
            part.insert(
                "thoughtSignature".to_owned(),
                Value::String(signature.to_owned()),
            );
        }
        parts.push(Value::Object(part));
    }
    Ok(parts)
}

/// A model content's first `functionCall` part gets [`SKIP_SIGNATURE`] when it
/// has no signature: Gemini 3 refuses the request otherwise. Later calls of the
/// turn need none (Gemini signs only the first of parallel calls).
fn sign_first_call(content: &mut Value) {
    if content.get("role").and_then(Value::as_str) != Some("model") {
        return;
    }
    let Some(Value::Array(parts)) = content.get_mut("parts") else {
        return;
    };
    let first = parts
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .find(|part| part.contains_key("functionCall"));
    if let Some(part) = first
        && !part.contains_key("thoughtSignature")
    {
        part.insert(
            "thoughtSignature".to_owned(),
            Value::String(SKIP_SIGNATURE.to_owned()),
        );
    }
}

/// A `tool` message as a `functionResponse` part. Gemini wants the function's
/// name, not the call's id: it is read from the call of that id.
fn function_response(all: &[Value], message: &Value, idx: usize) -> Result<Value, ApiError> {
    let id = tool_call_id(message, idx)?;
    let name = answered_name(all, message, id).ok_or_else(|| {
        bad(
            format!(
                "no earlier assistant message has a call with id `{}`: a Gemini upstream needs the function's name",
                crate::core::echo(id)
            ),
            &format!("messages[{idx}].tool_call_id"),
        )
    })?;
    let text = text_of(message.get("content"), idx)?;
    Ok(json!({"functionResponse": {"name": name, "response": {"output": text}}}))
}

/// `tool_choice` as `functionCallingConfig`.
fn function_calling_config(chat: &Map<String, Value>) -> Result<Option<Value>, ApiError> {
    Ok(tool_choice(chat)?.map(|choice| match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::Named(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    }))
}

#[cfg(test)]
mod tests;
