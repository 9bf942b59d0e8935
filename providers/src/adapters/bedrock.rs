//! Bedrock ConverseStream: binary `vnd.amazon.eventstream` frames or JSON lines, told apart by content.
//!
//! JSON lines are the events as the AWS SDKs present them, one per line, the union
//! member name wrapping the body: `{"contentBlockDelta": {...}}`. Binary frames carry
//! the member name in the `:event-type` (or `:exception-type`) header and the bare
//! body as payload. The first non-whitespace byte decides: `{` means JSON lines,
//! anything else binary (a binary frame starts with its big-endian length, 0x00 for
//! any frame under 16 MiB).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{FrameHandler, dispatch_line, parse_frame, unreadable_frame};
use super::stream_end::StreamEnd;
use super::{
    AdapterConfig, KeyAlloc, Wire, WireAdapter, error_message, messages_stop_reason, str_field,
    take_str,
};
use crate::delta::{CallKey, ProviderDelta, StopReason, Usage, as_u64};
use crate::error::AdapterError;
use crate::framing::eventstream::{EventStreamDecoder, Frame, SkippedFrame};
use crate::framing::lines::LineSplitter;

/// Which framing the stream turned out to use.
#[derive(Debug)]
enum Mode {
    /// No non-whitespace byte seen yet.
    Undecided,
    /// One `{"eventName": {...}}` per line.
    JsonLines(LineSplitter),
    /// Binary event-stream frames.
    Binary(EventStreamDecoder),
}

/// The Bedrock adapter: framing detection + [`BedrockEvents`].
pub(crate) struct BedrockAdapter {
    config: AdapterConfig,
    mode: Mode,
    events: BedrockEvents,
    finished: bool,
}

/// Maps ConverseStream events to deltas, whatever the framing.
#[derive(Debug, Default)]
pub(crate) struct BedrockEvents {
    keys: KeyAlloc,
    open_calls: Vec<(u64, CallKey)>,
    end: StreamEnd,
}

impl BedrockAdapter {
    pub(crate) fn new(config: AdapterConfig) -> Self {
        BedrockAdapter {
            config,
            mode: Mode::Undecided,
            events: BedrockEvents::default(),
            finished: false,
        }
    }
}

impl WireAdapter for BedrockAdapter {
    fn wire(&self) -> Wire {
        Wire::Bedrock
    }

    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished || self.events.end.done {
            return Ok(());
        }
        if let Mode::Undecided = self.mode {
            let Some(first) = chunk.iter().position(|b| !b.is_ascii_whitespace()) else {
                return Ok(());
            };
            chunk = &chunk[first..];
            self.mode = if chunk[0] == b'{' {
                Mode::JsonLines(LineSplitter::new(self.config.max_frame_bytes))
            } else {
                Mode::Binary(EventStreamDecoder::new(self.config.max_frame_bytes))
            };
        }
        let events = &mut self.events;
        match &mut self.mode {
            Mode::Undecided => Ok(()),
            Mode::JsonLines(lines) => {
                lines.push(chunk, |line| dispatch_line(line, events, out));
                Ok(())
            }
            Mode::Binary(decoder) => decoder
                .push(chunk, |frame| events.on_binary(frame, out))
                .map_err(|lost| AdapterError::LostSync { reason: lost.0 }),
        }
    }

    fn finish(&mut self, out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let events = &mut self.events;
        match &mut self.mode {
            Mode::Undecided => {}
            Mode::JsonLines(lines) => lines.finish(|line| dispatch_line(line, events, out)),
            Mode::Binary(decoder) => {
                if let Some(skipped) = decoder.finish() {
                    out.push(ProviderDelta::Error {
                        kind: skipped.kind,
                        message: skipped.message,
                    });
                }
            }
        }
        events.on_end(out);
        Ok(())
    }

    fn feed_frame(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        if self.finished || self.events.end.done {
            return;
        }
        let data = data.trim_ascii();
        if data.is_empty() {
            return;
        }
        if event.is_empty() {
            // A JSON line: `{"eventName": {...}}`.
            self.events.on_data("", data, out);
        } else if let Some(body) = parse_frame::<BodyIn>(data, out) {
            self.events.on_event(event, body, out);
        }
    }

    fn is_done(&self) -> bool {
        self.events.end.done
    }
}

/// An event body, read with a typed skeleton (the `p` padding and the `metrics`
/// are skipped).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BodyIn {
    #[serde(default)]
    content_block_index: Option<Value>,
    #[serde(default)]
    start: Option<Value>,
    #[serde(default)]
    delta: Option<DeltaIn>,
    #[serde(default)]
    stop_reason: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default, alias = "Message")]
    message: Option<Value>,
}

/// A JSON line: an object whose member names are event names (one per line in
/// practice), read as a list without building a map.
struct EventLine<'a>(Vec<(Cow<'a, str>, BodyIn)>);

impl<'de> Deserialize<'de> for EventLine<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct LineVisitor;
        impl<'de> serde::de::Visitor<'de> for LineVisitor {
            type Value = EventLine<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object {\"<eventName>\": {...}}")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Self::Value, A::Error> {
                let mut events = Vec::with_capacity(1);
                while let Some(name) = map.next_key::<EventName<'de>>()? {
                    events.push((name.0, map.next_value::<BodyIn>()?));
                }
                Ok(EventLine(events))
            }
        }
        d.deserialize_map(LineVisitor)
    }
}

/// An event name, borrowed from the input unless it holds escapes.
struct EventName<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for EventName<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct NameVisitor;
        impl<'de> serde::de::Visitor<'de> for NameVisitor {
            type Value = EventName<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an event name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(EventName(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(EventName(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(NameVisitor)
    }
}

/// The `delta` of `contentBlockDelta`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DeltaIn {
    #[serde(default)]
    text: Option<Value>,
    #[serde(default)]
    tool_use: Option<ToolUseDeltaIn>,
    #[serde(default)]
    reasoning_content: Option<ReasoningDeltaIn>,
}

#[derive(Deserialize)]
struct ToolUseDeltaIn {
    #[serde(default)]
    input: Option<Value>,
}

#[derive(Deserialize)]
struct ReasoningDeltaIn {
    #[serde(default)]
    text: Option<Value>,
    #[serde(default)]
    signature: Option<Value>,
}

impl FrameHandler for BedrockEvents {
    /// A JSON line: `{"<eventName>": {...}}`.
    fn on_data(&mut self, _event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        let Some(EventLine(events)) = parse_frame::<EventLine<'_>>(data, out) else {
            return;
        };
        for (name, body) in events {
            self.on_event(&name, body, out);
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        self.end.report_cut("stream ended before messageStop", out);
    }

    fn is_done(&self) -> bool {
        self.end.done
    }
}

impl BedrockEvents {
    fn on_binary(&mut self, frame: Result<Frame<'_>, SkippedFrame>, out: &mut Vec<ProviderDelta>) {
        if self.end.done {
            return;
        }
        let frame = match frame {
            Ok(frame) => frame,
            Err(skipped) => {
                out.push(ProviderDelta::Error {
                    kind: skipped.kind,
                    message: skipped.message,
                });
                return;
            }
        };
        let h = &frame.headers;
        match h.message_type.unwrap_or("event") {
            "error" => {
                self.end.errored = true;
                let msg = h
                    .error_message
                    .or(h.error_code)
                    .unwrap_or("event-stream error");
                out.push(ProviderDelta::provider_error(msg));
            }
            message_type => {
                let name = if message_type == "exception" {
                    h.exception_type.unwrap_or("exception")
                } else {
                    h.event_type.unwrap_or("")
                };
                let body = if frame.payload.iter().all(u8::is_ascii_whitespace) {
                    BodyIn::default()
                } else {
                    match serde_json::from_slice::<BodyIn>(frame.payload) {
                        Ok(body) => body,
                        Err(err) if std::str::from_utf8(frame.payload).is_ok() => {
                            out.push(ProviderDelta::malformed(format!(
                                "bad json in `{name}` frame: {err}"
                            )));
                            return;
                        }
                        Err(err) => {
                            out.push(unreadable_frame(frame.payload, &err));
                            return;
                        }
                    }
                };
                if message_type == "exception" {
                    self.on_exception(name, body.message.as_ref(), out);
                } else {
                    self.on_event(name, body, out);
                }
            }
        }
    }

    fn on_event(&mut self, name: &str, body: BodyIn, out: &mut Vec<ProviderDelta>) {
        let index = body
            .content_block_index
            .as_ref()
            .and_then(Value::as_u64)
            .unwrap_or(0);
        match name {
            "messageStart" | "p" => {}
            "contentBlockStart" => {
                if let Some(tool) = body.start.as_ref().and_then(|s| s.get("toolUse")) {
                    let key = self.keys.next();
                    self.open_calls.push((index, key));
                    out.push(ProviderDelta::ToolCallStart {
                        key,
                        id: str_field(tool, "toolUseId").map(str::to_owned),
                        name: str_field(tool, "name").unwrap_or("").to_owned(),
                    });
                }
            }
            "contentBlockDelta" => {
                let Some(delta) = body.delta else {
                    return;
                };
                if let Some(t) = take_str(delta.text) {
                    out.push(ProviderDelta::Text(t));
                }
                if let Some(reasoning) = delta.reasoning_content {
                    if let Some(t) = take_str(reasoning.text) {
                        out.push(ProviderDelta::Reasoning(t));
                    }
                    if let Some(s) = take_str(reasoning.signature) {
                        out.push(ProviderDelta::Signature {
                            key: None,
                            signature: s,
                        });
                    }
                }
                if let Some(input) = delta.tool_use.and_then(|t| take_str(t.input))
                    && let Some(&(_, key)) = self.open_calls.iter().rev().find(|(i, _)| *i == index)
                {
                    out.push(ProviderDelta::ToolCallArgs {
                        key,
                        fragment: input,
                    });
                }
            }
            "contentBlockStop" => {
                if let Some(pos) = self.open_calls.iter().rposition(|(i, _)| *i == index) {
                    let (_, key) = self.open_calls.remove(pos);
                    out.push(ProviderDelta::ToolCallEnd { key });
                }
            }
            "messageStop" if !self.end.finished => {
                self.end.finished = true;
                let reason = match &body.stop_reason {
                    Some(Value::String(r)) if !r.is_empty() => r.as_str(),
                    _ => "end_turn",
                };
                out.push(ProviderDelta::finish(stop_reason(reason), reason));
            }
            "metadata" => {
                // The last event, after `messageStop`.
                self.end.done = self.end.finished;
                if let Some(usage) = &body.usage {
                    out.push(ProviderDelta::Usage(Usage {
                        input_tokens: as_u64(usage.get("inputTokens")),
                        output_tokens: as_u64(usage.get("outputTokens")),
                        total_tokens: as_u64(usage.get("totalTokens")),
                    }));
                }
            }
            other if other.ends_with("Exception") => {
                self.on_exception(other, body.message.as_ref(), out);
            }
            _ => {}
        }
    }

    fn on_exception(&mut self, name: &str, message: Option<&Value>, out: &mut Vec<ProviderDelta>) {
        self.end.errored = true;
        let msg = match message {
            Some(m) => error_message(m),
            None => name.to_owned(),
        };
        out.push(ProviderDelta::provider_error(msg));
    }
}

fn stop_reason(reason: &str) -> StopReason {
    messages_stop_reason(reason).unwrap_or(match reason {
        "guardrail_intervened" | "content_filtered" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    })
}
