//! Normalisation: fold a stream of deltas into one [`TurnSummary`], the same for every provider.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::arguments::{ArgumentsError, ArgumentsRule, ArgumentsText};
use crate::delta::{CallKey, ProviderDelta, StopReason, Usage};
use crate::status::TurnStatus;

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
    /// The parsed arguments; absent, empty or blank (JSON whitespace) arguments are `{}`.
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
    /// The argument text received, as it was (up to the [`ArgumentsRule`]'s bound).
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
    /// The provider closed the call but its arguments break the [`ArgumentsRule`]
    /// (not a JSON object, e.g. Anthropic closing a block at `max_tokens`, or over
    /// the size bound): never run it.
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
    id: Option<String>,
    name: String,
    raw: ArgumentsText,
    signature: Option<String>,
    /// Set when the provider ended the call: its arguments, read once.
    ended: Option<Result<Map<String, Value>, ArgumentsError>>,
}

/// Folds [`ProviderDelta`]s into a [`TurnSummary`]: the providers-only path, with
/// no detection of calls written in the text.
///
/// Rules: a call is complete when the provider ended it *and* its arguments meet
/// the [`ArgumentsRule`] (blank means `{}`); any other call is partial. A start
/// under the key of a call still open ends that call first. The stop comes from
/// [`TurnStatus::stop`] with the number of completed calls.
#[derive(Debug, Default)]
pub struct TurnCollector {
    text: String,
    reasoning: String,
    reasoning_blocks: Vec<ReasoningBlock>,
    calls: Vec<OpenCall>,
    /// The latest call of each key.
    by_key: HashMap<CallKey, usize>,
    server_calls: Vec<ServerCall>,
    status: TurnStatus,
    rule: ArgumentsRule,
}

impl TurnCollector {
    /// An empty collector under the default [`ArgumentsRule`].
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty collector under `rule`.
    pub fn with_rule(rule: ArgumentsRule) -> Self {
        Self {
            rule,
            ..Self::default()
        }
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
            ProviderDelta::ToolCallStart { key, id, name } => {
                let ended = self.end(*key);
                self.by_key.insert(*key, self.calls.len());
                self.calls.push(OpenCall {
                    id: id.clone(),
                    name: name.clone(),
                    raw: ArgumentsText::new(),
                    signature: None,
                    ended: None,
                });
                return ended;
            }
            ProviderDelta::ToolCallArgs { key, fragment } => {
                let rule = self.rule;
                if let Some(call) = self.call_mut(*key)
                    && call.ended.is_none()
                {
                    call.raw.push(fragment, &rule);
                }
            }
            ProviderDelta::ToolCallEnd { key } => return self.end(*key),
            ProviderDelta::ServerToolCall {
                id,
                name,
                arguments,
            } => self.server_calls.push(ServerCall {
                id: id.clone(),
                name: name.clone(),
                arguments: arguments.clone(),
            }),
            ProviderDelta::Finish { .. }
            | ProviderDelta::Usage(_)
            | ProviderDelta::Error { .. } => self.status.push(delta),
        }
        None
    }

    /// Takes in many deltas.
    pub fn extend<'a>(&mut self, deltas: impl IntoIterator<Item = &'a ProviderDelta>) {
        for d in deltas {
            self.push(d);
        }
    }

    /// The provider's side of the turn so far.
    pub fn status(&self) -> &TurnStatus {
        &self.status
    }

    /// The summary of the turn so far.
    pub fn summary(&self) -> TurnSummary {
        let mut calls = Vec::new();
        let mut partial_calls = Vec::new();
        for call in &self.calls {
            match &call.ended {
                Some(Ok(arguments)) => calls.push(call.completed(arguments.clone())),
                _ => partial_calls.push(call.partial()),
            }
        }
        TurnSummary {
            text: self.text.clone(),
            reasoning: self.reasoning.clone(),
            stop: self.status.stop(calls.len()),
            calls,
            error: self.status.error().map(|message| TurnError {
                message: message.to_owned(),
            }),
            partial_calls,
            server_calls: self.server_calls.clone(),
            reasoning_blocks: self.reasoning_blocks.clone(),
            raw_stop: self.status.raw_stop().map(str::to_owned),
            usage: self.status.usage().cloned(),
        }
    }

    /// Consumes the collector, giving the summary.
    pub fn finish(self) -> TurnSummary {
        self.summary()
    }

    /// Ends the open call under `key`, if any, reading its arguments once.
    fn end(&mut self, key: CallKey) -> Option<EndedCall> {
        let rule = self.rule;
        let call = self.call_mut(key)?;
        if call.ended.is_some() {
            return None;
        }
        let read = call.raw.read_with(&rule, |raw| serde_json::from_str(raw));
        let ended = match &read {
            Ok(arguments) => EndedCall::Complete {
                key,
                call: call.completed(arguments.clone()),
            },
            Err(_) => EndedCall::Malformed {
                key,
                call: call.partial(),
            },
        };
        call.ended = Some(read);
        Some(ended)
    }

    fn call_mut(&mut self, key: CallKey) -> Option<&mut OpenCall> {
        let at = *self.by_key.get(&key)?;
        self.calls.get_mut(at)
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
            raw_arguments: self.raw.as_str().to_owned(),
        }
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
