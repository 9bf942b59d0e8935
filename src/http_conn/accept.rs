//! The accept loop: a cap on open connections that sheds load with `503` and
//! `Retry-After: 1`, and each accepted connection served by hyper's HTTP/1
//! under its [`ConnClock`](super::clock::ConnClock).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower::ServiceExt as _;

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
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnLimits {
    /// Per-connection timeouts.
    pub(crate) timeouts: Timeouts,
    /// Open connections at most; `None` means no cap.
    pub(crate) max_connections: Option<usize>,
}

/// Refusals being written at once at most; past this a shed connection is
/// closed without an answer.
const MAX_REFUSALS_IN_FLIGHT: usize = 64;

/// How long writing a refusal may take.
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// The whole answer to a connection over the cap.
const REFUSAL: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
Content-Type: text/plain\r\nContent-Length: 27\r\nConnection: close\r\n\r\n\
too many open connections\r\n";

/// Serves `router` on `listener` until `stop` is cancelled, then lets every
/// open connection finish its request in flight.
pub(crate) async fn serve_connections(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    stop: CancellationToken,
) {
    let open = limits.max_connections.map(|n| Arc::new(Semaphore::new(n)));
    let refusals = Arc::new(Semaphore::new(MAX_REFUSALS_IN_FLIGHT));
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
        let permit = match &open {
            None => None,
            Some(open) => match Arc::clone(open).try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    if let Some(n) = shed_log.record() {
                        tracing::warn!(
                            shed = n,
                            max_connections = limits.max_connections,
                            "connection cap reached: connections shed with 503 since the last report"
                        );
                    }
                    if let Ok(slot) = Arc::clone(&refusals).try_acquire_owned() {
                        tracker.spawn(refuse(tcp, slot));
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

/// Answers a connection over the cap with 503 and closes it.
async fn refuse(mut tcp: TcpStream, _slot: OwnedSemaphorePermit) {
    let written = tokio::time::timeout(REFUSAL_WRITE_TIMEOUT, async {
        tcp.write_all(REFUSAL).await?;
        tcp.shutdown().await
    })
    .await;
    if let Ok(Err(e)) = written {
        tracing::debug!(error = %e, "could not answer a shed connection");
    }
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
