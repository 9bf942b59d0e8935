//! `CompletionBuilder`: a routed turn collected into one [`Completion`], the
//! answer of a client that did not ask for a stream. Each door writes it in
//! its own shape: OpenAI's `chat.completion` here ([`Completion`]'s
//! `Serialize`), Anthropic's `message` and the Responses `response` in their
//! doors, each from the same fields, the turn's text held once.

use std::collections::HashMap;

use serde::Serialize;
use serde::ser::SerializeMap;
use toolrouter_providers::{ErrorKind, StopReason, Usage};

use super::chunks::{ExtraContent, UsageOut, finish_reason};
use super::error::{ApiError, UPSTREAM_ERROR};
use super::faults::{Failure, Faults, error_code, fails_at_once, stream_failure};
use super::meta::ChunkMeta;
use super::shown::ShownCalls;
use crate::core::{DetectEvent, ToolCall};
use crate::router::RouteEvent;

/// Collects a turn. Only completed calls are kept: the markup of a call in
/// the text that did not complete was given back as text by the detector,
/// and stays in `content`. A structured call (one the upstream sent as a
/// call) that breaks has no text to fall back to: the answer then fails as
/// a stream does, with `incomplete_tool_call`, rather than end with the call
/// gone.
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
    /// The structured calls begun, found by router index, and their names
    /// at the same positions.
    structured: ShownCalls,
    structured_names: Vec<String>,
    faults: Faults,
    /// A structured call broke: why, and the error code.
    broken: Option<Failure>,
    usage: Option<Usage>,
    /// The first stream error.
    error: Option<(ErrorKind, String)>,
    /// The turn's stop and error, once it finished.
    finish: Option<(StopReason, Option<String>)>,
}

/// A turn's answer in one piece.
#[derive(Debug)]
pub(crate) struct Completion {
    /// The answer's id, model, time.
    pub(crate) meta: ChunkMeta,
    /// The text.
    pub(crate) content: String,
    /// The reasoning (empty: none).
    pub(crate) reasoning: String,
    /// The refusal (empty: none).
    pub(crate) refusal: String,
    /// The completed calls, in the order they began.
    pub(crate) calls: Vec<CompletedCall>,
    /// How the turn stopped.
    pub(crate) stop: StopReason,
    /// The token counts, if the upstream gave them.
    pub(crate) usage: Option<Usage>,
}

/// A completed call of a [`Completion`].
#[derive(Debug)]
pub(crate) struct CompletedCall {
    /// Its id.
    pub(crate) id: String,
    /// The function's name.
    pub(crate) name: String,
    /// Its arguments as JSON text (an object).
    pub(crate) arguments: String,
    /// Its provider signature (Gemini's), if it had one.
    pub(crate) signature: Option<String>,
}

impl Completion {
    /// The bytes of text it holds (its JSON is a little longer).
    pub(crate) fn text_len(&self) -> usize {
        let calls: usize = self
            .calls
            .iter()
            .map(|c| c.id.len() + c.name.len() + c.arguments.len())
            .sum();
        self.content.len() + self.reasoning.len() + self.refusal.len() + calls
    }

    /// OpenAI's `finish_reason`: `tool_calls` only when a call completed.
    pub(crate) fn finish_reason(&self) -> &'static str {
        finish_reason(self.stop, !self.calls.is_empty())
    }
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
                RouteEvent::Detect(DetectEvent::CallStart {
                    index,
                    name,
                    format,
                    ..
                }) if !format.is_text_embedded() => {
                    self.structured.add(index, format);
                    self.structured_names.push(name);
                }
                RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                    if let Some(position) = self.structured.position(index) {
                        self.structured.end(position);
                    }
                    self.calls.push((index, *call))
                }
                RouteEvent::Detect(DetectEvent::Malformed { diagnostic })
                    if !diagnostic.format.is_text_embedded() =>
                {
                    let open = self
                        .structured
                        .first_open_of(diagnostic.format)
                        .map(|position| self.structured_names[position].as_str());
                    if let Some(failure) = self.faults.malformed(open, &diagnostic) {
                        self.broken.get_or_insert(failure);
                    }
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

    /// Whether the answer has failed (the upstream said so, a frame was
    /// dropped, or a structured call broke): nothing more need be read.
    pub(crate) fn failed(&self) -> bool {
        self.error
            .as_ref()
            .is_some_and(|(kind, _)| fails_at_once(*kind))
            || self.broken.is_some()
    }

    /// The answer, or the error the turn ended in (`502`).
    pub(crate) fn build(mut self, meta: ChunkMeta) -> Result<Completion, ApiError> {
        if let Some((kind, message)) = &self.error
            && let Some((message, code)) = stream_failure(*kind, message)
        {
            return Err(ApiError::bad_gateway(message, code));
        }
        let stop = match self.finish.take() {
            Some((stop, _)) => stop,
            None if self.broken.is_some() => StopReason::EndTurn,
            None => StopReason::Error,
        };
        if stop == StopReason::Error {
            let (code, message) = match self.error {
                Some((kind, message)) => (error_code(kind), message),
                None => (UPSTREAM_ERROR, "the upstream's answer failed".to_owned()),
            };
            return Err(ApiError::bad_gateway(message, code));
        }
        let open = self
            .structured
            .open()
            .next()
            .map(|position| self.structured_names[position].as_str());
        let failure = self
            .broken
            .take()
            .or_else(|| self.faults.at_finish(stop, None, open));
        if let Some((why, code)) = failure {
            return Err(ApiError::bad_gateway(why, code));
        }
        self.calls.sort_by_key(|(index, _)| *index);
        let signatures = self.signatures;
        let calls = self
            .calls
            .into_iter()
            .map(|(index, call)| CompletedCall {
                arguments: serde_json::to_string(&call.arguments)
                    .unwrap_or_else(|_| "{}".to_owned()),
                signature: signatures.get(&index).cloned(),
                id: call.id,
                name: call.name,
            })
            .collect();
        Ok(Completion {
            meta,
            content: self.content,
            reasoning: self.reasoning,
            refusal: self.refusal,
            calls,
            stop,
            usage: self.usage,
        })
    }
}

/// The `chat.completion` object.
impl Serialize for Completion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("id", &self.meta.id)?;
        map.serialize_entry("object", "chat.completion")?;
        map.serialize_entry("created", &self.meta.created)?;
        map.serialize_entry("model", &self.meta.model)?;
        if let Some(fingerprint) = &self.meta.system_fingerprint {
            map.serialize_entry("system_fingerprint", fingerprint)?;
        }
        let choice = ChoiceOut {
            index: 0,
            message: MessageOut {
                role: "assistant",
                // `null` when the answer is calls only.
                content: (!self.content.is_empty() || self.calls.is_empty())
                    .then_some(self.content.as_str()),
                reasoning_content: (!self.reasoning.is_empty()).then_some(self.reasoning.as_str()),
                refusal: (!self.refusal.is_empty()).then_some(self.refusal.as_str()),
                tool_calls: (!self.calls.is_empty()).then_some(CallsOut(&self.calls)),
            },
            logprobs: (),
            finish_reason: self.finish_reason(),
        };
        map.serialize_entry("choices", &[choice])?;
        if let Some(usage) = &self.usage {
            map.serialize_entry("usage", &UsageOut::of(usage))?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct ChoiceOut<'a> {
    index: u32,
    message: MessageOut<'a>,
    logprobs: (),
    finish_reason: &'static str,
}

#[derive(Serialize)]
struct MessageOut<'a> {
    role: &'static str,
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    refusal: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<CallsOut<'a>>,
}

struct CallsOut<'a>(&'a [CompletedCall]);

impl Serialize for CallsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|call| CallOut {
            id: &call.id,
            kind: "function",
            function: FunctionOut {
                name: &call.name,
                arguments: &call.arguments,
            },
            extra_content: call.signature.as_deref().map(ExtraContent::signed),
        }))
    }
}

#[derive(Serialize)]
struct CallOut<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra_content: Option<ExtraContent<'a>>,
}

#[derive(Serialize)]
struct FunctionOut<'a> {
    name: &'a str,
    arguments: &'a str,
}
