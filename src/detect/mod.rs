//! The streaming tool-call detector.
//!
//! [`StreamDetector`] is fed text deltas and emits [`crate::DetectEvent`]s: visible
//! text, calls (start, argument deltas, end) and diagnostics, in every enabled
//! dialect at once. [`DetectConfig`] selects dialects and limits. Each dialect
//! is a module under `formats/` behind one trait; see `docs/formats.md`.

mod batch;
mod config;
mod detector;
mod event_ref;
mod format;
mod formats;
mod json_call;
mod json_list;
mod json_tokenizer;
mod json_value;
mod output;
mod py_call;
mod py_literal;
mod reasoning;
mod recognisers;
mod resync;
mod scan;
mod section_call;
mod sink;
mod table;
mod xml_call;
mod xml_syntax;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

pub use batch::{EventBatch, EventIter};
pub use config::{CORE_TEXT_FORMATS, DEFAULT_TEXT_FORMATS, DetectConfig};
pub use detector::{StreamDetector, detect_all};
pub use event_ref::EventRef;
pub use json_value::parse_arguments;
pub use output::EventOutput;
pub use recognisers::text_formats;
