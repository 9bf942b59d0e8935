//! `EventWriter`: a routed turn's events as Anthropic Messages SSE events,
//! written as they come: `message_start`, then one `content_block_start` /
//! `content_block_delta`… / `content_block_stop` run per block (text as
//! `text_delta`, reasoning as a `thinking` block of `thinking_delta`s, every
//! call as a `tool_use` block whose `input_json_delta` fragments follow the
//! detector's), then `message_delta` (stop reason, output tokens) and
//! `message_stop`. A failed turn ends with an `event: error` instead.

use crate::proxy::turn::FrameWriter;
use serde_json::{Value, json};
use toolrouter_providers::{StopReason, Usage};

use super::message_id;
use crate::core::DetectEvent;
use crate::proxy::faults::Faults;
use crate::proxy::meta::ChunkMeta;
use crate::proxy::shown::ShownCalls;
use crate::router::RouteEvent;

/// The kind of the block open at the moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    Thinking,
    /// A `tool_use` block: the position in `calls`.
    Call(usize),
}

/// A call the router began. Blocks cannot interleave: a call that begins
/// while another call's block is open waits, its fragments kept, until that
/// call ends (an upstream may stream parallel calls' arguments interleaved).
#[derive(Debug)]
struct Announced {
    id: String,
    name: String,
    /// Its content block's index, once the block started.
    block: Option<usize>,
    /// Fragments read before its block started.
    waiting: Vec<String>,
    args_sent: bool,
}

/// Writes one client stream.
#[derive(Debug, Default)]
pub(crate) struct EventWriter {
    started: bool,
    /// The number of blocks started.
    blocks: usize,
    open: Option<Open>,
    /// The calls begun, found by router index, and what was written of
    /// each, at the same positions.
    shown: ShownCalls,
    calls: Vec<Announced>,
    /// The calls before this one have their block: blocks start in the
    /// order the calls began.
    next_block: usize,
    usage: Option<Usage>,
    faults: Faults,
    /// Why the stream ended with an error event (the OpenAI door's codes).
    failure: Option<&'static str>,
    ended: bool,
}

impl EventWriter {
    /// Text or reasoning, in the open block of that kind or a new one.
    fn text(&mut self, kind: Open, text: &str, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if text.is_empty() {
            return;
        }
        if self.open != Some(kind) {
            let block = match kind {
                Open::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
                _ => json!({"type": "text", "text": ""}),
            };
            self.start_block(kind, block, meta, out);
        }
        let delta = match kind {
            Open::Thinking => json!({"type": "thinking_delta", "thinking": text}),
            _ => json!({"type": "text_delta", "text": text}),
        };
        let index = self.blocks - 1;
        event(
            out,
            "content_block_delta",
            &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        );
    }

    /// Closes the open block and starts `block`; its index.
    fn start_block(
        &mut self,
        kind: Open,
        block: Value,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
    ) -> usize {
        self.start(meta, out);
        self.close_block(out);
        let index = self.blocks;
        self.blocks += 1;
        self.open = Some(kind);
        event(
            out,
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        index
    }

    fn close_block(&mut self, out: &mut Vec<u8>) {
        if self.open.take().is_some() {
            let index = self.blocks - 1;
            event(
                out,
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            );
        }
    }

    /// `message_start`, once.
    fn start(&mut self, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if self.started {
            return;
        }
        self.started = true;
        let meta = meta();
        let input = self
            .usage
            .as_ref()
            .and_then(|u| u.input_tokens)
            .unwrap_or(0);
        let message = json!({
            "id": message_id(&meta.id), "type": "message", "role": "assistant",
            "model": meta.model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "output_tokens": 0},
        });
        event(
            out,
            "message_start",
            &json!({"type": "message_start", "message": message}),
        );
    }

    /// An argument fragment, as an `input_json_delta` of the call's block.
    fn arguments(&mut self, route_index: usize, fragment: &str, out: &mut Vec<u8>) {
        let Some(pos) = self.shown.position(route_index) else {
            return;
        };
        if fragment.is_empty() || self.shown.is_ended(pos) {
            return;
        }
        let call = &mut self.calls[pos];
        call.args_sent |= !fragment.trim().is_empty();
        match call.block {
            Some(block) => json_delta(out, block, fragment),
            None => call.waiting.push(fragment.to_owned()),
        }
    }

    /// Starts the blocks of the calls that wait, in the order they began,
    /// while no call's block is open unfinished; `all`: start every one (the
    /// answer ends).
    fn start_waiting(&mut self, all: bool, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        loop {
            if !all
                && let Some(Open::Call(pos)) = self.open
                && !self.shown.is_ended(pos)
            {
                return;
            }
            let pos = self.next_block;
            let Some(call) = self.calls.get(pos) else {
                return;
            };
            self.next_block += 1;
            let block = json!({"type": "tool_use", "id": call.id, "name": call.name, "input": {}});
            let index = self.start_block(Open::Call(pos), block, meta, out);
            let call = &mut self.calls[pos];
            call.block = Some(index);
            for fragment in std::mem::take(&mut call.waiting) {
                json_delta(out, index, &fragment);
            }
        }
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
        self.start_waiting(true, meta, out);
        self.start(meta, out);
        self.close_block(out);
        let reason = stop_reason(stop, self.shown.any_ended());
        let output = self
            .usage
            .as_ref()
            .and_then(|u| u.output_tokens)
            .unwrap_or(0);
        let mut usage = json!({"output_tokens": output});
        if let Some(input) = self.usage.as_ref().and_then(|u| u.input_tokens) {
            usage["input_tokens"] = json!(input);
        }
        event(
            out,
            "message_delta",
            &json!({"type": "message_delta",
                "delta": {"stop_reason": reason, "stop_sequence": null}, "usage": usage}),
        );
        event(out, "message_stop", &json!({"type": "message_stop"}));
        self.ended = true;
    }

    /// Ends the client's stream with an `error` event, which the SDK raises.
    fn fail(&mut self, message: &str, code: &'static str, out: &mut Vec<u8>) {
        tracing::debug!(%message, "the client's stream ends with an error");
        event(
            out,
            "error",
            &json!({"type": "error", "error": {"type": "api_error", "message": message}}),
        );
        self.failure = Some(code);
        self.ended = true;
    }
}

/// Anthropic's `stop_reason` for a normalised stop; `called`: a call
/// completed (`tool_use` only then).
pub(crate) fn stop_reason(stop: StopReason, called: bool) -> &'static str {
    match stop {
        StopReason::MaxTokens => "max_tokens",
        _ if called => "tool_use",
        StopReason::StopSequence => "stop_sequence",
        StopReason::ContentFilter | StopReason::Refusal => "refusal",
        StopReason::PauseTurn => "pause_turn",
        _ => "end_turn",
    }
}

/// An `input_json_delta` of block `index`.
fn json_delta(out: &mut Vec<u8>, index: usize, fragment: &str) {
    let delta = json!({"type": "input_json_delta", "partial_json": fragment});
    event(
        out,
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": index, "delta": delta}),
    );
}

/// `event: NAME` and its `data:` line.
fn event(out: &mut Vec<u8>, name: &str, data: &Value) {
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\ndata: ");
    out.extend_from_slice(data.to_string().as_bytes());
    out.extend_from_slice(b"\n\n");
}

impl FrameWriter for EventWriter {
    fn ended(&self) -> bool {
        self.ended
    }

    fn failure(&self) -> Option<&'static str> {
        self.failure
    }

    fn write_event(&mut self, event: RouteEvent, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        match event {
            RouteEvent::Detect(DetectEvent::Text { text }) if !self.faults.holds_text() => {
                self.text(Open::Text, &text, meta, out)
            }
            // Anthropic has no refusal field: a refusal is text.
            RouteEvent::Refusal { text } => self.text(Open::Text, &text, meta, out),
            RouteEvent::Detect(DetectEvent::Reasoning { text }) => {
                self.text(Open::Thinking, &text, meta, out)
            }
            RouteEvent::Detect(DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            }) => {
                self.shown.add(index, format);
                self.calls.push(Announced {
                    id,
                    name,
                    block: None,
                    waiting: Vec::new(),
                    args_sent: false,
                });
                self.start_waiting(false, meta, out);
            }
            RouteEvent::Detect(DetectEvent::ArgsDelta { index, fragment }) => {
                self.arguments(index, &fragment, out);
            }
            RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                let Some(pos) = self.shown.position(index) else {
                    return;
                };
                if !self.calls[pos].args_sent {
                    let text =
                        serde_json::to_string(&call.arguments).unwrap_or_else(|_| "{}".to_owned());
                    self.arguments(index, &text, out);
                }
                self.shown.end(pos);
                self.start_waiting(false, meta, out);
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
            other => tracing::trace!(?other, "event with no Anthropic event"),
        }
    }
}
