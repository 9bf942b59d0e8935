//! `ResponsesRequest`: a client's OpenAI Responses request, translated into
//! the Chat Completions body that goes upstream (the rules are in
//! `docs/proxy.md`, "The Responses door"). The proxy keeps no state: every
//! turn of the conversation comes in `input`.

use serde_json::{Map, Value, json};

use super::ItemStore;
use crate::core::{JsonObject, ToolCatalog, ToolShape, echo};
use crate::proxy::error::ApiError;

/// A client's request, checked and translated.
#[derive(Debug)]
pub(crate) struct ResponsesRequest {
    /// The client asked for a stream of events.
    pub(crate) stream: bool,
    /// The model the client named.
    pub(crate) model: String,
    /// The request's function tools, for the detector.
    pub(crate) catalog: ToolCatalog,
    /// The Chat Completions request it translates into, always streaming.
    pub(crate) body: Map<String, Value>,
    /// The request's settings a `response` object repeats (`tools`,
    /// `tool_choice`, `instructions`, `metadata`, …).
    pub(crate) echo: Map<String, Value>,
}

type Result<T> = std::result::Result<T, ApiError>;

fn bad(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::bad_request(message, Some(param))
}

/// Fields with no equivalent that change what the client would get: refused.
const REFUSED: [(&str, &str); 4] = [
    (
        "previous_response_id",
        "the proxy keeps no responses: send the whole conversation in `input` instead of `previous_response_id`",
    ),
    (
        "conversation",
        "the proxy keeps no conversations: send the whole conversation in `input`",
    ),
    (
        "prompt",
        "the proxy has no stored prompts: send the prompt in `instructions` and `input`",
    ),
    (
        "background",
        "the proxy runs no background responses: leave `background` unset or false",
    ),
];

impl ResponsesRequest {
    /// Reads and translates a request body into Chat Completions;
    /// `item_reference`s are looked up in `items`.
    pub(crate) fn read(body: &[u8], items: &ItemStore) -> Result<Self> {
        let value: Value = serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("the request body is not valid JSON: {e}"), None)
        })?;
        let Value::Object(object) = value else {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
                None,
            ));
        };
        for (key, why) in REFUSED {
            match object.get(key) {
                None | Some(Value::Null) | Some(Value::Bool(false)) => {}
                Some(_) => return Err(bad(why, key)),
            }
        }
        let model = match object.get("model") {
            Some(Value::String(model)) => model.clone(),
            _ => return Err(bad("`model` must be a string", "model")),
        };
        let stream = match object.get("stream") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(stream)) => *stream,
            Some(_) => return Err(bad("`stream` must be a boolean", "stream")),
        };
        let mut messages = Vec::new();
        match object.get("instructions") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => messages.push(json!({"role": "system", "content": text})),
            Some(_) => return Err(bad("`instructions` must be a string", "instructions")),
        }
        match object.get("input") {
            Some(Value::String(text)) => messages.push(json!({"role": "user", "content": text})),
            Some(Value::Array(list)) => {
                for (idx, item) in list.iter().enumerate() {
                    // `type` may be left out of a reference: a lone `id`.
                    let kind = item_type(item);
                    if kind == "item_reference" || (kind.is_empty() && item.get("id").is_some()) {
                        let id = str_field(item, "id", idx)?;
                        let Some(found) = items.get(id) else {
                            return Err(bad(
                                format!(
                                    "input[{idx}] refers to item `{}`, which this proxy did not write or no longer holds (it keeps its answers' items for {} minutes, {} MiB at most): send the item itself",
                                    echo(id),
                                    super::items::DEFAULT_TTL.as_secs() / 60,
                                    super::items::DEFAULT_MAX_BYTES >> 20
                                ),
                                &format!("input[{idx}].id"),
                            ));
                        };
                        translate_item(&found, idx, &mut messages)?;
                    } else {
                        translate_item(item, idx, &mut messages)?;
                    }
                }
            }
            _ => {
                return Err(bad(
                    "`input` must be a string or an array of input items",
                    "input",
                ));
            }
        }
        let mut body = Map::new();
        body.insert("model".to_owned(), Value::String(model.clone()));
        body.insert("messages".to_owned(), Value::Array(messages));
        for (from, to) in [
            ("max_output_tokens", "max_tokens"),
            ("temperature", "temperature"),
            ("top_p", "top_p"),
        ] {
            match object.get(from) {
                Some(n @ Value::Number(_)) => {
                    body.insert(to.to_owned(), n.clone());
                }
                None | Some(Value::Null) => {}
                Some(_) => return Err(bad(format!("`{from}` must be a number"), from)),
            }
        }
        match object.get("parallel_tool_calls") {
            Some(b @ Value::Bool(_)) => {
                body.insert("parallel_tool_calls".to_owned(), b.clone());
            }
            None | Some(Value::Null) => {}
            Some(_) => {
                return Err(bad(
                    "`parallel_tool_calls` must be a boolean",
                    "parallel_tool_calls",
                ));
            }
        }
        let catalog = translate_tools(&object, &mut body)?;
        translate_tool_choice(&object, &mut body)?;
        translate_reasoning(&object, &mut body)?;
        translate_text(&object, &mut body)?;
        body.insert("stream".to_owned(), Value::Bool(true));
        body.insert("stream_options".to_owned(), json!({"include_usage": true}));
        let echo = echo_of(&object);
        Ok(Self {
            stream,
            model,
            catalog,
            body,
            echo,
        })
    }
}

/// What a `response` object repeats of the request, with its defaults.
fn echo_of(object: &Map<String, Value>) -> Map<String, Value> {
    let mut echo = Map::new();
    let get = |key: &str, default: Value| match object.get(key) {
        None | Some(Value::Null) => default,
        Some(value) => value.clone(),
    };
    echo.insert("instructions".to_owned(), get("instructions", Value::Null));
    echo.insert(
        "max_output_tokens".to_owned(),
        get("max_output_tokens", Value::Null),
    );
    echo.insert("metadata".to_owned(), get("metadata", json!({})));
    echo.insert(
        "parallel_tool_calls".to_owned(),
        get("parallel_tool_calls", json!(true)),
    );
    echo.insert("previous_response_id".to_owned(), Value::Null);
    echo.insert("reasoning".to_owned(), get("reasoning", Value::Null));
    echo.insert("store".to_owned(), json!(false));
    echo.insert("temperature".to_owned(), get("temperature", Value::Null));
    echo.insert(
        "text".to_owned(),
        get("text", json!({"format": {"type": "text"}})),
    );
    echo.insert("tool_choice".to_owned(), get("tool_choice", json!("auto")));
    echo.insert("tools".to_owned(), get("tools", json!([])));
    echo.insert("top_p".to_owned(), get("top_p", Value::Null));
    echo.insert("truncation".to_owned(), json!("disabled"));
    echo
}

fn item_type(item: &Value) -> &str {
    match item.get("type").and_then(Value::as_str) {
        Some(kind) => kind,
        // An "easy" input message: `{"role", "content"}` with no type.
        None if item.get("role").is_some() => "message",
        None => "",
    }
}

fn str_field<'a>(item: &'a Value, key: &str, idx: usize) -> Result<&'a str> {
    item.get(key).and_then(Value::as_str).ok_or_else(|| {
        bad(
            format!("input[{idx}] needs a `{key}` string"),
            &format!("input[{idx}].{key}"),
        )
    })
}

/// One input item as Chat Completions messages: a message as a message, a
/// `function_call` as a `tool_calls` entry of the assistant message before it
/// (or a new one), a `function_call_output` as a `tool` message; `reasoning`
/// items are dropped.
fn translate_item(item: &Value, idx: usize, out: &mut Vec<Value>) -> Result<()> {
    match item_type(item) {
        "message" => {
            let role = item.get("role").and_then(Value::as_str).unwrap_or("");
            let content = item.get("content").unwrap_or(&Value::Null);
            let message = match role {
                "user" => json!({"role": "user", "content": input_content(content, idx)?}),
                // Not every OpenAI-compatible server takes `developer`.
                "system" | "developer" => {
                    json!({"role": "system", "content": input_content(content, idx)?})
                }
                "assistant" => {
                    json!({"role": "assistant", "content": output_text(content, idx)?})
                }
                _ => {
                    return Err(bad(
                        "a message's `role` must be user, assistant, system or developer",
                        &format!("input[{idx}].role"),
                    ));
                }
            };
            out.push(message);
        }
        "function_call" => {
            let call_id = str_field(item, "call_id", idx)?;
            let name = str_field(item, "name", idx)?;
            let arguments = str_field(item, "arguments", idx)?;
            let call = json!({"id": call_id, "type": "function",
                "function": {"name": name, "arguments": arguments}});
            match out.last_mut() {
                Some(Value::Object(last)) if last.get("role") == Some(&json!("assistant")) => {
                    match last.get_mut("tool_calls") {
                        Some(Value::Array(calls)) => calls.push(call),
                        _ => {
                            last.insert("tool_calls".to_owned(), json!([call]));
                        }
                    }
                }
                _ => out.push(json!({"role": "assistant", "content": null, "tool_calls": [call]})),
            }
        }
        "function_call_output" => {
            let call_id = str_field(item, "call_id", idx)?;
            let output = match item.get("output") {
                Some(Value::String(text)) => text.clone(),
                Some(Value::Array(parts)) => parts_text(parts, idx, false)?,
                _ => {
                    return Err(bad(
                        "a function_call_output's `output` must be a string or text parts",
                        &format!("input[{idx}].output"),
                    ));
                }
            };
            out.push(json!({"role": "tool", "tool_call_id": call_id, "content": output}));
        }
        "reasoning" => {}
        other => {
            return Err(bad(
                format!(
                    "input[{idx}] is a `{}` item, which the proxy cannot forward (message, function_call, function_call_output, reasoning and item_reference items only)",
                    echo(other)
                ),
                &format!("input[{idx}].type"),
            ));
        }
    }
    Ok(())
}

/// The text of `input_text`/`output_text` parts, joined (`\n` between the
/// parts of an input); `refusal` parts count as text in an assistant's.
fn parts_text(parts: &[Value], idx: usize, assistant: bool) -> Result<String> {
    let mut texts = Vec::with_capacity(parts.len());
    for part in parts {
        let kind = part.get("type").and_then(Value::as_str).unwrap_or("");
        let key = match kind {
            "input_text" | "output_text" | "text" => "text",
            "refusal" if assistant => "refusal",
            other => {
                return Err(bad(
                    format!(
                        "input[{idx}] holds a `{}` part where only text can be forwarded",
                        echo(other)
                    ),
                    &format!("input[{idx}].content"),
                ));
            }
        };
        texts.push(part.get(key).and_then(Value::as_str).ok_or_else(|| {
            bad(
                format!("a `{kind}` part of input[{idx}] needs a `{key}` string"),
                &format!("input[{idx}].content"),
            )
        })?);
    }
    Ok(texts.join(if assistant { "" } else { "\n" }))
}

/// An assistant message's content: its text.
fn output_text(content: &Value, idx: usize) -> Result<String> {
    match content {
        Value::String(text) => Ok(text.clone()),
        Value::Array(parts) => parts_text(parts, idx, true),
        _ => Err(content_error(idx)),
    }
}

fn content_error(idx: usize) -> ApiError {
    bad(
        "a message's `content` must be a string or an array of content parts",
        &format!("input[{idx}].content"),
    )
}

/// A user, system or developer message's content: its text, or Chat content
/// parts when it holds images.
fn input_content(content: &Value, idx: usize) -> Result<Value> {
    let parts = match content {
        Value::String(text) => return Ok(Value::String(text.clone())),
        Value::Array(parts) => parts,
        _ => return Err(content_error(idx)),
    };
    let has_image = parts
        .iter()
        .any(|p| p.get("type").and_then(Value::as_str) == Some("input_image"));
    if !has_image {
        return Ok(Value::String(parts_text(parts, idx, false)?));
    }
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        if part.get("type").and_then(Value::as_str) == Some("input_image") {
            let Some(url) = part.get("image_url").and_then(Value::as_str) else {
                return Err(bad(
                    "an input_image needs an `image_url` (a file_id cannot be forwarded)",
                    &format!("input[{idx}].content"),
                ));
            };
            let mut image = json!({"url": url});
            if let Some(detail) = part.get("detail").and_then(Value::as_str) {
                image["detail"] = json!(detail);
            }
            out.push(json!({"type": "image_url", "image_url": image}));
        } else {
            let text = parts_text(std::slice::from_ref(part), idx, false)?;
            out.push(json!({"type": "text", "text": text}));
        }
    }
    Ok(Value::Array(out))
}

/// `tools` (`{"type": "function", "name", "description", "parameters",
/// "strict"}`) as Chat function tools; the detector's catalog. Hosted tools
/// (`web_search`, `file_search`, …) have no equivalent: `400`.
fn translate_tools(
    object: &Map<String, Value>,
    body: &mut Map<String, Value>,
) -> Result<ToolCatalog> {
    let mut catalog = ToolCatalog::new();
    let tools = match object.get("tools") {
        None | Some(Value::Null) => return Ok(catalog),
        Some(Value::Array(tools)) => tools,
        Some(_) => return Err(bad("`tools` must be an array", "tools")),
    };
    let empty = JsonObject::new();
    let mut functions = Vec::with_capacity(tools.len());
    for (idx, tool) in tools.iter().enumerate() {
        let kind = tool.get("type").and_then(Value::as_str).unwrap_or("");
        if kind != "function" {
            return Err(bad(
                format!(
                    "tools[{idx}] is a `{}` tool, which the proxy cannot run or forward: only function tools have an equivalent",
                    echo(kind)
                ),
                &format!("tools[{idx}].type"),
            ));
        }
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return Err(bad(
                format!("tools[{idx}] needs a `name` string"),
                &format!("tools[{idx}].name"),
            ));
        };
        let schema = match tool.get("parameters") {
            Some(Value::Object(schema)) => schema,
            None | Some(Value::Null) => &empty,
            Some(_) => {
                return Err(bad(
                    format!("the parameters of `{}` must be an object", echo(name)),
                    &format!("tools[{idx}].parameters"),
                ));
            }
        };
        catalog.insert(name, ToolShape::from_input_schema(schema));
        let mut function = Map::new();
        function.insert("name".to_owned(), json!(name));
        if let Some(description) = tool.get("description").and_then(Value::as_str) {
            function.insert("description".to_owned(), json!(description));
        }
        function.insert("parameters".to_owned(), Value::Object(schema.clone()));
        if let Some(strict @ Value::Bool(_)) = tool.get("strict") {
            function.insert("strict".to_owned(), strict.clone());
        }
        functions.push(json!({"type": "function", "function": function}));
    }
    if !functions.is_empty() {
        body.insert("tools".to_owned(), Value::Array(functions));
    }
    Ok(catalog)
}

/// `tool_choice`: `auto`, `none`, `required` as they are; `{"type":
/// "function", "name"}` as a named Chat function.
fn translate_tool_choice(object: &Map<String, Value>, body: &mut Map<String, Value>) -> Result<()> {
    let translated = match object.get("tool_choice") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::String(mode)) if matches!(mode.as_str(), "auto" | "none" | "required") => {
            json!(mode)
        }
        Some(choice @ Value::Object(_))
            if choice.get("type").and_then(Value::as_str) == Some("function") =>
        {
            match choice.get("name").and_then(Value::as_str) {
                Some(name) => json!({"type": "function", "function": {"name": name}}),
                None => {
                    return Err(bad(
                        "a function tool_choice needs a `name` string",
                        "tool_choice.name",
                    ));
                }
            }
        }
        Some(_) => {
            return Err(bad(
                "`tool_choice` must be auto, none, required or {\"type\": \"function\", \"name\"}",
                "tool_choice",
            ));
        }
    };
    body.insert("tool_choice".to_owned(), translated);
    Ok(())
}

/// `reasoning.effort` as `reasoning_effort`; `reasoning.summary` has no
/// equivalent (the reasoning the upstream gives is the summary).
fn translate_reasoning(object: &Map<String, Value>, body: &mut Map<String, Value>) -> Result<()> {
    match object.get("reasoning") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Object(reasoning)) => {
            match reasoning.get("effort") {
                Some(effort @ Value::String(_)) => {
                    body.insert("reasoning_effort".to_owned(), effort.clone());
                }
                None | Some(Value::Null) => {}
                Some(_) => {
                    return Err(bad(
                        "`reasoning.effort` must be a string",
                        "reasoning.effort",
                    ));
                }
            }
            Ok(())
        }
        Some(_) => Err(bad("`reasoning` must be an object", "reasoning")),
    }
}

/// `text.format` as `response_format`: `json_object` as it is, `json_schema`
/// with its `name`, `schema`, `description` and `strict` moved into
/// `json_schema`; `text` is the default. `text.verbosity` is dropped.
fn translate_text(object: &Map<String, Value>, body: &mut Map<String, Value>) -> Result<()> {
    let format = match object.get("text") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Object(text)) => match text.get("format") {
            None | Some(Value::Null) => return Ok(()),
            Some(format) => format,
        },
        Some(_) => return Err(bad("`text` must be an object", "text")),
    };
    let translated = match format.get("type").and_then(Value::as_str) {
        Some("text") => return Ok(()),
        Some("json_object") => json!({"type": "json_object"}),
        Some("json_schema") => {
            let mut schema = Map::new();
            for key in ["name", "schema", "description", "strict"] {
                if let Some(value) = format.get(key).filter(|v| !v.is_null()) {
                    schema.insert(key.to_owned(), value.clone());
                }
            }
            json!({"type": "json_schema", "json_schema": schema})
        }
        _ => {
            return Err(bad(
                "`text.format.type` must be text, json_object or json_schema",
                "text.format",
            ));
        }
    };
    body.insert("response_format".to_owned(), translated);
    Ok(())
}
