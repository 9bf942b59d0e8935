//! `Conversation`: a chat's messages in one wire's format, and the streaming
//! request body of its next turn.

use rmcp::model::Tool;
use serde_json::{Map, Value, json};
use toolrouter_providers::Wire;

use super::error::ChatError;
use crate::convert::{Declarations, Dialect, xml_text};
use crate::grammar::ToolChoice;
use crate::router::TurnOutcome;

/// How the tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ToolMode {
    /// Declared in the request, in the provider's dialect (`tools`).
    #[default]
    Declared,
    /// Taught in the system prompt ([`xml_text::system_prompt`]), for
    /// text-only endpoints: the model writes calls as XML tags in its text and
    /// results come back as `<tool_result>` text.
    InText,
}

/// A conversation with one provider endpoint, in that endpoint's wire format.
///
/// ```
/// use serde_json::json;
/// use toolrouter::Conversation;
/// use toolrouter::providers::Wire;
///
/// let mut chat = Conversation::new(Wire::Anthropic, "claude-sonnet-4-5")?.with_system("Be brief.");
/// chat.push_user("Hello");
/// let body = chat.request_body();
/// assert_eq!(body["system"], "Be brief.");
/// assert_eq!(body["messages"], json!([{"role": "user", "content": "Hello"}]));
/// assert_eq!(body["stream"], true);
/// # Ok::<(), toolrouter::ChatError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Conversation {
    shape: Shape,
    model: String,
    system: Option<String>,
    tools: Vec<Tool>,
    tool_mode: ToolMode,
    tool_choice: ToolChoice,
    /// Fields added to the request body as they are (a grammar, say).
    extra: Map<String, Value>,
    max_tokens: u32,
    /// Whether `max_tokens` was set: then every wire gets it.
    max_tokens_set: bool,
    temperature: Option<f64>,
    messages: Vec<Value>,
}

/// The request shapes a [`Conversation`] can build, one per supported wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
    Ollama,
}

/// The `max_tokens` sent to Anthropic (which requires one) unless set.
const DEFAULT_MAX_TOKENS: u32 = 4096;

impl Conversation {
    /// An empty conversation with `model` over `wire`. Bedrock is refused: its
    /// requests need AWS SigV4 signing.
    pub fn new(wire: Wire, model: impl Into<String>) -> Result<Self, ChatError> {
        let shape = match wire {
            Wire::OpenAiChat => Shape::OpenAiChat,
            Wire::OpenAiResponses => Shape::OpenAiResponses,
            Wire::Anthropic => Shape::Anthropic,
            Wire::Gemini => Shape::Gemini,
            Wire::Ollama => Shape::Ollama,
            Wire::Bedrock => {
                return Err(ChatError::UnsupportedWire {
                    wire: wire.as_str(),
                    reason: "Bedrock requests need AWS SigV4 signing, which toolrouter does not do; \
                             send them with an AWS SDK and route the ConverseStream response \
                             with `Router::route` (or `toolrouter route --provider bedrock`)",
                });
            }
            other => {
                return Err(ChatError::UnsupportedWire {
                    wire: other.as_str(),
                    reason: "no request builder for it yet",
                });
            }
        };
        Ok(Self {
            shape,
            model: model.into(),
            system: None,
            tools: Vec::new(),
            tool_mode: ToolMode::Declared,
            tool_choice: ToolChoice::Auto,
            extra: Map::new(),
            max_tokens: DEFAULT_MAX_TOKENS,
            max_tokens_set: false,
            temperature: None,
            messages: Vec::new(),
        })
    }

    /// Sets the system prompt.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// Sets the tools and how they reach the model.
    pub fn with_tools(mut self, tools: Vec<Tool>, mode: ToolMode) -> Self {
        self.tools = tools;
        self.tool_mode = mode;
        self
    }

    /// Sets the sampling temperature, sent on every wire (`temperature`;
    /// Gemini's `generationConfig.temperature`, native Ollama's
    /// `options.temperature`).
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets which calls the next turns must make, as each wire says it when
    /// the tools are declared: OpenAI's `tool_choice` (`"required"`,
    /// `"none"`, a named function), Anthropic's (`any`, `none`, `tool`),
    /// Gemini's `toolConfig.functionCallingConfig` (`ANY`, `NONE`,
    /// `allowedFunctionNames`). Ollama's API has none: there it is not
    /// sent. `Auto` (the default) sends nothing. Tools taught in text have
    /// no field for it: a grammar does it ([`set_extra_fields`](Self::set_extra_fields)).
    pub fn set_tool_choice(&mut self, choice: ToolChoice) {
        self.tool_choice = choice;
    }

    /// Sets fields added to the next requests' body as they are (for
    /// example a grammar for a server that takes one:
    /// [`ToolGrammar::chat_fields`](crate::ToolGrammar::chat_fields)); an
    /// empty map adds none.
    pub fn set_extra_fields(&mut self, fields: Map<String, Value>) {
        self.extra = fields;
    }

    /// Sets the most tokens a turn may generate (sent to Anthropic as
    /// `max_tokens`, which it requires; default 4096). Once set, every wire
    /// gets it: OpenAI Chat and Ollama's OpenAI-compatible servers as
    /// `max_tokens`, Responses as `max_output_tokens`, Gemini as
    /// `generationConfig.maxOutputTokens`, native Ollama as
    /// `options.num_predict`.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self.max_tokens_set = true;
        self
    }

    /// The dialect the turn's calls are answered in: the wire's own, or
    /// [`Dialect::XmlText`] when the tools are taught in text.
    pub fn dialect(&self) -> Dialect {
        if self.tool_mode == ToolMode::InText {
            return Dialect::XmlText;
        }
        match self.shape {
            Shape::OpenAiChat => Dialect::OpenAiChat,
            Shape::OpenAiResponses => Dialect::OpenAiResponses,
            Shape::Anthropic => Dialect::Anthropic,
            Shape::Gemini => Dialect::Gemini,
            Shape::Ollama => Dialect::Ollama,
        }
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The messages so far (Gemini `contents`, Responses `input` items), without
    /// the system prompt.
    pub fn messages(&self) -> &[Value] {
        &self.messages
    }

    /// Appends a user message.
    pub fn push_user(&mut self, text: &str) {
        let message = self.text_message("user", text);
        self.messages.push(message);
    }

    /// Appends a routed turn: the assistant turn with its calls and the results
    /// ([`TurnOutcome::follow_up`]) when it made calls, else its text as an
    /// assistant message (nothing when it had no text either).
    pub fn record_turn(&mut self, outcome: &TurnOutcome) {
        let dialect = self.dialect();
        let messages = if outcome.calls.is_empty() {
            if outcome.text.is_empty() {
                return;
            }
            dialect.assistant_turn(&outcome.text, &[])
        } else {
            outcome.follow_up_in(dialect)
        };
        for message in messages {
            let message = self.adapt(message);
            self.messages.push(message);
        }
    }

    /// The tool declarations in the wire's dialect (with any conversion notes,
    /// e.g. schema parts Gemini cannot express). Empty when the tools are taught
    /// in text.
    pub fn declarations(&self) -> Declarations {
        if self.tool_mode == ToolMode::InText || self.tools.is_empty() {
            return Declarations {
                value: Value::Array(Vec::new()),
                notes: Vec::new(),
            };
        }
        self.dialect().declare(&self.tools)
    }

    /// The system prompt as sent: the one set, followed by the tool section of
    /// [`xml_text::system_prompt`] when the tools are taught in text.
    pub fn system_prompt(&self) -> Option<String> {
        let taught = if self.tool_mode == ToolMode::InText {
            xml_text::system_prompt(&self.tools)
        } else {
            String::new()
        };
        match (&self.system, taught.is_empty()) {
            (None, true) => None,
            (Some(system), true) => Some(system.clone()),
            (None, false) => Some(taught),
            (Some(system), false) => Some(format!("{system}\n\n{taught}")),
        }
    }

    /// The streaming request body of the next turn:
    ///
    /// - OpenAI Chat: `{model, messages, tools, stream: true, stream_options: {include_usage: true}}`,
    ///   the system prompt as the first `system` message;
    /// - Responses: `{model, instructions, input, tools, stream: true}`;
    /// - Anthropic: `{model, max_tokens, system, messages, tools, stream: true}`;
    /// - Gemini: `{contents, systemInstruction: {parts: [{text}]}, tools: [{functionDeclarations}]}`
    ///   (the model and streaming are in the URL);
    /// - Ollama: `{model, messages, tools, stream: true}`, the system prompt as the first message.
    ///
    /// `tools` is left out when there is nothing to declare.
    pub fn request_body(&self) -> Value {
        let system = self.system_prompt();
        let tools = match self.declarations().value {
            Value::Array(list) if list.is_empty() => None,
            value => Some(value),
        };
        let mut body = Map::new();
        let with_system_message = || {
            let mut messages = Vec::with_capacity(self.messages.len() + 1);
            if let Some(system) = &system {
                messages.push(json!({"role": "system", "content": system}));
            }
            messages.extend(self.messages.iter().cloned());
            Value::Array(messages)
        };
        match self.shape {
            Shape::OpenAiChat => {
                body.insert("model".into(), json!(self.model));
                body.insert("messages".into(), with_system_message());
                insert_some(&mut body, "tools", tools);
                body.insert("stream".into(), json!(true));
                body.insert("stream_options".into(), json!({"include_usage": true}));
            }
            Shape::OpenAiResponses => {
                body.insert("model".into(), json!(self.model));
                insert_some(&mut body, "instructions", system.map(Value::String));
                body.insert("input".into(), Value::Array(self.messages.clone()));
                insert_some(&mut body, "tools", tools);
                body.insert("stream".into(), json!(true));
            }
            Shape::Anthropic => {
                body.insert("model".into(), json!(self.model));
                body.insert("max_tokens".into(), json!(self.max_tokens));
                insert_some(&mut body, "system", system.map(Value::String));
                body.insert("messages".into(), Value::Array(self.messages.clone()));
                insert_some(&mut body, "tools", tools);
                body.insert("stream".into(), json!(true));
            }
            Shape::Gemini => {
                body.insert("contents".into(), Value::Array(self.messages.clone()));
                insert_some(
                    &mut body,
                    "systemInstruction",
                    system.map(|text| json!({"parts": [{"text": text}]})),
                );
                insert_some(&mut body, "tools", tools);
            }
            Shape::Ollama => {
                body.insert("model".into(), json!(self.model));
                body.insert("messages".into(), with_system_message());
                insert_some(&mut body, "tools", tools);
                body.insert("stream".into(), json!(true));
            }
        }
        self.sampling(&mut body);
        if body.contains_key("tools")
            && let Some((key, choice)) = self.choice_field()
        {
            body.insert(key.to_owned(), choice);
        }
        body.extend(self.extra.clone());
        Value::Object(body)
    }

    /// The token limit (when set) and the temperature, in the wire's
    /// fields.
    fn sampling(&self, body: &mut Map<String, Value>) {
        let max_tokens = self.max_tokens_set.then(|| json!(self.max_tokens));
        let temperature = self.temperature.map(|t| json!(t));
        let (limit_key, nested) = match self.shape {
            Shape::OpenAiChat => ("max_tokens", None),
            Shape::OpenAiResponses => ("max_output_tokens", None),
            // Sent with the other fields (and required there).
            Shape::Anthropic => ("", None),
            Shape::Gemini => ("maxOutputTokens", Some("generationConfig")),
            Shape::Ollama => ("num_predict", Some("options")),
        };
        let mut fields = Map::new();
        if let Some(n) = max_tokens.filter(|_| !limit_key.is_empty()) {
            fields.insert(limit_key.to_owned(), n);
        }
        if let Some(t) = temperature {
            fields.insert("temperature".to_owned(), t);
        }
        match nested {
            Some(key) if !fields.is_empty() => {
                body.insert(key.to_owned(), Value::Object(fields));
            }
            Some(_) => {}
            None => body.extend(fields),
        }
    }

    /// The wire's field for [`set_tool_choice`](Self::set_tool_choice), if
    /// it has one and the choice is not `Auto`.
    fn choice_field(&self) -> Option<(&'static str, Value)> {
        let choice = &self.tool_choice;
        let value = match (self.shape, choice) {
            (_, ToolChoice::Auto) | (Shape::Ollama, _) => return None,
            (Shape::OpenAiChat | Shape::OpenAiResponses, ToolChoice::Required) => json!("required"),
            (Shape::OpenAiChat | Shape::OpenAiResponses, ToolChoice::None) => json!("none"),
            (Shape::OpenAiChat, ToolChoice::Named(name)) => {
                json!({"type": "function", "function": {"name": name}})
            }
            (Shape::OpenAiResponses, ToolChoice::Named(name)) => {
                json!({"type": "function", "name": name})
            }
            (Shape::Anthropic, ToolChoice::Required) => json!({"type": "any"}),
            (Shape::Anthropic, ToolChoice::None) => json!({"type": "none"}),
            (Shape::Anthropic, ToolChoice::Named(name)) => json!({"type": "tool", "name": name}),
            (Shape::Gemini, ToolChoice::Required) => {
                json!({"functionCallingConfig": {"mode": "ANY"}})
            }
            (Shape::Gemini, ToolChoice::None) => json!({"functionCallingConfig": {"mode": "NONE"}}),
            (Shape::Gemini, ToolChoice::Named(name)) => {
                json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}})
            }
        };
        let key = if self.shape == Shape::Gemini {
            "toolConfig"
        } else {
            "tool_choice"
        };
        Some((key, value))
    }

    /// A plain text message from `role` (`user` or `assistant`) in the wire's shape.
    fn text_message(&self, role: &str, text: &str) -> Value {
        match self.shape {
            Shape::Gemini => {
                let role = if role == "assistant" { "model" } else { role };
                json!({"role": role, "parts": [{"text": text}]})
            }
            _ => json!({"role": role, "content": text}),
        }
    }

    /// A follow-up message in the wire's shape. The dialects' own messages
    /// already are; only the text dialect's `{role, content}` messages need
    /// rewriting for Gemini.
    fn adapt(&self, message: Value) -> Value {
        if self.shape != Shape::Gemini || message.get("parts").is_some() {
            return message;
        }
        let role = message
            .get("role")
            .and_then(Value::as_str)
            .unwrap_or("user");
        let text = message
            .get("content")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.text_message(role, text)
    }
}

fn insert_some(body: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(value) = value {
        body.insert(key.to_owned(), value);
    }
}
