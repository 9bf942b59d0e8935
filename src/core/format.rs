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
    /// Mistral `[TOOL_CALLS] [{..}]` (before v11) and `[TOOL_CALLS]NAME[ARGS]{..}` (v11+).
    Mistral,
    /// Llama 3.x JSON: optional `<|python_tag|>`, then `{"name":..,"parameters":..}`.
    Llama3Json,
    /// Pythonic call lists `[f(a=1), g()]` (Llama 3.2/4, `<|python_start|>`).
    Pythonic,
    /// LFM2 `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
    Lfm2,
    /// Olmo 3 `<function_calls>f(a=1)</function_calls>`.
    Olmo3,
    /// DeepSeek V3/R1 `<｜tool▁calls▁begin｜>` with `function<｜tool▁sep｜>NAME` and a JSON fence.
    #[serde(rename = "deepseek_v3")]
    DeepSeekV3,
    /// DeepSeek V3.1 `<｜tool▁calls▁begin｜>` with `NAME<｜tool▁sep｜>{..}`.
    #[serde(rename = "deepseek_v31")]
    DeepSeekV31,
    /// DeepSeek V3.2/V4 DSML `<｜DSML｜function_calls>` / `<｜DSML｜tool_calls>`.
    #[serde(rename = "deepseek_dsml")]
    DeepSeekDsml,
    /// Kimi K2 `<|tool_calls_section_begin|>` with `functions.NAME:IDX` ids.
    KimiK2,
    /// GLM-4.5/4.6 `<tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>`.
    Glm45,
    /// GLM-4.7/5 `<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>`.
    Glm47,
    /// MiniMax-M2 `<minimax:tool_call><invoke name=..><parameter name=..>`.
    MinimaxM2,
    /// gpt-oss harmony (text form): channels, `to=functions.NAME` calls.
    Harmony,
    /// Step-3 `<｜tool_calls_begin｜>` with `<steptml:invoke>`.
    Step3,
    /// InternLM2 `<|action_start|><|plugin|>{..}<|action_end|>`.
    #[serde(rename = "internlm2")]
    InternLm2,
    /// Jamba / Hunyuan-A13B `<tool_calls>[{..}]</tool_calls>`.
    JambaHunyuan,
    /// Granite `<|tool_call|>[{..}]` and `<tool_call>[{..}]`.
    Granite,
    /// Phi-4-mini `functools[{..}]` (off by default: ambiguous).
    Phi4Mini,
    /// Cohere Command R7B / A `<|START_ACTION|>[{..}]<|END_ACTION|>`.
    Cohere,
    /// Gemma 4 `<|tool_call>call:NAME{..}<tool_call|>`.
    Gemma4,
    /// LongCat-Flash `<longcat_tool_call>{..}</longcat_tool_call>`.
    #[serde(rename = "longcat")]
    LongCat,
    /// Reasoning markup `<think>…</think>` (not a call format: its content is `Reasoning`).
    Think,
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
        WireFormat::Mistral,
        WireFormat::Llama3Json,
        WireFormat::Pythonic,
        WireFormat::Lfm2,
        WireFormat::Olmo3,
        WireFormat::DeepSeekV3,
        WireFormat::DeepSeekV31,
        WireFormat::DeepSeekDsml,
        WireFormat::KimiK2,
        WireFormat::Glm45,
        WireFormat::Glm47,
        WireFormat::MinimaxM2,
        WireFormat::Harmony,
        WireFormat::Step3,
        WireFormat::InternLm2,
        WireFormat::JambaHunyuan,
        WireFormat::Granite,
        WireFormat::Phi4Mini,
        WireFormat::Cohere,
        WireFormat::Gemma4,
        WireFormat::LongCat,
        WireFormat::Think,
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
            WireFormat::Mistral => "mistral",
            WireFormat::Llama3Json => "llama3_json",
            WireFormat::Pythonic => "pythonic",
            WireFormat::Lfm2 => "lfm2",
            WireFormat::Olmo3 => "olmo3",
            WireFormat::DeepSeekV3 => "deepseek_v3",
            WireFormat::DeepSeekV31 => "deepseek_v31",
            WireFormat::DeepSeekDsml => "deepseek_dsml",
            WireFormat::KimiK2 => "kimi_k2",
            WireFormat::Glm45 => "glm45",
            WireFormat::Glm47 => "glm47",
            WireFormat::MinimaxM2 => "minimax_m2",
            WireFormat::Harmony => "harmony",
            WireFormat::Step3 => "step3",
            WireFormat::InternLm2 => "internlm2",
            WireFormat::JambaHunyuan => "jamba_hunyuan",
            WireFormat::Granite => "granite",
            WireFormat::Phi4Mini => "phi4_mini",
            WireFormat::Cohere => "cohere",
            WireFormat::Gemma4 => "gemma4",
            WireFormat::LongCat => "longcat",
            WireFormat::Think => "think",
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
                | WireFormat::Mistral
                | WireFormat::Llama3Json
                | WireFormat::Pythonic
                | WireFormat::Lfm2
                | WireFormat::Olmo3
                | WireFormat::DeepSeekV3
                | WireFormat::DeepSeekV31
                | WireFormat::DeepSeekDsml
                | WireFormat::KimiK2
                | WireFormat::Glm45
                | WireFormat::Glm47
                | WireFormat::MinimaxM2
                | WireFormat::Harmony
                | WireFormat::Step3
                | WireFormat::InternLm2
                | WireFormat::JambaHunyuan
                | WireFormat::Granite
                | WireFormat::Phi4Mini
                | WireFormat::Cohere
                | WireFormat::Gemma4
                | WireFormat::LongCat
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
