//! Provider-neutral deltas: what every wire adapter yields, whatever the vendor.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Identifies one tool call within one stream.
///
/// Adapters number calls in the order they are opened (0, 1, 2, ...), whatever the
/// wire uses to tell them apart (an `index`, a block index, an item id, a call id).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CallKey(pub u32);

/// One step of a provider's answer, in stream order.
///
/// A client-side tool call always arrives as [`ToolCallStart`](Self::ToolCallStart),
/// zero or more [`ToolCallArgs`](Self::ToolCallArgs) and, once the provider says it is
/// complete, [`ToolCallEnd`](Self::ToolCallEnd). Providers that send a call whole
/// (Gemini, Ollama, Mistral) produce the three at once. A call with no `ToolCallEnd`
/// by the end of the stream was cut off and must not be run.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ProviderDelta {
    /// Visible assistant text.
    Text(String),
    /// Thinking or reasoning text (never part of the visible text).
    Reasoning(String),
    /// A refusal message (OpenAI `refusal`); not part of the visible text.
    Refusal(String),
    /// A client-side tool call was opened.
    ToolCallStart {
        /// The call's key in this stream.
        key: CallKey,
        /// The provider's call id, if the wire carries one.
        id: Option<String>,
        /// The tool name.
        name: String,
    },
    /// A fragment of the call's arguments, as JSON text (decoded from its envelope).
    ToolCallArgs {
        /// The call's key in this stream.
        key: CallKey,
        /// The next piece of the arguments' JSON text.
        fragment: String,
    },
    /// The provider finished the call: its arguments are complete.
    ToolCallEnd {
        /// The call's key in this stream.
        key: CallKey,
    },
    /// A tool the provider ran itself (Anthropic `server_tool_use`, Responses
    /// `web_search_call`, ...). Report it; never dispatch it.
    ServerToolCall {
        /// The provider's id for the call.
        id: Option<String>,
        /// The tool name.
        name: String,
        /// The arguments: the parsed object, or the raw text as a string if it was
        /// not valid JSON.
        arguments: Value,
    },
    /// The provider said why it stopped.
    Finish {
        /// The normalised stop reason, as the wire said it (before the
        /// "natural stop after a call is `tool_use`" rule, which
        /// [`TurnCollector`](crate::TurnCollector) applies).
        stop: StopReason,
        /// The provider's own word for it (`"stop"`, `"MAX_TOKENS"`, ...).
        raw: String,
    },
    /// Token counts.
    Usage(Usage),
    /// Something went wrong: a provider error in the stream, a bad frame, or a
    /// stream that ended early. The adapter keeps going after it.
    Error {
        /// What kind of failure.
        kind: ErrorKind,
        /// A message for humans (the provider's own message for provider errors).
        message: String,
    },
}

/// The normalised stop vocabulary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StopReason {
    /// The model finished its turn naturally.
    EndTurn,
    /// The model stopped to have tools run.
    ToolUse,
    /// The output token limit was hit.
    MaxTokens,
    /// A stop sequence was hit.
    StopSequence,
    /// The provider's content filter stopped or blocked the answer.
    ContentFilter,
    /// The provider paused a long turn (Anthropic `pause_turn`).
    PauseTurn,
    /// The model refused.
    Refusal,
    /// The turn failed.
    Error,
}

/// Which kind of failure an [`ProviderDelta::Error`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The provider sent an error (an `error` event, an `{"error": ...}` object, an
    /// AWS exception frame).
    Provider,
    /// One frame was not valid JSON or not the expected shape; it was skipped.
    Malformed,
    /// A frame or line exceeded the configured size limit; it was skipped.
    TooLarge,
    /// A binary frame failed its checksum; it was skipped.
    Checksum,
    /// The stream ended before the provider said it was finished.
    Truncated,
}

/// Token counts, as far as the provider reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    pub input_tokens: Option<u64>,
    /// Generated tokens.
    pub output_tokens: Option<u64>,
    /// Total tokens, when reported.
    pub total_tokens: Option<u64>,
}

impl StopReason {
    /// The snake_case name used in summaries (`"end_turn"`, `"tool_use"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::StopSequence => "stop_sequence",
            StopReason::ContentFilter => "content_filter",
            StopReason::PauseTurn => "pause_turn",
            StopReason::Refusal => "refusal",
            StopReason::Error => "error",
        }
    }

    /// Applies the normalisation rule: a natural stop after at least one completed
    /// client call is `tool_use`.
    pub fn with_completed_calls(self, n_completed: usize) -> StopReason {
        if self == StopReason::EndTurn && n_completed > 0 {
            StopReason::ToolUse
        } else {
            self
        }
    }
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ProviderDelta {
    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        ProviderDelta::Error {
            kind: ErrorKind::Malformed,
            message: message.into(),
        }
    }

    pub(crate) fn provider_error(message: impl Into<String>) -> Self {
        ProviderDelta::Error {
            kind: ErrorKind::Provider,
            message: message.into(),
        }
    }

    pub(crate) fn finish(stop: StopReason, raw: impl Into<String>) -> Self {
        ProviderDelta::Finish {
            stop,
            raw: raw.into(),
        }
    }
}

/// Serialises a JSON object the way the arguments of whole calls are handed on.
pub(crate) fn object_text(args: &Map<String, Value>) -> String {
    serde_json::to_string(args).unwrap_or_else(|_| "{}".to_owned())
}

/// Reads a JSON number or numeric string as `u64`.
pub(crate) fn as_u64(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}
