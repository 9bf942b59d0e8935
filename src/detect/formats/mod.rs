//! The text dialects, one module each.
//!
//! To add a dialect: write a module with a `TextFormat` (probe) and its
//! `CallParser`, then add one row to the dialect table (`for_each_format!` in
//! `core/format.rs`), which the detector's recognisers (`recognisers.rs`) are
//! expanded from.

pub(crate) mod anthropic_invoke;
pub(crate) mod cohere;
pub(crate) mod deepseek;
pub(crate) mod deepseek_dsml;
pub(crate) mod fenced;
pub(crate) mod framing;
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
