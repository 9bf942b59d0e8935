//! `UpstreamTurn`: one upstream answer read through a [`RouteSession`],
//! bounded in bytes, up to the wire's end marker or the body's end. Both the
//! streaming and the one-piece answer read it.

use futures::StreamExt;

use super::meta::{ChunkMeta, MetaSniffer};
use super::record::RequestRecord;
use super::upstream::{AnswerStream, error_chain};
use crate::router::{RouteEvent, RouteSession, release};

/// The upstream's byte stream, routed.
pub(crate) struct UpstreamTurn {
    /// `None` once the turn has ended: a body read to its end is gone, one
    /// whose end marker came first was let go (`release`), any other dropped.
    bytes: Option<AnswerStream>,
    session: RouteSession,
    sniffer: MetaSniffer,
    read: usize,
    max_bytes: usize,
    record: RequestRecord,
}

impl UpstreamTurn {
    /// Routes `bytes` through `session`, reading at most `max_bytes`;
    /// `record` is the request's log, written when the turn is dropped.
    pub(crate) fn new(
        bytes: AnswerStream,
        session: RouteSession,
        max_bytes: usize,
        record: RequestRecord,
    ) -> Self {
        Self {
            bytes: Some(bytes),
            session,
            sniffer: MetaSniffer::default(),
            read: 0,
            max_bytes,
            record,
        }
    }

    /// Reads the next piece of the answer and appends the events it
    /// completes; the last piece ends with the session's one `Finish`: the
    /// one that holds the wire's end marker (`data: [DONE]`,
    /// `message_stop`, …), else the body's end. Gives `false` once the turn
    /// has ended (and appends nothing then).
    pub(crate) async fn next(&mut self, out: &mut Vec<RouteEvent>) -> bool {
        let Some(bytes) = self.bytes.as_mut() else {
            return false;
        };
        let before = out.len();
        match bytes.next().await {
            Some(Ok(chunk)) => {
                self.record.first_byte();
                self.read = self.read.saturating_add(chunk.len());
                if self.read > self.max_bytes {
                    self.bytes = None;
                    self.session.abort(
                        format!(
                            "the upstream's answer is over the proxy's limit of {} bytes",
                            self.max_bytes
                        ),
                        out,
                    );
                } else {
                    self.sniffer.observe(&chunk);
                    self.session.feed(&chunk, out);
                    if self.session.is_finished()
                        && let Some(bytes) = self.bytes.take()
                    {
                        // The end marker came: the rest of the body is not
                        // waited for.
                        release(bytes);
                    }
                }
            }
            Some(Err(e)) => {
                self.bytes = None;
                self.session.abort(
                    format!("the upstream's stream broke: {}", error_chain(&e)),
                    out,
                );
            }
            None => {
                self.bytes = None;
                self.session.finish(out);
            }
        }
        self.record.observe(out.get(before..).unwrap_or_default());
        true
    }

    /// The request's log.
    pub(crate) fn record(&mut self) -> &mut RequestRecord {
        &mut self.record
    }

    /// The answer's metadata as far as it is known (`fallback_model` when the
    /// upstream names no model).
    pub(crate) fn meta(&self, fallback_model: &str) -> ChunkMeta {
        self.sniffer.meta(fallback_model)
    }
}

/// How a front door writes the routed answer as its own SSE frames
/// (`ChunkWriter` for Chat Completions, `EventWriter` for Messages,
/// `ResponseWriter` for Responses).
pub(crate) trait FrameWriter: Send + 'static {
    /// Whether the client's stream is complete (its end or an error event
    /// written); the upstream need not be read any further.
    fn ended(&self) -> bool;

    /// The `code` of the error event the stream ended with, if it did
    /// (`upstream_truncated`, `incomplete_tool_call`, …).
    fn failure(&self) -> Option<&'static str>;

    /// Writes to `out` the frames held back, if any wait: `false` when none
    /// do. A writer may hold back events that repeat a large part of the
    /// answer (a whole output item, the whole answer), to write each in its
    /// own frame once the client has read the one before: the answer is then
    /// held once, not once per event that repeats it.
    fn held(&mut self, out: &mut Vec<u8>) -> bool {
        let _ = out;
        false
    }

    /// Writes the frames of one event to `out`; `meta` gives the answer's
    /// metadata when the first frame is written.
    fn write_event(&mut self, event: RouteEvent, meta: &dyn Fn() -> ChunkMeta, out: &mut Vec<u8>);

    /// Writes the frames of `events` to `out`, draining them; nothing more
    /// once the stream has ended.
    fn write(
        &mut self,
        events: &mut Vec<RouteEvent>,
        meta: &dyn Fn() -> ChunkMeta,
        out: &mut Vec<u8>,
    ) {
        for event in events.drain(..) {
            if self.ended() {
                break;
            }
            self.write_event(event, meta, out);
        }
    }
}
