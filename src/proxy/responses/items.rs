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
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The most bytes of items kept (their JSON length), by default.
pub(crate) const DEFAULT_MAX_BYTES: usize = 64 * 1024 * 1024;

/// How long an item is kept, by default.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(3600);

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
        item: Value,
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

impl ItemStore {
    /// A store of at most `max_bytes` of items, each kept at most `ttl`.
    pub(crate) fn new(max_bytes: usize, ttl: Duration) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            max_bytes,
            ttl,
        }
    }

    /// Keeps `items` (each with a string `id`; others are skipped).
    pub(crate) fn keep<'a>(&self, items: impl IntoIterator<Item = &'a Value>) {
        let now = Instant::now();
        let Ok(mut inner) = self.inner.lock() else {
            return;
        };
        for item in items {
            let Some(id) = item.get("id").and_then(Value::as_str) else {
                continue;
            };
            let bytes = id.len() + item.to_string().len();
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
                    item: item.clone(),
                    bytes,
                },
            );
            inner.bytes += bytes;
            inner.order.push_back((id.to_owned(), now));
        }
        self.evict(&mut inner, now);
    }

    /// The item kept under `id`, if it still is.
    pub(crate) fn get(&self, id: &str) -> Option<Value> {
        let now = Instant::now();
        let mut inner = self.inner.lock().ok()?;
        self.evict(&mut inner, now);
        match inner.items.get(id) {
            Some(Entry::Item { item, .. }) => Some(item.clone()),
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
    use serde_json::json;

    use super::*;

    #[test]
    fn an_item_kept_is_found_by_its_id_and_others_are_not() {
        let store = ItemStore::default();
        let call = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
                          "name": "f", "arguments": "{}", "status": "completed"});
        store.keep([&call, &json!({"type": "message"})]);
        assert_eq!(store.get("fc_1"), Some(call));
        assert_eq!(store.get("fc_2"), None);
    }

    #[test]
    fn an_id_written_twice_with_different_content_resolves_to_nothing() {
        let store = ItemStore::default();
        let a = json!({"type": "message", "id": "msg_x", "content": "a"});
        let b = json!({"type": "message", "id": "msg_x", "content": "b"});
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
        let item =
            |n: u32| json!({"type": "message", "id": format!("msg_{n}"), "pad": "x".repeat(100)});
        let one = 5 + item(0).to_string().len();
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
        store.keep([&json!({"type": "message", "id": "msg_1"})]);
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(store.get("msg_1"), None);
    }
}
