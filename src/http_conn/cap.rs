//! The connection cap: one count of open connections for every accept loop
//! of a listener (the proxy runs one loop per worker thread), and the `503`
//! with `Retry-After: 1` a connection over it gets, in the listener's own
//! error shape.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

/// A cap on open connections. Every accept loop given a clone of it counts
/// against the same cap.
#[derive(Clone)]
pub(crate) struct ConnCap {
    /// Open connections at most.
    max: usize,
    /// A permit per open connection.
    open: Arc<Semaphore>,
    /// A permit per refusal being answered; past them a connection over the
    /// cap gets what one write without waiting sends, and is closed.
    refusals: Arc<Semaphore>,
    answer: OverCapAnswer,
}

impl fmt::Debug for ConnCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConnCap")
            .field("max", &self.max)
            .field(
                "open",
                &self.max.saturating_sub(self.open.available_permits()),
            )
            .finish_non_exhaustive()
    }
}

/// How a connection over the cap is answered: a whole HTTP/1.1 `503`
/// message, made by [`service_unavailable`].
#[derive(Clone)]
pub(crate) enum OverCapAnswer {
    /// This answer, written at once, whatever the client sends.
    Fixed(Bytes),
    /// The answer for the request's path, once its head has come; a head
    /// that does not come within the header timeout, or has no path, gets
    /// the answer for `""`.
    ByPath(Arc<dyn Fn(&str) -> Bytes + Send + Sync>),
}

/// Refusals being answered at once at most, over all accept loops.
const MAX_REFUSALS_IN_FLIGHT: usize = 64;

/// How long writing a refusal may take.
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_secs(1);

/// The most bytes of a request head read to find its target; a longer head
/// is answered as it stands.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// How long, and how many bytes, what a refused client still sends (the
/// rest of its request) is read and dropped after the answer, so that the
/// answer is not lost to a reset from closing with unread bytes.
const LINGER: Duration = Duration::from_secs(1);
const MAX_LINGER_BYTES: usize = 256 * 1024;

impl ConnCap {
    /// A cap of `max` open connections, over which connections get `answer`.
    pub(crate) fn new(max: usize, answer: OverCapAnswer) -> Self {
        Self::with_refusal_budget(max, answer, MAX_REFUSALS_IN_FLIGHT)
    }

    /// [`new`](Self::new), with at most `refusals` refusals answered at once.
    pub(super) fn with_refusal_budget(max: usize, answer: OverCapAnswer, refusals: usize) -> Self {
        Self {
            max,
            open: Arc::new(Semaphore::new(max)),
            refusals: Arc::new(Semaphore::new(refusals)),
            answer,
        }
    }

    /// The cap.
    pub(crate) fn max(&self) -> usize {
        self.max
    }

    /// Refusals being answered now, of a budget of `budget`.
    #[cfg(test)]
    pub(super) fn refusals_in_flight(&self, budget: usize) -> usize {
        budget - self.refusals.available_permits()
    }

    /// A permit for one more open connection, held as long as it is open;
    /// `None` at the cap.
    pub(crate) fn admit(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.open).try_acquire_owned().ok()
    }

    /// A refusal for a connection over the cap. `header` bounds the wait for
    /// the request's head. When too many are being answered already, the
    /// connection gets the answer for `""` at once, if its socket takes it
    /// without waiting, and is closed.
    pub(crate) fn refusal(&self, tcp: TcpStream, header: Duration) -> Option<Refusal> {
        let Ok(slot) = Arc::clone(&self.refusals).try_acquire_owned() else {
            let answer = match &self.answer {
                OverCapAnswer::Fixed(answer) => answer.clone(),
                OverCapAnswer::ByPath(answer_for) => answer_for(""),
            };
            // A new socket's empty send buffer takes a few hundred bytes.
            let _ = tcp.try_write(&answer);
            return None;
        };
        Some(Refusal {
            tcp,
            answer: self.answer.clone(),
            header,
            _slot: slot,
        })
    }
}

/// A connection over the cap, to be answered and closed.
pub(crate) struct Refusal {
    tcp: TcpStream,
    answer: OverCapAnswer,
    header: Duration,
    _slot: OwnedSemaphorePermit,
}

impl Refusal {
    /// Reads the request head when the answer depends on it, writes the
    /// answer, and closes the connection after reading what the client still
    /// sends for a moment. Once `stop` is cancelled it waits for nothing
    /// more from the client: the answer for `""` goes out at once.
    pub(crate) async fn answer(mut self, stop: CancellationToken) {
        let answer = match &self.answer {
            OverCapAnswer::Fixed(answer) => answer.clone(),
            OverCapAnswer::ByPath(answer_for) => {
                let head = tokio::select! {
                    head = tokio::time::timeout(self.header, read_head(&mut self.tcp)) => {
                        head.ok().flatten()
                    }
                    () = stop.cancelled() => None,
                };
                answer_for(&request_path(&head.unwrap_or_default()))
            }
        };
        let written = tokio::time::timeout(REFUSAL_WRITE_TIMEOUT, async {
            self.tcp.write_all(&answer).await?;
            self.tcp.shutdown().await
        })
        .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "could not answer a shed connection");
                return;
            }
            Err(_) => return,
        }
        tokio::select! {
            _ = tokio::time::timeout(LINGER, drain(&mut self.tcp)) => {}
            () = stop.cancelled() => {}
        }
    }
}

/// The whole `503` answer to a connection over the cap: `Retry-After: 1`,
/// `Connection: close`, and `body` as `content_type`.
pub(crate) fn service_unavailable(content_type: &str, body: &str) -> Bytes {
    Bytes::from(format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
}

/// The request head's bytes read so far: until its blank line, the client
/// stops sending or closes, or [`MAX_HEAD_BYTES`]. `None` when nothing came.
async fn read_head(tcp: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    loop {
        let n = match tcp.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // The blank line may straddle two reads: look from 3 bytes back.
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&buf[..n]);
        if head[from..].windows(4).any(|w| w == b"\r\n\r\n") || head.len() >= MAX_HEAD_BYTES {
            break;
        }
    }
    (!head.is_empty()).then_some(head)
}

/// The path of a head's request target, in origin or absolute form
/// (`POST /v1/messages?beta=true HTTP/1.1` gives `/v1/messages`), or `""`
/// when it has none.
fn request_path(head: &[u8]) -> String {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let target = line.split(|&b| b == b' ').nth(1).unwrap_or_default();
    http::Uri::try_from(target).map_or_else(|_| String::new(), |uri| uri.path().to_owned())
}

/// Reads and drops what the client still sends, until it closes or
/// [`MAX_LINGER_BYTES`] have come.
async fn drain(tcp: &mut TcpStream) {
    let mut buf = [0u8; 4096];
    let mut read = 0;
    while read < MAX_LINGER_BYTES {
        match tcp.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => read += n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_is_read_off_the_request_line() {
        for (head, path) in [
            (
                &b"POST /v1/messages HTTP/1.1\r\nHost: h\r\n\r\n"[..],
                "/v1/messages",
            ),
            (b"POST /v1/messages?beta=true HTTP/1.1\r\n", "/v1/messages"),
            (b"GET http://h:1/v1/models HTTP/1.1\r\n", "/v1/models"),
            (b"POST /v1/mess", "/v1/mess"),
            (b"GET", ""),
            (b"", ""),
            (b"GET \xff\xfe HTTP/1.1\r\n", ""),
        ] {
            assert_eq!(request_path(head), path, "{head:?}");
        }
    }

    #[test]
    fn the_answer_is_a_whole_503_with_retry_after() {
        let answer = service_unavailable("application/json", "{\"a\":1}");
        assert_eq!(
            &answer[..],
            b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\n\
Content-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{\"a\":1}"
        );
    }
}
