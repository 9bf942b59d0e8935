//! `EventBatch`: the detector's events stored flat (read as `EventRef`s).
//!
//! A 4-byte delta inside a call yields one `ArgsDelta` of a few bytes. As a
//! `DetectEvent` that fragment is a `CompactString` built on the stack and
//! moved into the vector, which re-reads the bytes it has just copied (a
//! store-forwarding stall) and calls `memmove` for them: measured, a fifth
//! to a quarter of the time a small delta costs. A batch appends the fragment to one
//! string it keeps and records the range, so an event costs one append and
//! one small record, and a fragment that continues the previous one of the
//! same delta only moves that record's end.

use compact_str::CompactString;

use super::event_ref::EventRef;

use crate::core::{DetectEvent, WireFormat};

use super::scan::{escape_json_into, find_json_escape, push_short};

/// The view of `item`, whose ranges are in `text` and whose owned event,
/// if it has one, is in `owned`.
#[inline]
fn view_in<'a>(text: &'a str, owned: &'a [DetectEvent], item: &Item) -> EventRef<'a> {
    match *item {
        Item::Text { start, end } => EventRef::Text {
            text: slice(text, start, end),
        },
        Item::Reasoning { start, end } => EventRef::Reasoning {
            text: slice(text, start, end),
        },
        Item::Args { index, start, end } => EventRef::ArgsDelta {
            index,
            fragment: slice(text, start, end),
        },
        Item::Start {
            index,
            start,
            mid,
            end,
            format,
        } => EventRef::CallStart {
            index,
            id: slice(text, start as usize, mid as usize),
            name: slice(text, mid as usize, end as usize),
            format,
        },
        Item::Owned { at } => match owned.get(at) {
            Some(event) => EventRef::from(event),
            // Never: `at` was the event's place when it was pushed.
            None => EventRef::Text { text: "" },
        },
    }
}

/// `text[start..end]`. The ranges were recorded by the batch's own appends,
/// so they lie on character boundaries; `get` keeps a broken one from
/// panicking all the same.
#[inline]
fn slice(text: &str, start: usize, end: usize) -> &str {
    text.get(start..end).unwrap_or_default()
}

/// Pushes the owned event `make` builds.
///
/// `push(event)` builds a small event on the stack and then copies it into the
/// vector, reading back bytes just written in narrower stores (a
/// store-forwarding stall on every event); `extend` reserves first and lets the
/// event be built in its slot.
fn push_owned(events: &mut Vec<DetectEvent>, make: impl FnOnce() -> DetectEvent) {
    events.extend(std::iter::once_with(make));
}

/// Events of a detected stream, stored flat: visible text, reasoning and
/// argument fragments are ranges of one string the batch keeps.
///
/// Pass one to [`StreamDetector::feed`](super::StreamDetector::feed) and the other output methods instead
/// of a `Vec<DetectEvent>` to read the events without an owned string per
/// event; read them with [`iter`](Self::iter) (borrowed [`EventRef`]s), then
/// [`clear`](Self::clear) the batch and reuse it for the next delta. The
/// events are the same, in the same order, as a `Vec<DetectEvent>` receives.
///
/// ```
/// use std::sync::Arc;
/// use toolrouter::{DetectConfig, EventBatch, EventRef, StreamDetector};
/// use toolrouter::{JsonObject, ToolCatalog};
///
/// let schema: JsonObject = serde_json::from_str(r#"{"type":"object","properties":{"path":{"type":"string"}}}"#).unwrap();
/// let catalog = Arc::new(ToolCatalog::from_schemas([("read_file", &schema)]));
/// let mut detector = StreamDetector::new(catalog, DetectConfig::default());
/// let mut batch = EventBatch::new();
/// let (mut text, mut args, mut calls) = (String::new(), String::new(), Vec::new());
/// let deltas = ["Reading.\n<read_", "file><path>src/a", ".rs</path></read_file>"];
/// for delta in deltas.into_iter().map(Some).chain([None]) {
///     match delta {
///         Some(delta) => detector.feed(delta, &mut batch),
///         None => detector.finish(&mut batch),
///     }
///     for event in &batch {
///         match event {
///             EventRef::Text { text: t } => text.push_str(t),
///             EventRef::ArgsDelta { fragment, .. } => args.push_str(fragment),
///             EventRef::CallEnd { call, .. } => calls.push(call.name.clone()),
///             _ => {}
///         }
///     }
///     batch.clear();
/// }
/// assert_eq!(text, "Reading.\n");
/// assert_eq!(args, r#"{"path":"src/a.rs"}"#);
/// assert_eq!(calls, ["read_file"]);
/// ```
#[derive(Debug, Clone, Default)]
pub struct EventBatch {
    items: Vec<Item>,
    /// The text of every `Text`, `Reasoning` and `ArgsDelta` item, in order.
    text: String,
    /// The events that own their data (`CallEnd`, `Malformed`), in order;
    /// an [`Item::Owned`] stands for the next one. Kept beside the items so
    /// that an item has no destructor: with one, a new item is built on the
    /// stack (it must be dropped should the vector's growth unwind) and then
    /// copied into place with wide loads of narrower stores just made, which
    /// wait for the stores instead of being forwarded from them (measured:
    /// most of `push_args`'s time at 4-byte deltas).
    owned_events: Vec<DetectEvent>,
    /// While the detector writes owned output (a `Vec<DetectEvent>`), that
    /// vector, swapped in; `items` and `text` are then unused. Going through a
    /// batch and converting afterwards would copy every string twice, and read
    /// each back right after writing it (see [`ArgsCapture::push`]).
    ///
    /// [`ArgsCapture::push`]: super::json_call::ArgsCapture::push
    owned: Vec<DetectEvent>,
    /// `owned` is the output.
    direct: bool,
}

/// One event of a batch: ranges of its text, or a place in its owned events.
#[derive(Debug, Clone, Copy)]
enum Item {
    Text {
        start: usize,
        end: usize,
    },
    Reasoning {
        start: usize,
        end: usize,
    },
    Args {
        index: usize,
        start: usize,
        end: usize,
    },
    /// `CallStart`: the id is `text[start..mid]`, the name `text[mid..end]`
    /// (offsets as `u32` so that the item stays four words; a batch whose
    /// text outgrows them keeps the event whole, as an `Owned` item). Owned
    /// strings for them were two allocations per call.
    Start {
        index: usize,
        start: u32,
        mid: u32,
        end: u32,
        format: WireFormat,
    },
    /// An event that owns its data (`CallEnd`, `Malformed`, a `CallStart`
    /// that does not fit `Start`): `owned_events[at]`.
    Owned {
        at: usize,
    },
}

impl EventBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes `out` the output: events are written into it, owned, until
    /// [`end_direct`](Self::end_direct) gives it back.
    #[inline]
    pub(crate) fn begin_direct(&mut self, out: &mut Vec<DetectEvent>) {
        std::mem::swap(&mut self.owned, out);
        self.direct = true;
    }

    /// Gives back the vector [`begin_direct`](Self::begin_direct) took.
    #[inline]
    pub(crate) fn end_direct(&mut self, out: &mut Vec<DetectEvent>) {
        self.direct = false;
        std::mem::swap(&mut self.owned, out);
    }

    /// The number of events.
    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the batch holds no event.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Removes every event, keeping the allocated space for the next ones.
    #[inline]
    pub fn clear(&mut self) {
        self.items.clear();
        self.owned_events.clear();
        self.text.clear();
    }

    /// The event at `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<EventRef<'_>> {
        self.items.get(i).map(|item| self.view(item))
    }

    /// The events, in order.
    #[inline]
    pub fn iter(&self) -> EventIter<'_> {
        EventIter {
            batch: self,
            items: self.items.iter(),
        }
    }

    /// Moves every event, as an owned [`DetectEvent`], onto the end of `out`,
    /// leaving the batch empty.
    pub fn drain_into(&mut self, out: &mut Vec<DetectEvent>) {
        out.reserve(self.items.len());
        let text = self.text.as_str();
        // Owned items take the owned events in order; the others are copied
        // out of their views.
        let mut owned_events = self.owned_events.drain(..);
        out.extend(self.items.drain(..).filter_map(|item| match item {
            Item::Owned { .. } => owned_events.next(),
            item => Some(view_in(text, &[], &item).to_event()),
        }));
        self.text.clear();
    }

    #[inline]
    fn view<'a>(&'a self, item: &'a Item) -> EventRef<'a> {
        view_in(&self.text, &self.owned_events, item)
    }

    /// The number of events written so far, in either mode: where the events
    /// of a delta start (its `floor`).
    pub(crate) fn written(&self) -> usize {
        if self.direct {
            self.owned.len()
        } else {
            self.items.len()
        }
    }

    /// Appends visible text, merging it into the last event when that is text
    /// at or after `floor`.
    pub(crate) fn push_text(&mut self, s: &str, floor: usize) {
        self.push_prose(s, floor, false);
    }

    /// Appends reasoning text, merging as [`push_text`](Self::push_text) does.
    pub(crate) fn push_reasoning(&mut self, s: &str, floor: usize) {
        self.push_prose(s, floor, true);
    }

    /// `push_text` (`reasoning` false) or `push_reasoning`.
    #[inline]
    fn push_prose(&mut self, s: &str, floor: usize, reasoning: bool) {
        if self.direct {
            let tail = if self.owned.len() > floor {
                self.owned.last_mut()
            } else {
                None
            };
            match tail {
                Some(DetectEvent::Text { text }) if !reasoning => text.push_str(s),
                Some(DetectEvent::Reasoning { text }) if reasoning => text.push_str(s),
                _ => push_owned(&mut self.owned, || {
                    let text = CompactString::new(s);
                    if reasoning {
                        DetectEvent::Reasoning { text }
                    } else {
                        DetectEvent::Text { text }
                    }
                }),
            }
            return;
        }
        self.text.push_str(s);
        let end = self.text.len();
        if self.items.len() > floor {
            match self.items.last_mut() {
                Some(Item::Text { end: last, .. }) if !reasoning => {
                    *last = end;
                    return;
                }
                Some(Item::Reasoning { end: last, .. }) if reasoning => {
                    *last = end;
                    return;
                }
                _ => {}
            }
        }
        let start = end - s.len();
        self.items.push(if reasoning {
            Item::Reasoning { start, end }
        } else {
            Item::Text { start, end }
        });
    }

    /// Appends an arguments fragment of call `index`, merging it into the last
    /// event when that is a fragment of the same call at or after `floor`.
    pub(crate) fn push_args(&mut self, index: usize, s: &str, floor: usize) {
        if s.is_empty() {
            return;
        }
        if self.direct {
            if let Some(fragment) = self.owned_args_tail(index, floor) {
                fragment.push_str(s);
            } else {
                push_owned(&mut self.owned, || DetectEvent::ArgsDelta {
                    index,
                    fragment: CompactString::new(s),
                });
            }
            return;
        }
        push_short(&mut self.text, s);
        self.extend_args(index, s.len(), floor);
    }

    /// Appends `s` JSON-escaped (without quotes) as an arguments fragment of
    /// call `index`, escaping it straight into place.
    pub(crate) fn push_args_escaped(&mut self, index: usize, s: &str, floor: usize) {
        if s.is_empty() {
            return;
        }
        if self.direct {
            if find_json_escape(s.as_bytes(), 0).is_none() {
                self.push_args(index, s, floor);
            } else {
                // Escaped into `text` (unused in this mode), then appended:
                // `CompactString::push_str` per escaped piece measured slower.
                let mut escaped = std::mem::take(&mut self.text);
                escaped.clear();
                escape_json_into(s, &mut escaped);
                self.push_args(index, &escaped, floor);
                self.text = escaped;
            }
            return;
        }
        let start = self.text.len();
        escape_json_into(s, &mut self.text);
        self.extend_args(index, self.text.len() - start, floor);
    }

    /// The fragment of the last owned event, when that is an `ArgsDelta` of
    /// call `index` at or after `floor`.
    fn owned_args_tail(&mut self, index: usize, floor: usize) -> Option<&mut CompactString> {
        if self.owned.len() <= floor {
            return None;
        }
        match self.owned.last_mut() {
            Some(DetectEvent::ArgsDelta {
                index: last,
                fragment,
            }) if *last == index => Some(fragment),
            _ => None,
        }
    }

    /// Records the last `len` bytes of `text` as a fragment of call `index`.
    fn extend_args(&mut self, index: usize, len: usize, floor: usize) {
        let end = self.text.len();
        if self.items.len() > floor
            && let Some(Item::Args {
                index: last_index,
                end: last,
                ..
            }) = self.items.last_mut()
            && *last_index == index
        {
            *last = end;
            return;
        }
        self.items.push(Item::Args {
            index,
            start: end - len,
            end,
        });
    }

    /// Appends an event that owns its data.
    pub(crate) fn push(&mut self, event: DetectEvent) {
        if self.direct {
            self.owned.push(event);
            return;
        }
        match event {
            DetectEvent::Text { text } => self.push_text(&text, usize::MAX),
            DetectEvent::Reasoning { text } => self.push_reasoning(&text, usize::MAX),
            DetectEvent::ArgsDelta { index, fragment } => {
                self.push_args(index, &fragment, usize::MAX)
            }
            DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            } => self.push_start(index, &id, &name, format),
            event => self.push_owned_event(event),
        }
    }

    /// Appends an event kept whole (batch mode).
    fn push_owned_event(&mut self, event: DetectEvent) {
        self.items.push(Item::Owned {
            at: self.owned_events.len(),
        });
        self.owned_events.push(event);
    }

    /// Appends `CallStart`; in a batch its id and name are copied into the
    /// batch's text, so the event costs no allocation of its own.
    pub(crate) fn push_start(&mut self, index: usize, id: &str, name: &str, format: WireFormat) {
        let owned = || DetectEvent::CallStart {
            index,
            id: id.to_owned(),
            name: name.to_owned(),
            format,
        };
        if self.direct {
            push_owned(&mut self.owned, owned);
            return;
        }
        let at = self.text.len();
        self.text.push_str(id);
        let mid = self.text.len();
        self.text.push_str(name);
        let end = self.text.len();
        match (u32::try_from(at), u32::try_from(mid), u32::try_from(end)) {
            (Ok(start), Ok(mid), Ok(end)) => self.items.push(Item::Start {
                index,
                start,
                mid,
                end,
                format,
            }),
            _ => {
                self.text.truncate(at);
                self.push_owned_event(owned());
            }
        }
    }
}

impl<'a> IntoIterator for &'a EventBatch {
    type Item = EventRef<'a>;
    type IntoIter = EventIter<'a>;

    #[inline]
    fn into_iter(self) -> EventIter<'a> {
        self.iter()
    }
}

/// The events of an [`EventBatch`], in order.
#[derive(Debug, Clone)]
pub struct EventIter<'a> {
    batch: &'a EventBatch,
    items: std::slice::Iter<'a, Item>,
}

impl<'a> Iterator for EventIter<'a> {
    type Item = EventRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<EventRef<'a>> {
        self.items.next().map(|item| self.batch.view(item))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl DoubleEndedIterator for EventIter<'_> {
    #[inline]
    fn next_back(&mut self) -> Option<Self::Item> {
        self.items.next_back().map(|item| self.batch.view(item))
    }
}

impl ExactSizeIterator for EventIter<'_> {}
