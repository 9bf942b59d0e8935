//! `MessagesRequest`: a client's Anthropic Messages request, translated into
//! the OpenAI Chat Completions body that goes upstream (the rules are in
//! `docs/proxy.md`, "The Anthropic door"). The body is read where it lies
//! (`raw_json`) and the Chat body written as it is read: no tree of either
//! is built, whatever the body's size or shape.

use std::borrow::Cow;

use crate::core::{ToolCatalog, ToolShape, echo};
use crate::proxy::chat_json::{ChatJson, ChatJsonWriter};
use crate::proxy::error::ApiError;
use crate::proxy::raw_json::{self, Kind, push_escaped, push_str};
use crate::proxy::request::shape_of;

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
    pub(crate) body: ChatJson,
}

type Result<T> = std::result::Result<T, ApiError>;

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::bad_request(message, None)
}

/// A field that is absent or `null`.
fn absent(value: Option<&str>) -> bool {
    value.is_none_or(raw_json::is_null)
}

impl MessagesRequest {
    /// Reads and translates a request body into Chat Completions.
    pub(crate) fn read(body: &[u8]) -> Result<Self> {
        let Some(object) = raw_json::object_text(body)? else {
            return Err(bad("the request body must be a JSON object"));
        };
        let [
            model,
            stream,
            messages,
            system,
            max_tokens,
            temperature,
            top_p,
            stop_sequences,
            tools,
            tool_choice,
        ] = raw_json::pick(
            object,
            [
                "model",
                "stream",
                "messages",
                "system",
                "max_tokens",
                "temperature",
                "top_p",
                "stop_sequences",
                "tools",
                "tool_choice",
            ],
        )?
        .unwrap_or_default();
        let Some(model_name) = model.and_then(raw_json::string) else {
            return Err(bad("`model` must be a string"));
        };
        let stream = match stream {
            None => false,
            Some(s) if raw_json::is_null(s) => false,
            Some(s) => raw_json::boolean(s).ok_or_else(|| bad("`stream` must be a boolean"))?,
        };
        let Some(messages) = messages.filter(|m| raw_json::kind(m) == Kind::Array) else {
            return Err(bad("`messages` must be an array of messages"));
        };
        let mut body = ChatJsonWriter::default();
        body.field("model", |out| {
            push_str(out, &model_name);
            Ok(())
        })?;
        body.field("messages", |out| {
            let mut list = MessageList::new(out);
            if let Some(system) = system.filter(|s| !raw_json::is_null(s)) {
                list.open("system", None);
                flatten_text(list.out, system, "system")?;
                list.close_text();
            }
            raw_json::each(messages, |idx, message| {
                translate_message(&mut list, message, idx)
            })?;
            list.end();
            Ok(())
        })?;
        match max_tokens {
            Some(n) if raw_json::kind(n) == Kind::Number => body.raw("max_tokens", n)?,
            Some(n) if !raw_json::is_null(n) => return Err(bad("`max_tokens` must be a number")),
            _ => {}
        }
        for (key, value) in [("temperature", temperature), ("top_p", top_p)] {
            match value {
                Some(n) if raw_json::kind(n) == Kind::Number => body.raw(key, n)?,
                Some(n) if !raw_json::is_null(n) => {
                    return Err(bad(format!("`{key}` must be a number")));
                }
                _ => {}
            }
        }
        match stop_sequences {
            Some(stops) if raw_json::kind(stops) == Kind::Array => {
                let (mut n, mut strings) = (0, true);
                raw_json::each(stops, |_, stop| {
                    n += 1;
                    strings &= raw_json::kind(stop) == Kind::String;
                    Ok(())
                })?;
                if !strings {
                    return Err(bad("`stop_sequences` must be an array of strings"));
                }
                if n > 0 {
                    body.raw("stop", stops)?;
                }
            }
            Some(stops) if !raw_json::is_null(stops) => {
                return Err(bad("`stop_sequences` must be an array of strings"));
            }
            _ => {}
        }
        let catalog = translate_tools(tools, &mut body)?;
        translate_tool_choice(tool_choice, &mut body)?;
        body.raw("stream", "true")?;
        body.raw("stream_options", r#"{"include_usage":true}"#)?;
        Ok(Self {
            stream,
            model: model_name.into_owned(),
            catalog,
            body: body.finish(),
        })
    }
}

/// The Chat `messages` array, written message by message.
struct MessageList<'o> {
    out: &'o mut String,
    n: usize,
}

impl<'o> MessageList<'o> {
    fn new(out: &'o mut String) -> Self {
        out.push('[');
        Self { out, n: 0 }
    }

    /// Opens a message of `role` (with `tool_call_id`) up to its `content`'s
    /// string, which the caller writes (escaped), then `close_text`.
    fn open(&mut self, role: &str, tool_call_id: Option<&str>) {
        if self.n > 0 {
            self.out.push(',');
        }
        self.n += 1;
        self.out.push_str("{\"role\":");
        push_str(self.out, role);
        if let Some(id) = tool_call_id {
            self.out.push_str(",\"tool_call_id\":");
            push_str(self.out, id);
        }
        self.out.push_str(",\"content\":\"");
    }

    fn close_text(&mut self) {
        self.out.push_str("\"}");
    }

    /// A message of `role` whose content is `text`.
    fn text(&mut self, role: &str, text: &str) {
        self.open(role, None);
        push_escaped(self.out, text);
        self.close_text();
    }

    fn end(self) {
        self.out.push(']');
    }
}

/// Writes a string, or the `text` blocks of an array joined with no
/// separator, escaped (inside a JSON string).
fn flatten_text(out: &mut String, value: &str, what: &str) -> Result<()> {
    if let Some(text) = raw_json::string(value) {
        push_escaped(out, &text);
        return Ok(());
    }
    let array = raw_json::each(value, |_, block| {
        let [kind, text] = raw_json::pick(block, ["type", "text"])?.unwrap_or_default();
        match block_type(kind).as_ref() {
            "text" => {
                push_escaped(out, &block_text(text)?);
                Ok(())
            }
            other => Err(bad(format!(
                "{what} holds a `{}` block: only text can be forwarded there",
                echo(other)
            ))),
        }
    })?;
    if array {
        Ok(())
    } else {
        Err(bad(format!(
            "{what} must be a string or an array of text blocks"
        )))
    }
}

/// A block's `type` (empty when it has none).
fn block_type(kind: Option<&str>) -> Cow<'_, str> {
    kind.and_then(raw_json::string).unwrap_or_default()
}

fn block_text(text: Option<&str>) -> Result<Cow<'_, str>> {
    text.and_then(raw_json::string)
        .ok_or_else(|| bad("a `text` block needs a `text` string"))
}

/// One Anthropic message as one or more Chat Completions messages.
fn translate_message(list: &mut MessageList<'_>, message: &str, idx: usize) -> Result<()> {
    let [role, content] = raw_json::pick(message, ["role", "content"])?.unwrap_or_default();
    let role = role.and_then(raw_json::string).unwrap_or_default();
    let content = content.unwrap_or("null");
    match (role.as_ref(), raw_json::kind(content)) {
        ("user" | "assistant", Kind::String) => {
            let text = raw_json::string(content).unwrap_or_default();
            list.text(&role, &text);
            Ok(())
        }
        ("user", Kind::Array) => user_blocks(list, content, idx),
        ("assistant", Kind::Array) => assistant_blocks(list, content, idx),
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
/// user message of text and image parts (its text joined by line breaks
/// when it is all text). Every block is checked in the first pass, in order;
/// the second writes the user message.
fn user_blocks(list: &mut MessageList<'_>, blocks: &str, idx: usize) -> Result<()> {
    let (mut parts, mut all_text) = (0, true);
    raw_json::each(blocks, |_, block| {
        let [kind, text, id, content, source] =
            raw_json::pick(block, ["type", "text", "tool_use_id", "content", "source"])?
                .unwrap_or_default();
        match block_type(kind).as_ref() {
            "text" => {
                block_text(text)?;
                parts += 1;
            }
            "image" => {
                image_url(None, source, idx)?;
                parts += 1;
                all_text = false;
            }
            "tool_result" => {
                let Some(id) = id.and_then(raw_json::string) else {
                    return Err(bad(format!(
                        "a tool_result of messages[{idx}] needs a `tool_use_id` string"
                    )));
                };
                list.open("tool", Some(&id));
                if !absent(content) {
                    let content = content.unwrap_or("null");
                    flatten_text(list.out, content, "a tool_result's content")?;
                }
                list.close_text();
            }
            other => return Err(unsupported(other, idx)),
        }
        Ok(())
    })?;
    if parts == 0 {
        return Ok(());
    }
    if all_text {
        list.open("user", None);
        let mut first = true;
        raw_json::each(blocks, |_, block| {
            let [kind, text] = raw_json::pick(block, ["type", "text"])?.unwrap_or_default();
            if block_type(kind) == "text" {
                if !first {
                    list.out.push_str("\\n");
                }
                first = false;
                push_escaped(list.out, &block_text(text)?);
            }
            Ok(())
        })?;
        list.close_text();
        return Ok(());
    }
    if list.n > 0 {
        list.out.push(',');
    }
    list.n += 1;
    list.out.push_str("{\"role\":\"user\",\"content\":[");
    let mut first = true;
    raw_json::each(blocks, |_, block| {
        let [kind, text, source] =
            raw_json::pick(block, ["type", "text", "source"])?.unwrap_or_default();
        let kind = block_type(kind);
        if kind != "text" && kind != "image" {
            return Ok(());
        }
        if !first {
            list.out.push(',');
        }
        first = false;
        if kind == "text" {
            list.out.push_str("{\"type\":\"text\",\"text\":");
            push_str(list.out, &block_text(text)?);
            list.out.push('}');
        } else {
            list.out
                .push_str("{\"type\":\"image_url\",\"image_url\":{\"url\":\"");
            image_url(Some(&mut *list.out), source, idx)?;
            list.out.push_str("\"}}");
        }
        Ok(())
    })?;
    list.out.push_str("]}");
    Ok(())
}

/// An image block's URL, checked, and written escaped to `out` when given:
/// a data URL for a base64 source, the URL itself for a `url` source.
fn image_url<'a>(out: Option<&mut String>, source: Option<&'a str>, idx: usize) -> Result<()> {
    let [kind, media_type, data, url] = raw_json::pick(
        source.unwrap_or("null"),
        ["type", "media_type", "data", "url"],
    )?
    .unwrap_or_default();
    let field = |value: Option<&'a str>| value.and_then(raw_json::string);
    match field(kind).as_deref() {
        Some("base64") => match (field(media_type), field(data)) {
            (Some(media), Some(data)) => {
                if let Some(out) = out {
                    out.push_str("data:");
                    push_escaped(out, &media);
                    out.push_str(";base64,");
                    push_escaped(out, &data);
                }
                Ok(())
            }
            _ => Err(bad(format!(
                "an image of messages[{idx}] needs `media_type` and `data`"
            ))),
        },
        Some("url") => match field(url) {
            Some(url) => {
                if let Some(out) = out {
                    push_escaped(out, &url);
                }
                Ok(())
            }
            None => Err(bad(format!("an image of messages[{idx}] needs a `url`"))),
        },
        _ => Err(bad(format!(
            "an image of messages[{idx}] has a source the proxy cannot forward (base64 and url only)"
        ))),
    }
}

fn unsupported(kind: &str, idx: usize) -> ApiError {
    bad(format!(
        "messages[{idx}] holds a `{}` block, which the proxy cannot forward to an OpenAI-compatible upstream",
        echo(kind)
    ))
}

/// An assistant turn: its text joined, its `tool_use` blocks as `tool_calls`
/// (each `input` as the `arguments` string, its JSON text without
/// whitespace); `thinking` and `redacted_thinking` blocks are dropped.
fn assistant_blocks(list: &mut MessageList<'_>, blocks: &str, idx: usize) -> Result<()> {
    let (mut has_text, mut calls) = (false, 0);
    raw_json::each(blocks, |_, block| {
        let [kind, text, id, name] =
            raw_json::pick(block, ["type", "text", "id", "name"])?.unwrap_or_default();
        match block_type(kind).as_ref() {
            "text" => has_text |= !block_text(text)?.is_empty(),
            "thinking" | "redacted_thinking" => {}
            "tool_use" => {
                if id.and_then(raw_json::string).is_none()
                    || name.and_then(raw_json::string).is_none()
                {
                    return Err(bad(format!(
                        "a tool_use of messages[{idx}] needs `id` and `name` strings"
                    )));
                }
                calls += 1;
            }
            other => return Err(unsupported(other, idx)),
        }
        Ok(())
    })?;
    if list.n > 0 {
        list.out.push(',');
    }
    list.n += 1;
    list.out.push_str("{\"role\":\"assistant\",\"content\":");
    if !has_text && calls > 0 {
        list.out.push_str("null");
    } else {
        list.out.push('"');
        raw_json::each(blocks, |_, block| {
            let [kind, text] = raw_json::pick(block, ["type", "text"])?.unwrap_or_default();
            if block_type(kind) == "text" {
                push_escaped(list.out, &block_text(text)?);
            }
            Ok(())
        })?;
        list.out.push('"');
    }
    if calls > 0 {
        list.out.push_str(",\"tool_calls\":[");
        let mut first = true;
        raw_json::each(blocks, |_, block| {
            let [kind, id, name, input] =
                raw_json::pick(block, ["type", "id", "name", "input"])?.unwrap_or_default();
            if block_type(kind) != "tool_use" {
                return Ok(());
            }
            if !first {
                list.out.push(',');
            }
            first = false;
            list.out.push_str("{\"id\":");
            push_str(list.out, &id.and_then(raw_json::string).unwrap_or_default());
            list.out
                .push_str(",\"type\":\"function\",\"function\":{\"name\":");
            push_str(
                list.out,
                &name.and_then(raw_json::string).unwrap_or_default(),
            );
            list.out.push_str(",\"arguments\":");
            push_str(list.out, &raw_json::minified(input.unwrap_or("{}")));
            list.out.push_str("}}");
            Ok(())
        })?;
        list.out.push(']');
    }
    list.out.push('}');
    Ok(())
}

/// `tools` as function declarations (their schemas as the client wrote
/// them); the detector's catalog.
fn translate_tools(tools: Option<&str>, body: &mut ChatJsonWriter) -> Result<ToolCatalog> {
    let mut catalog = ToolCatalog::new();
    let tools = match tools {
        Some(t) if raw_json::kind(t) == Kind::Array => t,
        Some(t) if !raw_json::is_null(t) => return Err(bad("`tools` must be an array")),
        _ => return Ok(catalog),
    };
    let mut any = false;
    raw_json::each(tools, |_, _| {
        any = true;
        Ok(())
    })?;
    if !any {
        return Ok(catalog);
    }
    body.field("tools", |out| {
        out.push('[');
        raw_json::each(tools, |idx, tool| {
            let [kind, name, schema, description] =
                raw_json::pick(tool, ["type", "name", "input_schema", "description"])?
                    .unwrap_or_default();
            if let Some(kind) = kind.and_then(raw_json::string)
                && kind != "custom"
            {
                return Err(bad(format!(
                    "tools[{idx}] is a `{}` server tool, which an OpenAI-compatible upstream does not run",
                    echo(&kind)
                )));
            }
            let Some(name) = name.and_then(raw_json::string) else {
                return Err(bad(format!("tools[{idx}] needs a `name` string")));
            };
            let (schema, shape) = match schema {
                Some(s) if raw_json::kind(s) == Kind::Object => (s, shape_of(s)?),
                Some(s) if !raw_json::is_null(s) => {
                    return Err(bad(format!(
                        "the input_schema of `{}` must be an object",
                        echo(&name)
                    )));
                }
                _ => ("{}", ToolShape::default()),
            };
            catalog.insert(&name, shape);
            if idx > 0 {
                out.push(',');
            }
            out.push_str("{\"type\":\"function\",\"function\":{\"name\":");
            push_str(out, &name);
            if let Some(description) = description.and_then(raw_json::string) {
                out.push_str(",\"description\":");
                push_str(out, &description);
            }
            out.push_str(",\"parameters\":");
            out.push_str(schema);
            out.push_str("}}");
            Ok(())
        })?;
        out.push(']');
        Ok(())
    })?;
    Ok(catalog)
}

/// `tool_choice`: `auto`, `any`, `tool`, `none` as `auto`, `required`, a
/// named function, `none`; `disable_parallel_tool_use` as
/// `parallel_tool_calls: false`.
fn translate_tool_choice(choice: Option<&str>, body: &mut ChatJsonWriter) -> Result<()> {
    let Some(choice) = choice.filter(|c| !raw_json::is_null(c)) else {
        return Ok(());
    };
    let [kind, name, disable] =
        raw_json::pick(choice, ["type", "name", "disable_parallel_tool_use"])?.unwrap_or_default();
    let translated = match kind.and_then(raw_json::string).as_deref() {
        Some("auto") => "\"auto\"".to_owned(),
        Some("any") => "\"required\"".to_owned(),
        Some("none") => "\"none\"".to_owned(),
        Some("tool") => match name.and_then(raw_json::string) {
            Some(name) => {
                let mut out = String::from("{\"type\":\"function\",\"function\":{\"name\":");
                push_str(&mut out, &name);
                out.push_str("}}");
                out
            }
            None => return Err(bad("a `tool` tool_choice needs a `name` string")),
        },
        _ => return Err(bad("`tool_choice.type` must be auto, any, tool or none")),
    };
    body.raw("tool_choice", &translated)?;
    if disable.and_then(raw_json::boolean) == Some(true) {
        body.raw("parallel_tool_calls", "false")?;
    }
    Ok(())
}
