//! OpenAI Chat Completions SSE (and every OpenAI-compatible server's variant of it).
//!
//! Quirks handled: `[DONE]`, usage-only chunks, legacy `function_call`, whole
//! arguments in one chunk, the call `id` repeated on every chunk, a missing `index`,
//! `index` reused with a new `id`, empty-string arguments, `type` missing, `name: ""`
//! on continuations, `finish_reason: ""`, `{"error": ...}` objects, SSE comments,
//! Azure's `prompt_filter_results` chunk, `reasoning_content` / `reasoning`.

use serde_json::Value;

use super::driver::{FrameHandler, bad_json_message};
use super::{KeyAlloc, args_text, id_field, str_field};
use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage, as_u64};

/// The wire index used for the legacy `function_call` (it has none).
const LEGACY_INDEX: i64 = -1;

/// One tool call being assembled.
///
/// Transitions: created (not `started`, arguments buffered in `pending`) -> `started`
/// once a name is known (`ToolCallStart` sent, `pending` flushed) -> `ended` at a
/// natural finish, or when its `index` is reused by a call with a new `id`.
#[derive(Debug)]
struct Slot {
    key: CallKey,
    wire_index: Option<i64>,
    id: Option<String>,
    name: String,
    pending: String,
    started: bool,
    has_args: bool,
    ended: bool,
}

/// Frame handler for Chat Completions chunks.
#[derive(Debug, Default)]
pub(crate) struct OpenAiChatFrames {
    keys: KeyAlloc,
    slots: Vec<Slot>,
    finished: bool,
    errored: bool,
}

impl FrameHandler for OpenAiChatFrames {
    fn on_frame(&mut self, _event: &str, json: Value, out: &mut Vec<ProviderDelta>) {
        if let Some(err) = json.get("error").filter(|e| !e.is_null()) {
            self.errored = true;
            out.push(ProviderDelta::provider_error(error_message(err)));
        }
        if let Some(choices) = json.get("choices").and_then(Value::as_array) {
            for choice in choices {
                let index = choice.get("index").and_then(Value::as_i64).unwrap_or(0);
                if index == 0 {
                    self.on_choice(choice, out);
                }
            }
        }
        if let Some(usage) = json.get("usage").filter(|u| u.is_object()) {
            out.push(ProviderDelta::Usage(Usage {
                input_tokens: as_u64(usage.get("prompt_tokens")),
                output_tokens: as_u64(usage.get("completion_tokens")),
                total_tokens: as_u64(usage.get("total_tokens")),
            }));
        }
    }

    fn on_non_json(&mut self, data: &str, err: serde_json::Error, out: &mut Vec<ProviderDelta>) {
        if data == "[DONE]" {
            if !self.finished && !self.errored {
                // A server that never sent a finish_reason but closed properly.
                self.end_open_calls(out);
                self.finished = true;
                out.push(ProviderDelta::finish(StopReason::EndTurn, "[DONE]"));
            }
            return;
        }
        out.push(ProviderDelta::malformed(bad_json_message(data, &err)));
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: "stream ended before a finish reason".to_owned(),
            });
        }
    }
}

impl OpenAiChatFrames {
    fn on_choice(&mut self, choice: &Value, out: &mut Vec<ProviderDelta>) {
        if let Some(delta) = choice.get("delta").filter(|d| d.is_object()) {
            for field in ["reasoning_content", "reasoning"] {
                if let Some(r) = str_field(delta, field) {
                    out.push(ProviderDelta::Reasoning(r.to_owned()));
                }
            }
            if let Some(text) = str_field(delta, "content") {
                out.push(ProviderDelta::Text(text.to_owned()));
            }
            if let Some(refusal) = str_field(delta, "refusal") {
                out.push(ProviderDelta::Refusal(refusal.to_owned()));
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for call in calls {
                    let index = call.get("index").and_then(Value::as_i64);
                    self.on_call_fragment(id_field(call, "id"), index, call.get("function"), out);
                }
            }
            if let Some(func) = delta.get("function_call").filter(|f| f.is_object()) {
                self.on_call_fragment(None, Some(LEGACY_INDEX), Some(func), out);
            }
        }
        if let Some(reason) = str_field(choice, "finish_reason") {
            self.on_finish(reason, out);
        }
    }

    fn on_call_fragment(
        &mut self,
        id: Option<String>,
        index: Option<i64>,
        func: Option<&Value>,
        out: &mut Vec<ProviderDelta>,
    ) {
        let name = func.and_then(|f| str_field(f, "name"));
        let args = args_text(func.and_then(|f| f.get("arguments")));
        let slot_idx = match (&id, index) {
            (Some(id), _) => match self.slots.iter().position(|s| s.id.as_ref() == Some(id)) {
                Some(i) => i,
                None => {
                    if let Some(ix) = index
                        && let Some(j) = self
                            .slots
                            .iter()
                            .rposition(|s| s.wire_index == Some(ix) && !s.ended)
                    {
                        // `index` reused with a new id: the old call is complete.
                        self.end_slot(j, out);
                    }
                    self.new_slot(Some(id.clone()), index)
                }
            },
            (None, Some(ix)) => match self.slots.iter().rposition(|s| s.wire_index == Some(ix)) {
                Some(i) => i,
                None => self.new_slot(None, Some(ix)),
            },
            (None, None) => match self.slots.iter().rposition(|s| !s.ended) {
                Some(i) if !(name.is_some() && self.slots[i].started && self.slots[i].has_args) => {
                    i
                }
                _ => self.new_slot(None, None),
            },
        };
        let slot = &mut self.slots[slot_idx];
        if slot.ended {
            return;
        }
        if !slot.started
            && let Some(name) = name
        {
            slot.name = name.to_owned();
            start_slot(slot, out);
        }
        if !args.is_empty() {
            slot.has_args = true;
            if slot.started {
                out.push(ProviderDelta::ToolCallArgs {
                    key: slot.key,
                    fragment: args,
                });
            } else {
                slot.pending.push_str(&args);
            }
        }
    }

    fn new_slot(&mut self, id: Option<String>, wire_index: Option<i64>) -> usize {
        self.slots.push(Slot {
            key: self.keys.next(),
            wire_index,
            id,
            name: String::new(),
            pending: String::new(),
            started: false,
            has_args: false,
            ended: false,
        });
        self.slots.len() - 1
    }

    fn end_slot(&mut self, i: usize, out: &mut Vec<ProviderDelta>) {
        let slot = &mut self.slots[i];
        if slot.ended {
            return;
        }
        slot.ended = true;
        if !slot.started {
            // Never named: report it, leave it unfinished so that it is never run.
            start_slot(slot, out);
            out.push(ProviderDelta::malformed("tool call without a name"));
            return;
        }
        out.push(ProviderDelta::ToolCallEnd { key: slot.key });
    }

    fn end_open_calls(&mut self, out: &mut Vec<ProviderDelta>) {
        for i in 0..self.slots.len() {
            self.end_slot(i, out);
        }
    }

    fn on_finish(&mut self, reason: &str, out: &mut Vec<ProviderDelta>) {
        if self.finished {
            return;
        }
        self.finished = true;
        let stop = match reason {
            "stop" => StopReason::EndTurn,
            "tool_calls" | "function_call" => StopReason::ToolUse,
            "length" | "max_tokens" => StopReason::MaxTokens,
            "content_filter" => StopReason::ContentFilter,
            "stop_sequence" => StopReason::StopSequence,
            "error" => StopReason::Error,
            _ => StopReason::EndTurn,
        };
        if matches!(
            stop,
            StopReason::EndTurn | StopReason::ToolUse | StopReason::StopSequence
        ) {
            self.end_open_calls(out);
        }
        out.push(ProviderDelta::finish(stop, reason));
    }
}

fn start_slot(slot: &mut Slot, out: &mut Vec<ProviderDelta>) {
    slot.started = true;
    out.push(ProviderDelta::ToolCallStart {
        key: slot.key,
        id: slot.id.clone(),
        name: slot.name.clone(),
    });
    if !slot.pending.is_empty() {
        out.push(ProviderDelta::ToolCallArgs {
            key: slot.key,
            fragment: std::mem::take(&mut slot.pending),
        });
    }
}

/// The message of an `error` member: an object with `message`, or a plain string.
pub(crate) fn error_message(err: &Value) -> String {
    match err {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("message").and_then(Value::as_str) {
            Some(m) => m.to_owned(),
            None => err.to_string(),
        },
        other => other.to_string(),
    }
}
