//! OpenAI Chat Completions SSE (and every OpenAI-compatible server's variant of it).
//!
//! Quirks handled: `[DONE]`, usage-only chunks, legacy `function_call`, whole
//! arguments in one chunk, the call `id` repeated on every chunk, a missing `index`,
//! `index` reused with a new `id`, empty-string arguments, `type` missing, `name: ""`
//! on continuations, `finish_reason: ""`, `{"error": ...}` objects, SSE comments,
//! Azure's `prompt_filter_results` chunk, `reasoning_content` / `reasoning`, and the
//! legacy Completions stream's `choices[].text` (llama.cpp's `/v1/completions`, which
//! the proxy's lazy grammar goes through).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{FrameHandler, parse_frame};
use super::json_close::JsonCloseTracker;
use super::stream_end::StreamEnd;
use super::{KeyAlloc, error_message, str_field, take_str};
use crate::delta::{CallKey, ProviderDelta, StopReason, Usage, as_u64};

/// The wire index used for the legacy `function_call` (it has none).
const LEGACY_INDEX: i64 = -1;

/// One tool call being assembled.
///
/// Transitions: created (not `started`, arguments buffered in `pending`) -> `started`
/// once a name is known (`ToolCallStart` sent, `pending` flushed) -> `ended` at a
/// natural finish, when its `index` is reused by a call with a new `id`, or when
/// another call receives data after its arguments closed their JSON object.
#[derive(Debug)]
struct Slot {
    key: CallKey,
    id: Option<String>,
    name: String,
    pending: String,
    started: bool,
    has_args: bool,
    ended: bool,
    json: JsonCloseTracker,
    /// In `OpenAiChatFrames::closed`.
    listed: bool,
}

/// Frame handler for Chat Completions chunks.
///
/// Each fragment finds its call in constant time, however many calls the
/// stream holds: by id, by wire index, or as the latest call still open.
#[derive(Debug, Default)]
pub(crate) struct OpenAiChatFrames {
    keys: KeyAlloc,
    slots: Vec<Slot>,
    /// The latest slot of each call id.
    by_id: HashMap<String, usize>,
    /// The latest slot of each wire index (the only one of its index that
    /// may be open: a new call on an index ends the one before).
    by_index: HashMap<i64, usize>,
    /// Slots in the order they were made, less some that ended: the top
    /// one, once the ended ones are taken off it, is the latest still open.
    open: Vec<usize>,
    /// Started slots whose arguments closed their object and that had not
    /// ended when listed: another call speaking ends them.
    closed: Vec<usize>,
    last_slot: Option<usize>,
    end: StreamEnd,
}

/// A chunk, read with a typed skeleton so that the envelope (`id`, `model`,
/// `system_fingerprint`, `logprobs`, filter results, ...) is skipped without being
/// built; the leaves stay `Value`s because servers disagree on their types.
#[derive(Deserialize)]
struct ChunkIn {
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    choices: Option<Vec<ChoiceIn>>,
    #[serde(default)]
    usage: Option<Value>,
}

#[derive(Deserialize)]
struct ChoiceIn {
    #[serde(default)]
    index: Option<Value>,
    #[serde(default)]
    delta: Option<DeltaIn>,
    /// A legacy Completions chunk's text (`/v1/completions`), read when
    /// there is no `delta`.
    #[serde(default)]
    text: Option<Value>,
    #[serde(default)]
    finish_reason: Option<Value>,
}

#[derive(Deserialize)]
struct DeltaIn {
    #[serde(default)]
    reasoning_content: Option<Value>,
    #[serde(default)]
    reasoning: Option<Value>,
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    refusal: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<ToolCallIn>>,
    #[serde(default)]
    function_call: Option<FunctionIn>,
}

#[derive(Deserialize)]
struct ToolCallIn {
    #[serde(default)]
    index: Option<Value>,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    function: Option<FunctionIn>,
    #[serde(default)]
    extra_content: Option<Value>,
}

#[derive(Deserialize)]
struct FunctionIn {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    arguments: Option<Value>,
}

impl FrameHandler for OpenAiChatFrames {
    fn on_data(&mut self, _event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        if data == b"[DONE]" {
            self.end.done = true;
            if !self.end.finished && !self.end.errored {
                // A server that never sent a finish_reason but closed properly.
                self.end_open_calls(out);
                self.end.finished = true;
                out.push(ProviderDelta::finish(StopReason::EndTurn, "[DONE]"));
            }
            return;
        }
        let Some(chunk) = parse_frame::<ChunkIn>(data, out) else {
            return;
        };
        if let Some(err) = chunk.error.filter(|e| !e.is_null()) {
            self.end.errored = true;
            out.push(ProviderDelta::provider_error(error_message(&err)));
        }
        for choice in chunk.choices.into_iter().flatten() {
            let index = choice.index.as_ref().and_then(Value::as_i64).unwrap_or(0);
            if index == 0 {
                self.on_choice(choice, out);
            }
        }
        if let Some(usage) = chunk.usage.filter(Value::is_object) {
            out.push(ProviderDelta::Usage(Usage {
                input_tokens: as_u64(usage.get("prompt_tokens")),
                output_tokens: as_u64(usage.get("completion_tokens")),
                total_tokens: as_u64(usage.get("total_tokens")),
            }));
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        self.end
            .report_cut("stream ended before a finish reason", out);
    }

    fn is_done(&self) -> bool {
        self.end.done
    }
}

impl OpenAiChatFrames {
    fn on_choice(&mut self, choice: ChoiceIn, out: &mut Vec<ProviderDelta>) {
        if let Some(delta) = choice.delta {
            for r in [delta.reasoning_content, delta.reasoning] {
                if let Some(r) = take_str(r) {
                    out.push(ProviderDelta::Reasoning(r));
                }
            }
            match delta.content {
                Some(Value::String(text)) if !text.is_empty() => {
                    out.push(ProviderDelta::Text(text))
                }
                Some(Value::Array(parts)) => content_parts(&parts, out),
                _ => {}
            }
            if let Some(refusal) = take_str(delta.refusal) {
                out.push(ProviderDelta::Refusal(refusal));
            }
            for call in delta.tool_calls.into_iter().flatten() {
                let index = call.index.as_ref().and_then(Value::as_i64);
                let id = match call.id {
                    Some(Value::String(s)) if !s.is_empty() => Some(s),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                };
                let (name, args) = name_and_args(call.function);
                let key = self.on_call_fragment(id, index, name, args, out);
                if let Some(sig) = call
                    .extra_content
                    .as_ref()
                    .and_then(|e| e.pointer("/google/thought_signature"))
                    .and_then(Value::as_str)
                {
                    out.push(ProviderDelta::Signature {
                        key: Some(key),
                        signature: sig.to_owned(),
                    });
                }
            }
            if let Some(func) = delta.function_call {
                let (name, args) = name_and_args(Some(func));
                self.on_call_fragment(None, Some(LEGACY_INDEX), name, args, out);
            }
        } else if let Some(text) = take_str(choice.text) {
            out.push(ProviderDelta::Text(text));
        }
        if let Some(reason) = take_str(choice.finish_reason) {
            self.on_finish(&reason, out);
        }
    }

    fn on_call_fragment(
        &mut self,
        id: Option<String>,
        index: Option<i64>,
        name: Option<String>,
        args: String,
        out: &mut Vec<ProviderDelta>,
    ) -> CallKey {
        let slot_idx = match (&id, index) {
            (Some(id), _) => match self.by_id.get(id) {
                Some(&i) => i,
                None => {
                    if let Some(ix) = index
                        && let Some(&j) = self.by_index.get(&ix)
                        && !self.slots[j].ended
                    {
                        // `index` reused with a new id: the old call is complete.
                        self.end_slot(j, out);
                    }
                    self.new_slot(Some(id.clone()), index)
                }
            },
            (None, Some(ix)) => match self.by_index.get(&ix).copied() {
                // A name arriving on an index whose call is already complete is a new
                // call reusing the index (servers that send no ids).
                Some(i)
                    if !(name.is_some()
                        && self.slots[i].json.is_closed()
                        && !args.trim().is_empty()) =>
                {
                    i
                }
                Some(i) => {
                    self.end_slot(i, out);
                    self.new_slot(None, Some(ix))
                }
                None => self.new_slot(None, Some(ix)),
            },
            (None, None) => match self.latest_open() {
                Some(i) if !(name.is_some() && self.slots[i].started && self.slots[i].has_args) => {
                    i
                }
                _ => self.new_slot(None, None),
            },
        };
        if self.last_slot != Some(slot_idx) {
            // Another call speaks: the ones whose arguments are closed are done, and
            // can be run while the model goes on.
            self.last_slot = Some(slot_idx);
            self.end_closed(slot_idx, out);
        }
        let slot = &mut self.slots[slot_idx];
        if slot.ended {
            return slot.key;
        }
        if !slot.started
            && let Some(name) = name
        {
            slot.name = name;
            start_slot(slot, out);
        }
        if !args.is_empty() {
            slot.has_args = true;
            slot.json.push(&args);
            if slot.started {
                out.push(ProviderDelta::ToolCallArgs {
                    key: slot.key,
                    fragment: args,
                });
            } else {
                slot.pending.push_str(&args);
            }
        }
        if slot.started && !slot.listed && slot.json.is_closed() {
            slot.listed = true;
            self.closed.push(slot_idx);
        }
        slot.key
    }

    /// Ends the listed calls whose arguments are closed, but `speaking`'s,
    /// in the order they were made.
    fn end_closed(&mut self, speaking: usize, out: &mut Vec<ProviderDelta>) {
        if self.closed.is_empty() {
            return;
        }
        let mut closed = std::mem::take(&mut self.closed);
        closed.sort_unstable();
        for &j in &closed {
            let other = &self.slots[j];
            if j != speaking && other.started && !other.ended && other.json.is_closed() {
                self.end_slot(j, out);
            }
        }
        // Only the speaking call may still be waiting; one whose arguments
        // broke their object never closes again.
        closed.retain(|&j| {
            let slot = &mut self.slots[j];
            let keep = !slot.ended && slot.json.is_closed();
            slot.listed = keep;
            keep
        });
        self.closed = closed;
    }

    /// The latest slot that has not ended.
    fn latest_open(&mut self) -> Option<usize> {
        while let Some(&top) = self.open.last() {
            if !self.slots[top].ended {
                return Some(top);
            }
            self.open.pop();
        }
        None
    }

    fn new_slot(&mut self, id: Option<String>, wire_index: Option<i64>) -> usize {
        let i = self.slots.len();
        if let Some(id) = &id {
            self.by_id.insert(id.clone(), i);
        }
        if let Some(ix) = wire_index {
            self.by_index.insert(ix, i);
        }
        self.open.push(i);
        self.slots.push(Slot {
            key: self.keys.next(),
            id,
            name: String::new(),
            pending: String::new(),
            started: false,
            has_args: false,
            ended: false,
            json: JsonCloseTracker::default(),
            listed: false,
        });
        i
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
        if self.end.finished {
            return;
        }
        self.end.finished = true;
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

/// A function's name (non-empty) and argument text (string as is, object as JSON).
fn name_and_args(func: Option<FunctionIn>) -> (Option<String>, String) {
    let Some(func) = func else {
        return (None, String::new());
    };
    let args = match func.arguments {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
    };
    (take_str(func.name), args)
}

/// `content` given as a list of parts (Mistral reasoning models): `text` parts are
/// text, `thinking` parts (themselves lists of text parts) are reasoning.
fn content_parts(parts: &[Value], out: &mut Vec<ProviderDelta>) {
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(t) = str_field(part, "text") {
                    out.push(ProviderDelta::Text(t.to_owned()));
                }
            }
            Some("thinking") => {
                let inner = part.get("thinking").and_then(Value::as_array);
                for t in inner.into_iter().flatten() {
                    if let Some(t) = str_field(t, "text") {
                        out.push(ProviderDelta::Reasoning(t.to_owned()));
                    }
                }
            }
            _ => {}
        }
    }
}
