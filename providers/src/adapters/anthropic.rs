//! Anthropic Messages SSE: content blocks (text, thinking, tool_use, server_tool_use), `ping`, `error`.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{FrameHandler, parse_frame};
use super::stream_end::StreamEnd;
use super::{KeyAlloc, error_message, messages_stop_reason, str_field, take_str};
use crate::delta::{CallKey, ProviderDelta, StopReason, Usage, as_u64};

/// What an open content block is.
#[derive(Debug)]
enum Block {
    /// Visible text.
    Text,
    /// Thinking text (reasoning).
    Thinking,
    /// A client tool call; `got_args` tells whether any `input_json_delta` came.
    ToolUse {
        key: CallKey,
        got_args: bool,
        initial: Option<String>,
    },
    /// A tool the server runs; its input is collected and reported at block stop.
    ServerTool {
        id: Option<String>,
        name: String,
        input: String,
    },
    /// Anything else (results of server tools, redacted thinking, ...): ignored.
    Other,
}

/// Frame handler for Messages events.
#[derive(Debug, Default)]
pub(crate) struct AnthropicFrames {
    keys: KeyAlloc,
    blocks: Vec<(u64, Block)>,
    end: StreamEnd,
}

/// An event, read with a typed skeleton: the `message` envelope of `message_start`
/// is skipped but for its usage; the rest stays `Value`s.
#[derive(Deserialize)]
struct EventIn<'a> {
    #[serde(default, rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    index: Option<Value>,
    #[serde(default)]
    content_block: Option<Value>,
    #[serde(default, borrow)]
    delta: Option<DeltaIn<'a>>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    message: Option<MessageIn>,
    #[serde(default)]
    error: Option<Value>,
}

/// The `delta` of `content_block_delta` and `message_delta`.
#[derive(Deserialize)]
struct DeltaIn<'a> {
    #[serde(default, rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    text: Option<Value>,
    #[serde(default)]
    thinking: Option<Value>,
    #[serde(default)]
    partial_json: Option<Value>,
    #[serde(default)]
    signature: Option<Value>,
    #[serde(default)]
    stop_reason: Option<Value>,
}

#[derive(Deserialize)]
struct MessageIn {
    #[serde(default)]
    usage: Option<Value>,
}

impl FrameHandler for AnthropicFrames {
    fn on_data(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        let Some(ev) = parse_frame::<EventIn>(data, out) else {
            return;
        };
        let index = ev.index.as_ref().and_then(Value::as_u64).unwrap_or(0);
        match ev.kind.as_deref().unwrap_or(event) {
            "message_start" => {
                if let Some(usage) = ev.message.and_then(|m| m.usage).filter(Value::is_object) {
                    out.push(ProviderDelta::Usage(usage_of(&usage)));
                }
            }
            "content_block_start" => {
                if let Some(cb) = &ev.content_block {
                    self.on_block_start(index, cb, out);
                }
            }
            "content_block_delta" => {
                if let Some(delta) = ev.delta {
                    self.on_block_delta(index, delta, out);
                }
            }
            "content_block_stop" => self.on_block_stop(index, out),
            "message_delta" => {
                if let Some(usage) = ev.usage.filter(Value::is_object) {
                    out.push(ProviderDelta::Usage(usage_of(&usage)));
                }
                let reason = ev.delta.and_then(|d| take_str(d.stop_reason));
                if let Some(reason) = reason.as_deref()
                    && !self.end.finished
                {
                    self.end.finished = true;
                    out.push(ProviderDelta::finish(stop_reason(reason), reason));
                }
            }
            "message_stop" => self.end.done = true,
            "error" => {
                self.end.errored = true;
                let msg = ev
                    .error
                    .as_ref()
                    .map(error_message)
                    .unwrap_or_else(|| "provider error".to_owned());
                out.push(ProviderDelta::provider_error(msg));
            }
            _ => {} // ping and future event types
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        let message = if self.end.done {
            "message stopped without a stop reason"
        } else {
            "stream ended before message_stop"
        };
        self.end.report_cut(message, out);
    }

    fn is_done(&self) -> bool {
        self.end.done
    }
}

impl AnthropicFrames {
    fn on_block_start(&mut self, index: u64, cb: &Value, out: &mut Vec<ProviderDelta>) {
        let block = match cb.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                if let Some(t) = str_field(cb, "text") {
                    out.push(ProviderDelta::Text(t.to_owned()));
                }
                Block::Text
            }
            "thinking" => {
                if let Some(t) = str_field(cb, "thinking") {
                    out.push(ProviderDelta::Reasoning(t.to_owned()));
                }
                Block::Thinking
            }
            "tool_use" => {
                let key = self.keys.next();
                out.push(ProviderDelta::ToolCallStart {
                    key,
                    id: str_field(cb, "id").map(str::to_owned),
                    name: str_field(cb, "name").unwrap_or("").to_owned(),
                });
                let initial = cb
                    .get("input")
                    .and_then(Value::as_object)
                    .filter(|o| !o.is_empty())
                    .map(crate::delta::object_text);
                Block::ToolUse {
                    key,
                    got_args: false,
                    initial,
                }
            }
            "server_tool_use" | "mcp_tool_use" => Block::ServerTool {
                id: str_field(cb, "id").map(str::to_owned),
                name: str_field(cb, "name").unwrap_or("").to_owned(),
                input: cb
                    .get("input")
                    .and_then(Value::as_object)
                    .filter(|o| !o.is_empty())
                    .map(crate::delta::object_text)
                    .unwrap_or_default(),
            },
            _ => Block::Other,
        };
        self.blocks.push((index, block));
    }

    fn on_block_delta(&mut self, index: u64, delta: DeltaIn<'_>, out: &mut Vec<ProviderDelta>) {
        let block = self
            .blocks
            .iter_mut()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b);
        match (delta.kind.as_deref().unwrap_or(""), block) {
            ("text_delta", _) => {
                if let Some(t) = take_str(delta.text) {
                    out.push(ProviderDelta::Text(t));
                }
            }
            ("thinking_delta", _) => {
                if let Some(t) = take_str(delta.thinking) {
                    out.push(ProviderDelta::Reasoning(t));
                }
            }
            ("input_json_delta", Some(Block::ToolUse { key, got_args, .. })) => {
                if let Some(p) = take_str(delta.partial_json) {
                    *got_args = true;
                    out.push(ProviderDelta::ToolCallArgs {
                        key: *key,
                        fragment: p,
                    });
                }
            }
            ("input_json_delta", Some(Block::ServerTool { input, .. })) => {
                if let Some(p) = take_str(delta.partial_json) {
                    input.push_str(&p);
                }
            }
            ("signature_delta", _) => {
                if let Some(s) = take_str(delta.signature) {
                    out.push(ProviderDelta::Signature {
                        key: None,
                        signature: s,
                    });
                }
            }
            _ => {} // citations_delta, ...
        }
    }

    fn on_block_stop(&mut self, index: u64, out: &mut Vec<ProviderDelta>) {
        let Some(pos) = self.blocks.iter().rposition(|(i, _)| *i == index) else {
            return;
        };
        let (_, block) = self.blocks.remove(pos);
        match block {
            Block::ToolUse {
                key,
                got_args,
                initial,
            } => {
                if !got_args && let Some(initial) = initial {
                    out.push(ProviderDelta::ToolCallArgs {
                        key,
                        fragment: initial,
                    });
                }
                out.push(ProviderDelta::ToolCallEnd { key });
            }
            Block::ServerTool { id, name, input } => {
                let arguments = if input.trim().is_empty() {
                    Value::Object(Default::default())
                } else {
                    serde_json::from_str(&input).unwrap_or(Value::String(input))
                };
                out.push(ProviderDelta::ServerToolCall {
                    id,
                    name,
                    arguments,
                });
            }
            Block::Text | Block::Thinking | Block::Other => {}
        }
    }
}

fn stop_reason(reason: &str) -> StopReason {
    messages_stop_reason(reason).unwrap_or(match reason {
        "pause_turn" => StopReason::PauseTurn,
        "refusal" => StopReason::Refusal,
        _ => StopReason::EndTurn,
    })
}

fn usage_of(usage: &Value) -> Usage {
    Usage {
        input_tokens: as_u64(usage.get("input_tokens")),
        output_tokens: as_u64(usage.get("output_tokens")),
        total_tokens: None,
    }
}
