//! The detector options `route`, `chat` and `parse` share: extra dialects and
//! where reasoning starts.

use clap::Args;
use toolrouter::DetectConfig;
use toolrouter::WireFormat;

/// Detector options.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct DetectArgs {
    /// Also recognise this text dialect (repeatable), e.g. `phi4_mini`, which is
    /// off by default because its marker is ambiguous. A provider profile's
    /// dialects are added on their own.
    #[arg(long = "text-format", value_name = "NAME")]
    pub(crate) dialects: Vec<String>,
    /// The output starts inside a reasoning block the prompt opened (DeepSeek R1,
    /// V3.1+ thinking mode, MiniMax-M2): text up to the first `</think>` is reasoning.
    #[arg(long)]
    pub(crate) start_in_reasoning: bool,
    /// Recognise `<think>` blocks anywhere, not only at the start of the message.
    #[arg(long)]
    pub(crate) reasoning_anywhere: bool,
    /// The most bytes one call (its markup, or a structured call's arguments)
    /// may take; a call over it is never run. Default: 16 MiB.
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_call_bytes: Option<usize>,
}

impl DetectArgs {
    /// The detector configuration: `base`, the profile's dialects, these options.
    pub(crate) fn config(
        &self,
        base: DetectConfig,
        profile_formats: &[String],
    ) -> Result<DetectConfig, String> {
        let mut extra = Vec::new();
        for name in profile_formats {
            // A profile naming a dialect this build does not read is not fatal.
            match parse_text_format(name) {
                Ok(format) => extra.push(format),
                Err(e) => tracing::warn!("provider profile: {e}"),
            }
        }
        for name in &self.dialects {
            extra.push(parse_text_format(name)?);
        }
        let mut config = base.with_formats(extra);
        config.start_in_reasoning |= self.start_in_reasoning;
        config.reasoning_anywhere |= self.reasoning_anywhere;
        if let Some(max) = self.max_call_bytes {
            config = config.with_max_call_bytes(max);
        }
        Ok(config)
    }
}

/// A text dialect the detector reads, by name.
pub(crate) fn parse_text_format(name: &str) -> Result<WireFormat, String> {
    let format: WireFormat = name.parse().map_err(|e| format!("{e}"))?;
    if !toolrouter::text_formats().contains(&format) {
        return Err(format!(
            "`{format}` is not a text format the detector reads"
        ));
    }
    Ok(format)
}
