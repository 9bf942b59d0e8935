//! Normalisation: fold a stream of deltas into one [`TurnSummary`], the same for every provider.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage};

/// What one provider turn came to, with exactly the keys of the fixtures'
/// expectation schema (`text`, `calls`, `stop`, and `reasoning`, `error`,
/// `partial_calls`, `server_calls` only when they apply).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnSummary {
    /// Visible assistant text, concatenated in stream order.
    pub text: String,
    /// Thinking or reasoning text; omitted when empty.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    /// Completed client-side calls, in the order they were opened.
    pub calls: Vec<CompletedCall>,
    /// The normalised stop reason.
    pub stop: StopReason,
    /// The first error seen in the stream, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<TurnError>,
    /// Calls cut off (by a length limit, an error or an early end): never run them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partial_calls: Vec<PartialCall>,
    /// Tools the provider ran itself: report them, never dispatch them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub server_calls: Vec<ServerCall>,
    /// The last token counts reported (not part of the serialised summary).
    #[serde(skip)]
    pub usage: Option<Usage>,
}

/// A complete client-side tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletedCall {
    /// The provider's call id; `None` when the wire carries none (the caller must
    /// make one up).
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// The parsed arguments; absent, empty or whitespace-only arguments are `{}`.
    pub arguments: Map<String, Value>,
}

/// A call that was cut off and must not be run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartialCall {
    /// The provider's call id, if any.
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// The argument text received, as it was.
    pub raw_arguments: String,
}

/// A tool call run by the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerCall {
    /// The provider's id for it.
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// Its arguments.
    pub arguments: Value,
}

/// An error seen in the stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnError {
    /// The message (the provider's own for provider errors).
    pub message: String,
}

/// A call being collected.
#[derive(Debug)]
struct OpenCall {
    key: CallKey,
    id: Option<String>,
    name: String,
    raw: String,
    ended: bool,
}

/// Folds [`ProviderDelta`]s into a [`TurnSummary`].
///
/// Rules: a call is complete when the provider ended it *and* its arguments parse
/// as a JSON object (blank means `{}`); any other call is partial. The stop is the
/// provider's finish reason, `error` after a provider error or when no finish came,
/// and a natural stop with at least one completed call becomes `tool_use`.
#[derive(Debug, Default)]
pub struct TurnCollector {
    text: String,
    reasoning: String,
    calls: Vec<OpenCall>,
    server_calls: Vec<ServerCall>,
    finish: Option<StopReason>,
    provider_error: bool,
    error: Option<String>,
    usage: Option<Usage>,
}

impl TurnCollector {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one delta.
    pub fn push(&mut self, delta: &ProviderDelta) {
        match delta {
            ProviderDelta::Text(t) => self.text.push_str(t),
            ProviderDelta::Reasoning(t) => self.reasoning.push_str(t),
            ProviderDelta::Refusal(_) => {}
            ProviderDelta::ToolCallStart { key, id, name } => self.calls.push(OpenCall {
                key: *key,
                id: id.clone(),
                name: name.clone(),
                raw: String::new(),
                ended: false,
            }),
            ProviderDelta::ToolCallArgs { key, fragment } => {
                if let Some(call) = self.call_mut(*key) {
                    call.raw.push_str(fragment);
                }
            }
            ProviderDelta::ToolCallEnd { key } => {
                if let Some(call) = self.call_mut(*key) {
                    call.ended = true;
                }
            }
            ProviderDelta::ServerToolCall {
                id,
                name,
                arguments,
            } => self.server_calls.push(ServerCall {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            }),
            ProviderDelta::Finish { stop, .. } => self.finish = Some(*stop),
            ProviderDelta::Usage(u) => self.usage = Some(u.clone()),
            ProviderDelta::Error { kind, message } => {
                if *kind == ErrorKind::Provider {
                    self.provider_error = true;
                }
                if self.error.is_none() {
                    self.error = Some(message.clone());
                }
            }
        }
    }

    /// Takes in many deltas.
    pub fn extend<'a>(&mut self, deltas: impl IntoIterator<Item = &'a ProviderDelta>) {
        for d in deltas {
            self.push(d);
        }
    }

    /// The summary of the turn so far.
    pub fn summary(&self) -> TurnSummary {
        let mut calls = Vec::new();
        let mut partial_calls = Vec::new();
        for call in &self.calls {
            match (call.ended, parse_arguments(&call.raw)) {
                (true, Some(arguments)) => calls.push(CompletedCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    arguments,
                }),
                _ => partial_calls.push(PartialCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    raw_arguments: call.raw.clone(),
                }),
            }
        }
        let stop = match self.finish {
            _ if self.provider_error => StopReason::Error,
            Some(stop) => stop.with_completed_calls(calls.len()),
            None => StopReason::Error,
        };
        TurnSummary {
            text: self.text.clone(),
            reasoning: self.reasoning.clone(),
            calls,
            stop,
            error: self.error.clone().map(|message| TurnError { message }),
            partial_calls,
            server_calls: self.server_calls.clone(),
            usage: self.usage.clone(),
        }
    }

    /// Consumes the collector, giving the summary.
    pub fn finish(self) -> TurnSummary {
        self.summary()
    }

    fn call_mut(&mut self, key: CallKey) -> Option<&mut OpenCall> {
        self.calls.iter_mut().rev().find(|c| c.key == key)
    }
}

/// Parses a call's argument text: blank means `{}`, anything but a JSON object is
/// `None` (the call is not runnable).
pub fn parse_arguments(raw: &str) -> Option<Map<String, Value>> {
    if raw.trim().is_empty() {
        return Some(Map::new());
    }
    match serde_json::from_str(raw) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

impl TurnSummary {
    /// Reads a whole stream through `adapter` (fed in one piece) and summarises it.
    pub fn from_bytes(
        adapter: &mut dyn crate::WireAdapter,
        bytes: &[u8],
    ) -> Result<TurnSummary, crate::AdapterError> {
        let mut out = Vec::new();
        let fed = adapter.feed(bytes, &mut out);
        let mut collector = TurnCollector::new();
        collector.extend(&out);
        out.clear();
        fed?;
        adapter.finish(&mut out)?;
        collector.extend(&out);
        Ok(collector.finish())
    }

    /// The summary as a JSON value with exactly the expectation-schema keys.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
