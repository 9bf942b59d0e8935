//! [`RouteInput`]: what a typed stream yields, fed to a [`RouteSession`]:
//! raw bytes ([`RawBytes`]), a frame the client decoded itself ([`Frame`]),
//! or neutral deltas ([`ProviderDelta`]) its items were mapped to.
//! [`Router::route_items`](super::Router::route_items) drives a stream of
//! them as [`Router::route`](super::Router::route) drives bytes.

use toolrouter_providers::ProviderDelta;

use super::event::RouteEvent;
use super::session::RouteSession;

/// An item of a provider stream, as a typed client yields it: it feeds
/// itself to a session. Adapters of client crates implement it for their
/// chunk types (`docs/adapters.md`).
pub trait RouteInput {
    /// Feeds this item; appends the events it completes.
    fn feed_into(self, session: &mut RouteSession, out: &mut Vec<RouteEvent>);

    /// About how many bytes of the wire it stands for: what is left of a
    /// stream after its turn's end is read for a bounded number of them
    /// (so that an HTTP client's connection goes back to its pool).
    fn size(&self) -> usize {
        256
    }
}

/// Raw bytes of the wire, cut anywhere ([`RouteSession::feed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBytes<B>(pub B);

impl<B: AsRef<[u8]>> RouteInput for RawBytes<B> {
    fn feed_into(self, session: &mut RouteSession, out: &mut Vec<RouteEvent>) {
        session.feed(self.0.as_ref(), out);
    }

    fn size(&self) -> usize {
        self.0.as_ref().len()
    }
}

/// One frame of the wire, decoded by the client: an SSE event's name (`""`
/// when it has none) and data, or an NDJSON line ([`RouteSession::feed_frame`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Frame {
    /// The SSE `event:` name, or `""`.
    pub event: String,
    /// The frame's data (a JSON object, or `[DONE]`).
    pub data: String,
}

impl Frame {
    /// A frame without an event name (Chat Completions, Gemini, NDJSON).
    pub fn data(data: impl Into<String>) -> Self {
        Self {
            event: String::new(),
            data: data.into(),
        }
    }

    /// A named SSE event (Anthropic, Responses).
    pub fn event(event: impl Into<String>, data: impl Into<String>) -> Self {
        Self {
            event: event.into(),
            data: data.into(),
        }
    }
}

impl RouteInput for Frame {
    fn feed_into(self, session: &mut RouteSession, out: &mut Vec<RouteEvent>) {
        session.feed_frame(&self.event, self.data.as_bytes(), out);
    }

    fn size(&self) -> usize {
        self.event.len() + self.data.len()
    }
}

impl RouteInput for ProviderDelta {
    fn feed_into(self, session: &mut RouteSession, out: &mut Vec<RouteEvent>) {
        session.feed_deltas([self], out);
    }
}

impl RouteInput for Vec<ProviderDelta> {
    fn feed_into(self, session: &mut RouteSession, out: &mut Vec<RouteEvent>) {
        session.feed_deltas(self, out);
    }
}
