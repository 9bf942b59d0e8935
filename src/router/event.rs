//! `RouteEvent`: one step of a routed turn, whatever the provider.

use compact_str::CompactString;
use rmcp::model::CallToolResult;
use serde::Serialize;
use toolrouter_providers::{ErrorKind, PartialCall, StopReason, Usage};

use crate::core::DetectEvent;

/// One event of a routed turn.
///
/// Text and calls come as [`RouteEvent::Detect`]: a call is `CallStart`,
/// `ArgsDelta`s and `CallEnd` (or a `Malformed` diagnostic when it does not
/// complete), whether the provider sent it as structured deltas or the model
/// wrote it into its text. A finished call's
/// `ToolResult` follows once it has run; results come in completion order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RouteEvent {
    /// A refusal message (not part of the visible text).
    Refusal {
        /// The text.
        text: CompactString,
    },
    /// A tool the provider ran itself; reported, never dispatched.
    ServerCall {
        /// The provider's id for it.
        id: Option<String>,
        /// The tool name.
        name: String,
        /// Its arguments.
        arguments: serde_json::Value,
    },
    /// An opaque signature the provider attached to a structured call
    /// (Gemini's `thoughtSignature`), which it wants back with the call in the
    /// next request. It comes just before the call's `CallStart` when the
    /// provider sent it with the call, as Gemini does; else as soon as it comes.
    CallSignature {
        /// The call's index (the one its `CallStart` has).
        index: usize,
        /// The signature, as sent.
        signature: String,
    },
    /// Token counts.
    Usage {
        /// The counts.
        usage: Usage,
    },
    /// An error in the provider stream (a provider error, a bad frame, a cut
    /// stream). Routing goes on.
    ProviderError {
        /// What kind of failure.
        kind: ErrorKind,
        /// The message.
        message: String,
    },
    /// The provider stream ended.
    Finish {
        /// The normalised stop reason.
        stop: StopReason,
        /// The first error of the stream, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        /// Calls that were cut off, structured or in the text; never run.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        partial_calls: Vec<PartialCall>,
    },
    /// A finished call has run.
    ToolResult {
        /// The call's index.
        index: usize,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The result (`isError` for failures of any kind).
        result: CallToolResult,
        /// How long the call ran, in milliseconds.
        elapsed_ms: u64,
    },
    /// What the detector reports, whoever found it: visible text (every call
    /// region removed), reasoning, a call's `CallStart`, `ArgsDelta`s and
    /// `CallEnd` (the call is now being executed), or a `Malformed` diagnostic
    /// for markup or a structured call that did not become a call. Serialised as
    /// the [`DetectEvent`] itself.
    #[serde(untagged)]
    Detect(DetectEvent),
}

impl From<DetectEvent> for RouteEvent {
    fn from(event: DetectEvent) -> Self {
        RouteEvent::Detect(event)
    }
}
