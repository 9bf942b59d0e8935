//! Normalisation: fold a stream of deltas into one [`TurnSummary`], the same for every provider.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage};

/// What one provider turn came to, with exactly the keys of the fixtures'
/// expectation schema (`text`, `calls`, `stop`, and `reasoning`, `error`,
/// `partial_calls`, `server_calls` only when they apply). Fields marked "not
/// serialised" are kept for building the next request.
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
    /// The reasoning cut into signed blocks, as Anthropic and Bedrock want them back
    /// (not serialised).
    #[serde(skip)]
    pub reasoning_blocks: Vec<ReasoningBlock>,
    /// The provider's own word for the stop (`"tool_calls"`, `"STOP"`, ...), if it
    /// gave one (not serialised).
    #[serde(skip)]
    pub raw_stop: Option<String>,
    /// The last token counts reported (not serialised).
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
    /// The signature the provider attached to the call (Gemini `thoughtSignature`),
    /// to be sent back with it (not serialised).
    #[serde(skip)]
    pub signature: Option<String>,
}

/// A call that was cut off, or closed with arguments that are not a JSON object:
/// never run it.
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

/// Reasoning text up to a signature (or to the end of the turn).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasoningBlock {
    /// The reasoning text of the block.
    pub text: String,
    /// Its signature, if the provider sent one.
    pub signature: Option<String>,
}

/// What [`TurnCollector::push`] says when a [`ProviderDelta::ToolCallEnd`] closes a call.
#[derive(Debug, Clone, PartialEq)]
pub enum EndedCall {
    /// The call is complete: it can be run now, while the stream goes on.
    Complete {
        /// The call's key in the stream.
        key: CallKey,
        /// The call.
        call: CompletedCall,
    },
    /// The provider closed the call but its arguments are not a JSON object (e.g.
    /// Anthropic closing a block at `max_tokens`): never run it.
    Malformed {
        /// The call's key in the stream.
        key: CallKey,
        /// The call as received.
        call: PartialCall,
    },
}

/// A call being collected.
#[derive(Debug)]
struct OpenCall {
    key: CallKey,
    id: Option<String>,
    name: String,
    raw: String,
    signature: Option<String>,
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
    reasoning_blocks: Vec<ReasoningBlock>,
    calls: Vec<OpenCall>,
    server_calls: Vec<ServerCall>,
    finish: Option<(StopReason, String)>,
    provider_error: bool,
    error: Option<String>,
    usage: Option<Usage>,
}

impl TurnCollector {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one delta. When it closes a call, says whether that call can run.
    pub fn push(&mut self, delta: &ProviderDelta) -> Option<EndedCall> {
        match delta {
            ProviderDelta::Text(t) => self.text.push_str(t),
            ProviderDelta::Reasoning(t) => {
                self.reasoning.push_str(t);
                match self.reasoning_blocks.last_mut() {
                    Some(block) if block.signature.is_none() => block.text.push_str(t),
                    _ => self.reasoning_blocks.push(ReasoningBlock {
                        text: t.clone(),
                        signature: None,
                    }),
                }
            }
            ProviderDelta::Refusal(_) => {}
            ProviderDelta::Signature { key, signature } => match key {
                Some(key) => {
                    if let Some(call) = self.call_mut(*key) {
                        call.signature = Some(signature.clone());
                    }
                }
                None => match self.reasoning_blocks.last_mut() {
                    Some(block) if block.signature.is_none() => {
                        block.signature = Some(signature.clone());
                    }
                    _ => self.reasoning_blocks.push(ReasoningBlock {
                        text: String::new(),
                        signature: Some(signature.clone()),
                    }),
                },
            },
            ProviderDelta::ToolCallStart { key, id, name } => self.calls.push(OpenCall {
                key: *key,
                id: id.clone(),
                name: name.clone(),
                raw: String::new(),
                signature: None,
                ended: false,
            }),
            ProviderDelta::ToolCallArgs { key, fragment } => {
                if let Some(call) = self.call_mut(*key)
                    && !call.ended
                {
                    call.raw.push_str(fragment);
                }
            }
            ProviderDelta::ToolCallEnd { key } => {
                let call = self.call_mut(*key)?;
                if call.ended {
                    return None;
                }
                call.ended = true;
                return Some(match parse_arguments(&call.raw) {
                    Some(arguments) => EndedCall::Complete {
                        key: *key,
                        call: call.completed(arguments),
                    },
                    None => EndedCall::Malformed {
                        key: *key,
                        call: call.partial(),
                    },
                });
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
            ProviderDelta::Finish { stop, raw } => self.finish = Some((*stop, raw.clone())),
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
        None
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
                (true, Some(arguments)) => calls.push(call.completed(arguments)),
                _ => partial_calls.push(call.partial()),
            }
        }
        let stop = match &self.finish {
            _ if self.provider_error => StopReason::Error,
            Some((stop, _)) => stop.with_completed_calls(calls.len()),
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
            reasoning_blocks: self.reasoning_blocks.clone(),
            raw_stop: self.finish.as_ref().map(|(_, raw)| raw.clone()),
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

impl OpenCall {
    fn completed(&self, arguments: Map<String, Value>) -> CompletedCall {
        CompletedCall {
            id: self.id.clone(),
            name: self.name.clone(),
            arguments,
            signature: self.signature.clone(),
        }
    }

    fn partial(&self) -> PartialCall {
        PartialCall {
            id: self.id.clone(),
            name: self.name.clone(),
            raw_arguments: self.raw.clone(),
        }
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
