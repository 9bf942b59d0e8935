//! Reasoning markup `<think>…</think>` (DeepSeek R1, Qwen3, GLM, Kimi, MiniMax,
//! Olmo, Hunyuan, LongCat, …): its content is `Reasoning`, never text or calls.
//!
//! Recognised at the start of the message (only whitespace or other regions
//! before it), or anywhere with [`DetectConfig::reasoning_anywhere`]: mid-text,
//! models discuss the tag. A block the prompt opened is configured with
//! [`DetectConfig::start_in_reasoning`].
//!
//! [`DetectConfig::reasoning_anywhere`]: crate::detect::DetectConfig::reasoning_anywhere
//! [`DetectConfig::start_in_reasoning`]: crate::detect::DetectConfig::start_in_reasoning

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::reasoning::ReasoningParser;
use super::super::scan::starts;

const OPEN: &str = "<think>";
/// The closing tag.
pub(crate) const CLOSE: &str = "</think>";

/// The `<think>` reasoning block.
pub(crate) struct Think;

impl TextFormat for Think {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        if !cx.at_start && !cx.config.reasoning_anywhere {
            return Probe::NoMatch;
        }
        match starts(input.as_bytes(), OPEN.as_bytes()) {
            Some(true) => Probe::Match(Box::new(ReasoningParser::new(OPEN.len(), CLOSE))),
            Some(false) => Probe::NoMatch,
            None => cx.need_more(),
        }
    }
}
