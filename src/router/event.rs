//! `RouteEvent`: one step of a routed turn, whatever the provider.

use compact_str::CompactString;
use rmcp::model::CallToolResult;
use serde::Serialize;
use toolrouter_providers::{ErrorKind, PartialCall, StopReason, Usage};

use crate::core::{DetectEvent, Diagnostic, ToolCall, WireFormat};

/// One event of a routed turn.
///
/// Calls come as `CallStart`, `ArgsDelta`s and `CallEnd` (or a `Malformed`
/// diagnostic when they do not complete), whether the provider sent them as
/// structured deltas or the model wrote them into its text. A finished call's
/// `ToolResult` follows once it has run; results come in completion order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RouteEvent {
    /// Visible assistant text, with every call region removed.
    Text {
        /// The text.
        text: CompactString,
    },
    /// Reasoning ("thinking") text, never part of the visible text.
    Reasoning {
        /// The text.
        text: CompactString,
    },
    /// A refusal message (not part of the visible text).
    Refusal {
        /// The text.
        text: CompactString,
    },
    /// A call began.
    CallStart {
        /// The call's index in this turn, from 0, in the order calls were opened.
        index: usize,
        /// The call id (the provider's, or generated).
        id: String,
        /// The tool name.
        name: String,
        /// The dialect the call came in.
        format: WireFormat,
    },
    /// More of a call's arguments JSON text.
    ArgsDelta {
        /// The call's index.
        index: usize,
        /// The next piece of the arguments JSON.
        fragment: CompactString,
    },
    /// A call is complete; it is now being executed.
    CallEnd {
        /// The call's index.
        index: usize,
        /// The finished call.
        call: Box<ToolCall>,
    },
    /// Markup or a structured call that did not become a call.
    Malformed {
        /// What went wrong.
        diagnostic: Diagnostic,
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
        /// Structured calls that were cut off; never run.
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
}

impl From<DetectEvent> for RouteEvent {
    fn from(event: DetectEvent) -> Self {
        match event {
            DetectEvent::Text { text } => RouteEvent::Text { text },
            DetectEvent::Reasoning { text } => RouteEvent::Reasoning { text },
            DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            } => RouteEvent::CallStart {
                index,
                id,
                name,
                format,
            },
            DetectEvent::ArgsDelta { index, fragment } => RouteEvent::ArgsDelta { index, fragment },
            DetectEvent::CallEnd { index, call } => RouteEvent::CallEnd { index, call },
            DetectEvent::Malformed { diagnostic } => RouteEvent::Malformed { diagnostic },
        }
    }
}
