//! Generic drivers: an SSE or NDJSON framing layer feeding a per-vendor frame handler.

use super::{AdapterConfig, Wire, WireAdapter};
use crate::delta::{ErrorKind, ProviderDelta};
use crate::error::AdapterError;
use crate::framing::lines::{LineEvent, LineSplitter};
use crate::framing::sse::{SseDecoder, SseItem};

/// What a vendor adapter does with each frame's JSON.
pub(crate) trait FrameHandler: Send {
    /// One frame: its SSE `event:` name (`""` for NDJSON or when absent) and its JSON.
    fn on_frame(&mut self, event: &str, json: serde_json::Value, out: &mut Vec<ProviderDelta>);

    /// A frame whose data is not JSON (`[DONE]` and friends). The default reports it.
    fn on_non_json(&mut self, data: &str, err: serde_json::Error, out: &mut Vec<ProviderDelta>) {
        out.push(ProviderDelta::malformed(bad_json_message(data, &err)));
    }

    /// End of stream: close what is open, report a missing finish.
    fn on_end(&mut self, out: &mut Vec<ProviderDelta>);
}

pub(crate) fn bad_json_message(data: &str, err: &serde_json::Error) -> String {
    let mut shown: String = data.chars().take(80).collect();
    if shown.len() < data.len() {
        shown.push('…');
    }
    format!("bad json in frame ({err}): {shown}")
}

pub(crate) fn too_long(limit: usize) -> ProviderDelta {
    ProviderDelta::Error {
        kind: ErrorKind::TooLarge,
        message: format!("frame longer than {limit} bytes dropped"),
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
    match item {
        SseItem::Event(ev) => {
            let data = ev.data.trim();
            if data.is_empty() {
                return;
            }
            match serde_json::from_str(data) {
                Ok(json) => handler.on_frame(ev.event, json, out),
                Err(err) => handler.on_non_json(data, err, out),
            }
        }
        SseItem::TooLong { limit } => out.push(too_long(limit)),
    }
}

impl<H: FrameHandler> WireAdapter for SseAdapter<H> {
    fn wire(&self) -> Wire {
        self.wire
    }

    fn feed(&mut self, chunk: &[u8], out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError> {
        if self.finished {
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
    match line {
        LineEvent::Line(bytes) => {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return;
            }
            match serde_json::from_slice(bytes) {
                Ok(json) => handler.on_frame("", json, out),
                Err(err) => {
                    let text = String::from_utf8_lossy(bytes);
                    handler.on_non_json(&text, err, out);
                }
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
        if self.finished {
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
}
