//! `ChatRequest`: a client's Chat Completions request, read once: what the
//! proxy needs from it (streaming or not, usage asked for, the tools the
//! detector must know) and the body that goes upstream.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::chat_json::{self, ChatJson};
use super::constrain::ConstrainPlan;
use super::error::ApiError;
use super::raw_json::{self, Kind};
use toolrouter_providers::Wire;

use super::{text_tools, to_anthropic, to_bedrock, to_gemini, to_ollama, to_responses};
use crate::core::{ToolCatalog, ToolShape, echo};

/// A client's request, checked.
#[derive(Debug)]
pub(crate) struct ChatRequest {
    /// The client asked for a stream of chunks.
    pub(crate) stream: bool,
    /// The client asked for the usage chunk (`stream_options.include_usage`).
    pub(crate) include_usage: bool,
    /// The model the client named (the answer's `model` when the upstream
    /// names none).
    pub(crate) model: String,
    /// The function tools of the request, for the detector.
    pub(crate) catalog: ToolCatalog,
    /// The request as sent upstream, before it is shaped for the upstream
    /// ([`UpstreamShape::body`]): the client's, always streaming.
    pub(crate) body: ChatJson,
}

impl ChatRequest {
    /// Reads a request body. The body goes upstream as the client wrote it,
    /// with two changes: `stream` is always `true` (the proxy reads every
    /// answer as a stream), and a client that did not ask for a stream gets
    /// `stream_options.include_usage`, so its one answer can carry `usage`.
    /// Only the fields the proxy reads are parsed; the others stay text.
    pub(crate) fn read(body: Vec<u8>) -> Result<Self, ApiError> {
        let text = String::from_utf8(body).map_err(|e| raw_json::not_json(e.utf8_error()))?;
        let Some(mut body) = ChatJson::parse(text)? else {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
                None,
            ));
        };
        if !body
            .get("messages")
            .is_some_and(|m| raw_json::kind(m) == Kind::Array)
        {
            return Err(ApiError::bad_request(
                "`messages` must be an array of messages",
                Some("messages"),
            ));
        }
        let model = match body.get("model") {
            None => String::new(),
            Some(model) if raw_json::is_null(model) => String::new(),
            Some(model) => match raw_json::string(model) {
                Some(model) => model.into_owned(),
                None => {
                    return Err(ApiError::bad_request(
                        "`model` must be a string",
                        Some("model"),
                    ));
                }
            },
        };
        let stream = match body.get("stream") {
            None => false,
            Some(stream) if raw_json::is_null(stream) => false,
            Some(stream) => raw_json::boolean(stream).ok_or_else(|| {
                ApiError::bad_request("`stream` must be a boolean", Some("stream"))
            })?,
        };
        match body.get("n") {
            None => {}
            Some(n) if raw_json::is_null(n) || raw_json::unsigned(n) == Some(1) => {}
            Some(_) => {
                return Err(ApiError::bad_request(
                    "the proxy answers with one choice: `n` must be 1",
                    Some("n"),
                ));
            }
        }
        let catalog = read_catalog(&body)?;
        let include_usage = stream
            && match body.get("stream_options") {
                Some(options) => raw_json::get(options, "include_usage")?
                    .and_then(raw_json::boolean)
                    .unwrap_or(false),
                None => false,
            };
        body.set("stream", "true")?;
        if !stream {
            body.set("stream_options", r#"{"include_usage":true}"#)?;
        }
        Ok(Self {
            stream,
            include_usage,
            model,
            catalog,
            body,
        })
    }
}

/// What the upstream takes: its wire, whether tools go as text, and the
/// grammars that go with them.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamShape {
    /// The upstream's wire: OpenAI Chat Completions, Anthropic Messages,
    /// Gemini, native Ollama or Bedrock Converse.
    pub(crate) wire: Wire,
    /// `--text-tools`: the tools are taught in the system prompt.
    pub(crate) text_tools: bool,
    /// `--max-request-bytes`: the most the prompt that teaches the tools may take.
    pub(crate) max_request_bytes: usize,
    /// `--constrain`: the grammar of the taught tools, for a server that
    /// takes one.
    pub(crate) constrain: Option<Arc<ConstrainPlan>>,
}

impl UpstreamShape {
    /// The body sent upstream for a Chat Completions request (any door's,
    /// the other doors' translated first): with `text_tools`, rewritten
    /// for an upstream without tool support ([`text_tools::teach`]); for
    /// another wire than Chat Completions, translated into its request
    /// ([`to_anthropic::messages_body`], [`to_gemini::generate_body`],
    /// [`to_ollama::chat_body`], [`to_bedrock::converse_body`],
    /// [`to_responses::responses_body`]).
    pub(crate) fn body(&self, chat: &ChatJson) -> Result<Vec<u8>, ApiError> {
        self.shaped(chat).map(|shaped| shaped.body)
    }

    /// [`body`](Self::body), and how a grammar went with it (`--constrain`).
    pub(crate) fn shaped(&self, chat: &ChatJson) -> Result<Shaped, ApiError> {
        type Translate = fn(&Map<String, Value>) -> Result<Map<String, Value>, ApiError>;
        let translate: Option<Translate> = match self.wire {
            Wire::Anthropic => Some(to_anthropic::messages_body),
            Wire::Gemini => Some(to_gemini::generate_body),
            Wire::Ollama => Some(to_ollama::chat_body),
            Wire::Bedrock => Some(to_bedrock::converse_body),
            Wire::OpenAiResponses => Some(to_responses::responses_body),
            _ => None,
        };
        if !self.text_tools && translate.is_none() {
            // The body as it came, with `stream` set: never a tree.
            return Ok(Shaped::plain(chat.to_vec()));
        }
        let max_values = (self.max_request_bytes / chat_json::BYTES_PER_VALUE).max(MIN_TREE_VALUES);
        let mut tree = chat.to_tree(max_values)?;
        // Read before `--text-tools` takes the tools out of the request.
        let constraint = match &self.constrain {
            Some(plan) if self.text_tools && translate.is_none() => plan.constraint(&tree),
            _ => None,
        };
        if self.text_tools {
            text_tools::teach(&mut tree, self.max_request_bytes)?;
        }
        if let Some(translate) = translate {
            tree = translate(&tree)?;
        }
        let Some(constraint) = constraint else {
            return Ok(Shaped::plain(written(&tree)?));
        };
        let completion = match constraint.completion {
            Some(fields) => Some(LazyCompletion::of(&tree, fields)?),
            None => None,
        };
        tree.extend(constraint.fields);
        Ok(Shaped {
            body: written(&tree)?,
            constrained: true,
            opened: constraint.opened,
            completion,
        })
    }
}

/// A request shaped for the upstream ([`UpstreamShape::shaped`]).
#[derive(Debug)]
pub(crate) struct Shaped {
    /// The body for the upstream's chat route.
    pub(crate) body: Vec<u8>,
    /// A grammar went into `body`.
    pub(crate) constrained: bool,
    /// The opening of a call that ends the prefilled assistant turn: the
    /// detector reads it before the answer.
    pub(crate) opened: Option<String>,
    /// llama.cpp with a lazy grammar: the request as a prompt to template and
    /// a `/completions` request, tried before `body`.
    pub(crate) completion: Option<LazyCompletion>,
}

impl Shaped {
    fn plain(body: Vec<u8>) -> Self {
        Self {
            body,
            constrained: false,
            opened: None,
            completion: None,
        }
    }
}

/// A Chat Completions request as llama.cpp's `/apply-template` and
/// `/completions` take it: the messages to template, and the rest of the
/// request with the lazy grammar's fields, waiting for its `prompt`.
#[derive(Debug)]
pub(crate) struct LazyCompletion {
    /// The body of `/apply-template`: `{"messages": …}`.
    pub(crate) template: Vec<u8>,
    /// The `/completions` request without its `prompt`.
    pub(crate) request: Map<String, Value>,
}

/// The fields of a chat request that a completion request does not take.
const CHAT_ONLY: [&str; 6] = [
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "functions",
    "function_call",
];

impl LazyCompletion {
    /// `chat` (tools already taught) as a completion request with `fields`.
    fn of(chat: &Map<String, Value>, fields: Map<String, Value>) -> Result<Self, ApiError> {
        #[derive(serde::Serialize)]
        struct Template<'a> {
            messages: Option<&'a Value>,
        }
        let messages = chat.get("messages");
        let template = written(&Template { messages })?;
        let mut request: Map<String, Value> = chat
            .iter()
            .filter(|(key, _)| !CHAT_ONLY.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        // The completions route reads the bound as `max_tokens`.
        if !request.contains_key("max_tokens")
            && let Some(max) = request.remove("max_completion_tokens")
        {
            request.insert("max_tokens".to_owned(), max);
        }
        request.extend(fields);
        Ok(Self { template, request })
    }
}

/// A request (or a part of one) as the bytes sent.
pub(crate) fn written(request: &impl serde::Serialize) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(request).map_err(|e| {
        ApiError::bad_request(format!("the request cannot be written again: {e}"), None)
    })
}

/// The tools the detector must know: every `{"type": "function", "function":
/// {"name", "parameters"}}` of `tools`, and the deprecated `functions`.
/// Tools of other types are passed upstream and not detected in text.
fn read_catalog(body: &ChatJson) -> Result<ToolCatalog, ApiError> {
    let mut catalog = ToolCatalog::new();
    let list = |key: &str| match body.get(key) {
        None => Ok(None),
        Some(list) if raw_json::is_null(list) => Ok(None),
        Some(list) if raw_json::kind(list) == Kind::Array => Ok(Some(list)),
        Some(_) => Err(ApiError::bad_request(
            format!("`{key}` must be an array"),
            Some(key),
        )),
    };
    if let Some(tools) = list("tools")? {
        raw_json::each(tools, |idx, tool| {
            let [kind, function] = raw_json::pick(tool, ["type", "function"])?.unwrap_or_default();
            let kind = kind.and_then(raw_json::string);
            if kind.as_deref().unwrap_or("function") != "function" {
                return Ok(());
            }
            let Some(function) = function else {
                return Err(ApiError::bad_request(
                    format!("tool {idx} has no `function`"),
                    Some(&format!("tools[{idx}].function")),
                ));
            };
            add_function(&mut catalog, function, &format!("tools[{idx}].function"))
        })?;
    }
    if let Some(functions) = list("functions")? {
        raw_json::each(functions, |idx, function| {
            add_function(&mut catalog, function, &format!("functions[{idx}]"))
        })?;
    }
    Ok(catalog)
}

fn add_function(catalog: &mut ToolCatalog, function: &str, param: &str) -> Result<(), ApiError> {
    let [name, parameters] = raw_json::pick(function, ["name", "parameters"])?.unwrap_or_default();
    let Some(name) = name.and_then(raw_json::string) else {
        return Err(ApiError::bad_request(
            "a function tool needs a `name` string",
            Some(&format!("{param}.name")),
        ));
    };
    let shape = match parameters {
        None => ToolShape::default(),
        Some(schema) if raw_json::is_null(schema) => ToolShape::default(),
        Some(schema) if raw_json::kind(schema) == Kind::Object => shape_of(schema)?,
        Some(_) => {
            return Err(ApiError::bad_request(
                format!("the parameters of `{}` must be an object", echo(&name)),
                Some(&format!("{param}.parameters")),
            ));
        }
    };
    catalog.insert(&name, shape);
    Ok(())
}

/// The detector's view of a tool from its input schema's JSON text (an
/// object), as `ToolShape::from_input_schema` reads the schema, without a
/// tree of it: each property is read alone, as far as its type goes
/// ([`property_schema`]).
pub(crate) fn shape_of(schema: &str) -> Result<ToolShape, ApiError> {
    let mut shape = ToolShape::default();
    if let Some(properties) = raw_json::get(schema, "properties")? {
        raw_json::fields(properties, |name, property| {
            shape.add_property(name.into_owned(), &property_schema(property)?);
            Ok(())
        })?;
    }
    Ok(shape)
}

/// The type names a schema's `type` may give.
/// The JSON values a translated or `--text-tools` request may always hold,
/// however low `--max-request-bytes` is set.
const MIN_TREE_VALUES: usize = 4096;

const TYPE_NAMES: [&str; 6] = ["string", "integer", "number", "boolean", "array", "object"];

/// The parts of a property's schema its parameter type is read from, cut to
/// what decides it: `type` (a name, or a list of at most two names and
/// `null`: a list of two or more names reads as "any"), `anyOf` or `oneOf`
/// (at most two named branches, a branch that names no type, `null`, and an
/// unknown name), and whether `enum` or `const` is there. The schema's other
/// parts, however large, are skipped unread.
fn property_schema(text: &str) -> Result<Value, ApiError> {
    let mut out = Map::new();
    let Some([kind, any_of, one_of, enum_, const_]) =
        raw_json::pick(text, ["type", "anyOf", "oneOf", "enum", "const"])?
    else {
        return Ok(Value::Object(out));
    };
    let name_of = |name: &str| {
        if name == "null" || TYPE_NAMES.contains(&name) {
            name.to_owned()
        } else {
            "unknown".to_owned()
        }
    };
    match kind.map(|t| (raw_json::kind(t), t)) {
        Some((Kind::String, t)) => {
            let name = raw_json::string(t).unwrap_or_default();
            out.insert("type".to_owned(), Value::String(name_of(&name)));
            return Ok(Value::Object(out));
        }
        Some((Kind::Array, t)) => {
            let (mut names, mut null) = (Vec::new(), false);
            raw_json::each(t, |_, name| {
                match raw_json::string(name).as_deref() {
                    Some("null") => null = true,
                    Some(name) if TYPE_NAMES.contains(&name) && names.len() < 2 => {
                        names.push(Value::String(name.to_owned()))
                    }
                    _ => {}
                }
                Ok(())
            })?;
            if null {
                names.push(json!("null"));
            }
            out.insert("type".to_owned(), Value::Array(names));
            return Ok(Value::Object(out));
        }
        _ => {}
    }
    let branches = match (any_of, one_of) {
        (Some(branches), _) => Some(("anyOf", branches)),
        (None, Some(branches)) => Some(("oneOf", branches)),
        (None, None) => None,
    };
    if let Some((key, branches)) = branches {
        let (mut named, mut untyped, mut null, mut unknown) = (Vec::new(), false, false, false);
        raw_json::each(branches, |_, branch| {
            let name = raw_json::get(branch, "type")?.and_then(raw_json::string);
            match name.as_deref() {
                None => untyped = true,
                Some("null") => null = true,
                Some(name) if TYPE_NAMES.contains(&name) => {
                    if named.len() < 2 {
                        named.push(json!({"type": name}));
                    }
                }
                Some(_) => unknown = true,
            }
            Ok(())
        })?;
        let mut cut = if untyped { vec![json!({})] } else { named };
        if unknown && !untyped {
            cut.push(json!({"type": "unknown"}));
        }
        if null {
            cut.push(json!({"type": "null"}));
        }
        out.insert(key.to_owned(), Value::Array(cut));
    }
    for (key, given) in [("enum", enum_), ("const", const_)] {
        if given.is_some() {
            out.insert(key.to_owned(), Value::Null);
        }
    }
    Ok(Value::Object(out))
}
