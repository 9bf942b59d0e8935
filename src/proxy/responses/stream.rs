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
//!
//! The answer is held once: each item's text lives in the item (shared with
//! the `ItemStore` at the end, not copied), and the events that repeat it
//! (an item's `done` events, the final `response`) are written from it. When
//! such an event is large it is held back ([`FrameWriter::held`]) and written
//! in a frame of its own once the client has read the one before, so that
//! the repeats of a large turn are never all in memory at once.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use serde::Serialize;
use toolrouter_providers::{StopReason, Usage};

use super::items::{OutputItem, Part, PartOut, Status, SummaryText, part_out};
use super::{Echo, Head, ItemStore, ResponseOut};
use crate::core::DetectEvent;
use crate::proxy::faults::Faults;
use crate::proxy::meta::ChunkMeta;
use crate::proxy::shown::ShownCalls;
use crate::proxy::turn::FrameWriter;
use crate::router::RouteEvent;

/// An event whose text is at least this long is held back to a frame of its
/// own; a smaller one is written at once.
const HOLD_FROM: usize = 64 * 1024;

/// The text item open at the moment: a `message` (its last part open or
/// not) or a `reasoning` item; `index` is its place in the output.
#[derive(Debug, Clone, Copy)]
enum Open {
    Message { index: usize, part_open: bool },
    Reasoning { index: usize },
}

/// A call the client has been shown; its item holds its id, name and
/// arguments.
#[derive(Debug)]
struct Call {
    output_index: usize,
}

/// An event written later, from the items (which no longer change).
#[derive(Debug, Clone, Copy)]
enum Repeat {
    /// `response.*`: the response, with its done items when `output`.
    Response { status: Status, output: bool },
    /// `response.output_text.done` or `response.refusal.done`.
    TextDone { item: usize, part: usize },
    /// `response.content_part.done`.
    PartDone { item: usize, part: usize },
    /// `response.output_item.done`.
    ItemDone { item: usize },
    /// `response.reasoning_summary_text.done`.
    SummaryTextDone { item: usize },
    /// `response.reasoning_summary_part.done`.
    SummaryPartDone { item: usize },
    /// `response.function_call_arguments.done`.
    ArgumentsDone { item: usize },
}

/// What waits to be written, in order.
#[derive(Debug)]
enum Held {
    /// Small events written after a held one.
    Frames(Vec<u8>),
    /// A large event.
    Repeat {
        kind: &'static str,
        sequence: u64,
        repeat: Repeat,
    },
}

/// Writes one client stream.
#[derive(Debug)]
pub(crate) struct ResponseWriter {
    /// The request's settings each `response` object repeats.
    echo: Echo,
    head: Option<Head>,
    sequence: u64,
    /// The output items by their index; an item is done once it is no
    /// longer `in_progress`.
    output: Vec<Arc<OutputItem>>,
    /// The ids of the items done.
    done_ids: HashSet<String>,
    open: Option<Open>,
    /// The calls shown, found by router index, and where each one's item
    /// is, at the same positions.
    shown: ShownCalls,
    calls: Vec<Call>,
    usage: Option<Usage>,
    faults: Faults,
    failure: Option<&'static str>,
    /// The failure's message, for `response.failed`.
    failure_message: String,
    ended: bool,
    /// Where the finished items go, for later `item_reference`s.
    items: Arc<ItemStore>,
    held: VecDeque<Held>,
}

impl ResponseWriter {
    /// A writer; `echo`: the request's settings.
    pub(crate) fn new(echo: Echo, items: Arc<ItemStore>) -> Self {
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
            failure_message: String::new(),
            ended: false,
            items,
            held: VecDeque::new(),
        }
    }

    fn next_sequence(&mut self) -> u64 {
        let sequence = self.sequence;
        self.sequence += 1;
        sequence
    }

    /// A small event: written to `out`, or after the events held back.
    fn event(&mut self, out: &mut Vec<u8>, kind: &str, data: &impl Serialize) {
        let sequence = self.next_sequence();
        match self.held.back_mut() {
            None => write_event(out, kind, sequence, data),
            Some(Held::Frames(frames)) => write_event(frames, kind, sequence, data),
            Some(Held::Repeat { .. }) => {
                let mut frames = Vec::new();
                write_event(&mut frames, kind, sequence, data);
                self.held.push_back(Held::Frames(frames));
            }
        }
    }

    /// An event that repeats the answer's text: written to `out` when it is
    /// small and nothing waits, else held back.
    fn repeat(&mut self, out: &mut Vec<u8>, kind: &'static str, repeat: Repeat) {
        let sequence = self.next_sequence();
        if self.held.is_empty() && self.size_of(repeat) < HOLD_FROM {
            self.write_repeat(out, kind, sequence, repeat);
        } else {
            self.held.push_back(Held::Repeat {
                kind,
                sequence,
                repeat,
            });
        }
    }

    /// The text an event repeats, in bytes.
    fn size_of(&self, repeat: Repeat) -> usize {
        let item_len = |n: usize| self.output.get(n).map_or(0, |item| item.text_len());
        match repeat {
            Repeat::Response { output, .. } => {
                let items: usize = if output {
                    self.output.iter().map(|item| item.text_len()).sum()
                } else {
                    0
                };
                self.echo.len() + items
            }
            Repeat::TextDone { item, part } | Repeat::PartDone { item, part } => {
                self.part(item, part).map_or(0, |p| p.text.len())
            }
            Repeat::ItemDone { item }
            | Repeat::SummaryTextDone { item }
            | Repeat::SummaryPartDone { item }
            | Repeat::ArgumentsDone { item } => item_len(item),
        }
    }

    fn part(&self, item: usize, part: usize) -> Option<&Part> {
        match self.output.get(item).map(|item| &**item) {
            Some(OutputItem::Message { parts, .. }) => parts.get(part),
            _ => None,
        }
    }

    fn item_id(&self, item: usize) -> &str {
        self.output.get(item).map_or("", |item| item.id())
    }

    fn write_repeat(&self, out: &mut Vec<u8>, kind: &str, sequence: u64, repeat: Repeat) {
        out.reserve(self.size_of(repeat) + 256);
        match repeat {
            Repeat::Response { status, output } => {
                let Some(head) = &self.head else {
                    return;
                };
                // The answer's end: `failed` when a failure ended it.
                let error = self
                    .failure
                    .filter(|_| output)
                    .map(|code| (code, self.failure_message.as_str()));
                let response = ResponseOut {
                    head,
                    status,
                    output: if output { self.output.as_slice() } else { &[] },
                    usage: self.usage.as_ref().filter(|_| output && error.is_none()),
                    error,
                    echo: &self.echo,
                };
                write_event(out, kind, sequence, &ResponseEvent { response });
            }
            Repeat::TextDone { item, part } => {
                let Some(p) = self.part(item, part) else {
                    return;
                };
                let (item_id, output_index, content_index) = (self.item_id(item), item, part);
                if p.refusal {
                    let data = RefusalDone {
                        refusal: &p.text,
                        item_id,
                        output_index,
                        content_index,
                    };
                    write_event(out, kind, sequence, &data);
                } else {
                    let data = TextDone {
                        text: &p.text,
                        logprobs: [],
                        item_id,
                        output_index,
                        content_index,
                    };
                    write_event(out, kind, sequence, &data);
                }
            }
            Repeat::PartDone { item, part } => {
                let Some(p) = self.part(item, part) else {
                    return;
                };
                let data = PartEvent {
                    item_id: self.item_id(item),
                    output_index: item,
                    content_index: part,
                    part: part_out(p.refusal, &p.text),
                };
                write_event(out, kind, sequence, &data);
            }
            Repeat::ItemDone { item } => {
                let Some(done) = self.output.get(item) else {
                    return;
                };
                let data = ItemEvent {
                    output_index: item,
                    item: done,
                };
                write_event(out, kind, sequence, &data);
            }
            Repeat::SummaryTextDone { item } | Repeat::SummaryPartDone { item } => {
                let text = match self.output.get(item).map(|item| &**item) {
                    Some(OutputItem::Reasoning { text, .. }) => text.as_deref().unwrap_or(""),
                    _ => return,
                };
                let item_id = self.item_id(item);
                if matches!(repeat, Repeat::SummaryTextDone { .. }) {
                    let data = SummaryDone {
                        item_id,
                        output_index: item,
                        summary_index: 0,
                        text,
                    };
                    write_event(out, kind, sequence, &data);
                } else {
                    let data = SummaryPart {
                        item_id,
                        output_index: item,
                        summary_index: 0,
                        part: SummaryText { text },
                    };
                    write_event(out, kind, sequence, &data);
                }
            }
            Repeat::ArgumentsDone { item } => {
                let Some(OutputItem::Call {
                    id,
                    name,
                    arguments,
                    ..
                }) = self.output.get(item).map(|item| &**item)
                else {
                    return;
                };
                let data = ArgumentsDone {
                    item_id: id,
                    output_index: item,
                    name,
                    arguments,
                };
                write_event(out, kind, sequence, &data);
            }
        }
    }

    /// `response.created` and `response.in_progress`, the first time: the
    /// answer's head is read from `meta` then.
    fn start(&mut self, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if self.head.is_some() {
            return;
        }
        self.head = Some(Head::of(&meta()));
        let response = Repeat::Response {
            status: Status::InProgress,
            output: false,
        };
        self.repeat(out, "response.created", response);
        self.repeat(out, "response.in_progress", response);
    }

    /// An item id: `prefix` and the upstream's bare id, or `…_N` (`N` the
    /// next output index) when a done item took it.
    fn new_item_id(&self, prefix: &str) -> String {
        let bare = self.head.as_ref().map_or("", |h| h.bare.as_str());
        let id = format!("{prefix}_{bare}");
        if self.done_ids.contains(&id) {
            format!("{id}_{}", self.output.len())
        } else {
            id
        }
    }

    fn item_mut(&mut self, index: usize) -> Option<&mut OutputItem> {
        self.output.get_mut(index).and_then(Arc::get_mut)
    }

    /// A new output item (in progress): its index.
    fn add_item(&mut self, item: OutputItem, out: &mut Vec<u8>) -> usize {
        let index = self.output.len();
        let data = ItemEvent {
            output_index: index,
            item: &item,
        };
        self.event(out, "response.output_item.added", &data);
        self.output.push(Arc::new(item));
        index
    }

    /// Marks item `index` done with `status` and writes it.
    fn done_item(&mut self, index: usize, status: Status, out: &mut Vec<u8>) {
        if let Some(
            OutputItem::Message { status: s, .. }
            | OutputItem::Reasoning { status: s, .. }
            | OutputItem::Call { status: s, .. },
        ) = self.item_mut(index)
        {
            *s = status;
        }
        if let Some(item) = self.output.get(index)
            && item.is_done()
        {
            self.done_ids.insert(item.id().to_owned());
        }
        self.repeat(
            out,
            "response.output_item.done",
            Repeat::ItemDone { item: index },
        );
    }

    /// Text (`refusal`: a refusal) in the open message item, or a new one.
    fn text(&mut self, refusal: bool, text: &str, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if text.is_empty() {
            return;
        }
        self.start(meta, out);
        let (index, mut part_open) = match self.open {
            Some(Open::Message { index, part_open }) => (index, part_open),
            _ => {
                self.close(out);
                let id = self.new_item_id("msg");
                let item = OutputItem::Message {
                    id,
                    status: Status::InProgress,
                    parts: Vec::new(),
                };
                (self.add_item(item, out), false)
            }
        };
        let other_kind = match self.output.get(index).map(|item| &**item) {
            Some(OutputItem::Message { parts, .. }) => {
                part_open && parts.last().is_some_and(|p| p.refusal != refusal)
            }
            _ => return,
        };
        if other_kind {
            self.close_part(index, out);
            part_open = false;
        }
        let mut content_index = 0;
        if let Some(OutputItem::Message { parts, .. }) = self.item_mut(index) {
            if !part_open {
                parts.push(Part {
                    refusal,
                    text: String::new(),
                });
            }
            content_index = parts.len() - 1;
            if let Some(part) = parts.last_mut() {
                part.text.push_str(text);
            }
        }
        self.open = Some(Open::Message {
            index,
            part_open: true,
        });
        let item_id = self.item_id(index).to_owned();
        if !part_open {
            let data = PartEvent {
                item_id: &item_id,
                output_index: index,
                content_index,
                part: part_out(refusal, ""),
            };
            self.event(out, "response.content_part.added", &data);
        }
        if refusal {
            let data = RefusalDelta {
                delta: text,
                item_id: &item_id,
                output_index: index,
                content_index,
            };
            self.event(out, "response.refusal.delta", &data);
        } else {
            let data = TextDelta {
                delta: text,
                logprobs: [],
                item_id: &item_id,
                output_index: index,
                content_index,
            };
            self.event(out, "response.output_text.delta", &data);
        }
    }

    /// The `done` events of the open part of message `index`.
    fn close_part(&mut self, index: usize, out: &mut Vec<u8>) {
        let (refusal, part) = match self.output.get(index).map(|item| &**item) {
            Some(OutputItem::Message { parts, .. }) if !parts.is_empty() => {
                (parts[parts.len() - 1].refusal, parts.len() - 1)
            }
            _ => return,
        };
        let kind = if refusal {
            "response.refusal.done"
        } else {
            "response.output_text.done"
        };
        self.repeat(out, kind, Repeat::TextDone { item: index, part });
        self.repeat(
            out,
            "response.content_part.done",
            Repeat::PartDone { item: index, part },
        );
        if let Some(Open::Message { part_open, .. }) = &mut self.open {
            *part_open = false;
        }
    }

    /// Reasoning, in the open reasoning item or a new one.
    fn reasoning(&mut self, text: &str, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>) {
        if text.is_empty() {
            return;
        }
        self.start(meta, out);
        let index = match self.open {
            Some(Open::Reasoning { index }) => index,
            _ => {
                self.close(out);
                let id = self.new_item_id("rs");
                let item = OutputItem::Reasoning {
                    id,
                    status: Status::InProgress,
                    text: None,
                };
                let index = self.add_item(item, out);
                let item_id = self.item_id(index).to_owned();
                let data = SummaryPart {
                    item_id: &item_id,
                    output_index: index,
                    summary_index: 0,
                    part: SummaryText { text: "" },
                };
                self.event(out, "response.reasoning_summary_part.added", &data);
                self.open = Some(Open::Reasoning { index });
                index
            }
        };
        if let Some(OutputItem::Reasoning { text: sofar, .. }) = self.item_mut(index) {
            sofar.get_or_insert_with(String::new).push_str(text);
        }
        let item_id = self.item_id(index).to_owned();
        let data = SummaryDelta {
            item_id: &item_id,
            output_index: index,
            summary_index: 0,
            delta: text,
        };
        self.event(out, "response.reasoning_summary_text.delta", &data);
    }

    /// Closes the open message or reasoning item, with `status`
    /// (`completed`, or `incomplete` when the token limit cut it).
    fn close_with(&mut self, status: Status, out: &mut Vec<u8>) {
        match self.open {
            Some(Open::Message { index, part_open }) => {
                if part_open {
                    self.close_part(index, out);
                }
                self.open = None;
                self.done_item(index, status, out);
            }
            Some(Open::Reasoning { index }) => {
                self.open = None;
                self.repeat(
                    out,
                    "response.reasoning_summary_text.done",
                    Repeat::SummaryTextDone { item: index },
                );
                self.repeat(
                    out,
                    "response.reasoning_summary_part.done",
                    Repeat::SummaryPartDone { item: index },
                );
                self.done_item(index, status, out);
            }
            None => {}
        }
    }

    fn close(&mut self, out: &mut Vec<u8>) {
        self.close_with(Status::Completed, out);
    }

    /// An argument fragment of a call.
    fn arguments(&mut self, route_index: usize, fragment: &str, out: &mut Vec<u8>) {
        let Some(pos) = self.shown.position(route_index) else {
            return;
        };
        if fragment.is_empty() || self.shown.is_ended(pos) {
            return;
        }
        let Some(call) = self.calls.get(pos) else {
            return;
        };
        let output_index = call.output_index;
        if let Some(OutputItem::Call { arguments, .. }) = self.item_mut(output_index) {
            arguments.push_str(fragment);
        }
        let item_id = self.item_id(output_index).to_owned();
        let data = ArgumentsDelta {
            item_id: &item_id,
            output_index,
            delta: fragment,
        };
        self.event(out, "response.function_call_arguments.delta", &data);
    }

    /// A call's `done` events (`status`: `completed`, or `incomplete` for one
    /// the token limit cut).
    fn end_call(&mut self, pos: usize, status: Status, out: &mut Vec<u8>) {
        self.shown.end(pos);
        let Some(call) = self.calls.get(pos) else {
            return;
        };
        let index = call.output_index;
        self.repeat(
            out,
            "response.function_call_arguments.done",
            Repeat::ArgumentsDone { item: index },
        );
        self.done_item(index, status, out);
    }

    /// Keeps the done items for later references (shared, not copied).
    fn keep_items(&self) {
        self.items
            .keep(self.output.iter().filter(|item| item.is_done()));
    }

    fn finish(
        &mut self,
        stop: StopReason,
        error: Option<String>,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
    ) {
        let open = self.shown.open().next().and_then(|pos| {
            match self.output.get(self.calls[pos].output_index).map(|i| &**i) {
                Some(OutputItem::Call { name, .. }) => Some(name.as_str()),
                _ => None,
            }
        });
        if let Some((why, code)) = self.faults.at_finish(stop, error, open) {
            self.fail(&why, code, meta, out);
            return;
        }
        self.start(meta, out);
        let status = if stop == StopReason::MaxTokens {
            Status::Incomplete
        } else {
            Status::Completed
        };
        self.close_with(status, out);
        // Calls the token limit cut end with what they received.
        let cut: Vec<usize> = self.shown.open().collect();
        for pos in cut {
            self.end_call(pos, Status::Incomplete, out);
        }
        let kind = match status {
            Status::Incomplete => "response.incomplete",
            _ => "response.completed",
        };
        self.keep_items();
        self.repeat(
            out,
            kind,
            Repeat::Response {
                status,
                output: true,
            },
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
        self.failure = Some(code);
        self.failure_message = message.to_owned();
        self.keep_items();
        self.repeat(
            out,
            "response.failed",
            Repeat::Response {
                status: Status::InProgress,
                output: true,
            },
        );
        self.ended = true;
    }
}

/// `event: KIND` and its data, `type` and `sequence_number` added after
/// the data's own fields.
fn write_event(out: &mut Vec<u8>, kind: &str, sequence: u64, data: &impl Serialize) {
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\ndata: ");
    let start = out.len();
    match serde_json::to_writer(&mut *out, data) {
        Ok(()) if out.len() > start + 2 && out.last() == Some(&b'}') => {
            out.pop();
            out.push(b',');
        }
        result => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "an event could not be written");
            }
            out.truncate(start);
            out.push(b'{');
        }
    }
    out.extend_from_slice(b"\"type\":\"");
    out.extend_from_slice(kind.as_bytes());
    out.extend_from_slice(b"\",\"sequence_number\":");
    out.extend_from_slice(sequence.to_string().as_bytes());
    out.extend_from_slice(b"}\n\n");
}

#[derive(Serialize)]
struct ResponseEvent<'a> {
    response: ResponseOut<'a>,
}

#[derive(Serialize)]
struct ItemEvent<'a> {
    output_index: usize,
    item: &'a OutputItem,
}

#[derive(Serialize)]
struct PartEvent<'a> {
    item_id: &'a str,
    output_index: usize,
    content_index: usize,
    part: PartOut<'a>,
}

#[derive(Serialize)]
struct TextDelta<'a> {
    delta: &'a str,
    logprobs: [(); 0],
    item_id: &'a str,
    output_index: usize,
    content_index: usize,
}

#[derive(Serialize)]
struct RefusalDelta<'a> {
    delta: &'a str,
    item_id: &'a str,
    output_index: usize,
    content_index: usize,
}

#[derive(Serialize)]
struct TextDone<'a> {
    text: &'a str,
    logprobs: [(); 0],
    item_id: &'a str,
    output_index: usize,
    content_index: usize,
}

#[derive(Serialize)]
struct RefusalDone<'a> {
    refusal: &'a str,
    item_id: &'a str,
    output_index: usize,
    content_index: usize,
}

#[derive(Serialize)]
struct SummaryPart<'a> {
    item_id: &'a str,
    output_index: usize,
    summary_index: u32,
    part: SummaryText<'a>,
}

#[derive(Serialize)]
struct SummaryDelta<'a> {
    item_id: &'a str,
    output_index: usize,
    summary_index: u32,
    delta: &'a str,
}

#[derive(Serialize)]
struct SummaryDone<'a> {
    item_id: &'a str,
    output_index: usize,
    summary_index: u32,
    text: &'a str,
}

#[derive(Serialize)]
struct ArgumentsDelta<'a> {
    item_id: &'a str,
    output_index: usize,
    delta: &'a str,
}

#[derive(Serialize)]
struct ArgumentsDone<'a> {
    item_id: &'a str,
    output_index: usize,
    name: &'a str,
    arguments: &'a str,
}

impl FrameWriter for ResponseWriter {
    fn ended(&self) -> bool {
        self.ended
    }

    fn failure(&self) -> Option<&'static str> {
        self.failure
    }

    fn held(&mut self, out: &mut Vec<u8>) -> bool {
        let mut wrote_repeat = false;
        while let Some(front) = self.held.front() {
            match front {
                Held::Frames(_) => {
                    if let Some(Held::Frames(frames)) = self.held.pop_front() {
                        if out.is_empty() {
                            *out = frames;
                        } else {
                            out.extend_from_slice(&frames);
                        }
                    }
                }
                Held::Repeat {
                    kind,
                    sequence,
                    repeat,
                } => {
                    if wrote_repeat {
                        break;
                    }
                    let (kind, sequence, repeat) = (*kind, *sequence, *repeat);
                    self.held.pop_front();
                    self.write_repeat(out, kind, sequence, repeat);
                    wrote_repeat = true;
                }
            }
        }
        !out.is_empty()
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
                let item = OutputItem::call(id, name, String::new(), Status::InProgress);
                let output_index = self.add_item(item, out);
                self.shown.add(index, format);
                self.calls.push(Call { output_index });
            }
            RouteEvent::Detect(DetectEvent::ArgsDelta { index, fragment }) => {
                self.arguments(index, &fragment, out);
            }
            RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                let Some(pos) = self.shown.position(index) else {
                    return;
                };
                let Some(shown) = self.calls.get(pos) else {
                    return;
                };
                if self.shown.is_ended(pos) {
                    return;
                }
                let sent_nothing = match self.output.get(shown.output_index).map(|i| &**i) {
                    Some(OutputItem::Call { arguments, .. }) => arguments.trim().is_empty(),
                    _ => false,
                };
                if sent_nothing {
                    // No argument text went out: the client still needs a
                    // JSON object to read.
                    let text =
                        serde_json::to_string(&call.arguments).unwrap_or_else(|_| "{}".to_owned());
                    self.arguments(index, &text, out);
                }
                self.end_call(pos, Status::Completed, out);
            }
            RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => {
                let open = self
                    .shown
                    .first_open_of(diagnostic.format)
                    .and_then(|pos| self.calls.get(pos))
                    .and_then(|c| match self.output.get(c.output_index).map(|i| &**i) {
                        Some(OutputItem::Call { name, .. }) => Some(name.clone()),
                        _ => None,
                    });
                if let Some((why, code)) = self.faults.malformed(open.as_deref(), &diagnostic) {
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
