//! `MessagesRequest`: a client's Anthropic Messages request, translated into
//! the OpenAI Chat Completions body that goes upstream (the rules are in
//! `docs/proxy.md`, "The Anthropic door").

use serde_json::{Map, Value, json};

use crate::core::{JsonObject, ToolCatalog, ToolShape, echo};
use crate::proxy::error::ApiError;

/// A client's request, checked and translated.
#[derive(Debug)]
pub(crate) struct MessagesRequest {
    /// The client asked for a stream of events.
    pub(crate) stream: bool,
    /// The model the client named.
    pub(crate) model: String,
    /// The request's tools, for the detector.
    pub(crate) catalog: ToolCatalog,
    /// The Chat Completions request it translates into, always streaming;
    /// shaped for the upstream when sent (`UpstreamShape::body`).
    pub(crate) body: Map<String, Value>,
}

type Result<T> = std::result::Result<T, ApiError>;

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::bad_request(message, None)
}

impl MessagesRequest {
    /// Reads and translates a request body into Chat Completions.
    pub(crate) fn read(body: &[u8]) -> Result<Self> {
        let value: Value = serde_json::from_slice(body)
            .map_err(|e| bad(format!("the request body is not valid JSON: {e}")))?;
        let Value::Object(object) = value else {
            return Err(bad("the request body must be a JSON object"));
        };
        let model = match object.get("model") {
            Some(Value::String(model)) => model.clone(),
            _ => return Err(bad("`model` must be a string")),
        };
        let stream = match object.get("stream") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(stream)) => *stream,
            Some(_) => return Err(bad("`stream` must be a boolean")),
        };
        let Some(Value::Array(messages)) = object.get("messages") else {
            return Err(bad("`messages` must be an array of messages"));
        };
        let mut out = Vec::with_capacity(messages.len() + 1);
        if let Some(system) = object.get("system").filter(|v| !v.is_null()) {
            let text = flatten_text(system, "system")?;
            out.push(json!({"role": "system", "content": text}));
        }
        for (idx, message) in messages.iter().enumerate() {
            translate_message(message, idx, &mut out)?;
        }
        let mut body = Map::new();
        body.insert("model".to_owned(), Value::String(model.clone()));
        body.insert("messages".to_owned(), Value::Array(out));
        match object.get("max_tokens") {
            Some(n @ Value::Number(_)) => {
                body.insert("max_tokens".to_owned(), n.clone());
            }
            None | Some(Value::Null) => {}
            Some(_) => return Err(bad("`max_tokens` must be a number")),
        }
        for key in ["temperature", "top_p"] {
            match object.get(key) {
                Some(n @ Value::Number(_)) => {
                    body.insert(key.to_owned(), n.clone());
                }
                None | Some(Value::Null) => {}
                Some(_) => return Err(bad(format!("`{key}` must be a number"))),
            }
        }
        match object.get("stop_sequences") {
            Some(Value::Array(stops)) if !stops.is_empty() => {
                if !stops.iter().all(Value::is_string) {
                    return Err(bad("`stop_sequences` must be an array of strings"));
                }
                body.insert("stop".to_owned(), Value::Array(stops.clone()));
            }
            None | Some(Value::Null) | Some(Value::Array(_)) => {}
            Some(_) => return Err(bad("`stop_sequences` must be an array of strings")),
        }
        let catalog = translate_tools(&object, &mut body)?;
        translate_tool_choice(&object, &mut body)?;
        body.insert("stream".to_owned(), Value::Bool(true));
        body.insert("stream_options".to_owned(), json!({"include_usage": true}));
        Ok(Self {
            stream,
            model,
            catalog,
            body,
        })
    }
}

/// A string, or an array of `text` blocks joined with no separator.
fn flatten_text(value: &Value, what: &str) -> Result<String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Array(blocks) => {
            let mut text = String::new();
            for block in blocks {
                match block_type(block) {
                    "text" => text.push_str(block_text(block)?),
                    other => {
                        return Err(bad(format!(
                            "{what} holds a `{}` block: only text can be forwarded there",
                            echo(other)
                        )));
                    }
                }
            }
            Ok(text)
        }
        _ => Err(bad(format!(
            "{what} must be a string or an array of text blocks"
        ))),
    }
}

fn block_type(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

fn block_text(block: &Value) -> Result<&str> {
    block
        .get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("a `text` block needs a `text` string"))
}

/// One Anthropic message as one or more Chat Completions messages.
fn translate_message(message: &Value, idx: usize, out: &mut Vec<Value>) -> Result<()> {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("");
    let content = message.get("content").unwrap_or(&Value::Null);
    match (role, content) {
        ("user" | "assistant", Value::String(text)) => {
            out.push(json!({"role": role, "content": text}));
            Ok(())
        }
        ("user", Value::Array(blocks)) => user_blocks(blocks, idx, out),
        ("assistant", Value::Array(blocks)) => assistant_blocks(blocks, idx, out),
        ("user" | "assistant", _) => Err(bad(format!(
            "messages[{idx}].content must be a string or an array of content blocks"
        ))),
        _ => Err(bad(format!(
            "messages[{idx}].role must be `user` or `assistant`"
        ))),
    }
}

/// A user turn: each `tool_result` becomes a `role: tool` message (they come
/// first, right after the assistant turn that made the calls), the rest one
/// user message of text and image parts.
fn user_blocks(blocks: &[Value], idx: usize, out: &mut Vec<Value>) -> Result<()> {
    let mut parts = Vec::new();
    for block in blocks {
        match block_type(block) {
            "text" => parts.push(json!({"type": "text", "text": block_text(block)?})),
            "image" => parts.push(image_part(block, idx)?),
            "tool_result" => {
                let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
                    return Err(bad(format!(
                        "a tool_result of messages[{idx}] needs a `tool_use_id` string"
                    )));
                };
                let text = match block.get("content") {
                    None | Some(Value::Null) => String::new(),
                    Some(content) => flatten_text(content, "a tool_result's content")?,
                };
                out.push(json!({"role": "tool", "tool_call_id": id, "content": text}));
            }
            other => return Err(unsupported(other, idx)),
        }
    }
    if parts.is_empty() {
        return Ok(());
    }
    let all_text = parts.iter().all(|p| p["type"] == "text");
    let content = if all_text {
        let text: String = parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        Value::String(text)
    } else {
        Value::Array(parts)
    };
    out.push(json!({"role": "user", "content": content}));
    Ok(())
}

/// An image block as an `image_url` part: a data URL for a base64 source,
/// the URL itself for a `url` source.
fn image_part(block: &Value, idx: usize) -> Result<Value> {
    let source = block.get("source").unwrap_or(&Value::Null);
    let field = |key: &str| source.get(key).and_then(Value::as_str);
    let url = match field("type") {
        Some("base64") => match (field("media_type"), field("data")) {
            (Some(media), Some(data)) => format!("data:{media};base64,{data}"),
            _ => {
                return Err(bad(format!(
                    "an image of messages[{idx}] needs `media_type` and `data`"
                )));
            }
        },
        Some("url") => match field("url") {
            Some(url) => url.to_owned(),
            None => return Err(bad(format!("an image of messages[{idx}] needs a `url`"))),
        },
        _ => {
            return Err(bad(format!(
                "an image of messages[{idx}] has a source the proxy cannot forward (base64 and url only)"
            )));
        }
    };
    Ok(json!({"type": "image_url", "image_url": {"url": url}}))
}

fn unsupported(kind: &str, idx: usize) -> ApiError {
    bad(format!(
        "messages[{idx}] holds a `{}` block, which the proxy cannot forward to an OpenAI-compatible upstream",
        echo(kind)
    ))
}

/// An assistant turn: its text joined, its `tool_use` blocks as `tool_calls`;
/// `thinking` and `redacted_thinking` blocks are dropped.
fn assistant_blocks(blocks: &[Value], idx: usize, out: &mut Vec<Value>) -> Result<()> {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block_type(block) {
            "text" => text.push_str(block_text(block)?),
            "thinking" | "redacted_thinking" => {}
            "tool_use" => {
                let id = block.get("id").and_then(Value::as_str);
                let name = block.get("name").and_then(Value::as_str);
                let (Some(id), Some(name)) = (id, name) else {
                    return Err(bad(format!(
                        "a tool_use of messages[{idx}] needs `id` and `name` strings"
                    )));
                };
                let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
                let arguments = serde_json::to_string(&input).unwrap_or_else(|_| "{}".to_owned());
                calls.push(json!({
                    "id": id, "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }));
            }
            other => return Err(unsupported(other, idx)),
        }
    }
    let mut message = Map::new();
    message.insert("role".to_owned(), json!("assistant"));
    let content = if text.is_empty() && !calls.is_empty() {
        Value::Null
    } else {
        Value::String(text)
    };
    message.insert("content".to_owned(), content);
    if !calls.is_empty() {
        message.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    out.push(Value::Object(message));
    Ok(())
}

/// `tools` as function declarations; the detector's catalog.
fn translate_tools(
    object: &Map<String, Value>,
    body: &mut Map<String, Value>,
) -> Result<ToolCatalog> {
    let mut catalog = ToolCatalog::new();
    let tools = match object.get("tools") {
        None | Some(Value::Null) => return Ok(catalog),
        Some(Value::Array(tools)) => tools,
        Some(_) => return Err(bad("`tools` must be an array")),
    };
    let empty = JsonObject::new();
    let mut functions = Vec::with_capacity(tools.len());
    for (idx, tool) in tools.iter().enumerate() {
        if let Some(kind) = tool.get("type").and_then(Value::as_str)
            && kind != "custom"
        {
            return Err(bad(format!(
                "tools[{idx}] is a `{}` server tool, which an OpenAI-compatible upstream does not run",
                echo(kind)
            )));
        }
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return Err(bad(format!("tools[{idx}] needs a `name` string")));
        };
        let schema = match tool.get("input_schema") {
            Some(Value::Object(schema)) => schema,
            None | Some(Value::Null) => &empty,
            Some(_) => {
                return Err(bad(format!(
                    "the input_schema of `{}` must be an object",
                    echo(name)
                )));
            }
        };
        catalog.insert(name, ToolShape::from_input_schema(schema));
        let mut function = Map::new();
        function.insert("name".to_owned(), json!(name));
        if let Some(description) = tool.get("description").and_then(Value::as_str) {
            function.insert("description".to_owned(), json!(description));
        }
        function.insert("parameters".to_owned(), Value::Object(schema.clone()));
        functions.push(json!({"type": "function", "function": function}));
    }
    if !functions.is_empty() {
        body.insert("tools".to_owned(), Value::Array(functions));
    }
    Ok(catalog)
}

/// `tool_choice`: `auto`, `any`, `tool`, `none` as `auto`, `required`, a
/// named function, `none`; `disable_parallel_tool_use` as
/// `parallel_tool_calls: false`.
fn translate_tool_choice(object: &Map<String, Value>, body: &mut Map<String, Value>) -> Result<()> {
    let Some(choice) = object.get("tool_choice").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let translated = match choice.get("type").and_then(Value::as_str) {
        Some("auto") => json!("auto"),
        Some("any") => json!("required"),
        Some("none") => json!("none"),
        Some("tool") => match choice.get("name").and_then(Value::as_str) {
            Some(name) => json!({"type": "function", "function": {"name": name}}),
            None => return Err(bad("a `tool` tool_choice needs a `name` string")),
        },
        _ => return Err(bad("`tool_choice.type` must be auto, any, tool or none")),
    };
    body.insert("tool_choice".to_owned(), translated);
    if choice.get("disable_parallel_tool_use") == Some(&Value::Bool(true)) {
        body.insert("parallel_tool_calls".to_owned(), Value::Bool(false));
    }
    Ok(())
}
