//! The text dialects, one module each, and the registry that enables them.
//!
//! To add a dialect: write a module with a `TextFormat` (probe) and its
//! `CallParser`, then add one line to [`registry`].

pub(crate) mod anthropic_invoke;
pub(crate) mod cohere;
pub(crate) mod deepseek;
pub(crate) mod deepseek_dsml;
pub(crate) mod fenced;
pub(crate) mod gemma4;
pub(crate) mod glm;
pub(crate) mod granite;
pub(crate) mod harmony;
pub(crate) mod hermes;
pub(crate) mod internlm2;
pub(crate) mod jamba_hunyuan;
pub(crate) mod json_tool_use;
pub(crate) mod kept;
pub(crate) mod kimi_k2;
pub(crate) mod lfm2;
pub(crate) mod llama3_json;
pub(crate) mod longcat;
pub(crate) mod minimax_m2;
pub(crate) mod mistral;
pub(crate) mod olmo3;
pub(crate) mod openai_function;
pub(crate) mod phi4_mini;
pub(crate) mod pythonic;
pub(crate) mod qwen3_coder;
pub(crate) mod step3;
pub(crate) mod think;
pub(crate) mod xml_tag;

use crate::core::WireFormat;

use super::format::TextFormat;

/// Every text dialect, in probing order: when two could open at the same byte,
/// the earlier wins.
fn registry() -> &'static [&'static dyn TextFormat] {
    &[
        &anthropic_invoke::AnthropicInvoke,
        &qwen3_coder::Qwen3Coder,
        &hermes::Hermes,
        &glm::Glm45,
        &glm::Glm47,
        &minimax_m2::MinimaxM2,
        &harmony::Harmony,
        &openai_function::OpenAiFunction,
        // Before JsonToolUse: bare Llama JSON at message start has `name` first.
        &llama3_json::Llama3Json,
        &json_tool_use::JsonToolUse,
        &xml_tag::XmlTag,
        &deepseek::DeepSeekV3,
        &deepseek::DeepSeekV31,
        &deepseek_dsml::DeepSeekDsml,
        &kimi_k2::KimiK2,
        &step3::Step3,
        &mistral::Mistral,
        &granite::Granite,
        &jamba_hunyuan::JambaHunyuan,
        &internlm2::InternLm2,
        &longcat::LongCat,
        &phi4_mini::Phi4Mini,
        &cohere::Cohere,
        &think::Think,
        // Olmo 3 after Anthropic legacy: both open with `<function_calls>`.
        &olmo3::Olmo3,
        &pythonic::Pythonic,
        &lfm2::Lfm2,
        &gemma4::Gemma4,
    ]
}

/// The registered dialects among `formats`, in probing order.
pub(crate) fn enabled(formats: &[WireFormat]) -> Vec<&'static dyn TextFormat> {
    registry()
        .iter()
        .copied()
        .filter(|f| formats.contains(&f.format()))
        .collect()
}

/// The text formats the detector knows.
pub fn text_formats() -> Vec<WireFormat> {
    registry().iter().map(|f| f.format()).collect()
}
