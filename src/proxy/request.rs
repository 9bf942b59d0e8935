//! `ChatRequest`: a client's Chat Completions request, read once: what the
//! proxy needs from it (streaming or not, usage asked for, the tools the
//! detector must know) and the body that goes upstream.

use serde_json::{Map, Value};

use super::error::ApiError;
use toolrouter_providers::Wire;

use super::{text_tools, to_anthropic, to_bedrock, to_gemini, to_ollama, to_responses};
use crate::core::{JsonObject, ToolCatalog, ToolShape, echo};

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
    pub(crate) body: Map<String, Value>,
}

impl ChatRequest {
    /// Reads a request body. The body goes upstream as the client wrote it,
    /// with two changes: `stream` is always `true` (the proxy reads every
    /// answer as a stream), and a client that did not ask for a stream gets
    /// `stream_options.include_usage`, so its one answer can carry `usage`.
    pub(crate) fn read(body: &[u8]) -> Result<Self, ApiError> {
        let value: Value = serde_json::from_slice(body).map_err(|e| {
            ApiError::bad_request(format!("the request body is not valid JSON: {e}"), None)
        })?;
        let Value::Object(mut object) = value else {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
                None,
            ));
        };
        if !object.get("messages").is_some_and(Value::is_array) {
            return Err(ApiError::bad_request(
                "`messages` must be an array of messages",
                Some("messages"),
            ));
        }
        let model = match object.get("model") {
            Some(Value::String(model)) => model.clone(),
            None | Some(Value::Null) => String::new(),
            Some(_) => {
                return Err(ApiError::bad_request(
                    "`model` must be a string",
                    Some("model"),
                ));
            }
        };
        let stream = match object.get("stream") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(stream)) => *stream,
            Some(_) => {
                return Err(ApiError::bad_request(
                    "`stream` must be a boolean",
                    Some("stream"),
                ));
            }
        };
        match object.get("n") {
            None | Some(Value::Null) => {}
            Some(n) if n.as_u64() == Some(1) => {}
            Some(_) => {
                return Err(ApiError::bad_request(
                    "the proxy answers with one choice: `n` must be 1",
                    Some("n"),
                ));
            }
        }
        let catalog = read_catalog(&object)?;
        let include_usage = stream
            && object
                .get("stream_options")
                .and_then(|o| o.get("include_usage"))
                .and_then(Value::as_bool)
                .unwrap_or(false);
        object.insert("stream".to_owned(), Value::Bool(true));
        if !stream {
            let mut options = Map::new();
            options.insert("include_usage".to_owned(), Value::Bool(true));
            object.insert("stream_options".to_owned(), Value::Object(options));
        }
        Ok(Self {
            stream,
            include_usage,
            model,
            catalog,
            body: object,
        })
    }
}

/// What the upstream takes: its wire, and whether tools go as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UpstreamShape {
    /// The upstream's wire: OpenAI Chat Completions, Anthropic Messages,
    /// Gemini, native Ollama or Bedrock Converse.
    pub(crate) wire: Wire,
    /// `--text-tools`: the tools are taught in the system prompt.
    pub(crate) text_tools: bool,
    /// `--max-request-bytes`: the most the prompt that teaches the tools may take.
    pub(crate) max_request_bytes: usize,
}

impl UpstreamShape {
    /// The body sent upstream for a Chat Completions request (any door's,
    /// the other doors' translated first): with `text_tools`, rewritten
    /// for an upstream without tool support ([`text_tools::teach`]); for
    /// another wire than Chat Completions, translated into its request
    /// ([`to_anthropic::messages_body`], [`to_gemini::generate_body`],
    /// [`to_ollama::chat_body`], [`to_bedrock::converse_body`],
    /// [`to_responses::responses_body`]).
    pub(crate) fn body(self, object: &Map<String, Value>) -> Result<Vec<u8>, ApiError> {
        let mut owned = None;
        if self.text_tools {
            let mut taught = object.clone();
            text_tools::teach(&mut taught, self.max_request_bytes)?;
            owned = Some(taught);
        }
        type Translate = fn(&Map<String, Value>) -> Result<Map<String, Value>, ApiError>;
        let translate: Option<Translate> = match self.wire {
            Wire::Anthropic => Some(to_anthropic::messages_body),
            Wire::Gemini => Some(to_gemini::generate_body),
            Wire::Ollama => Some(to_ollama::chat_body),
            Wire::Bedrock => Some(to_bedrock::converse_body),
            Wire::OpenAiResponses => Some(to_responses::responses_body),
            _ => None,
        };
        if let Some(translate) = translate {
            owned = Some(translate(owned.as_ref().unwrap_or(object))?);
        }
        serde_json::to_vec(owned.as_ref().unwrap_or(object)).map_err(|e| {
            ApiError::bad_request(format!("the request cannot be written again: {e}"), None)
        })
    }
}

/// The tools the detector must know: every `{"type": "function", "function":
/// {"name", "parameters"}}` of `tools`, and the deprecated `functions`.
/// Tools of other types are passed upstream and not detected in text.
fn read_catalog(object: &Map<String, Value>) -> Result<ToolCatalog, ApiError> {
    let mut catalog = ToolCatalog::new();
    let empty = JsonObject::new();
    let list = |key: &str| match object.get(key) {
        None | Some(Value::Null) => Ok(&[][..]),
        Some(Value::Array(items)) => Ok(items.as_slice()),
        Some(_) => Err(ApiError::bad_request(
            format!("`{key}` must be an array"),
            Some(key),
        )),
    };
    for (idx, tool) in list("tools")?.iter().enumerate() {
        let kind = tool
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("function");
        if kind != "function" {
            continue;
        }
        let function = tool.get("function").ok_or_else(|| {
            ApiError::bad_request(
                format!("tool {idx} has no `function`"),
                Some(&format!("tools[{idx}].function")),
            )
        })?;
        add_function(
            &mut catalog,
            function,
            &empty,
            &format!("tools[{idx}].function"),
        )?;
    }
    for (idx, function) in list("functions")?.iter().enumerate() {
        add_function(&mut catalog, function, &empty, &format!("functions[{idx}]"))?;
    }
    Ok(catalog)
}

fn add_function(
    catalog: &mut ToolCatalog,
    function: &Value,
    empty: &JsonObject,
    param: &str,
) -> Result<(), ApiError> {
    let Some(name) = function.get("name").and_then(Value::as_str) else {
        return Err(ApiError::bad_request(
            "a function tool needs a `name` string",
            Some(&format!("{param}.name")),
        ));
    };
    let schema = match function.get("parameters") {
        Some(Value::Object(schema)) => schema,
        None | Some(Value::Null) => empty,
        Some(_) => {
            return Err(ApiError::bad_request(
                format!("the parameters of `{}` must be an object", echo(name)),
                Some(&format!("{param}.parameters")),
            ));
        }
    };
    catalog.insert(name, ToolShape::from_input_schema(schema));
    Ok(())
}
