//! `WireFormat`: every dialect a tool call can arrive in, named once.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The dialect a tool call was written in.
///
/// Text formats are found inside the model's visible text by the streaming
/// detector; structured formats arrive as separate provider deltas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WireFormat {
    /// XML tag per tool: `<read_file><path>a.rs</path></read_file>` (Cline, Thea).
    Xml,
    /// A JSON `{"type":"tool_use",...}` object written in text.
    JsonToolUse,
    /// An OpenAI `{"tool_calls":[...]}` object written in text.
    OpenAiFunction,
    /// Hermes / Qwen 2.5 `<tool_call>{"name":..,"arguments":..}</tool_call>`.
    Hermes,
    /// Qwen3-Coder `<tool_call><function=NAME><parameter=P>v</parameter></function></tool_call>`.
    Qwen3Coder,
    /// Anthropic legacy `<function_calls><invoke name=..><parameter name=..>`.
    AnthropicInvoke,
    /// Structured OpenAI Chat Completions `tool_calls` deltas.
    OpenAiChat,
    /// Structured OpenAI Responses `function_call` items.
    OpenAiResponses,
    /// Structured Anthropic Messages `tool_use` blocks.
    Anthropic,
    /// Structured Gemini / Vertex `functionCall` parts.
    Gemini,
    /// Structured Ollama `/api/chat` `tool_calls`.
    Ollama,
    /// Structured Bedrock ConverseStream `toolUse` blocks.
    Bedrock,
}

impl WireFormat {
    /// Every format, in declaration order.
    pub const ALL: &'static [WireFormat] = &[
        WireFormat::Xml,
        WireFormat::JsonToolUse,
        WireFormat::OpenAiFunction,
        WireFormat::Hermes,
        WireFormat::Qwen3Coder,
        WireFormat::AnthropicInvoke,
        WireFormat::OpenAiChat,
        WireFormat::OpenAiResponses,
        WireFormat::Anthropic,
        WireFormat::Gemini,
        WireFormat::Ollama,
        WireFormat::Bedrock,
    ];

    /// The stable snake_case name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            WireFormat::Xml => "xml",
            WireFormat::JsonToolUse => "json_tool_use",
            WireFormat::OpenAiFunction => "open_ai_function",
            WireFormat::Hermes => "hermes",
            WireFormat::Qwen3Coder => "qwen3_coder",
            WireFormat::AnthropicInvoke => "anthropic_invoke",
            WireFormat::OpenAiChat => "open_ai_chat",
            WireFormat::OpenAiResponses => "open_ai_responses",
            WireFormat::Anthropic => "anthropic",
            WireFormat::Gemini => "gemini",
            WireFormat::Ollama => "ollama",
            WireFormat::Bedrock => "bedrock",
        }
    }

    /// Whether calls in this format are written inside the model's text.
    pub fn is_text_embedded(self) -> bool {
        matches!(
            self,
            WireFormat::Xml
                | WireFormat::JsonToolUse
                | WireFormat::OpenAiFunction
                | WireFormat::Hermes
                | WireFormat::Qwen3Coder
                | WireFormat::AnthropicInvoke
        )
    }
}

impl fmt::Display for WireFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a [`WireFormat`] from a string that names none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown wire format `{0}`")]
pub struct UnknownFormat(pub String);

impl FromStr for WireFormat {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WireFormat::ALL
            .iter()
            .copied()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_from_str_and_serde() {
        for &f in WireFormat::ALL {
            assert_eq!(f.as_str().parse::<WireFormat>(), Ok(f));
            let json = serde_json::to_value(f).expect("serialize");
            assert_eq!(json, serde_json::Value::String(f.as_str().to_owned()));
        }
        assert_eq!(
            "nope".parse::<WireFormat>(),
            Err(UnknownFormat("nope".into()))
        );
    }
}
