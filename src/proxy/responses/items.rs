//! `ItemStore`: the output items of the Responses door's answers, kept for a
//! while so that a later request may name one by `item_reference` instead of
//! sending it again (what SDKs do by default, the Vercel AI SDK's
//! `openai.responses()` among them). Only items this proxy wrote are kept;
//! a reference to anything else, or to an item gone from the store, is
//! answered with a 400 saying so.
//!
//! Bounded in bytes and in time: the oldest items go first. An id written
//! twice with different content (an upstream that reuses its completion ids)
//! is dropped, so a reference never resolves to the wrong item.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::ser::SerializeMap;

/// The most bytes of items kept (their JSON length), by default.
pub(crate) const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;

/// How long an item is kept, by default.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(3600);

/// An output item of a response, as the door writes it (its JSON is the
/// `Serialize` impl). An answer's items are shared, not copied, between its
/// writer and the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OutputItem {
    /// A `message` item: the assistant's text and refusal parts.
    Message {
        /// `msg_…`.
        id: String,
        /// Its status.
        status: Status,
        /// Its parts.
        parts: Vec<Part>,
    },
    /// A `reasoning` item: the reasoning as its one summary text (`None`:
    /// an empty summary, the item just added).
    Reasoning {
        /// `rs_…`.
        id: String,
        /// Its status.
        status: Status,
        /// The reasoning.
        text: Option<String>,
    },
    /// A `function_call` item.
    Call {
        /// `fc_` and the call id without `call_`.
        id: String,
        /// The call id.
        call_id: String,
        /// The function's name.
        name: String,
        /// Its arguments' JSON text (as far as they came).
        arguments: String,
        /// Its status.
        status: Status,
    },
}

/// A part of a `message` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// A `refusal` part (else `output_text`).
    pub(crate) refusal: bool,
    /// Its text.
    pub(crate) text: String,
}

/// An item's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    InProgress,
    Completed,
    Incomplete,
}

impl Status {
    /// Its name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "in_progress",
            Status::Completed => "completed",
            Status::Incomplete => "incomplete",
        }
    }
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl OutputItem {
    /// A `function_call` item for the call `call_id`.
    pub(crate) fn call(call_id: String, name: String, arguments: String, status: Status) -> Self {
        let bare = call_id.strip_prefix("call_").unwrap_or(&call_id);
        Self::Call {
            id: format!("fc_{bare}"),
            call_id,
            name,
            arguments,
            status,
        }
    }

    /// Its id.
    pub(crate) fn id(&self) -> &str {
        match self {
            Self::Message { id, .. } | Self::Reasoning { id, .. } | Self::Call { id, .. } => id,
        }
    }

    /// Its status.
    pub(crate) fn status(&self) -> Status {
        match self {
            Self::Message { status, .. }
            | Self::Reasoning { status, .. }
            | Self::Call { status, .. } => *status,
        }
    }

    /// Whether it is done (an item is `in_progress` until then).
    pub(crate) fn is_done(&self) -> bool {
        self.status() != Status::InProgress
    }

    /// The bytes of text it holds (its JSON is a little longer).
    pub(crate) fn text_len(&self) -> usize {
        match self {
            Self::Message { parts, .. } => parts.iter().map(|p| p.text.len()).sum(),
            Self::Reasoning { text, .. } => text.as_ref().map_or(0, String::len),
            Self::Call { arguments, .. } => arguments.len(),
        }
    }
}

impl Serialize for OutputItem {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        match self {
            Self::Message { id, status, parts } => {
                map.serialize_entry("type", "message")?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("status", status)?;
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("content", parts)?;
            }
            Self::Reasoning { id, status, text } => {
                map.serialize_entry("type", "reasoning")?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("status", status)?;
                let summary = text.as_deref().map(|text| SummaryText { text });
                map.serialize_entry("summary", summary.as_slice())?;
            }
            Self::Call {
                id,
                call_id,
                name,
                arguments,
                status,
            } => {
                map.serialize_entry("type", "function_call")?;
                map.serialize_entry("id", id)?;
                map.serialize_entry("call_id", call_id)?;
                map.serialize_entry("name", name)?;
                map.serialize_entry("arguments", arguments)?;
                map.serialize_entry("status", status)?;
            }
        }
        map.end()
    }
}

impl Serialize for Part {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        part_out(self.refusal, &self.text).serialize(s)
    }
}

/// An `output_text` part, or a `refusal` one.
pub(crate) fn part_out(refusal: bool, text: &str) -> PartOut<'_> {
    if refusal {
        PartOut::Refusal { refusal: text }
    } else {
        PartOut::OutputText {
            text,
            annotations: [],
            logprobs: [],
        }
    }
}

/// A message part's JSON.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum PartOut<'a> {
    OutputText {
        text: &'a str,
        annotations: [(); 0],
        logprobs: [(); 0],
    },
    Refusal {
        refusal: &'a str,
    },
}

/// A reasoning summary's text: `{"type": "summary_text", "text"}`.
#[derive(Serialize)]
#[serde(tag = "type", rename = "summary_text")]
pub(crate) struct SummaryText<'a> {
    pub(crate) text: &'a str,
}

/// The items of recent answers, shared by every serving thread.
#[derive(Debug)]
pub(crate) struct ItemStore {
    inner: Mutex<Inner>,
    max_bytes: usize,
    ttl: Duration,
}

#[derive(Debug, Default)]
struct Inner {
    items: HashMap<String, Entry>,
    /// Ids in the order they were kept, with when.
    order: VecDeque<(String, Instant)>,
    bytes: usize,
}

#[derive(Debug)]
enum Entry {
    Item {
        item: Arc<OutputItem>,
        bytes: usize,
    },
    /// Written twice with different content: never resolved.
    Ambiguous,
}

impl Default for ItemStore {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_BYTES, DEFAULT_TTL)
    }
}

/// Counts the bytes written to it.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The length of `item`'s JSON, counted as it is written, not kept.
fn json_len(item: &OutputItem) -> usize {
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, item) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

impl ItemStore {
    /// A store of at most `max_bytes` of items, each kept at most `ttl`.
    pub(crate) fn new(max_bytes: usize, ttl: Duration) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            max_bytes,
            ttl,
        }
    }

    /// Keeps `items` (shared: an item is never copied into the store).
    pub(crate) fn keep<'a>(&self, items: impl IntoIterator<Item = &'a Arc<OutputItem>>) {
        let now = Instant::now();
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        for item in items {
            let id = item.id();
            // Its length is at least its text's: a larger one is not counted.
            if item.text_len() > self.max_bytes {
                continue;
            }
            let bytes = id.len().saturating_add(json_len(item));
            if bytes > self.max_bytes {
                continue;
            }
            match inner.items.get_mut(id) {
                Some(Entry::Item {
                    item: old,
                    bytes: b,
                }) => {
                    if old != item {
                        let freed = *b;
                        inner.bytes -= freed;
                        inner.items.insert(id.to_owned(), Entry::Ambiguous);
                    }
                    continue;
                }
                Some(Entry::Ambiguous) => continue,
                None => {}
            }
            inner.items.insert(
                id.to_owned(),
                Entry::Item {
                    item: Arc::clone(item),
                    bytes,
                },
            );
            inner.bytes += bytes;
            inner.order.push_back((id.to_owned(), now));
        }
        self.evict(&mut inner, now);
    }

    /// The item kept under `id`, if it still is.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<OutputItem>> {
        let now = Instant::now();
        let mut inner = self.inner.lock().ok()?;
        self.evict(&mut inner, now);
        match inner.items.get(id) {
            Some(Entry::Item { item, .. }) => Some(Arc::clone(item)),
            _ => None,
        }
    }

    /// Drops the oldest items while over the byte bound or past their time.
    fn evict(&self, inner: &mut Inner, now: Instant) {
        while let Some((id, at)) = inner.order.front() {
            let expired = now.duration_since(*at) > self.ttl;
            if !expired && inner.bytes <= self.max_bytes {
                break;
            }
            let id = id.clone();
            inner.order.pop_front();
            if let Some(Entry::Item { bytes, .. }) = inner.items.remove(&id) {
                inner.bytes -= bytes;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str, text: &str) -> Arc<OutputItem> {
        Arc::new(OutputItem::Message {
            id: id.to_owned(),
            status: Status::Completed,
            parts: vec![Part {
                refusal: false,
                text: text.to_owned(),
            }],
        })
    }

    #[test]
    fn an_item_kept_is_found_by_its_id_and_others_are_not() {
        let store = ItemStore::default();
        let call = Arc::new(OutputItem::call(
            "call_1".into(),
            "f".into(),
            "{}".into(),
            Status::Completed,
        ));
        store.keep([&call]);
        assert_eq!(store.get("fc_1"), Some(call));
        assert_eq!(store.get("fc_2"), None);
    }

    #[test]
    fn an_id_written_twice_with_different_content_resolves_to_nothing() {
        let store = ItemStore::default();
        let a = message("msg_x", "a");
        let b = message("msg_x", "b");
        store.keep([&a]);
        store.keep([&a]);
        assert_eq!(store.get("msg_x"), Some(a.clone()));
        store.keep([&b]);
        assert_eq!(store.get("msg_x"), None);
        store.keep([&a]);
        assert_eq!(store.get("msg_x"), None);
    }

    #[test]
    fn the_oldest_items_go_first_past_the_byte_bound() {
        let item = |n: u32| message(&format!("msg_{n}"), &"x".repeat(100));
        let one = 5 + serde_json::to_string(&*item(0)).unwrap_or_default().len();
        let store = ItemStore::new(3 * one, DEFAULT_TTL);
        for n in 0..5 {
            store.keep([&item(n)]);
        }
        assert_eq!(store.get("msg_0"), None);
        assert_eq!(store.get("msg_1"), None);
        assert!(store.get("msg_2").is_some());
        assert!(store.get("msg_4").is_some());
    }

    #[test]
    fn items_past_their_time_are_gone() {
        let store = ItemStore::new(DEFAULT_MAX_BYTES, Duration::ZERO);
        store.keep([&message("msg_1", "")]);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(store.get("msg_1"), None);
    }

    #[test]
    fn items_write_the_responses_shapes() {
        let message = OutputItem::Message {
            id: "msg_1".into(),
            status: Status::Completed,
            parts: vec![
                Part {
                    refusal: false,
                    text: "Hi".into(),
                },
                Part {
                    refusal: true,
                    text: "No".into(),
                },
            ],
        };
        assert_eq!(
            serde_json::to_value(&message).unwrap_or_default(),
            serde_json::json!({"type": "message", "id": "msg_1", "status": "completed",
                "role": "assistant", "content": [
                    {"type": "output_text", "text": "Hi", "annotations": [], "logprobs": []},
                    {"type": "refusal", "refusal": "No"}]})
        );
        let reasoning = OutputItem::Reasoning {
            id: "rs_1".into(),
            status: Status::InProgress,
            text: None,
        };
        assert_eq!(
            serde_json::to_string(&reasoning).unwrap_or_default(),
            r#"{"type":"reasoning","id":"rs_1","status":"in_progress","summary":[]}"#
        );
        let call = OutputItem::call("c9".into(), "f".into(), "{}".into(), Status::Incomplete);
        assert_eq!(
            serde_json::to_string(&call).unwrap_or_default(),
            r#"{"type":"function_call","id":"fc_c9","call_id":"c9","name":"f","arguments":"{}","status":"incomplete"}"#
        );
    }
}
