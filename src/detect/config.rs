//! `DetectConfig`: which dialects a detector looks for, and its limits.

use crate::core::WireFormat;

/// The longest look-ahead a start marker may need before it is decided
/// (marker, whitespace, tool name). Longer undecided look-aheads are text.
pub(crate) const MAX_PROBE_BYTES: usize = 256;

/// Whitespace allowed between a closing value tag and the structural tag that
/// confirms it (longer runs mean the closing tag was part of the value).
pub(crate) const MAX_TAG_GAP: usize = 64;

/// The text formats a detector enables by default: all six core dialects.
pub const CORE_TEXT_FORMATS: &[WireFormat] = &[
    WireFormat::Xml,
    WireFormat::JsonToolUse,
    WireFormat::OpenAiFunction,
    WireFormat::Hermes,
    WireFormat::Qwen3Coder,
    WireFormat::AnthropicInvoke,
];

/// Configuration of a [`super::StreamDetector`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectConfig {
    /// The text formats to recognise (auto-detection over all of them at once).
    pub formats: Vec<WireFormat>,
    /// The largest call region, in bytes; a larger one is given back as text
    /// with a `LimitExceeded` diagnostic. Also bounds structured arguments.
    pub max_call_bytes: usize,
    /// Record the byte ranges of call regions (see
    /// [`super::StreamDetector::call_regions`]); off by default.
    pub record_regions: bool,
}

impl Default for DetectConfig {
    fn default() -> Self {
        Self {
            formats: CORE_TEXT_FORMATS.to_vec(),
            max_call_bytes: 16 * 1024 * 1024,
            record_regions: false,
        }
    }
}

impl DetectConfig {
    /// Only one text format.
    pub fn only(format: WireFormat) -> Self {
        Self {
            formats: vec![format],
            ..Self::default()
        }
    }

    /// Sets the call size limit.
    pub fn with_max_call_bytes(mut self, max: usize) -> Self {
        self.max_call_bytes = max;
        self
    }

    /// Records call region ranges.
    pub fn with_regions(mut self) -> Self {
        self.record_regions = true;
        self
    }
}
