//! Server-Sent Events decoding (WHATWG rules): `event:`/`data:` fields, comments, any line ending.

use super::lines::{LineEvent, LineSplitter};

/// One dispatched event.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SseEvent<'a> {
    /// The `event:` field, or `""` when absent.
    pub(crate) event: &'a str,
    /// The `data:` lines joined with `\n`, as bytes (JSON parsers check UTF-8
    /// themselves, so it is not checked twice).
    pub(crate) data: &'a [u8],
}

/// What the decoder hands to its caller.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SseItem<'a> {
    /// A complete event.
    Event(SseEvent<'a>),
    /// An event was dropped whole, never handed over in part.
    Dropped(Dropped),
}

/// Why an event was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dropped {
    /// One of its lines, or its data, was longer than the limit.
    TooLong {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// Its `event:` name was not UTF-8.
    InvalidUtf8,
}

/// Incremental SSE decoder: a line splitter feeding the event being built.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    lines: LineSplitter,
    pending: PendingEvent,
}

/// The event being built (`event`, `data`, `has_data`), filled line by line until
/// an empty line dispatches it. Comment lines (`:`...) and unknown fields (`id`,
/// `retry`, anything else) are ignored. When one of its lines must be
/// dropped, the drop is reported at once and the rest of the event is
/// skipped (`dropped`) up to its empty line: a frame is read whole or not at
/// all.
#[derive(Debug)]
struct PendingEvent {
    event: String,
    data: Vec<u8>,
    has_data: bool,
    dropped: bool,
    /// The most bytes of `data` (the line limit: an event's data is no
    /// longer than one line may be).
    max_data: usize,
}

impl SseDecoder {
    pub(crate) fn new(max_line: usize) -> Self {
        SseDecoder {
            lines: LineSplitter::new(max_line),
            pending: PendingEvent {
                event: String::new(),
                data: Vec::new(),
                has_data: false,
                dropped: false,
                max_data: max_line,
            },
        }
    }

    /// Feeds a chunk, calling `on_item` for every event it completes.
    pub(crate) fn push(&mut self, chunk: &[u8], mut on_item: impl FnMut(SseItem<'_>)) {
        let pending = &mut self.pending;
        self.lines
            .push(chunk, |line| pending.on_line(line, &mut on_item));
    }

    /// Ends the input. An event left without its closing empty line is still
    /// dispatched: a cut stream's last complete frame is worth reading.
    pub(crate) fn finish(&mut self, mut on_item: impl FnMut(SseItem<'_>)) {
        let pending = &mut self.pending;
        self.lines
            .finish(|line| pending.on_line(line, &mut on_item));
        pending.on_line(LineEvent::Line(b""), &mut on_item);
    }
}

impl PendingEvent {
    fn on_line(&mut self, line: LineEvent<'_>, on_item: &mut impl FnMut(SseItem<'_>)) {
        let line = match line {
            LineEvent::Line(line) => line,
            LineEvent::TooLong { limit } => {
                self.drop_event(Dropped::TooLong { limit }, on_item);
                return;
            }
        };
        if line.is_empty() {
            if !std::mem::take(&mut self.dropped) && self.has_data {
                on_item(SseItem::Event(SseEvent {
                    event: self.event.as_str(),
                    data: self.data.as_slice(),
                }));
            }
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            return;
        }
        if line[0] == b':' || self.dropped {
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(p) => {
                let value = &line[p + 1..];
                (&line[..p], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match name {
            b"data" => {
                let joined = usize::from(self.has_data) + value.len();
                if self.data.len() + joined > self.max_data {
                    let limit = self.max_data;
                    self.drop_event(Dropped::TooLong { limit }, on_item);
                    return;
                }
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            b"event" => match std::str::from_utf8(value) {
                Ok(name) => {
                    self.event.clear();
                    self.event.push_str(name);
                }
                Err(_) => self.drop_event(Dropped::InvalidUtf8, on_item),
            },
            _ => {}
        }
    }

    /// The event is dropped, for `why`: reported once, what it held so far
    /// let go.
    fn drop_event(&mut self, why: Dropped, on_item: &mut impl FnMut(SseItem<'_>)) {
        if !self.dropped {
            self.dropped = true;
            on_item(SseItem::Dropped(why));
        }
        self.data.clear();
        self.has_data = false;
    }
}
