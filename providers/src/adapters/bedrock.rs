//! Bedrock ConverseStream: binary `vnd.amazon.eventstream` frames or JSON lines, told apart by content.
//!
//! JSON lines are the events as the AWS SDKs present them, one per line, the union
//! member name wrapping the body: `{"contentBlockDelta": {...}}`. Binary frames carry
//! the member name in the `:event-type` (or `:exception-type`) header and the bare
//! body as payload. The first non-whitespace byte decides: `{` means JSON lines,
//! anything else binary (a binary frame starts with its big-endian length, 0x00 for
//! any frame under 16 MiB).

use serde_json::Value;

use super::driver::{FrameHandler, dispatch_line};
use super::openai_chat::error_message;
use super::{AdapterConfig, KeyAlloc, Wire, WireAdapter, str_field};
use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage, as_u64};
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
    finished: bool,
    errored: bool,
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
        if self.finished {
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
}

impl FrameHandler for BedrockEvents {
    /// A JSON line: `{"<eventName>": {...}}`.
    fn on_frame(&mut self, _event: &str, json: Value, out: &mut Vec<ProviderDelta>) {
        let Value::Object(map) = json else {
            out.push(ProviderDelta::malformed(
                "bedrock event line is not an object",
            ));
            return;
        };
        for (name, body) in &map {
            self.on_event(name, body, out);
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: "stream ended before messageStop".to_owned(),
            });
        }
    }
}

impl BedrockEvents {
    fn on_binary(&mut self, frame: Result<Frame<'_>, SkippedFrame>, out: &mut Vec<ProviderDelta>) {
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
                self.errored = true;
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
                let body: Value = if frame.payload.iter().all(u8::is_ascii_whitespace) {
                    Value::Object(Default::default())
                } else {
                    match serde_json::from_slice(frame.payload) {
                        Ok(v) => v,
                        Err(err) => {
                            out.push(ProviderDelta::malformed(format!(
                                "bad json in `{name}` frame: {err}"
                            )));
                            return;
                        }
                    }
                };
                if message_type == "exception" {
                    self.on_exception(name, &body, out);
                } else {
                    self.on_event(name, &body, out);
                }
            }
        }
    }

    fn on_event(&mut self, name: &str, body: &Value, out: &mut Vec<ProviderDelta>) {
        let index = body
            .get("contentBlockIndex")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        match name {
            "messageStart" | "p" => {}
            "contentBlockStart" => {
                if let Some(tool) = body.pointer("/start/toolUse") {
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
                let Some(delta) = body.get("delta") else {
                    return;
                };
                if let Some(t) = str_field(delta, "text") {
                    out.push(ProviderDelta::Text(t.to_owned()));
                }
                if let Some(t) = delta
                    .get("reasoningContent")
                    .and_then(|r| str_field(r, "text"))
                {
                    out.push(ProviderDelta::Reasoning(t.to_owned()));
                }
                if let Some(input) = delta.get("toolUse").and_then(|t| str_field(t, "input"))
                    && let Some(&(_, key)) = self.open_calls.iter().rev().find(|(i, _)| *i == index)
                {
                    out.push(ProviderDelta::ToolCallArgs {
                        key,
                        fragment: input.to_owned(),
                    });
                }
            }
            "contentBlockStop" => {
                if let Some(pos) = self.open_calls.iter().rposition(|(i, _)| *i == index) {
                    let (_, key) = self.open_calls.remove(pos);
                    out.push(ProviderDelta::ToolCallEnd { key });
                }
            }
            "messageStop" if !self.finished => {
                self.finished = true;
                let reason = str_field(body, "stopReason").unwrap_or("end_turn");
                out.push(ProviderDelta::finish(stop_reason(reason), reason));
            }
            "metadata" => {
                if let Some(usage) = body.get("usage") {
                    out.push(ProviderDelta::Usage(Usage {
                        input_tokens: as_u64(usage.get("inputTokens")),
                        output_tokens: as_u64(usage.get("outputTokens")),
                        total_tokens: as_u64(usage.get("totalTokens")),
                    }));
                }
            }
            other if other.ends_with("Exception") => self.on_exception(other, body, out),
            _ => {}
        }
    }

    fn on_exception(&mut self, name: &str, body: &Value, out: &mut Vec<ProviderDelta>) {
        self.errored = true;
        let msg = match body.get("message").or_else(|| body.get("Message")) {
            Some(m) => error_message(m),
            None => name.to_owned(),
        };
        out.push(ProviderDelta::provider_error(msg));
    }
}

fn stop_reason(reason: &str) -> StopReason {
    match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "guardrail_intervened" | "content_filtered" => StopReason::ContentFilter,
        _ => StopReason::EndTurn,
    }
}
