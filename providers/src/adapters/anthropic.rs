//! Anthropic Messages SSE: content blocks (text, thinking, tool_use, server_tool_use), `ping`, `error`.

use serde_json::Value;

use super::driver::FrameHandler;
use super::openai_chat::error_message;
use super::{KeyAlloc, str_field};
use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage, as_u64};

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
    finished: bool,
    stopped: bool,
    errored: bool,
}

impl FrameHandler for AnthropicFrames {
    fn on_frame(&mut self, event: &str, json: Value, out: &mut Vec<ProviderDelta>) {
        let kind = json.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "message_start" => {
                if let Some(usage) = json.pointer("/message/usage") {
                    out.push(ProviderDelta::Usage(usage_of(usage)));
                }
            }
            "content_block_start" => self.on_block_start(&json, out),
            "content_block_delta" => self.on_block_delta(&json, out),
            "content_block_stop" => self.on_block_stop(&json, out),
            "message_delta" => {
                if let Some(usage) = json.get("usage").filter(|u| u.is_object()) {
                    out.push(ProviderDelta::Usage(usage_of(usage)));
                }
                if let Some(reason) = json.pointer("/delta/stop_reason").and_then(Value::as_str)
                    && !self.finished
                {
                    self.finished = true;
                    out.push(ProviderDelta::finish(stop_reason(reason), reason));
                }
            }
            "message_stop" => self.stopped = true,
            "error" => {
                self.errored = true;
                let msg = json
                    .get("error")
                    .map(error_message)
                    .unwrap_or_else(|| "provider error".to_owned());
                out.push(ProviderDelta::provider_error(msg));
            }
            _ => {} // ping and future event types
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: if self.stopped {
                    "message stopped without a stop reason".to_owned()
                } else {
                    "stream ended before message_stop".to_owned()
                },
            });
        }
    }
}

impl AnthropicFrames {
    fn on_block_start(&mut self, json: &Value, out: &mut Vec<ProviderDelta>) {
        let index = json.get("index").and_then(Value::as_u64).unwrap_or(0);
        let Some(cb) = json.get("content_block") else {
            return;
        };
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

    fn on_block_delta(&mut self, json: &Value, out: &mut Vec<ProviderDelta>) {
        let index = json.get("index").and_then(Value::as_u64).unwrap_or(0);
        let Some(delta) = json.get("delta") else {
            return;
        };
        let delta_type = delta.get("type").and_then(Value::as_str).unwrap_or("");
        let block = self
            .blocks
            .iter_mut()
            .rev()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b);
        match (delta_type, block) {
            ("text_delta", _) => {
                if let Some(t) = str_field(delta, "text") {
                    out.push(ProviderDelta::Text(t.to_owned()));
                }
            }
            ("thinking_delta", _) => {
                if let Some(t) = str_field(delta, "thinking") {
                    out.push(ProviderDelta::Reasoning(t.to_owned()));
                }
            }
            ("input_json_delta", Some(Block::ToolUse { key, got_args, .. })) => {
                if let Some(p) = str_field(delta, "partial_json") {
                    *got_args = true;
                    out.push(ProviderDelta::ToolCallArgs {
                        key: *key,
                        fragment: p.to_owned(),
                    });
                }
            }
            ("input_json_delta", Some(Block::ServerTool { input, .. })) => {
                if let Some(p) = str_field(delta, "partial_json") {
                    input.push_str(p);
                }
            }
            _ => {} // signature_delta, citations_delta, ...
        }
    }

    fn on_block_stop(&mut self, json: &Value, out: &mut Vec<ProviderDelta>) {
        let index = json.get("index").and_then(Value::as_u64).unwrap_or(0);
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
    match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "pause_turn" => StopReason::PauseTurn,
        "refusal" => StopReason::Refusal,
        _ => StopReason::EndTurn,
    }
}

fn usage_of(usage: &Value) -> Usage {
    Usage {
        input_tokens: as_u64(usage.get("input_tokens")),
        output_tokens: as_u64(usage.get("output_tokens")),
        total_tokens: None,
    }
}
