//! `CompletionBuilder`: a routed turn collected into one OpenAI
//! `chat.completion` object, for a client that did not ask for a stream.

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use toolrouter_providers::{ErrorKind, StopReason, Usage};

use super::chunks::{ExtraContent, finish_reason, usage_object};
use super::error::{ApiError, UPSTREAM_ERROR};
use super::faults::{error_code, fails_at_once, stream_failure};
use super::meta::ChunkMeta;
use crate::core::{DetectEvent, ToolCall};
use crate::router::RouteEvent;

/// Collects a turn. Only completed calls are kept: the markup of a call in the
/// text that did not complete was given back as text by the detector, and
/// stays in `content`.
#[derive(Debug, Default)]
pub(crate) struct CompletionBuilder {
    content: String,
    reasoning: String,
    refusal: String,
    /// Completed calls with their index (the order they began in).
    calls: Vec<(usize, ToolCall)>,
    /// The calls' provider signatures, by index (Gemini's `thoughtSignature`;
    /// the latest of an index counts).
    signatures: HashMap<usize, String>,
    usage: Option<Usage>,
    /// The first stream error.
    error: Option<(ErrorKind, String)>,
    /// The turn's stop and error, once it finished.
    finish: Option<(StopReason, Option<String>)>,
}

impl CompletionBuilder {
    /// Takes in the next events.
    pub(crate) fn push(&mut self, events: &mut Vec<RouteEvent>) {
        for event in events.drain(..) {
            match event {
                RouteEvent::Detect(DetectEvent::Text { text }) => self.content.push_str(&text),
                RouteEvent::Detect(DetectEvent::Reasoning { text }) => {
                    self.reasoning.push_str(&text)
                }
                RouteEvent::Refusal { text } => self.refusal.push_str(&text),
                RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                    self.calls.push((index, *call))
                }
                RouteEvent::CallSignature { index, signature } => {
                    self.signatures.insert(index, signature);
                }
                RouteEvent::Usage { usage } => self.usage = Some(usage),
                RouteEvent::ProviderError { kind, message } => {
                    tracing::debug!(?kind, %message, "upstream stream error");
                    self.error.get_or_insert((kind, message));
                }
                RouteEvent::Finish { stop, error, .. } => self.finish = Some((stop, error)),
                _ => {}
            }
        }
    }

    /// Whether the answer has failed already (the upstream said it failed,
    /// or a frame was dropped): nothing more need be read.
    pub(crate) fn failed(&self) -> bool {
        self.error
            .as_ref()
            .is_some_and(|(kind, _)| fails_at_once(*kind))
    }

    /// The answer, or the error the turn ended in (`502`).
    pub(crate) fn build(mut self, meta: ChunkMeta) -> Result<Value, ApiError> {
        if let Some((kind, message)) = &self.error
            && let Some((message, code)) = stream_failure(*kind, message)
        {
            return Err(ApiError::bad_gateway(message, code));
        }
        let stop = match self.finish {
            Some((stop, _)) => stop,
            None => StopReason::Error,
        };
        if stop == StopReason::Error {
            let (code, message) = match self.error {
                Some((kind, message)) => (error_code(kind), message),
                None => (UPSTREAM_ERROR, "the upstream's answer failed".to_owned()),
            };
            return Err(ApiError::bad_gateway(message, code));
        }
        self.calls.sort_by_key(|(index, _)| *index);
        let mut message = Map::new();
        message.insert("role".to_owned(), json!("assistant"));
        let content = if self.content.is_empty() && !self.calls.is_empty() {
            Value::Null
        } else {
            Value::String(self.content)
        };
        message.insert("content".to_owned(), content);
        if !self.reasoning.is_empty() {
            message.insert(
                "reasoning_content".to_owned(),
                Value::String(self.reasoning),
            );
        }
        let refusal = (!self.refusal.is_empty()).then_some(self.refusal);
        message.insert("refusal".to_owned(), json!(refusal));
        if !self.calls.is_empty() {
            let calls: Vec<Value> = self
                .calls
                .iter()
                .map(|(index, call)| {
                    let arguments =
                        serde_json::to_string(&call.arguments).unwrap_or_else(|_| "{}".to_owned());
                    let mut out = json!({
                        "id": call.id,
                        "type": "function",
                        "function": { "name": call.name, "arguments": arguments },
                    });
                    let signature = self.signatures.get(index);
                    if let (Some(signature), Some(out)) = (signature, out.as_object_mut()) {
                        out.insert(
                            "extra_content".to_owned(),
                            json!(ExtraContent::signed(signature)),
                        );
                    }
                    out
                })
                .collect();
            message.insert("tool_calls".to_owned(), Value::Array(calls));
        }
        let mut completion = Map::new();
        completion.insert("id".to_owned(), json!(meta.id));
        completion.insert("object".to_owned(), json!("chat.completion"));
        completion.insert("created".to_owned(), json!(meta.created));
        completion.insert("model".to_owned(), json!(meta.model));
        if let Some(fingerprint) = meta.system_fingerprint {
            completion.insert("system_fingerprint".to_owned(), json!(fingerprint));
        }
        completion.insert(
            "choices".to_owned(),
            json!([{
                "index": 0,
                "message": message,
                "logprobs": null,
                "finish_reason": finish_reason(stop, !self.calls.is_empty()),
            }]),
        );
        if let Some(usage) = &self.usage {
            completion.insert("usage".to_owned(), usage_object(usage));
        }
        Ok(Value::Object(completion))
    }
}
