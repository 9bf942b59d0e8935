//! One connection's deadlines: the header-read, body-read and idle keep-alive
//! timeouts, kept by a [`ConnClock`] that the socket ([`ClockedIo`]), the
//! request body and the response body ([`TrackedBody`]) report to.
//!
//! A connection is in one of four states, and each has at most one deadline:
//! - a request in flight with its body still arriving: the body timeout,
//!   from the moment the request's head was read;
//! - a request in flight, its body read (or empty): none, so a long tool call
//!   or an SSE stream is never cut;
//! - no request in flight, the first bytes of a head arrived (or the
//!   connection is new and nothing was served yet): the header timeout;
//! - no request in flight and nothing arriving after a request was served
//!   (keep-alive): the idle timeout.

use std::fmt;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

/// The three per-connection timeouts; `None` turns one off.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    /// From a head's first byte (or the connection's start) to its end.
    pub(crate) header: Option<Duration>,
    /// From a request's head to the end of its body.
    pub(crate) body: Option<Duration>,
    /// From the end of a response to the next request's first byte.
    pub(crate) idle: Option<Duration>,
}

/// Why a connection was closed by its clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expired {
    /// A request head did not arrive in time.
    Header,
    /// A request body did not arrive in time.
    Body,
    /// A keep-alive connection stayed idle too long.
    Idle,
}

impl fmt::Display for Expired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Header => "header-read timeout",
            Self::Body => "body-read timeout",
            Self::Idle => "idle timeout",
        })
    }
}

/// The shared clock of one connection.
#[derive(Debug)]
pub(crate) struct ConnClock {
    timeouts: Timeouts,
    state: Mutex<ClockState>,
    changed: Notify,
}

#[derive(Debug)]
struct ClockState {
    /// Requests whose response body is not done (one, in HTTP/1).
    in_flight: usize,
    /// Whether any request was served on this connection.
    served: bool,
    /// When the connection last had nothing in flight.
    idle_since: Instant,
    /// When the first byte of the next head arrived, while nothing is in flight.
    head_started: Option<Instant>,
    /// When the request whose body is still arriving was read.
    body_started: Option<Instant>,
}

impl ConnClock {
    pub(crate) fn new(timeouts: Timeouts) -> Arc<Self> {
        Arc::new(Self {
            timeouts,
            state: Mutex::new(ClockState {
                in_flight: 0,
                served: false,
                idle_since: Instant::now(),
                head_started: None,
                body_started: None,
            }),
            changed: Notify::new(),
        })
    }

    fn state(&self) -> MutexGuard<'_, ClockState> {
        // The state is plain counters and instants: a panic elsewhere leaves
        // it usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn update(&self, change: impl FnOnce(&mut ClockState)) {
        change(&mut self.state());
        self.changed.notify_one();
    }

    /// Bytes arrived on the socket.
    fn bytes_read(&self) {
        let mut state = self.state();
        if state.in_flight == 0 && state.head_started.is_none() {
            state.head_started = Some(Instant::now());
            drop(state);
            self.changed.notify_one();
        }
    }

    /// A request's head was read; the guards end the body's deadline and the
    /// request (when the response body is done) as they are dropped.
    pub(crate) fn request_started(self: &Arc<Self>, body_pending: bool) -> (Guard, Guard) {
        self.update(|state| {
            state.in_flight += 1;
            state.served = true;
            state.head_started = None;
            state.body_started = body_pending.then(Instant::now);
        });
        let guard = |part| Guard {
            clock: Arc::clone(self),
            part,
        };
        (guard(Part::RequestBody), guard(Part::Response))
    }

    fn deadline(&self) -> Option<(Instant, Expired)> {
        let state = self.state();
        let at = |from: Instant, timeout: Option<Duration>, why| timeout.map(|t| (from + t, why));
        if let Some(from) = state.body_started {
            return at(from, self.timeouts.body, Expired::Body);
        }
        if state.in_flight > 0 {
            return None;
        }
        match state.head_started {
            Some(from) => at(from, self.timeouts.header, Expired::Header),
            None if state.served => at(state.idle_since, self.timeouts.idle, Expired::Idle),
            None => at(state.idle_since, self.timeouts.header, Expired::Header),
        }
    }

    /// Resolves when the connection's current deadline passes.
    ///
    /// One timer serves the connection's life, moved as the deadline moves
    /// (and left to fire early when the deadline moved later, then moved
    /// on): a timer made anew after every response, with nothing else in the
    /// runtime's timer wheel, woke the runtime's driver (an eventfd write and
    /// one more turn of its loop) per request.
    pub(crate) async fn expired(&self) -> Expired {
        let mut timer: Option<Pin<Box<tokio::time::Sleep>>> = None;
        loop {
            let Some((at, _)) = self.deadline() else {
                self.changed.notified().await;
                continue;
            };
            let timer = match &mut timer {
                Some(timer) => {
                    if timer.deadline() > at || timer.is_elapsed() {
                        timer.as_mut().reset(at);
                    }
                    timer
                }
                None => timer.insert(Box::pin(tokio::time::sleep_until(at))),
            };
            tokio::select! {
                () = self.changed.notified() => {}
                () = timer.as_mut() => {
                    // The deadline may have moved while the timer ran.
                    if let Some((at, why)) = self.deadline() && at <= Instant::now() {
                        return why;
                    }
                }
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Part {
    RequestBody,
    Response,
}

/// Ends a request body's deadline, or a request, when dropped.
#[derive(Debug)]
pub(crate) struct Guard {
    clock: Arc<ConnClock>,
    part: Part,
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.clock.update(|state| match self.part {
            Part::RequestBody => state.body_started = None,
            Part::Response => {
                state.in_flight = state.in_flight.saturating_sub(1);
                if state.in_flight == 0 {
                    state.idle_since = Instant::now();
                    state.head_started = None;
                }
            }
        });
    }
}

/// A body that drops its [`Guard`] once it ends, fails, or is dropped.
#[derive(Debug)]
pub(crate) struct TrackedBody<B> {
    inner: B,
    guard: Option<Guard>,
}

impl<B: Body> TrackedBody<B> {
    pub(crate) fn new(inner: B, guard: Guard) -> Self {
        let guard = (!inner.is_end_stream()).then_some(guard);
        Self { inner, guard }
    }
}

impl<B: Body + Unpin> Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) || this.inner.is_end_stream() {
            this.guard = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A socket that tells its clock when bytes arrive.
#[derive(Debug)]
pub(crate) struct ClockedIo<S> {
    inner: S,
    clock: Arc<ConnClock>,
}

impl<S> ClockedIo<S> {
    pub(crate) fn new(inner: S, clock: Arc<ConnClock>) -> Self {
        Self { inner, clock }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ClockedIo<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            this.clock.bytes_read();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ClockedIo<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
