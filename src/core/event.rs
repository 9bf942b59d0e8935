//! Events the streaming detector emits, and its diagnostics.

use compact_str::CompactString;
use serde::{Deserialize, Serialize};

use super::call::ToolCall;
use super::format::WireFormat;

/// One event of a detected stream.
///
/// For every call, events come as `CallStart`, zero or more `ArgsDelta`, then
/// `CallEnd`; the concatenated `ArgsDelta` fragments of a call are exactly the
/// JSON text of its final arguments.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DetectEvent {
    /// Visible text, released once it can no longer open a call.
    Text {
        /// The text.
        text: CompactString,
    },
    /// Reasoning ("thinking") text, never part of the visible text.
    Reasoning {
        /// The text.
        text: CompactString,
    },
    /// A call has begun and its name is known.
    CallStart {
        /// The call's position among this stream's calls, from 0.
        index: usize,
        /// The call id (the model's own, or generated).
        id: String,
        /// The tool name.
        name: String,
        /// The dialect.
        format: WireFormat,
    },
    /// More of a call's arguments JSON text.
    ArgsDelta {
        /// The call's index.
        index: usize,
        /// The next piece of the arguments JSON.
        fragment: CompactString,
    },
    /// A call is complete.
    CallEnd {
        /// The call's index.
        index: usize,
        /// The finished call (boxed: it is much larger than the other events,
        /// and every event of a stream is the size of the largest).
        call: Box<ToolCall>,
    },
    /// Markup that did not become a call; its raw text was given back as `Text`.
    Malformed {
        /// What went wrong.
        diagnostic: Diagnostic,
    },
}

/// Why some markup did not become a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The markup names a tool that is not registered.
    UnknownTool,
    /// The stream ended before the call was complete.
    Unfinished,
    /// The markup is not valid in its format (bad JSON, wrong structure).
    Invalid,
    /// A configured limit (call size, nesting) was exceeded.
    LimitExceeded,
}

/// A diagnostic for markup that was given back as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// The kind of problem.
    pub kind: DiagnosticKind,
    /// The format the markup looked like.
    pub format: WireFormat,
    /// The tool name, when one was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A human-readable explanation.
    pub message: String,
    /// The raw markup, exactly as it appears in the returned text.
    pub raw: String,
}
