//! The text dialects, one module each, and the registry that enables them.
//!
//! To add a dialect: write a module with a `TextFormat` (probe) and its
//! `CallParser`, then add one row to the dialect table (`for_each_format!` in
//! `core/format.rs`), which [`REGISTRY`] is expanded from.

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

use crate::core::{WireFormat, for_each_format};

use super::format::TextFormat;

/// A dialect's recogniser and the format its calls report.
#[derive(Clone, Copy)]
pub(crate) struct Recogniser {
    /// The dialect.
    pub(crate) format: WireFormat,
    /// Its probe.
    pub(crate) text: &'static dyn TextFormat,
}

/// Expands the dialect table's rows that have a recogniser into [`REGISTRY`].
macro_rules! registry {
    ($(
        $(#[$meta:meta])*
        $variant:ident, $name:literal, $kind:ident($($recogniser:path)?), auto: $auto:literal, core: $core:literal;
    )*) => {
        /// Every text dialect's recogniser, in the table's (probing) order:
        /// when two could open at the same byte, the earlier wins.
        pub(crate) static REGISTRY: &[Recogniser] = &[
            $($(Recogniser { format: WireFormat::$variant, text: &$recogniser },)?)*
        ];
    };
}

for_each_format!(registry);

/// The text formats the detector knows.
pub fn text_formats() -> Vec<WireFormat> {
    REGISTRY.iter().map(|r| r.format).collect()
}
