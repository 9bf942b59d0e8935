//! The accept loop: connections over the [`ConnCap`] shed with its `503`,
//! and each accepted connection served by hyper's HTTP/1 under its
//! [`ConnClock`](super::clock::ConnClock).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt as _;

use super::cap::ConnCap;
use super::clock::{ClockedIo, ConnClock, Timeouts, TrackedBody};
use super::rate_limit::RateLimitedLog;

/// Default header-read timeout of the HTTP listeners (`HttpOptions` and
/// `ProxyOptions`).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Default body-read timeout of the HTTP listeners.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(30);
/// Default idle keep-alive timeout of the HTTP listeners.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Default connection cap of the HTTP listeners: well under the common limit
/// of 1,024 file descriptors.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;

/// The limits the accept loop enforces.
#[derive(Debug, Clone)]
pub(crate) struct ConnLimits {
    /// Per-connection timeouts.
    pub(crate) timeouts: Timeouts,
    /// The cap on open connections, shared with every accept loop given a
    /// clone of these limits; `None` means no cap.
    pub(crate) cap: Option<ConnCap>,
}

/// Serves `router` on `listener` until `stop` is cancelled, then lets every
/// open connection finish its request in flight.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    stop: CancellationToken,
) {
    let tracker = TaskTracker::new();
    let mut shed_log = RateLimitedLog::new();
    let mut accept_errors = RateLimitedLog::new();
    loop {
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) if is_connection_error(&e) => continue,
            Err(e) => {
                // Out of file descriptors, most likely: wait for some to close.
                if let Some(n) = accept_errors.record() {
                    tracing::warn!(error = %e, errors = n, "cannot accept connections");
                }
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(Duration::from_millis(100)) => continue,
                }
            }
        };
        let permit = match &limits.cap {
            None => None,
            Some(cap) => match cap.admit() {
                Some(permit) => Some(permit),
                None => {
                    if let Some(n) = shed_log.record() {
                        tracing::warn!(
                            shed = n,
                            max_connections = cap.max(),
                            "connection cap reached: connections shed with 503 since the last report"
                        );
                    }
                    // A refusal waits for the head at most the header
                    // timeout, and never forever.
                    let header = limits.timeouts.header.unwrap_or(DEFAULT_HEADER_TIMEOUT);
                    if let Some(refusal) = cap.refusal(tcp, header) {
                        tracker.spawn(refusal.answer(stop.clone()));
                    }
                    continue;
                }
            },
        };
        // Without this an SSE reply written in pieces waits ~40 ms for the
        // client's delayed ACK (Nagle).
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        tracker.spawn(serve_connection(
            tcp,
            router.clone(),
            limits.timeouts,
            stop.clone(),
            permit,
        ));
    }
    drop(listener);
    tracker.close();
    tracker.wait().await;
}

/// Errors of one connection that went away before it was accepted.
fn is_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// Serves one connection until it ends, its clock expires, or the server
/// stops (then the request in flight is finished first).
pub(crate) async fn serve_connection<S>(
    tcp: S,
    router: axum::Router,
    timeouts: Timeouts,
    stop: CancellationToken,
    _permit: Option<OwnedSemaphorePermit>,
) where
    S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
{
    let clock = ConnClock::new(timeouts);
    let io = TokioIo::new(ClockedIo::new(tcp, Arc::clone(&clock)));
    let requests = Arc::clone(&clock);
    let service = hyper::service::service_fn(move |req: http::Request<Incoming>| {
        let router = router.clone();
        let (body_guard, response_guard) =
            requests.request_started(!http_body::Body::is_end_stream(req.body()));
        let req = req.map(|body| axum::body::Body::new(TrackedBody::new(body, body_guard)));
        async move {
            let response = router.oneshot(req).await?;
            Ok::<_, std::convert::Infallible>(
                response.map(|body| axum::body::Body::new(TrackedBody::new(body, response_guard))),
            )
        }
    });
    let conn = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    tokio::pin!(conn);
    let mut stopping = false;
    loop {
        tokio::select! {
            served = conn.as_mut() => {
                // A client that breaks off or sends garbage is its own problem.
                if let Err(e) = served {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            why = clock.expired() => {
                tracing::debug!(reason = %why, "closing a connection");
                return;
            }
            () = stop.cancelled(), if !stopping => {
                stopping = true;
                conn.as_mut().graceful_shutdown();
            }
        }
    }
}
