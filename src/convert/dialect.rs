//! `Dialect`: the provider dialects a conversation can be answered in, and one
//! entry point per conversion direction that dispatches to the dialect modules.

use std::fmt;
use std::str::FromStr;

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Value, json};
use toolrouter_providers::Wire;

use super::note::Declarations;
use super::{anthropic, bedrock, gemini, ollama, openai_chat, openai_responses, xml_text};
use crate::core::{ToolCall, UnknownNameError, WireFormat};

/// A provider dialect of tool declarations, calls and results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Dialect {
    /// OpenAI Chat Completions.
    OpenAiChat,
    /// OpenAI Responses.
    OpenAiResponses,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini / Vertex AI `generateContent`.
    Gemini,
    /// Amazon Bedrock Converse.
    Bedrock,
    /// Ollama `/api/chat`.
    Ollama,
    /// Text-only endpoints: the XML tag format taught in the system prompt.
    XmlText,
}

impl Dialect {
    /// Every dialect, in declaration order.
    pub const ALL: &'static [Dialect] = &[
        Dialect::OpenAiChat,
        Dialect::OpenAiResponses,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Bedrock,
        Dialect::Ollama,
        Dialect::XmlText,
    ];

    /// The name (kebab-case, the same as [`WireFormat`]'s and the providers'
    /// `Wire`'s where they overlap: `openai-chat`).
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::OpenAiChat => "openai-chat",
            Dialect::OpenAiResponses => "openai-responses",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
            Dialect::Bedrock => "bedrock",
            Dialect::Ollama => "ollama",
            Dialect::XmlText => "xml-text",
        }
    }

    /// The other names this dialect is parsed from (its snake_case spelling,
    /// `open_ai_chat`); empty for a one-word name.
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Dialect::OpenAiChat => &["open_ai_chat"],
            Dialect::OpenAiResponses => &["open_ai_responses"],
            Dialect::XmlText => &["xml_text"],
            Dialect::Anthropic | Dialect::Gemini | Dialect::Bedrock | Dialect::Ollama => &[],
        }
    }

    /// Every name each dialect is parsed from, with its [`as_str`](Self::as_str)
    /// name: the pairs an [`UnknownNameError`] takes.
    pub fn names() -> impl Iterator<Item = (&'static str, &'static str)> {
        Dialect::ALL.iter().flat_map(|d| {
            std::iter::once(d.as_str())
                .chain(d.aliases().iter().copied())
                .map(|name| (name, d.as_str()))
        })
    }

    /// The dialect to answer a call found in `format` in: a structured format's
    /// own provider, and [`Dialect::XmlText`] for every text-embedded format.
    pub fn for_format(format: WireFormat) -> Dialect {
        match format {
            WireFormat::OpenAiChat => Dialect::OpenAiChat,
            WireFormat::OpenAiResponses => Dialect::OpenAiResponses,
            WireFormat::Anthropic => Dialect::Anthropic,
            WireFormat::Gemini => Dialect::Gemini,
            WireFormat::Bedrock => Dialect::Bedrock,
            WireFormat::Ollama => Dialect::Ollama,
            _ => Dialect::XmlText,
        }
    }

    /// The dialect of a provider's wire: the one its requests, calls and results
    /// are written in.
    pub fn for_wire(wire: Wire) -> Dialect {
        match wire {
            Wire::OpenAiChat => Dialect::OpenAiChat,
            Wire::OpenAiResponses => Dialect::OpenAiResponses,
            Wire::Anthropic => Dialect::Anthropic,
            Wire::Gemini => Dialect::Gemini,
            Wire::Ollama => Dialect::Ollama,
            Wire::Bedrock => Dialect::Bedrock,
            // `Wire` is non-exhaustive; a new wire speaks OpenAI Chat until it
            // gets a dialect of its own.
            _ => Dialect::OpenAiChat,
        }
    }

    /// The structured call format a wire's calls are reported in.
    pub fn format_for_wire(wire: Wire) -> WireFormat {
        match Dialect::for_wire(wire) {
            Dialect::OpenAiResponses => WireFormat::OpenAiResponses,
            Dialect::Anthropic => WireFormat::Anthropic,
            Dialect::Gemini => WireFormat::Gemini,
            Dialect::Ollama => WireFormat::Ollama,
            Dialect::Bedrock => WireFormat::Bedrock,
            Dialect::OpenAiChat | Dialect::XmlText => WireFormat::OpenAiChat,
        }
    }

    /// The tool declarations: the `tools` array for every dialect (Gemini's
    /// holds one `functionDeclarations` entry), the system-prompt section as a
    /// JSON string for [`Dialect::XmlText`].
    pub fn declare(self, tools: &[Tool]) -> Declarations {
        let value = match self {
            Dialect::OpenAiChat => openai_chat::tools(tools),
            Dialect::OpenAiResponses => openai_responses::tools(tools),
            Dialect::Anthropic => anthropic::tools(tools),
            Dialect::Gemini => return gemini::tools(tools),
            Dialect::Bedrock => bedrock::tools(tools),
            Dialect::Ollama => ollama::tools(tools),
            Dialect::XmlText => {
                let (prompt, notes) = xml_text::system_prompt_noted(tools);
                return Declarations {
                    value: Value::String(prompt),
                    notes,
                };
            }
        };
        Declarations {
            value,
            notes: Vec::new(),
        }
    }

    /// The tool declarations in OpenAI strict mode, for the two OpenAI dialects:
    /// each function gets `"strict": true` and its schema rewritten (every
    /// object closed, every property required, optional ones nullable; see
    /// [`restore_optional_nulls`](crate::restore_optional_nulls) for the calls
    /// that come back), and a tool strict mode cannot express keeps its plain
    /// schema with `"strict": false` and a [`ConversionNote`](crate::ConversionNote).
    /// Every other dialect has no strict mode: its declarations are
    /// [`declare`](Self::declare)'s.
    pub fn declare_strict(self, tools: &[Tool]) -> Declarations {
        match self {
            Dialect::OpenAiChat => openai_chat::strict_tools(tools),
            Dialect::OpenAiResponses => openai_responses::strict_tools(tools),
            _ => self.declare(tools),
        }
    }

    /// The declarations in the dialect's legacy form, where it has one: OpenAI
    /// Chat's `functions` request field (`[{name, description, parameters}]`,
    /// before `tools`). `None` for every other dialect.
    pub fn declare_legacy(self, tools: &[Tool]) -> Option<Declarations> {
        match self {
            Dialect::OpenAiChat => Some(Declarations {
                value: openai_chat::functions(tools),
                notes: Vec::new(),
            }),
            _ => None,
        }
    }

    /// The assistant's turn that carried `calls` after `text`, as the messages
    /// (or Responses input items) to replay before the results.
    pub fn assistant_turn(self, text: &str, calls: &[ToolCall]) -> Vec<Value> {
        match self {
            Dialect::OpenAiChat => vec![openai_chat::assistant_message(text, calls)],
            Dialect::OpenAiResponses => openai_responses::assistant_items(text, calls),
            Dialect::Anthropic => vec![anthropic::assistant_message(text, calls)],
            Dialect::Gemini => vec![gemini::model_content(text, calls)],
            Dialect::Bedrock => vec![bedrock::assistant_message(text, calls)],
            Dialect::Ollama => vec![ollama::assistant_message(text, calls)],
            Dialect::XmlText => vec![json!({
                "role": "assistant",
                "content": xml_text::assistant_text(text, calls),
            })],
        }
    }

    /// The messages (or Responses input items) that carry the results, in call
    /// order: one message per result where the dialect answers each call on its
    /// own (OpenAI Chat, Ollama, Responses items), else one `user` message
    /// holding all of them. No results give no messages.
    pub fn result_messages(self, results: &[(&ToolCall, &CallToolResult)]) -> Vec<Value> {
        if results.is_empty() {
            return Vec::new();
        }
        let each = |f: fn(&ToolCall, &CallToolResult) -> Value| -> Vec<Value> {
            results.iter().map(|(c, r)| f(c, r)).collect()
        };
        match self {
            Dialect::OpenAiChat => each(openai_chat::tool_message),
            Dialect::OpenAiResponses => each(openai_responses::function_call_output),
            Dialect::Ollama => each(ollama::tool_message),
            Dialect::Anthropic => {
                vec![json!({"role": "user", "content": each(anthropic::tool_result_block)})]
            }
            Dialect::Bedrock => {
                vec![json!({"role": "user", "content": each(bedrock::tool_result_block)})]
            }
            Dialect::Gemini => {
                vec![json!({"role": "user", "parts": each(gemini::function_response_part)})]
            }
            Dialect::XmlText => {
                let texts: Vec<String> = results
                    .iter()
                    .map(|(c, r)| xml_text::result_text(c, r))
                    .collect();
                vec![json!({"role": "user", "content": texts.join("\n\n")})]
            }
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = UnknownNameError;

    /// Parses a name or an alias, ASCII case ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| {
                d.as_str().eq_ignore_ascii_case(s)
                    || d.aliases().iter().any(|a| a.eq_ignore_ascii_case(s))
            })
            .ok_or_else(|| UnknownNameError::new("dialect", s, Dialect::names()))
    }
}

impl From<Wire> for Dialect {
    fn from(wire: Wire) -> Self {
        Dialect::for_wire(wire)
    }
}
