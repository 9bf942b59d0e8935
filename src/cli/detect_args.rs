//! The detector options `route`, `chat`, `parse` and `proxy` share: extra
//! dialects, where reasoning starts, the size of a call.

use clap::Args;
use toolrouter::DetectConfig;
use toolrouter::WireFormat;

use super::names::TEXT_FORMAT;
use super::size::{parse_size, show_size};

/// Detector options.
#[derive(Debug, Clone, Args)]
pub(crate) struct DetectArgs {
    /// Also recognise this text dialect (repeatable), e.g. `phi4-mini`, which is
    /// off by default because its marker is ambiguous. A provider profile's
    /// dialects are added on their own.
    #[arg(long = "text-format", value_name = "NAME", value_parser = TEXT_FORMAT)]
    pub(crate) dialects: Vec<WireFormat>,
    /// The output starts inside a reasoning block the prompt opened (DeepSeek R1,
    /// V3.1+ thinking mode, MiniMax-M2): text up to the first `</think>` is reasoning.
    #[arg(long)]
    pub(crate) start_in_reasoning: bool,
    /// Recognise `<think>` blocks anywhere, not only at the start of the message.
    #[arg(long)]
    pub(crate) reasoning_anywhere: bool,
    /// The most bytes one call (its markup, or a structured call's arguments)
    /// may take; a call over it is never run.
    #[arg(long, value_name = "SIZE", value_parser = parse_size::<usize>,
          default_value = show_size(DetectConfig::default().max_call_bytes))]
    pub(crate) max_call_bytes: usize,
}

impl DetectArgs {
    /// The detector configuration: `base`, the profile's dialects, these options.
    pub(crate) fn config(
        &self,
        base: DetectConfig,
        profile_formats: &[String],
    ) -> Result<DetectConfig, String> {
        let readable = toolrouter::text_formats();
        let mut extra = Vec::new();
        for name in profile_formats {
            // A profile naming a dialect this build does not read is not fatal.
            match name.parse::<WireFormat>() {
                Ok(format) if readable.contains(&format) => extra.push(format),
                Ok(format) => tracing::warn!("provider profile: `{format}` is not a text format"),
                Err(e) => tracing::warn!("provider profile: {e}"),
            }
        }
        extra.extend_from_slice(&self.dialects);
        let mut config = base
            .with_formats(extra)
            .with_max_call_bytes(self.max_call_bytes);
        config.start_in_reasoning |= self.start_in_reasoning;
        config.reasoning_anywhere |= self.reasoning_anywhere;
        Ok(config)
    }
}
