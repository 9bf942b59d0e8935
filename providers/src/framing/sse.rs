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
    /// A line longer than the limit was dropped.
    TooLong {
        /// The limit that was exceeded.
        limit: usize,
    },
}

/// Incremental SSE decoder: a line splitter feeding the event being built.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    lines: LineSplitter,
    pending: PendingEvent,
}

/// The event being built (`event`, `data`, `has_data`), filled line by line until
/// an empty line dispatches it. Comment lines (`:`...) and unknown fields (`id`,
/// `retry`, anything else) are ignored.
#[derive(Debug, Default)]
struct PendingEvent {
    event: String,
    data: Vec<u8>,
    has_data: bool,
}

impl SseDecoder {
    pub(crate) fn new(max_line: usize) -> Self {
        SseDecoder {
            lines: LineSplitter::new(max_line),
            pending: PendingEvent::default(),
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
        let PendingEvent {
            event,
            data,
            has_data,
        } = self;
        let line = match line {
            LineEvent::Line(line) => line,
            LineEvent::TooLong { limit } => {
                on_item(SseItem::TooLong { limit });
                return;
            }
        };
        if line.is_empty() {
            if *has_data {
                on_item(SseItem::Event(SseEvent {
                    event: event.as_str(),
                    data: data.as_slice(),
                }));
            }
            event.clear();
            data.clear();
            *has_data = false;
            return;
        }
        if line[0] == b':' {
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
                if *has_data {
                    data.push(b'\n');
                }
                data.extend_from_slice(value);
                *has_data = true;
            }
            b"event" => {
                event.clear();
                event.push_str(&String::from_utf8_lossy(value));
            }
            _ => {}
        }
    }
}
