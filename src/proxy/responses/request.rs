//! `ResponsesRequest`: a client's OpenAI Responses request, translated into
//! the Chat Completions body that goes upstream (the rules are in
//! `docs/proxy.md`, "The Responses door"). The proxy keeps no state: every
//! turn of the conversation comes in `input`. The body is read where it lies
//! (`raw_json`) and the Chat body written as it is read, one message at a
//! time: no tree of either is built.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::items::OutputItem;
use super::{Echo, ItemStore};
use crate::core::{ToolCatalog, ToolShape, echo};
use crate::proxy::chat_json::{ChatJson, ChatJsonWriter};
use crate::proxy::error::ApiError;
use crate::proxy::raw_json::{self, Kind, push_str};
use crate::proxy::request::shape_of;

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
    pub(crate) body: ChatJson,
    /// The request's settings a `response` object repeats (`tools`,
    /// `tool_choice`, `instructions`, `metadata`, …).
    pub(crate) echo: Echo,
}

type Result<T> = std::result::Result<T, ApiError>;

fn bad(message: impl Into<String>, param: &str) -> ApiError {
    ApiError::bad_request(message, Some(param))
}

/// A field that is absent or `null`.
fn absent(value: Option<&str>) -> bool {
    value.is_none_or(raw_json::is_null)
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

/// The fields the door reads.
const KEYS: [&str; 17] = [
    "previous_response_id",
    "conversation",
    "prompt",
    "background",
    "model",
    "stream",
    "instructions",
    "input",
    "max_output_tokens",
    "temperature",
    "top_p",
    "parallel_tool_calls",
    "tools",
    "tool_choice",
    "reasoning",
    "text",
    "metadata",
];

impl ResponsesRequest {
    /// Reads and translates a request body into Chat Completions;
    /// `item_reference`s are looked up in `items`.
    pub(crate) fn read(body: &[u8], items: &ItemStore) -> Result<Self> {
        let Some(object) = raw_json::object_text(body)? else {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
                None,
            ));
        };
        let fields = raw_json::pick(object, KEYS)?.unwrap_or_default();
        let field = |key: &str| {
            KEYS.iter()
                .position(|k| *k == key)
                .and_then(|at| fields[at])
        };
        for (key, why) in REFUSED {
            match field(key) {
                None | Some("null" | "false") => {}
                Some(_) => return Err(bad(why, key)),
            }
        }
        let Some(model) = field("model").and_then(raw_json::string) else {
            return Err(bad("`model` must be a string", "model"));
        };
        let stream = match field("stream") {
            s if absent(s) => false,
            Some(s) => {
                raw_json::boolean(s).ok_or_else(|| bad("`stream` must be a boolean", "stream"))?
            }
            None => false,
        };
        let mut body = ChatJsonWriter::default();
        body.field("model", |out| {
            push_str(out, &model);
            Ok(())
        })?;
        body.field("messages", |out| {
            let mut list = MessageList::new(out);
            match field("instructions") {
                i if absent(i) => {}
                Some(i) => match raw_json::string(i) {
                    Some(text) => list.push(Message::text("system", text)),
                    None => return Err(bad("`instructions` must be a string", "instructions")),
                },
                None => {}
            }
            let input = field("input").unwrap_or("null");
            if let Some(text) = raw_json::string(input) {
                list.push(Message::text("user", text));
            } else if raw_json::kind(input) == Kind::Array {
                raw_json::each(input, |idx, item| input_item(&mut list, item, idx, items))?;
            } else {
                return Err(bad(
                    "`input` must be a string or an array of input items",
                    "input",
                ));
            }
            list.end();
            Ok(())
        })?;
        for (from, to) in [
            ("max_output_tokens", "max_tokens"),
            ("temperature", "temperature"),
            ("top_p", "top_p"),
        ] {
            match field(from) {
                Some(n) if raw_json::kind(n) == Kind::Number => body.raw(to, n)?,
                n if absent(n) => {}
                Some(_) => return Err(bad(format!("`{from}` must be a number"), from)),
                None => {}
            }
        }
        match field("parallel_tool_calls") {
            Some(b) if raw_json::kind(b) == Kind::Bool => body.raw("parallel_tool_calls", b)?,
            b if absent(b) => {}
            Some(_) => {
                return Err(bad(
                    "`parallel_tool_calls` must be a boolean",
                    "parallel_tool_calls",
                ));
            }
            None => {}
        }
        let catalog = translate_tools(field("tools"), &mut body)?;
        translate_tool_choice(field("tool_choice"), &mut body)?;
        translate_reasoning(field("reasoning"), &mut body)?;
        translate_text(field("text"), &mut body)?;
        body.raw("stream", "true")?;
        body.raw("stream_options", r#"{"include_usage":true}"#)?;
        let echo = echo_of(&field)?;
        Ok(Self {
            stream,
            model: model.into_owned(),
            catalog,
            body: body.finish(),
            echo,
        })
    }
}

/// What a `response` object repeats of the request, with its defaults, each
/// as its JSON text without whitespace (it goes into SSE `data:` lines).
fn echo_of<'a>(field: &dyn Fn(&str) -> Option<&'a str>) -> Result<Echo> {
    let mut echo = Echo::default();
    let mut put = |key: &'static str, given: Option<&str>, default: &str| -> Result<()> {
        let text = match given {
            Some(value) if !raw_json::is_null(value) => raw_json::minified(value),
            _ => default.to_owned(),
        };
        let raw = RawValue::from_string(text).map_err(raw_json::not_json)?;
        echo.push(key, raw);
        Ok(())
    };
    put("instructions", field("instructions"), "null")?;
    put("max_output_tokens", field("max_output_tokens"), "null")?;
    put("metadata", field("metadata"), "{}")?;
    put("parallel_tool_calls", field("parallel_tool_calls"), "true")?;
    put("previous_response_id", None, "null")?;
    put("reasoning", field("reasoning"), "null")?;
    put("store", None, "false")?;
    put("temperature", field("temperature"), "null")?;
    put("text", field("text"), r#"{"format":{"type":"text"}}"#)?;
    put("tool_choice", field("tool_choice"), "\"auto\"")?;
    put("tools", field("tools"), "[]")?;
    put("top_p", field("top_p"), "null")?;
    put("truncation", None, "\"disabled\"")?;
    Ok(echo)
}

/// A Chat message (its calls, if any, are written after it as they come).
struct Message<'a> {
    role: &'static str,
    tool_call_id: Option<Cow<'a, str>>,
    content: Content<'a>,
}

enum Content<'a> {
    Text(Cow<'a, str>),
    /// Text and image parts (an input with images).
    Parts(Vec<ChatPart<'a>>),
}

enum ChatPart<'a> {
    Text(Cow<'a, str>),
    Image {
        url: Cow<'a, str>,
        detail: Option<Cow<'a, str>>,
    },
}

struct ChatCall<'a> {
    id: Cow<'a, str>,
    name: Cow<'a, str>,
    arguments: Cow<'a, str>,
}

impl<'a> Message<'a> {
    fn text(role: &'static str, text: Cow<'a, str>) -> Self {
        Self {
            role,
            tool_call_id: None,
            content: Content::Text(text),
        }
    }

    /// The message without its closing brace.
    fn write_open(&self, out: &mut String) {
        out.push_str("{\"role\":");
        push_str(out, self.role);
        if let Some(id) = &self.tool_call_id {
            out.push_str(",\"tool_call_id\":");
            push_str(out, id);
        }
        out.push_str(",\"content\":");
        match &self.content {
            Content::Text(text) => push_str(out, text),
            Content::Parts(parts) => {
                out.push('[');
                for (n, part) in parts.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    match part {
                        ChatPart::Text(text) => {
                            out.push_str("{\"type\":\"text\",\"text\":");
                            push_str(out, text);
                            out.push('}');
                        }
                        ChatPart::Image { url, detail } => {
                            out.push_str("{\"type\":\"image_url\",\"image_url\":{\"url\":");
                            push_str(out, url);
                            if let Some(detail) = detail {
                                out.push_str(",\"detail\":");
                                push_str(out, detail);
                            }
                            out.push_str("}}");
                        }
                    }
                }
                out.push(']');
            }
        }
    }
}

impl ChatCall<'_> {
    fn write(&self, out: &mut String) {
        out.push_str("{\"id\":");
        push_str(out, &self.id);
        out.push_str(",\"type\":\"function\",\"function\":{\"name\":");
        push_str(out, &self.name);
        out.push_str(",\"arguments\":");
        push_str(out, &self.arguments);
        out.push_str("}}");
    }
}

/// The Chat `messages` array, written as the items are read: an assistant
/// message is left open, so that the calls after it join its `tool_calls`.
struct MessageList<'o> {
    out: &'o mut String,
    n: usize,
    /// The last message is an assistant's, still open: whether its
    /// `tool_calls` array is open too.
    open_assistant: Option<bool>,
}

impl<'o> MessageList<'o> {
    fn new(out: &'o mut String) -> Self {
        out.push('[');
        Self {
            out,
            n: 0,
            open_assistant: None,
        }
    }

    /// Closes an assistant message left open.
    fn close(&mut self) {
        match self.open_assistant.take() {
            Some(true) => self.out.push_str("]}"),
            Some(false) => self.out.push('}'),
            None => {}
        }
    }

    fn next(&mut self) {
        self.close();
        if self.n > 0 {
            self.out.push(',');
        }
        self.n += 1;
    }

    fn push(&mut self, message: Message<'_>) {
        self.next();
        message.write_open(self.out);
        if message.role == "assistant" {
            self.open_assistant = Some(false);
        } else {
            self.out.push('}');
        }
    }

    /// A call: into the assistant message before it, or a new one.
    fn call(&mut self, call: ChatCall<'_>) {
        match self.open_assistant {
            Some(true) => self.out.push(','),
            Some(false) => {
                self.out.push_str(",\"tool_calls\":[");
                self.open_assistant = Some(true);
            }
            None => {
                self.next();
                self.out
                    .push_str("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[");
                self.open_assistant = Some(true);
            }
        }
        call.write(self.out);
    }

    fn end(mut self) {
        self.close();
        self.out.push(']');
    }
}

/// An input item's `type`: `message` for an "easy" input message
/// (`{"role", "content"}` with no type), empty when it has neither.
fn item_type<'a>(kind: Option<&'a str>, role: Option<&str>) -> Cow<'a, str> {
    match kind.and_then(raw_json::string) {
        Some(kind) => kind,
        None if role.is_some() => Cow::Borrowed("message"),
        None => Cow::Borrowed(""),
    }
}

fn str_field<'a>(value: Option<&'a str>, key: &str, idx: usize) -> Result<Cow<'a, str>> {
    value.and_then(raw_json::string).ok_or_else(|| {
        bad(
            format!("input[{idx}] needs a `{key}` string"),
            &format!("input[{idx}].{key}"),
        )
    })
}

/// One input item, or the item an `item_reference` names.
fn input_item(list: &mut MessageList<'_>, item: &str, idx: usize, items: &ItemStore) -> Result<()> {
    let [kind, role, id, content, call_id, name, arguments, output] = raw_json::pick(
        item,
        [
            "type",
            "role",
            "id",
            "content",
            "call_id",
            "name",
            "arguments",
            "output",
        ],
    )?
    .unwrap_or_default();
    let kind = item_type(kind, role);
    // `type` may be left out of a reference: a lone `id`.
    if kind == "item_reference" || (kind.is_empty() && id.is_some()) {
        let id = str_field(id, "id", idx)?;
        let Some(found) = items.get(&id) else {
            return Err(bad(
                format!(
                    "input[{idx}] refers to item `{}`, which this proxy did not write or no longer holds (it keeps its answers' items for {} minutes, {} MiB at most): send the item itself",
                    echo(&id),
                    super::items::DEFAULT_TTL.as_secs() / 60,
                    super::items::DEFAULT_MAX_BYTES >> 20
                ),
                &format!("input[{idx}].id"),
            ));
        };
        stored_item(list, &found);
        return Ok(());
    }
    match kind.as_ref() {
        "message" => {
            let role = role.and_then(raw_json::string).unwrap_or_default();
            let content = content.unwrap_or("null");
            let message = match role.as_ref() {
                "user" => Message {
                    content: input_content(content, idx)?,
                    ..Message::text("user", Cow::Borrowed(""))
                },
                // Not every OpenAI-compatible server takes `developer`.
                "system" | "developer" => Message {
                    content: input_content(content, idx)?,
                    ..Message::text("system", Cow::Borrowed(""))
                },
                "assistant" => Message::text("assistant", output_text(content, idx)?),
                _ => {
                    return Err(bad(
                        "a message's `role` must be user, assistant, system or developer",
                        &format!("input[{idx}].role"),
                    ));
                }
            };
            list.push(message);
        }
        "function_call" => {
            let call = ChatCall {
                id: str_field(call_id, "call_id", idx)?,
                name: str_field(name, "name", idx)?,
                arguments: str_field(arguments, "arguments", idx)?,
            };
            list.call(call);
        }
        "function_call_output" => {
            let call_id = str_field(call_id, "call_id", idx)?;
            let output = output.unwrap_or("null");
            let text = match raw_json::string(output) {
                Some(text) => text,
                None if raw_json::kind(output) == Kind::Array => {
                    Cow::Owned(parts_text(output, idx, false)?)
                }
                None => {
                    return Err(bad(
                        "a function_call_output's `output` must be a string or text parts",
                        &format!("input[{idx}].output"),
                    ));
                }
            };
            list.push(Message {
                tool_call_id: Some(call_id),
                ..Message::text("tool", text)
            });
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

/// An item this proxy wrote, named by reference: a `message` as the
/// assistant's text (its parts joined), a `function_call` as a call.
fn stored_item(list: &mut MessageList<'_>, item: &Arc<OutputItem>) {
    match &**item {
        OutputItem::Message { parts, .. } => {
            let text: String = parts.iter().map(|p| p.text.as_str()).collect();
            list.push(Message::text("assistant", Cow::Owned(text)));
        }
        OutputItem::Reasoning { .. } => {}
        OutputItem::Call {
            call_id,
            name,
            arguments,
            ..
        } => list.call(ChatCall {
            id: Cow::Owned(call_id.clone()),
            name: Cow::Owned(name.clone()),
            arguments: Cow::Owned(arguments.clone()),
        }),
    }
}

/// The text of one `input_text`/`output_text` part; `refusal` parts count
/// as text in an assistant's.
fn part_text<'a>(part: &'a str, idx: usize, assistant: bool) -> Result<Cow<'a, str>> {
    let [kind, text, refusal] =
        raw_json::pick(part, ["type", "text", "refusal"])?.unwrap_or_default();
    let kind = kind.and_then(raw_json::string).unwrap_or_default();
    let (key, value) = match kind.as_ref() {
        "input_text" | "output_text" | "text" => ("text", text),
        "refusal" if assistant => ("refusal", refusal),
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
    value.and_then(raw_json::string).ok_or_else(|| {
        bad(
            format!("a `{kind}` part of input[{idx}] needs a `{key}` string"),
            &format!("input[{idx}].content"),
        )
    })
}

/// The text of the parts `parts`, joined (`\n` between the parts of an
/// input, nothing between an assistant's).
fn parts_text(parts: &str, idx: usize, assistant: bool) -> Result<String> {
    let mut text = String::new();
    raw_json::each(parts, |n, part| {
        if n > 0 && !assistant {
            text.push('\n');
        }
        text.push_str(&part_text(part, idx, assistant)?);
        Ok(())
    })?;
    Ok(text)
}

/// An assistant message's content: its text.
fn output_text(content: &str, idx: usize) -> Result<Cow<'_, str>> {
    if let Some(text) = raw_json::string(content) {
        return Ok(text);
    }
    if raw_json::kind(content) == Kind::Array {
        return Ok(Cow::Owned(parts_text(content, idx, true)?));
    }
    Err(content_error(idx))
}

fn content_error(idx: usize) -> ApiError {
    bad(
        "a message's `content` must be a string or an array of content parts",
        &format!("input[{idx}].content"),
    )
}

/// A user, system or developer message's content: its text, or Chat content
/// parts when it holds images.
fn input_content(content: &str, idx: usize) -> Result<Content<'_>> {
    if let Some(text) = raw_json::string(content) {
        return Ok(Content::Text(text));
    }
    if raw_json::kind(content) != Kind::Array {
        return Err(content_error(idx));
    }
    let part_type = |part: &str| -> Result<bool> {
        let kind = raw_json::get(part, "type")?.and_then(raw_json::string);
        Ok(kind.as_deref() == Some("input_image"))
    };
    let mut has_image = false;
    raw_json::each(content, |_, part| {
        has_image |= part_type(part)?;
        Ok(())
    })?;
    if !has_image {
        return Ok(Content::Text(Cow::Owned(parts_text(content, idx, false)?)));
    }
    let mut parts = Vec::new();
    raw_json::each(content, |_, part| {
        if part_type(part)? {
            let [url, detail] = raw_json::pick(part, ["image_url", "detail"])?.unwrap_or_default();
            let Some(url) = url.and_then(raw_json::string) else {
                return Err(bad(
                    "an input_image needs an `image_url` (a file_id cannot be forwarded)",
                    &format!("input[{idx}].content"),
                ));
            };
            let detail = detail.and_then(raw_json::string);
            parts.push(ChatPart::Image { url, detail });
        } else {
            parts.push(ChatPart::Text(part_text(part, idx, false)?));
        }
        Ok(())
    })?;
    Ok(Content::Parts(parts))
}

/// `tools` (`{"type": "function", "name", "description", "parameters",
/// "strict"}`) as Chat function tools (their schemas as the client wrote
/// them); the detector's catalog. Hosted tools (`web_search`,
/// `file_search`, …) have no equivalent: `400`.
fn translate_tools(tools: Option<&str>, body: &mut ChatJsonWriter) -> Result<ToolCatalog> {
    let mut catalog = ToolCatalog::new();
    let tools = match tools {
        t if absent(t) => return Ok(catalog),
        Some(t) if raw_json::kind(t) == Kind::Array => t,
        Some(_) => return Err(bad("`tools` must be an array", "tools")),
        None => return Ok(catalog),
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
            let [kind, name, schema, description, strict] = raw_json::pick(
                tool,
                ["type", "name", "parameters", "description", "strict"],
            )?
            .unwrap_or_default();
            let kind = kind.and_then(raw_json::string).unwrap_or_default();
            if kind != "function" {
                return Err(bad(
                    format!(
                        "tools[{idx}] is a `{}` tool, which the proxy cannot run or forward: only function tools have an equivalent",
                        echo(&kind)
                    ),
                    &format!("tools[{idx}].type"),
                ));
            }
            let Some(name) = name.and_then(raw_json::string) else {
                return Err(bad(
                    format!("tools[{idx}] needs a `name` string"),
                    &format!("tools[{idx}].name"),
                ));
            };
            let (schema, shape) = match schema {
                Some(s) if raw_json::kind(s) == Kind::Object => (s, shape_of(s)?),
                s if absent(s) => ("{}", ToolShape::default()),
                Some(_) => {
                    return Err(bad(
                        format!("the parameters of `{}` must be an object", echo(&name)),
                        &format!("tools[{idx}].parameters"),
                    ));
                }
                None => ("{}", ToolShape::default()),
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
            if let Some(strict) = strict.filter(|s| raw_json::kind(s) == Kind::Bool) {
                out.push_str(",\"strict\":");
                out.push_str(strict);
            }
            out.push_str("}}");
            Ok(())
        })?;
        out.push(']');
        Ok(())
    })?;
    Ok(catalog)
}

/// `tool_choice`: `auto`, `none`, `required` as they are; `{"type":
/// "function", "name"}` as a named Chat function.
fn translate_tool_choice(choice: Option<&str>, body: &mut ChatJsonWriter) -> Result<()> {
    let choice = match choice {
        c if absent(c) => return Ok(()),
        Some(c) => c,
        None => return Ok(()),
    };
    let invalid = || {
        bad(
            "`tool_choice` must be auto, none, required or {\"type\": \"function\", \"name\"}",
            "tool_choice",
        )
    };
    if let Some(mode) = raw_json::string(choice) {
        if !matches!(mode.as_ref(), "auto" | "none" | "required") {
            return Err(invalid());
        }
        return body.raw("tool_choice", choice);
    }
    let Some([kind, name]) = raw_json::pick(choice, ["type", "name"])? else {
        return Err(invalid());
    };
    if kind.and_then(raw_json::string).as_deref() != Some("function") {
        return Err(invalid());
    }
    let Some(name) = name.and_then(raw_json::string) else {
        return Err(bad(
            "a function tool_choice needs a `name` string",
            "tool_choice.name",
        ));
    };
    body.field("tool_choice", |out| {
        out.push_str("{\"type\":\"function\",\"function\":{\"name\":");
        push_str(out, &name);
        out.push_str("}}");
        Ok(())
    })
}

/// `reasoning.effort` as `reasoning_effort`; `reasoning.summary` has no
/// equivalent (the reasoning the upstream gives is the summary).
fn translate_reasoning(reasoning: Option<&str>, body: &mut ChatJsonWriter) -> Result<()> {
    let reasoning = match reasoning {
        r if absent(r) => return Ok(()),
        Some(r) => r,
        None => return Ok(()),
    };
    let Some([effort]) = raw_json::pick(reasoning, ["effort"])? else {
        return Err(bad("`reasoning` must be an object", "reasoning"));
    };
    match effort {
        Some(e) if raw_json::kind(e) == Kind::String => body.raw("reasoning_effort", e),
        e if absent(e) => Ok(()),
        _ => Err(bad(
            "`reasoning.effort` must be a string",
            "reasoning.effort",
        )),
    }
}

/// `text.format` as `response_format`: `json_object` as it is, `json_schema`
/// with its `name`, `schema`, `description` and `strict` moved into
/// `json_schema`; `text` is the default. `text.verbosity` is dropped.
fn translate_text(text: Option<&str>, body: &mut ChatJsonWriter) -> Result<()> {
    let text = match text {
        t if absent(t) => return Ok(()),
        Some(t) => t,
        None => return Ok(()),
    };
    let Some([format]) = raw_json::pick(text, ["format"])? else {
        return Err(bad("`text` must be an object", "text"));
    };
    let Some(format) = format.filter(|f| !raw_json::is_null(f)) else {
        return Ok(());
    };
    let [kind, name, schema, description, strict] =
        raw_json::pick(format, ["type", "name", "schema", "description", "strict"])?
            .unwrap_or_default();
    match kind.and_then(raw_json::string).as_deref() {
        Some("text") => Ok(()),
        Some("json_object") => body.raw("response_format", r#"{"type":"json_object"}"#),
        Some("json_schema") => body.field("response_format", |out| {
            out.push_str("{\"type\":\"json_schema\",\"json_schema\":{");
            let mut first = true;
            for (key, value) in [
                ("name", name),
                ("schema", schema),
                ("description", description),
                ("strict", strict),
            ] {
                let Some(value) = value.filter(|v| !raw_json::is_null(v)) else {
                    continue;
                };
                if !first {
                    out.push(',');
                }
                first = false;
                push_str(out, key);
                out.push(':');
                out.push_str(value);
            }
            out.push_str("}}");
            Ok(())
        }),
        _ => Err(bad(
            "`text.format.type` must be text, json_object or json_schema",
            "text.format",
        )),
    }
}
