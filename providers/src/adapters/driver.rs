//! Generic drivers: an SSE or NDJSON framing layer feeding a per-vendor frame handler.

use super::{AdapterConfig, Wire, WireAdapter};
use crate::delta::{ErrorKind, ProviderDelta};
use crate::error::AdapterError;
use crate::framing::lines::{LineEvent, LineSplitter};
use crate::framing::sse::{Dropped, SseDecoder, SseItem};

/// What a vendor adapter does with each frame.
pub(crate) trait FrameHandler: Send {
    /// One frame: its SSE `event:` name (`""` for NDJSON or when absent) and its
    /// data (trimmed, never empty). Handlers read it with [`parse_frame`] into a
    /// typed skeleton of the fields they use, so that the rest is skipped unbuilt.
    fn on_data(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>);

    /// End of stream: close what is open, report a missing finish.
    fn on_end(&mut self, out: &mut Vec<ProviderDelta>);

    /// Whether the wire's end marker was read: no frame after it is handed
    /// over ([`WireAdapter::is_done`]).
    fn is_done(&self) -> bool;
}

pub(crate) fn bad_json_message(data: &str, err: &serde_json::Error) -> String {
    let mut shown: String = data.chars().take(80).collect();
    if shown.len() < data.len() {
        shown.push('…');
    }
    format!("bad json in frame ({err}): {shown}")
}

/// Reads a frame's bytes as `T`; a frame that is not valid JSON of that shape is
/// reported as malformed and skipped.
pub(crate) fn parse_frame<'a, T: serde::Deserialize<'a>>(
    data: &'a [u8],
    out: &mut Vec<ProviderDelta>,
) -> Option<T> {
    match serde_json::from_slice(data) {
        Ok(v) => Some(v),
        Err(err) => {
            out.push(unreadable_frame(data, &err));
            None
        }
    }
}

/// The error of a frame `serde_json` could not read: one that is not UTF-8
/// says so (where its first bad byte is), the others quote their start.
/// Only a failed frame pays for the check: `serde_json` checks the UTF-8 of
/// what it reads.
pub(crate) fn unreadable_frame(data: &[u8], err: &serde_json::Error) -> ProviderDelta {
    match std::str::from_utf8(data) {
        Ok(text) => ProviderDelta::malformed(bad_json_message(text, err)),
        Err(e) => ProviderDelta::malformed(format!(
            "frame with invalid UTF-8 at byte {} dropped",
            e.valid_up_to()
        )),
    }
}

pub(crate) fn too_long(limit: usize) -> ProviderDelta {
    ProviderDelta::Error {
        kind: ErrorKind::TooLarge,
        message: format!("frame longer than {limit} bytes dropped"),
    }
}

/// The error of an event the SSE framing dropped.
fn dropped(why: Dropped) -> ProviderDelta {
    match why {
        Dropped::TooLong { limit } => too_long(limit),
        Dropped::InvalidUtf8 => {
            ProviderDelta::malformed("frame with an `event:` name that is not UTF-8 dropped")
        }
    }
}

/// A frame decoded by the caller ([`WireAdapter::feed_frame`]), to
/// `handler` unless the wire's end marker came or it is blank.
fn dispatch_frame<H: FrameHandler>(
    handler: &mut H,
    event: &str,
    data: &[u8],
    out: &mut Vec<ProviderDelta>,
) {
    let data = data.trim_ascii();
    if !handler.is_done() && !data.is_empty() {
        handler.on_data(event, data, out);
    }
}

/// SSE framing + a frame handler.
pub(crate) struct SseAdapter<H> {
    wire: Wire,
    sse: SseDecoder,
    handler: H,
    finished: bool,
}

impl<H: FrameHandler> SseAdapter<H> {
    pub(crate) fn new(wire: Wire, config: AdapterConfig, handler: H) -> Self {
        SseAdapter {
            wire,
            sse: SseDecoder::new(config.max_frame_bytes),
            handler,
            finished: false,
        }
    }
}

fn dispatch_sse<H: FrameHandler>(item: SseItem<'_>, handler: &mut H, out: &mut Vec<ProviderDelta>) {
    if handler.is_done() {
        return;
    }
    match item {
        SseItem::Event(ev) => {
            let data = ev.data.trim_ascii();
            if !data.is_empty() {
                handler.on_data(ev.event, data, out);
            }
        }
        SseItem::Dropped(why) => out.push(dropped(why)),
    }
}

impl<H: FrameHandler> WireAdapter for SseAdapter<H> {
    fn wire(&self) -> Wire {
        self.wire
    }

    fn feed(&mut self, chunk: &[u8], out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished || self.handler.is_done() {
            return Ok(());
        }
        let SseAdapter { sse, handler, .. } = self;
        sse.push(chunk, |item| dispatch_sse(item, handler, out));
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let SseAdapter { sse, handler, .. } = self;
        sse.finish(|item| dispatch_sse(item, handler, out));
        handler.on_end(out);
        Ok(())
    }

    fn feed_frame(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        if !self.finished {
            dispatch_frame(&mut self.handler, event, data, out);
        }
    }

    fn is_done(&self) -> bool {
        self.handler.is_done()
    }
}

/// NDJSON framing + a frame handler.
pub(crate) struct NdjsonAdapter<H> {
    wire: Wire,
    lines: LineSplitter,
    handler: H,
    finished: bool,
}

impl<H: FrameHandler> NdjsonAdapter<H> {
    pub(crate) fn new(wire: Wire, config: AdapterConfig, handler: H) -> Self {
        NdjsonAdapter {
            wire,
            lines: LineSplitter::new(config.max_frame_bytes),
            handler,
            finished: false,
        }
    }
}

pub(crate) fn dispatch_line<H: FrameHandler>(
    line: LineEvent<'_>,
    handler: &mut H,
    out: &mut Vec<ProviderDelta>,
) {
    if handler.is_done() {
        return;
    }
    match line {
        LineEvent::Line(bytes) => {
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                handler.on_data("", bytes.trim_ascii(), out);
            }
        }
        LineEvent::TooLong { limit } => out.push(too_long(limit)),
    }
}

impl<H: FrameHandler> WireAdapter for NdjsonAdapter<H> {
    fn wire(&self) -> Wire {
        self.wire
    }

    fn feed(&mut self, chunk: &[u8], out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished || self.handler.is_done() {
            return Ok(());
        }
        let NdjsonAdapter { lines, handler, .. } = self;
        lines.push(chunk, |line| dispatch_line(line, handler, out));
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        let NdjsonAdapter { lines, handler, .. } = self;
        lines.finish(|line| dispatch_line(line, handler, out));
        handler.on_end(out);
        Ok(())
    }

    fn feed_frame(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        if !self.finished {
            dispatch_frame(&mut self.handler, event, data, out);
        }
    }

    fn is_done(&self) -> bool {
        self.handler.is_done()
    }
}
