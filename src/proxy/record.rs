//! `RequestRecord`: one proxied request's tracing span and its closing line.
//!
//! Each chat request (any front door) opens a `proxy_request` span that the
//! upstream call and the routed answer run in, and ends with one `info` event,
//! `proxy request done`, carrying what an operator asks of a request: the
//! front door, the model, whether it streamed, the upstream's status, the time
//! to the upstream's answer head and to its first byte, the calls shown to the
//! client, the total time and how it ended. The event is written when the
//! record is dropped, so a client that goes away mid-stream is counted too
//! (`outcome = "client_gone"`).

use std::time::{Duration, Instant};

use http::StatusCode;
use tracing::Span;

use crate::core::{DetectEvent, echo_display};
use crate::router::RouteEvent;

/// The front door a request came through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Door {
    /// `POST /v1/chat/completions`.
    OpenAi,
    /// `POST /v1/messages`.
    Anthropic,
    /// `POST /v1/responses`.
    Responses,
}

impl Door {
    fn as_str(self) -> &'static str {
        match self {
            Door::OpenAi => "chat_completions",
            Door::Anthropic => "messages",
            Door::Responses => "responses",
        }
    }
}

/// One request's span and the figures of its closing line.
#[derive(Debug)]
pub(crate) struct RequestRecord {
    span: Span,
    door: Door,
    started: Instant,
    model: String,
    stream: bool,
    upstream_status: Option<u16>,
    upstream_head: Option<Duration>,
    first_byte: Option<Duration>,
    calls: usize,
    /// Server-side tool calls run, and their time (rounds run concurrently);
    /// `None` when the proxy has no server-side tools, so the line leaves
    /// them out.
    tool_calls: Option<usize>,
    tool_time: Duration,
    status: Option<u16>,
    outcome: Option<String>,
    /// Whether this record writes the closing line (a record moved on with
    /// [`detach`](Self::detach) leaves a silent one behind).
    armed: bool,
}

impl RequestRecord {
    /// Opens the span of a request that came through `door`.
    pub(crate) fn new(door: Door) -> Self {
        Self::with_span(
            tracing::info_span!("proxy_request", door = door.as_str()),
            door,
        )
    }

    fn with_span(span: Span, door: Door) -> Self {
        Self {
            span,
            door,
            started: Instant::now(),
            model: String::new(),
            stream: false,
            upstream_status: None,
            upstream_head: None,
            first_byte: None,
            calls: 0,
            tool_calls: None,
            tool_time: Duration::ZERO,
            status: None,
            outcome: None,
            armed: true,
        }
    }

    /// Moves the record on (into the answer's turn), leaving a silent one
    /// here: the line is written once, by whoever holds it last.
    pub(crate) fn detach(&mut self) -> Self {
        let mut silent = Self::with_span(self.span.clone(), self.door);
        silent.armed = false;
        std::mem::replace(self, silent)
    }

    /// The span the request's work runs in.
    pub(crate) fn span(&self) -> Span {
        self.span.clone()
    }

    /// What the client asked for (`model` is the client's text, cut to a
    /// bounded length for the log).
    pub(crate) fn request(&mut self, model: &str, stream: bool) {
        self.model = echo_display(&crate::core::echo(model));
        self.stream = stream;
    }

    /// The upstream answered with `status` (its head).
    pub(crate) fn upstream_answered(&mut self, status: StatusCode) {
        self.upstream_status = Some(status.as_u16());
        self.upstream_head.get_or_insert(self.started.elapsed());
    }

    /// The upstream's first body byte arrived.
    pub(crate) fn first_byte(&mut self) {
        self.first_byte.get_or_insert(self.started.elapsed());
    }

    /// Counts the calls among routed events.
    pub(crate) fn observe(&mut self, events: &[RouteEvent]) {
        self.calls += events
            .iter()
            .filter(|e| matches!(e, RouteEvent::Detect(DetectEvent::CallStart { .. })))
            .count();
    }

    /// The proxy has server-side tools: the line counts their calls and time
    /// (zero when the model called none).
    pub(crate) fn with_server_tools(&mut self) {
        self.tool_calls.get_or_insert(0);
    }

    /// A round of `calls` server-side tool calls ran in `took`.
    pub(crate) fn tools_ran(&mut self, calls: usize, took: Duration) {
        *self.tool_calls.get_or_insert(0) += calls;
        self.tool_time += took;
    }

    /// The request ended: `outcome` is `ok` or an error code.
    pub(crate) fn end(&mut self, status: StatusCode, outcome: &str) {
        if self.outcome.is_none() {
            self.status = Some(status.as_u16());
            self.outcome = Some(outcome.to_owned());
        }
    }
}

impl Drop for RequestRecord {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let ms = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1e3);
        tracing::info!(
            parent: &self.span,
            door = self.door.as_str(),
            model = ?self.model,
            stream = self.stream,
            status = self.status,
            upstream_status = self.upstream_status,
            upstream_head_ms = ms(self.upstream_head),
            first_byte_ms = ms(self.first_byte),
            calls = self.calls,
            tool_calls = self.tool_calls,
            tool_ms = self.tool_calls.map(|_| self.tool_time.as_secs_f64() * 1e3),
            duration_ms = self.started.elapsed().as_secs_f64() * 1e3,
            outcome = self.outcome.as_deref().unwrap_or("client_gone"),
            "proxy request done"
        );
    }
}
