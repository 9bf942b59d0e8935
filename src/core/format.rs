//! `WireFormat`: every dialect a tool call can arrive in, named once.
//!
//! The dialects are one table, [`for_each_format!`]: a row per dialect holds
//! its variant (with its doc), its name, its kind and recogniser, and whether
//! it is auto-detected and a core dialect. This module expands the rows into
//! [`WireFormat`] and its lists; `detect::recognisers` expands the same rows
//! into the detector's recognisers, in probing order. Adding a dialect is one
//! module in `detect/formats/` and one row here.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::unknown_name::UnknownNameError;

/// Passes the dialect table to `$callback!`, one row per dialect:
///
/// `Variant, "name" | "other-name"…, Kind(recogniser), auto: bool, core: bool;`
///
/// - `"name"` is the dialect's one spelling (kebab-case), its serde,
///   `Display` and `FromStr` name; the other names are parsed too (the
///   snake_case spellings, `open_ai_function` for `openai-function`).
/// - `Kind` is `Text` (calls written in the model's text), `Reasoning` (a
///   reasoning block in the text, not a call format) or `Structured` (calls
///   that arrive as provider deltas; no recogniser).
/// - `recogniser` is the path of the dialect's `TextFormat` below
///   `detect::formats` (tokens only: core names no detector type).
/// - `auto`: on by default, in auto-detection; `core`: one of the six core
///   text dialects.
///
/// Rows are in probing order: when two dialects could open at the same byte,
/// the earlier wins.
macro_rules! for_each_format {
    ($callback:ident) => {
        $callback! {
            /// Anthropic legacy `<function_calls><invoke name=..><parameter name=..>`.
            AnthropicInvoke, "anthropic-invoke" | "anthropic_invoke", Text(anthropic_invoke::AnthropicInvoke), auto: true, core: true;
            /// Qwen3-Coder `<tool_call><function=NAME><parameter=P>v</parameter></function></tool_call>`.
            Qwen3Coder, "qwen3-coder" | "qwen3_coder", Text(qwen3_coder::Qwen3Coder), auto: true, core: true;
            /// Hermes / Qwen 2.5 `<tool_call>{"name":..,"arguments":..}</tool_call>`.
            Hermes, "hermes", Text(hermes::Hermes), auto: true, core: true;
            /// GLM-4.5/4.6 `<tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>`.
            Glm45, "glm45", Text(glm::Glm45), auto: true, core: false;
            /// GLM-4.7/5 `<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>`.
            Glm47, "glm47", Text(glm::Glm47), auto: true, core: false;
            /// MiniMax-M2 `<minimax:tool_call><invoke name=..><parameter name=..>`.
            MinimaxM2, "minimax-m2" | "minimax_m2", Text(minimax_m2::MinimaxM2), auto: true, core: false;
            /// gpt-oss harmony (text form): channels, `to=functions.NAME` calls.
            Harmony, "harmony", Text(harmony::Harmony), auto: true, core: false;
            /// An OpenAI `{"tool_calls":[...]}` object written in text.
            OpenAiFunction, "openai-function" | "open_ai_function", Text(openai_function::OpenAiFunction), auto: true, core: true;
            // Before JsonToolUse: bare Llama JSON at message start has `name` first.
            /// Llama 3.x JSON: optional `<|python_tag|>`, then `{"name":..,"parameters":..}`.
            Llama3Json, "llama3-json" | "llama3_json", Text(llama3_json::Llama3Json), auto: true, core: false;
            /// A JSON `{"type":"tool_use",...}` object written in text.
            JsonToolUse, "json-tool-use" | "json_tool_use", Text(json_tool_use::JsonToolUse), auto: true, core: true;
            /// XML tag per tool: `<read_file><path>a.rs</path></read_file>` (Cline, Thea).
            Xml, "xml", Text(xml_tag::XmlTag), auto: true, core: true;
            /// DeepSeek V3/R1 `<｜tool▁calls▁begin｜>` with `function<｜tool▁sep｜>NAME` and a JSON fence.
            DeepSeekV3, "deepseek-v3" | "deepseek_v3", Text(deepseek::DeepSeekV3), auto: true, core: false;
            /// DeepSeek V3.1 `<｜tool▁calls▁begin｜>` with `NAME<｜tool▁sep｜>{..}`.
            DeepSeekV31, "deepseek-v31" | "deepseek_v31", Text(deepseek::DeepSeekV31), auto: true, core: false;
            /// DeepSeek V3.2/V4 DSML `<｜DSML｜function_calls>` / `<｜DSML｜tool_calls>`.
            DeepSeekDsml, "deepseek-dsml" | "deepseek_dsml", Text(deepseek_dsml::DeepSeekDsml), auto: true, core: false;
            /// Kimi K2 `<|tool_calls_section_begin|>` with `functions.NAME:IDX` ids.
            KimiK2, "kimi-k2" | "kimi_k2", Text(kimi_k2::KimiK2), auto: true, core: false;
            /// Step-3 `<｜tool_calls_begin｜>` with `<steptml:invoke>`.
            Step3, "step3", Text(step3::Step3), auto: true, core: false;
            /// Mistral `[TOOL_CALLS] [{..}]` (before v11) and `[TOOL_CALLS]NAME[ARGS]{..}` (v11+).
            Mistral, "mistral", Text(mistral::Mistral), auto: true, core: false;
            /// Granite `<|tool_call|>[{..}]` and `<tool_call>[{..}]`.
            Granite, "granite", Text(granite::Granite), auto: true, core: false;
            /// Jamba / Hunyuan-A13B `<tool_calls>[{..}]</tool_calls>`.
            JambaHunyuan, "jamba-hunyuan" | "jamba_hunyuan", Text(jamba_hunyuan::JambaHunyuan), auto: true, core: false;
            /// InternLM2 `<|action_start|><|plugin|>{..}<|action_end|>`.
            InternLm2, "internlm2", Text(internlm2::InternLm2), auto: true, core: false;
            /// LongCat-Flash `<longcat_tool_call>{..}</longcat_tool_call>`.
            LongCat, "longcat", Text(longcat::LongCat), auto: true, core: false;
            /// Phi-4-mini `functools[{..}]` (off by default: ambiguous).
            Phi4Mini, "phi4-mini" | "phi4_mini", Text(phi4_mini::Phi4Mini), auto: false, core: false;
            /// Cohere Command R7B / A `<|START_ACTION|>[{..}]<|END_ACTION|>`.
            Cohere, "cohere", Text(cohere::Cohere), auto: true, core: false;
            /// Reasoning markup `<think>…</think>` (not a call format: its content is `Reasoning`).
            Think, "think", Reasoning(think::Think), auto: true, core: false;
            // Olmo 3 after Anthropic legacy: both open with `<function_calls>`.
            /// Olmo 3 `<function_calls>f(a=1)</function_calls>`.
            Olmo3, "olmo3", Text(olmo3::Olmo3), auto: true, core: false;
            /// Pythonic call lists `[f(a=1), g()]` (Llama 3.2/4, `<|python_start|>`).
            Pythonic, "pythonic", Text(pythonic::Pythonic), auto: true, core: false;
            /// LFM2 `<|tool_call_start|>[f(a=1)]<|tool_call_end|>`.
            Lfm2, "lfm2", Text(lfm2::Lfm2), auto: true, core: false;
            /// Gemma 4 `<|tool_call>call:NAME{..}<tool_call|>`.
            Gemma4, "gemma4", Text(gemma4::Gemma4), auto: true, core: false;
            /// Structured OpenAI Chat Completions `tool_calls` deltas.
            OpenAiChat, "openai-chat" | "open_ai_chat", Structured(), auto: false, core: false;
            /// Structured OpenAI Responses `function_call` items.
            OpenAiResponses, "openai-responses" | "open_ai_responses", Structured(), auto: false, core: false;
            /// Structured Anthropic Messages `tool_use` blocks.
            Anthropic, "anthropic", Structured(), auto: false, core: false;
            /// Structured Gemini / Vertex `functionCall` parts.
            Gemini, "gemini", Structured(), auto: false, core: false;
            /// Structured Ollama `/api/chat` `tool_calls`.
            Ollama, "ollama", Structured(), auto: false, core: false;
            /// Structured Bedrock ConverseStream `toolUse` blocks.
            Bedrock, "bedrock", Structured(), auto: false, core: false;
        }
    };
}
pub(crate) use for_each_format;

/// What kind of dialect a [`WireFormat`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Calls written inside the model's text.
    Text,
    /// Reasoning markup in the text (not a call format).
    Reasoning,
    /// Calls that arrive as separate provider deltas.
    Structured,
}

/// A row's facts as `const` data, for the derived lists.
struct Row {
    format: WireFormat,
    auto: bool,
    core: bool,
}

/// A list derived from the table.
#[derive(Clone, Copy)]
enum List {
    /// The rows with `auto`.
    AutoDetected,
    /// The rows with `core`.
    Core,
}

impl Row {
    const fn is_in(&self, list: List) -> bool {
        match list {
            List::AutoDetected => self.auto,
            List::Core => self.core,
        }
    }
}

/// The number of rows in `list`.
const fn count(rows: &[Row], list: List) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < rows.len() {
        if rows[i].is_in(list) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The formats of the rows in `list`, in table order (`N` is their [`count`]).
const fn select<const N: usize>(rows: &[Row], list: List) -> [WireFormat; N] {
    let mut out = [WireFormat::Xml; N];
    let mut n = 0;
    let mut i = 0;
    while i < rows.len() {
        if rows[i].is_in(list) {
            out[n] = rows[i].format;
            n += 1;
        }
        i += 1;
    }
    out
}

macro_rules! wire_format {
    ($(
        $(#[$meta:meta])*
        $variant:ident, $name:literal $(| $alias:literal)*, $kind:ident($($recogniser:path)?), auto: $auto:literal, core: $core:literal;
    )*) => {
        /// The dialect a tool call was written in.
        ///
        /// Text formats are found inside the model's visible text by the streaming
        /// detector; structured formats arrive as separate provider deltas.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[non_exhaustive]
        pub enum WireFormat {
            $(
                $(#[$meta])*
                #[serde(rename = $name $(, alias = $alias)*)]
                $variant,
            )*
        }

        /// Every row's facts, in table order.
        const ROWS: &[Row] = &[$(Row { format: WireFormat::$variant, auto: $auto, core: $core },)*];

        impl WireFormat {
            /// Every format, in table order (text dialects in probing order,
            /// then the structured formats).
            pub const ALL: &'static [WireFormat] = &[$(WireFormat::$variant,)*];

            /// The name used on the command line and in JSON output (kebab-case:
            /// `qwen3-coder`, `openai-function`).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(WireFormat::$variant => $name,)*
                }
            }

            /// The other names this format is parsed from (its snake_case
            /// spelling, `qwen3_coder`); empty for a one-word name.
            pub fn aliases(self) -> &'static [&'static str] {
                match self {
                    $(WireFormat::$variant => &[$($alias),*],)*
                }
            }

            fn kind(self) -> Kind {
                match self {
                    $(WireFormat::$variant => Kind::$kind,)*
                }
            }
        }
    };
}

for_each_format!(wire_format);

impl WireFormat {
    /// The text formats a detector enables by default (auto-detection).
    pub(crate) const AUTO_DETECTED: &'static [WireFormat] =
        &select::<{ count(ROWS, List::AutoDetected) }>(ROWS, List::AutoDetected);

    /// The six core text dialects.
    pub(crate) const CORE_TEXT: &'static [WireFormat] =
        &select::<{ count(ROWS, List::Core) }>(ROWS, List::Core);

    /// Whether calls in this format are written inside the model's text.
    pub fn is_text_embedded(self) -> bool {
        self.kind() == Kind::Text
    }
}

impl fmt::Display for WireFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl WireFormat {
    /// Every name each of `formats` is parsed from, with its [`as_str`](Self::as_str)
    /// name: the pairs an [`UnknownNameError`] takes.
    pub fn names(
        formats: &[WireFormat],
    ) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        formats.iter().flat_map(|f| {
            std::iter::once(f.as_str())
                .chain(f.aliases().iter().copied())
                .map(|name| (name, f.as_str()))
        })
    }
}

impl FromStr for WireFormat {
    type Err = UnknownNameError;

    /// Parses a name or an alias, ASCII case ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        WireFormat::ALL
            .iter()
            .copied()
            .find(|f| {
                f.as_str().eq_ignore_ascii_case(s)
                    || f.aliases().iter().any(|a| a.eq_ignore_ascii_case(s))
            })
            .ok_or_else(|| {
                UnknownNameError::new("wire format", s, WireFormat::names(WireFormat::ALL))
            })
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
        let unknown = "nope".parse::<WireFormat>().expect_err("no such format");
        assert_eq!(unknown.name, "nope");
        assert_eq!(
            unknown.known,
            WireFormat::ALL
                .iter()
                .map(|f| f.as_str())
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn names_are_kebab_case_and_the_snake_case_ones_still_parse() {
        for &f in WireFormat::ALL {
            let name = f.as_str();
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{name}"
            );
            for alias in f.aliases() {
                assert_eq!(alias.parse::<WireFormat>(), Ok(f));
                let json = serde_json::Value::String((*alias).to_owned());
                assert_eq!(serde_json::from_value::<WireFormat>(json).ok(), Some(f));
            }
        }
        assert_eq!("qwen3_coder".parse(), Ok(WireFormat::Qwen3Coder));
        assert_eq!("open_ai_function".parse(), Ok(WireFormat::OpenAiFunction));
        assert_eq!("open_ai_chat".parse(), Ok(WireFormat::OpenAiChat));
        assert_eq!("Phi4-Mini".parse(), Ok(WireFormat::Phi4Mini));
        assert_eq!(WireFormat::OpenAiFunction.as_str(), "openai-function");
    }

    #[test]
    fn an_unknown_name_suggests_the_near_one() {
        let unknown = "qwen3-codr".parse::<WireFormat>().expect_err("a typo");
        assert_eq!(unknown.suggestions.first(), Some(&"qwen3-coder"));
    }
}
