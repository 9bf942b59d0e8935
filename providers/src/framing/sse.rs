//! Server-Sent Events decoding (WHATWG rules): `event:`/`data:` fields, comments, any line ending.

use super::lines::{LineEvent, LineSplitter};

/// One dispatched event.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SseEvent<'a> {
    /// The `event:` field, or `""` when absent.
    pub(crate) event: &'a str,
    /// The `data:` lines joined with `\n`.
    pub(crate) data: &'a str,
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

/// Incremental SSE decoder.
///
/// State: the event being built (`event`, `data`, `has_data`), filled line by line
/// until an empty line dispatches it. Comment lines (`:`...) and unknown fields
/// (`id`, `retry`, anything else) are ignored.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    lines: LineSplitter,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub(crate) fn new(max_line: usize) -> Self {
        SseDecoder {
            lines: LineSplitter::new(max_line),
            event: String::new(),
            data: String::new(),
            has_data: false,
        }
    }

    /// Feeds a chunk, calling `on_item` for every event it completes.
    pub(crate) fn push(&mut self, chunk: &[u8], mut on_item: impl FnMut(SseItem<'_>)) {
        let SseDecoder {
            lines,
            event,
            data,
            has_data,
        } = self;
        lines.push(chunk, |line| {
            on_line(line, event, data, has_data, &mut on_item);
        });
    }

    /// Ends the input. An event left without its closing empty line is still
    /// dispatched: a cut stream's last complete frame is worth reading.
    pub(crate) fn finish(&mut self, mut on_item: impl FnMut(SseItem<'_>)) {
        let SseDecoder {
            lines,
            event,
            data,
            has_data,
        } = self;
        lines.finish(|line| on_line(line, event, data, has_data, &mut on_item));
        on_line(LineEvent::Line(b""), event, data, has_data, &mut on_item);
    }
}

fn on_line(
    line: LineEvent<'_>,
    event: &mut String,
    data: &mut String,
    has_data: &mut bool,
    on_item: &mut impl FnMut(SseItem<'_>),
) {
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
                data: data.as_str(),
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
                data.push('\n');
            }
            data.push_str(&String::from_utf8_lossy(value));
            *has_data = true;
        }
        b"event" => {
            event.clear();
            event.push_str(&String::from_utf8_lossy(value));
        }
        _ => {}
    }
}
