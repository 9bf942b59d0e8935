//! `ResponseWriter`: a routed turn's events as OpenAI Responses SSE events,
//! written as they come: `response.created` and `response.in_progress`, then
//! one run of events per output item (a `reasoning` item of
//! `response.reasoning_summary_text.delta`s, a `message` item of
//! `response.output_text.delta`s, a `function_call` item per call whose
//! `response.function_call_arguments.delta`s follow the detector's fragments),
//! each opened with `response.output_item.added` and closed with
//! `response.output_item.done`, then `response.completed` (or
//! `response.incomplete`) holding the whole response. A failed turn ends with
//! `response.failed` instead. Every event has its `sequence_number`.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolrouter_providers::{StopReason, Usage};

use super::{
    Head, ItemStore, call_item, content_part, failure, message_item, reasoning_item, usage_of,
};
use crate::core::DetectEvent;
use crate::proxy::faults::Faults;
use crate::proxy::meta::ChunkMeta;
use crate::proxy::shown::ShownCalls;
use crate::proxy::turn::FrameWriter;
use crate::router::RouteEvent;

/// The text item open at the moment: a `message` (its parts) or a
/// `reasoning` item.
#[derive(Debug)]
enum Open {
    Message {
        index: usize,
        id: String,
        /// The parts closed so far.
        parts: Vec<Value>,
        /// The open part: whether it is a refusal, and its text.
        part: Option<(bool, String)>,
    },
    Reasoning {
        index: usize,
        id: String,
        text: String,
    },
}

/// A call the client has been shown.
#[derive(Debug)]
struct Call {
    output_index: usize,
    item_id: String,
    call_id: String,
    name: String,
    /// The argument text sent so far.
    arguments: String,
}

/// Writes one client stream.
#[derive(Debug)]
pub(crate) struct ResponseWriter {
    /// The request's settings each `response` object repeats.
    echo: Map<String, Value>,
    head: Option<Head>,
    sequence: u64,
    /// The output items by their index, once done.
    output: Vec<Option<Value>>,
    /// The ids of the items done.
    done_ids: HashSet<String>,
    open: Option<Open>,
    /// The calls shown, found by router index, and what was written of
    /// each, at the same positions.
    shown: ShownCalls,
    calls: Vec<Call>,
    usage: Option<Usage>,
    faults: Faults,
    failure: Option<&'static str>,
    ended: bool,
    /// Where the finished items go, for later `item_reference`s.
    items: Arc<ItemStore>,
}

impl ResponseWriter {
    /// A writer; `echo`: the request's settings.
    pub(crate) fn new(echo: Map<String, Value>, items: Arc<ItemStore>) -> Self {
        Self {
            echo,
            head: None,
            sequence: 0,
            output: Vec::new(),
            done_ids: HashSet::new(),
            open: None,
            shown: ShownCalls::default(),
            calls: Vec::new(),
            usage: None,
            faults: Faults::default(),
            failure: None,
            ended: false,
            items,
        }
    }

    /// `event: TYPE` and its data, `type` and `sequence_number` added.
    fn event(&mut self, out: &mut Vec<u8>, kind: &str, mut data: Value) {
        if let Value::Object(object) = &mut data {
            object.insert("type".to_owned(), json!(kind));
            object.insert("sequence_number".to_owned(), json!(self.sequence));
        }
        self.sequence += 1;
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(kind.as_bytes());
        out.extend_from_slice(b"\ndata: ");
        out.extend_from_slice(data.to_string().as_bytes());
        out.extend_from_slice(b"\n\n");
    }

    /// `response.created` and `response.in_progress`, the first time: the
    /// answer's head is read from `meta` then.
    fn start(&mut self, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if self.head.is_some() {
            return;
        }
        let head = Head::of(&meta());
        let response = head.response(&self.echo, "in_progress", vec![], Value::Null, Value::Null);
        self.head = Some(head);
        self.event(out, "response.created", json!({"response": response}));
        self.event(out, "response.in_progress", json!({"response": response}));
    }

    /// An item id: `prefix` and the upstream's bare id.
    fn item_id(&self, prefix: &str) -> String {
        let bare = self.head.as_ref().map_or("", |h| h.bare.as_str());
        self.unique(format!("{prefix}_{bare}"))
    }

    /// The whole `response` with `status`, its output the items done so far.
    fn response(&self, status: &str, usage: Value, error: Value) -> Value {
        let output = self.output.iter().flatten().cloned().collect();
        match &self.head {
            Some(head) => head.response(&self.echo, status, output, usage, error),
            None => Value::Null,
        }
    }

    /// A new output item: its index.
    fn add_item(&mut self, item: Value, out: &mut Vec<u8>) -> usize {
        let index = self.output.len();
        self.output.push(None);
        self.event(
            out,
            "response.output_item.added",
            json!({"output_index": index, "item": item}),
        );
        index
    }

    fn done_item(&mut self, index: usize, item: Value, out: &mut Vec<u8>) {
        self.event(
            out,
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
        if let Some(id) = item["id"].as_str() {
            self.done_ids.insert(id.to_owned());
        }
        if let Some(slot) = self.output.get_mut(index) {
            *slot = Some(item);
        }
    }

    /// Text (`refusal`: a refusal) in the open message item, or a new one.
    fn text(&mut self, refusal: bool, text: &str, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if text.is_empty() {
            return;
        }
        self.start(meta, out);
        if !matches!(self.open, Some(Open::Message { .. })) {
            self.close(out);
            let id = self.item_id("msg");
            let index = self.add_item(message_item(&id, "in_progress", vec![]), out);
            self.open = Some(Open::Message {
                index,
                id,
                parts: Vec::new(),
                part: None,
            });
        }
        let Some(Open::Message {
            index,
            id,
            parts,
            part,
        }) = &mut self.open
        else {
            return;
        };
        let (index, id) = (*index, id.clone());
        let mut done = None;
        if part.as_ref().is_some_and(|(kind, _)| *kind != refusal) {
            done = part.take();
        }
        let content_index = parts.len() + usize::from(done.is_some());
        let added = part.is_none();
        match part {
            Some((_, sofar)) => sofar.push_str(text),
            None => *part = Some((refusal, text.to_owned())),
        }
        if let Some((kind, sofar)) = done {
            self.close_part(index, &id, kind, sofar, out);
        }
        if added {
            self.event(
                out,
                "response.content_part.added",
                json!({"item_id": id, "output_index": index, "content_index": content_index,
                       "part": content_part(refusal, "")}),
            );
        }
        let (kind, mut data) = if refusal {
            ("response.refusal.delta", json!({"delta": text}))
        } else {
            (
                "response.output_text.delta",
                json!({"delta": text, "logprobs": []}),
            )
        };
        data["item_id"] = json!(id);
        data["output_index"] = json!(index);
        data["content_index"] = json!(content_index);
        self.event(out, kind, data);
    }

    /// The `done` events of a message's part; the part joins the message.
    fn close_part(
        &mut self,
        index: usize,
        id: &str,
        refusal: bool,
        text: String,
        out: &mut Vec<u8>,
    ) {
        let Some(Open::Message { parts, .. }) = &self.open else {
            return;
        };
        let content_index = parts.len();
        let (kind, mut data) = if refusal {
            ("response.refusal.done", json!({"refusal": text}))
        } else {
            (
                "response.output_text.done",
                json!({"text": text, "logprobs": []}),
            )
        };
        data["item_id"] = json!(id);
        data["output_index"] = json!(index);
        data["content_index"] = json!(content_index);
        self.event(out, kind, data);
        let part = content_part(refusal, &text);
        self.event(
            out,
            "response.content_part.done",
            json!({"item_id": id, "output_index": index, "content_index": content_index,
                   "part": part}),
        );
        if let Some(Open::Message { parts, .. }) = &mut self.open {
            parts.push(part);
        }
    }

    /// Reasoning, in the open reasoning item or a new one.
    fn reasoning(&mut self, text: &str, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if text.is_empty() {
            return;
        }
        self.start(meta, out);
        if !matches!(self.open, Some(Open::Reasoning { .. })) {
            self.close(out);
            let id = self.item_id("rs");
            let index = self.add_item(reasoning_item(&id, "in_progress", None), out);
            self.event(
                out,
                "response.reasoning_summary_part.added",
                json!({"item_id": id, "output_index": index, "summary_index": 0,
                       "part": {"type": "summary_text", "text": ""}}),
            );
            self.open = Some(Open::Reasoning {
                index,
                id,
                text: String::new(),
            });
        }
        let Some(Open::Reasoning {
            index,
            id,
            text: sofar,
        }) = &mut self.open
        else {
            return;
        };
        sofar.push_str(text);
        let data = json!({"item_id": id, "output_index": index, "summary_index": 0, "delta": text});
        self.event(out, "response.reasoning_summary_text.delta", data);
    }

    /// `id`, or `id_N` (`N` the next output index) when an earlier item
    /// took it.
    fn unique(&self, id: String) -> String {
        if self.done_ids.contains(&id) {
            format!("{id}_{}", self.output.len())
        } else {
            id
        }
    }

    /// Closes the open message or reasoning item, with `status`
    /// (`completed`, or `incomplete` when the token limit cut it).
    fn close_with(&mut self, status: &str, out: &mut Vec<u8>) {
        match self.open.take() {
            Some(Open::Message {
                index,
                id,
                parts,
                mut part,
            }) => {
                self.open = Some(Open::Message {
                    index,
                    id: id.clone(),
                    parts,
                    part: None,
                });
                if let Some((refusal, text)) = part.take() {
                    self.close_part(index, &id, refusal, text, out);
                }
                if let Some(Open::Message { parts, .. }) = self.open.take() {
                    self.done_item(index, message_item(&id, status, parts), out);
                }
            }
            Some(Open::Reasoning { index, id, text }) => {
                let part = json!({"type": "summary_text", "text": text});
                self.event(
                    out,
                    "response.reasoning_summary_text.done",
                    json!({"item_id": id, "output_index": index, "summary_index": 0, "text": text}),
                );
                self.event(
                    out,
                    "response.reasoning_summary_part.done",
                    json!({"item_id": id, "output_index": index, "summary_index": 0, "part": part}),
                );
                self.done_item(index, reasoning_item(&id, status, Some(&text)), out);
            }
            None => {}
        }
    }

    fn close(&mut self, out: &mut Vec<u8>) {
        self.close_with("completed", out);
    }

    /// An argument fragment of a call.
    fn arguments(&mut self, route_index: usize, fragment: &str, out: &mut Vec<u8>) {
        let Some(pos) = self.shown.position(route_index) else {
            return;
        };
        if fragment.is_empty() || self.shown.is_ended(pos) {
            return;
        }
        let Some(call) = self.calls.get_mut(pos) else {
            return;
        };
        call.arguments.push_str(fragment);
        let data = json!({"item_id": call.item_id, "output_index": call.output_index,
                          "delta": fragment});
        self.event(out, "response.function_call_arguments.delta", data);
    }

    /// A call's `done` events (`status`: `completed`, or `incomplete` for one
    /// the token limit cut).
    fn end_call(&mut self, pos: usize, status: &str, out: &mut Vec<u8>) {
        self.shown.end(pos);
        let Some(call) = self.calls.get(pos) else {
            return;
        };
        let (index, item_id) = (call.output_index, call.item_id.clone());
        let arguments = call.arguments.clone();
        let item = call_item(&call.call_id, &call.name, &arguments, status);
        let data = json!({"item_id": item_id, "output_index": index, "name": call.name,
                          "arguments": arguments});
        self.event(out, "response.function_call_arguments.done", data);
        self.done_item(index, item, out);
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
            self.fail(&why, code, meta, out);
            return;
        }
        self.start(meta, out);
        let status = if stop == StopReason::MaxTokens {
            "incomplete"
        } else {
            "completed"
        };
        self.close_with(status, out);
        // Calls the token limit cut end with what they received.
        let cut: Vec<usize> = self.shown.open().collect();
        for pos in cut {
            self.end_call(pos, "incomplete", out);
        }
        let usage = self.usage.as_ref().map_or(Value::Null, |u| {
            usage_of(
                u.input_tokens.unwrap_or(0),
                u.output_tokens.unwrap_or(0),
                u.total_tokens,
            )
        });
        let response = self.response(status, usage, Value::Null);
        self.items.keep(self.output.iter().flatten());
        self.event(
            out,
            &format!("response.{status}"),
            json!({"response": response}),
        );
        self.ended = true;
    }

    /// Ends the client's stream with `response.failed`, its output the items
    /// done so far.
    fn fail(
        &mut self,
        message: &str,
        code: &'static str,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
    ) {
        tracing::debug!(%message, code, "the client's stream ends with response.failed");
        self.start(meta, out);
        let response = self.response("failed", Value::Null, failure(code, message));
        self.items.keep(self.output.iter().flatten());
        self.event(out, "response.failed", json!({"response": response}));
        self.failure = Some(code);
        self.ended = true;
    }
}

impl FrameWriter for ResponseWriter {
    fn ended(&self) -> bool {
        self.ended
    }

    fn failure(&self) -> Option<&'static str> {
        self.failure
    }

    fn write_event(&mut self, event: RouteEvent, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        match event {
            RouteEvent::Detect(DetectEvent::Text { text }) if !self.faults.holds_text() => {
                self.text(false, &text, meta, out)
            }
            RouteEvent::Refusal { text } => self.text(true, &text, meta, out),
            RouteEvent::Detect(DetectEvent::Reasoning { text }) => self.reasoning(&text, meta, out),
            RouteEvent::Detect(DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            }) => {
                self.start(meta, out);
                self.close(out);
                let item = call_item(&id, &name, "", "in_progress");
                let item_id = item["id"].as_str().unwrap_or("").to_owned();
                let output_index = self.add_item(item, out);
                self.shown.add(index, format);
                self.calls.push(Call {
                    output_index,
                    item_id,
                    call_id: id,
                    name,
                    arguments: String::new(),
                });
            }
            RouteEvent::Detect(DetectEvent::ArgsDelta { index, fragment }) => {
                self.arguments(index, &fragment, out);
            }
            RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                let Some(pos) = self.shown.position(index) else {
                    return;
                };
                if self.shown.is_ended(pos) {
                    return;
                }
                if self
                    .calls
                    .get(pos)
                    .is_some_and(|c| c.arguments.trim().is_empty())
                {
                    // No argument text went out: the client still needs a
                    // JSON object to read.
                    let text =
                        serde_json::to_string(&call.arguments).unwrap_or_else(|_| "{}".to_owned());
                    self.arguments(index, &text, out);
                }
                self.end_call(pos, "completed", out);
            }
            RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => {
                let open = self
                    .shown
                    .first_open_of(diagnostic.format)
                    .map(|pos| self.calls[pos].name.as_str());
                if let Some((why, code)) = self.faults.malformed(open, &diagnostic) {
                    self.fail(&why, code, meta, out);
                }
            }
            RouteEvent::Usage { usage } => self.usage = Some(usage),
            RouteEvent::ProviderError { kind, message } => {
                if let Some((why, code)) = self.faults.provider_error(kind, message) {
                    self.fail(&why, code, meta, out);
                }
            }
            RouteEvent::Finish { stop, error, .. } => self.finish(stop, error, meta, out),
            other => tracing::trace!(?other, "event with no Responses event"),
        }
    }
}
