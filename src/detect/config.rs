//! `DetectConfig`: which dialects a detector looks for, and its limits.

use crate::core::WireFormat;

/// The longest look-ahead a start marker may need before it is decided
/// (marker, whitespace, tool name). Longer undecided look-aheads are text.
pub(crate) const MAX_PROBE_BYTES: usize = 256;

/// Whitespace allowed between a closing value tag and the structural tag that
/// confirms it (longer runs mean the closing tag was part of the value).
pub(crate) const MAX_TAG_GAP: usize = 64;

/// The six core text dialects: tag-per-tool XML, JSON envelopes,
/// Hermes, Qwen3-Coder and Anthropic legacy.
pub const CORE_TEXT_FORMATS: &[WireFormat] = WireFormat::CORE_TEXT;

/// The text formats a detector enables by default: every dialect except the
/// ones whose start marker is too ambiguous for auto-detection (Phi-4-mini's
/// `functools[`), which a stream or provider profile selects explicitly.
/// `Think` recognises `<think>` reasoning at the start of the message.
pub const DEFAULT_TEXT_FORMATS: &[WireFormat] = WireFormat::AUTO_DETECTED;

/// Configuration of a [`super::StreamDetector`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectConfig {
    /// The text formats to recognise (auto-detection over all of them at once).
    pub formats: Vec<WireFormat>,
    /// The largest call region, in bytes; a larger one is given back as text
    /// with a `LimitExceeded` diagnostic. The router bounds structured arguments by it too.
    pub max_call_bytes: usize,
    /// Record the byte ranges of call regions (see
    /// [`super::StreamDetector::call_regions`]); off by default.
    pub record_regions: bool,
    /// The output begins inside a reasoning block the prompt opened (DeepSeek
    /// R1 and V3.1+ in thinking mode, MiniMax-M2): everything up to the first
    /// `</think>` is reasoning. Off by default; provider profiles set it.
    pub start_in_reasoning: bool,
    /// Recognise a `<think>` block anywhere, not only at the start of the
    /// message (models that interleave reasoning with calls). Off by default:
    /// mid-stream, models discuss the tag.
    pub reasoning_anywhere: bool,
    /// Decode XML's five predefined entities (`&amp;`, `&lt;`, `&gt;`,
    /// `&quot;`, `&apos;`) in the values of the tag-per-tool XML dialect
    /// ([`WireFormat::Xml`]): the form in which `--text-tools` writes values
    /// and teaches the model to write them, so that no value can open or
    /// close a tag. Any other `&` stays as written. Off by default: Cline-style
    /// models write values raw, and the other XML dialects are never decoded.
    pub xml_entities: bool,
}

impl Default for DetectConfig {
    fn default() -> Self {
        Self {
            formats: DEFAULT_TEXT_FORMATS.to_vec(),
            max_call_bytes: 16 * 1024 * 1024,
            record_regions: false,
            start_in_reasoning: false,
            reasoning_anywhere: false,
            xml_entities: false,
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

    /// The default formats plus `extra` (e.g. a provider profile's dialects
    /// that are off by default).
    pub fn with_formats(mut self, extra: impl IntoIterator<Item = WireFormat>) -> Self {
        for f in extra {
            if !self.formats.contains(&f) {
                self.formats.push(f);
            }
        }
        self
    }

    /// The output begins inside a reasoning block (see
    /// [`DetectConfig::start_in_reasoning`]).
    pub fn starting_in_reasoning(mut self) -> Self {
        self.start_in_reasoning = true;
        self
    }

    /// Decodes XML entities in the XML tag dialect's values (see
    /// [`DetectConfig::xml_entities`]).
    pub fn with_xml_entities(mut self) -> Self {
        self.xml_entities = true;
        self
    }

    /// Records call region ranges.
    pub fn with_regions(mut self) -> Self {
        self.record_regions = true;
        self
    }
}
