//! `ChunkWriter`: a routed turn's events as OpenAI `chat.completion.chunk`
//! SSE frames, written as they come: text as `delta.content`, reasoning as
//! `delta.reasoning_content`, every call (structured or found in the text) as
//! `delta.tool_calls` entries whose `function.arguments` fragments follow the
//! detector's (a call's provider signature, Gemini's `thoughtSignature`, on
//! its first entry as `extra_content.google.thought_signature`, where Google's
//! OpenAI-compatible endpoint puts it), then the finish chunk, the usage chunk
//! when asked for, and `data: [DONE]`. A failed turn ends with `data: {"error": {...}}` instead.

use crate::proxy::faults::Faults;
use crate::proxy::shown::ShownCalls;
use crate::proxy::turn::FrameWriter;
use serde::Serialize;
use toolrouter_providers::{StopReason, Usage};

use super::error::{UPSTREAM_ERROR, error_object};
use super::meta::ChunkMeta;
use crate::core::DetectEvent;
use crate::router::RouteEvent;

/// Writes one client stream.
#[derive(Debug)]
pub(crate) struct ChunkWriter {
    /// `{"id":…,"object":…,"created":…,"model":…`, once the first chunk is written.
    prefix: Option<Vec<u8>>,
    include_usage: bool,
    role_sent: bool,
    /// The calls announced to the client; a call's position is its `index`.
    shown: ShownCalls,
    /// What was written of each, at the same positions.
    calls: Vec<AnnouncedCall>,
    /// The signature of the call about to start (router index, signature).
    signature: Option<(usize, String)>,
    usage: Option<Usage>,
    faults: Faults,
    /// The `code` of the error event the stream ended with.
    failure: Option<&'static str>,
    ended: bool,
}

/// A call the client has been told about.
#[derive(Debug)]
struct AnnouncedCall {
    name: String,
    /// Some argument text went out.
    args_sent: bool,
}

#[derive(Serialize, Default)]
struct DeltaOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refusal: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<[ToolCallOut<'a>; 1]>,
}

#[derive(Serialize)]
struct ToolCallOut<'a> {
    index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    function: FunctionOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra_content: Option<ExtraContent<'a>>,
}

/// A call's `extra_content`: `{"google": {"thought_signature"}}`.
#[derive(Serialize)]
pub(crate) struct ExtraContent<'a> {
    google: GoogleExtra<'a>,
}

#[derive(Serialize)]
struct GoogleExtra<'a> {
    thought_signature: &'a str,
}

impl<'a> ExtraContent<'a> {
    /// The `extra_content` of a call Gemini signed.
    pub(crate) fn signed(thought_signature: &'a str) -> Self {
        Self {
            google: GoogleExtra { thought_signature },
        }
    }
}

#[derive(Serialize)]
struct FunctionOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    arguments: &'a str,
}

impl ChunkWriter {
    /// A writer; `include_usage`: the client asked for the usage chunk.
    pub(crate) fn new(include_usage: bool) -> Self {
        Self {
            prefix: None,
            include_usage,
            role_sent: false,
            shown: ShownCalls::default(),
            calls: Vec::new(),
            signature: None,
            usage: None,
            faults: Faults::default(),
            failure: None,
            ended: false,
        }
    }

    fn arguments(
        &mut self,
        route_index: usize,
        fragment: &str,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
    ) {
        let Some(pos) = self.shown.position(route_index) else {
            return;
        };
        if fragment.is_empty() || self.shown.is_ended(pos) {
            return;
        }
        self.calls[pos].args_sent |= !fragment.trim().is_empty();
        let call = ToolCallOut {
            index: pos,
            id: None,
            kind: None,
            function: FunctionOut {
                name: None,
                arguments: fragment,
            },
            extra_content: None,
        };
        self.delta(
            meta,
            out,
            DeltaOut {
                tool_calls: Some([call]),
                ..DeltaOut::default()
            },
        );
    }

    fn finish(
        &mut self,
        stop: StopReason,
        error: Option<String>,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
    ) {
        let open = self
            .shown
            .open()
            .next()
            .map(|pos| self.calls[pos].name.as_str());
        if let Some((why, code)) = self.faults.at_finish(stop, error, open) {
            self.fail(&why, code, out);
            return;
        }
        let reason = finish_reason(stop, self.shown.any_ended());
        self.frame(meta, out, &DeltaOut::default(), Some(reason));
        if self.include_usage
            && let Some(usage) = &self.usage
        {
            let usage = UsageOut::of(usage);
            self.prefix_of(meta, out);
            out.extend_from_slice(br#","choices":[],"usage":"#);
            push_json(out, &usage);
            out.extend_from_slice(b"}\n\n");
        }
        out.extend_from_slice(b"data: [DONE]\n\n");
        self.ended = true;
    }

    /// Ends the client's stream with an error event the SDKs raise.
    fn fail(&mut self, message: &str, code: &'static str, out: &mut Vec<u8>) {
        tracing::debug!(%message, code, "the client's stream ends with an error");
        let error =
            serde_json::json!({ "error": error_object(message, UPSTREAM_ERROR, Some(code), None) });
        out.extend_from_slice(b"data: ");
        push_json(out, &error);
        out.extend_from_slice(b"\n\n");
        self.failure = Some(code);
        self.ended = true;
    }

    fn delta(&mut self, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>, mut delta: DeltaOut<'_>) {
        if !self.role_sent {
            self.role_sent = true;
            delta.role = Some("assistant");
        }
        self.frame(meta, out, &delta, None);
    }

    fn frame(
        &mut self,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
        delta: &DeltaOut<'_>,
        finish: Option<&str>,
    ) {
        self.prefix_of(meta, out);
        out.extend_from_slice(br#","choices":[{"index":0,"delta":"#);
        push_json(out, delta);
        out.extend_from_slice(br#","logprobs":null,"finish_reason":"#);
        push_json(out, &finish);
        out.extend_from_slice(b"}]}\n\n");
    }

    /// `data: ` and the chunk's fields before `choices`.
    fn prefix_of(&mut self, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        let prefix = self.prefix.get_or_insert_with(|| {
            let meta = meta();
            let mut prefix = Vec::with_capacity(128);
            prefix.extend_from_slice(br#"{"id":"#);
            push_json(&mut prefix, &meta.id);
            prefix.extend_from_slice(br#","object":"chat.completion.chunk","created":"#);
            push_json(&mut prefix, &meta.created);
            prefix.extend_from_slice(br#","model":"#);
            push_json(&mut prefix, &meta.model);
            if let Some(fingerprint) = &meta.system_fingerprint {
                prefix.extend_from_slice(br#","system_fingerprint":"#);
                push_json(&mut prefix, fingerprint);
            }
            prefix
        });
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(prefix);
    }
}

/// OpenAI's `finish_reason` for a normalised stop; `called`: a call
/// completed. `tool_calls` only with a call to show: an upstream that says
/// it stopped for calls and sent none that completed stopped.
pub(crate) fn finish_reason(stop: StopReason, called: bool) -> &'static str {
    match stop {
        StopReason::MaxTokens => "length",
        StopReason::ContentFilter | StopReason::Refusal => "content_filter",
        _ if called => "tool_calls",
        _ => "stop",
    }
}

/// OpenAI's `usage` object.
#[derive(Serialize)]
pub(crate) struct UsageOut {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
}

impl UsageOut {
    /// The object for `usage`.
    pub(crate) fn of(usage: &Usage) -> Self {
        let prompt = usage.input_tokens.unwrap_or(0);
        let completion = usage.output_tokens.unwrap_or(0);
        Self {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: usage
                .total_tokens
                .unwrap_or(prompt.saturating_add(completion)),
        }
    }
}

/// Appends `value` as JSON. Writing these types to a `Vec` cannot fail; if it
/// ever did, `null` stands in.
fn push_json(out: &mut Vec<u8>, value: &impl Serialize) {
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, value) {
        tracing::debug!(error = %e, "a chunk field could not be written");
        out.truncate(start);
        out.extend_from_slice(b"null");
    }
}

impl FrameWriter for ChunkWriter {
    fn ended(&self) -> bool {
        self.ended
    }

    fn failure(&self) -> Option<&'static str> {
        self.failure
    }

    fn write_event(&mut self, event: RouteEvent, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        match event {
            RouteEvent::Detect(DetectEvent::Text { text }) if !self.faults.holds_text() => {
                self.delta(
                    meta,
                    out,
                    DeltaOut {
                        content: Some(&text),
                        ..DeltaOut::default()
                    },
                );
            }
            RouteEvent::Detect(DetectEvent::Reasoning { text }) => {
                let delta = DeltaOut {
                    reasoning_content: Some(&text),
                    ..DeltaOut::default()
                };
                self.delta(meta, out, delta);
            }
            RouteEvent::Refusal { text } => {
                self.delta(
                    meta,
                    out,
                    DeltaOut {
                        refusal: Some(&text),
                        ..DeltaOut::default()
                    },
                );
            }
            RouteEvent::CallSignature { index, signature } => {
                self.signature = Some((index, signature));
            }
            RouteEvent::Detect(DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            }) => {
                let signature = self.signature.take().filter(|(of, _)| *of == index);
                let call = ToolCallOut {
                    index: self.shown.len(),
                    id: Some(&id),
                    kind: Some("function"),
                    function: FunctionOut {
                        name: Some(&name),
                        arguments: "",
                    },
                    extra_content: signature.as_ref().map(|(_, s)| ExtraContent::signed(s)),
                };
                self.delta(
                    meta,
                    out,
                    DeltaOut {
                        tool_calls: Some([call]),
                        ..DeltaOut::default()
                    },
                );
                self.shown.add(index, format);
                self.calls.push(AnnouncedCall {
                    name,
                    args_sent: false,
                });
            }
            RouteEvent::Detect(DetectEvent::ArgsDelta { index, fragment }) => {
                self.arguments(index, &fragment, meta, out);
            }
            RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                let Some(pos) = self.shown.position(index) else {
                    return;
                };
                if !self.calls[pos].args_sent {
                    // No argument text went out (a call with none): the
                    // client still needs a JSON object to read.
                    let text =
                        serde_json::to_string(&call.arguments).unwrap_or_else(|_| "{}".to_owned());
                    self.arguments(index, &text, meta, out);
                }
                self.shown.end(pos);
            }
            RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => {
                let open = self
                    .shown
                    .first_open_of(diagnostic.format)
                    .map(|pos| self.calls[pos].name.as_str());
                if let Some((why, code)) = self.faults.malformed(open, &diagnostic) {
                    self.fail(&why, code, out);
                }
            }
            RouteEvent::Usage { usage } => self.usage = Some(usage),
            RouteEvent::ProviderError { kind, message } => {
                if let Some((why, code)) = self.faults.provider_error(kind, message) {
                    self.fail(&why, code, out);
                }
            }
            RouteEvent::Finish { stop, error, .. } => self.finish(stop, error, meta, out),
            other => tracing::trace!(?other, "event with no chunk"),
        }
    }
}
