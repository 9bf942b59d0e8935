//! `Pool`: one worker's kept-alive HTTP/1 connections to a plain-`http`
//! upstream that no system proxy stands in front of (a model server on this
//! machine or its network), driven with hyper's `client::conn` on the
//! worker's own runtime.
//!
//! A request takes the connection returned last that is ready for one and has
//! not been idle past [`IDLE_TIMEOUT`], else connects; a connection goes back
//! once its answer has been read to the end, and closes when the answer is
//! dropped before (the client left). A request
//! that a kept-alive connection refused before sending it (the upstream had
//! closed it meanwhile) is sent once more on a new connection. The read
//! timeout runs from the request to the answer's head, then from each read to
//! the next. Every other upstream goes through reqwest (`mod.rs`), which
//! brings TLS and the `HTTP_PROXY` family.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Request, StatusCode};
use http_body::Body as _;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::time::{Instant, Sleep};

use super::UpstreamError;

/// The most idle connections one worker keeps.
const MAX_IDLE: usize = 64;

/// How long a connection may sit idle and still be used (reqwest's default):
/// past it, a connection a NAT or firewall may have dropped without a word
/// is not trusted with a request.
pub(super) const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// Each connection's read buffer: one size, so that a burst does not grow it
/// (an answer's head must fit; model servers send a few hundred bytes).
const READ_BUFFER: usize = 8 * 1024;

/// A request's body as the pool sends it.
pub(super) type PoolBody = Full<Bytes>;

/// The kept-alive connections of one worker to one `host:port`.
pub(super) struct Pool {
    /// `host:port`, as resolved and connected to.
    authority: String,
    /// The URL's authority as written, each request's `Host`.
    host: Option<HeaderValue>,
    connect_timeout: Duration,
    read_timeout: Option<Duration>,
    idle_timeout: Duration,
    /// Ready connections and since when, the one returned last at the end.
    idle: Mutex<Vec<(SendRequest<PoolBody>, Instant)>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("authority", &self.authority)
            .finish_non_exhaustive()
    }
}

/// An answer's head and its body as a byte stream.
pub(super) struct Answered {
    pub(super) status: StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: AnswerBody,
}

impl Pool {
    /// A pool to `authority` (`host:port`), whose requests name `host`.
    pub(super) fn new(
        authority: String,
        host: &str,
        connect_timeout: Duration,
        read_timeout: Option<Duration>,
        idle_timeout: Duration,
    ) -> Self {
        Self {
            authority,
            host: HeaderValue::from_str(host).ok(),
            connect_timeout,
            read_timeout,
            idle_timeout,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Sends `request` (origin-form URI; its `Host` is set here) and waits for
    /// the answer's head.
    pub(super) async fn send(
        self: &Arc<Self>,
        mut request: Request<PoolBody>,
    ) -> Result<Answered, UpstreamError> {
        if let Some(host) = &self.host {
            request
                .headers_mut()
                .insert(http::header::HOST, host.clone());
        }
        let mut clock = self.read_timeout.map(ReadClock::new);
        let (sender, response) = match self.checkout() {
            Some(mut sender) => match self.exchange(&mut sender, request, &mut clock).await {
                Ok(response) => (sender, response),
                // Refused before it was written: the connection had closed.
                Err(Refused::Unsent(request)) => {
                    self.on_new_connection(*request, &mut clock).await?
                }
                Err(Refused::Failed(e)) => return Err(e),
            },
            None => self.on_new_connection(request, &mut clock).await?,
        };
        let (head, body) = response.into_parts();
        Ok(Answered {
            status: head.status,
            headers: head.headers,
            body: AnswerBody {
                body,
                clock,
                keep: Some((sender, Arc::clone(self))),
            },
        })
    }

    /// `request` on a new connection; the connection and the answer's head.
    async fn on_new_connection(
        &self,
        request: Request<PoolBody>,
        clock: &mut Option<ReadClock>,
    ) -> Result<(SendRequest<PoolBody>, hyper::Response<Incoming>), UpstreamError> {
        let mut sender = self.connect().await?;
        // The wait for the answer starts once connected (connecting has its
        // own timeout).
        if let Some(clock) = clock {
            clock.read();
        }
        let response = self
            .exchange(&mut sender, request, clock)
            .await
            .map_err(Refused::into_error)?;
        Ok((sender, response))
    }

    /// One request on `sender`, and its answer's head within the read timeout.
    async fn exchange(
        &self,
        sender: &mut SendRequest<PoolBody>,
        request: Request<PoolBody>,
        clock: &mut Option<ReadClock>,
    ) -> Result<hyper::Response<Incoming>, Refused> {
        let sent = sender.try_send_request(request);
        let outcome = match clock {
            Some(clock) => {
                tokio::pin!(sent);
                tokio::select! {
                    biased;
                    outcome = &mut sent => outcome,
                    () = std::future::poll_fn(|cx| clock.poll_expired(cx)) => {
                        return Err(Refused::Failed(UpstreamError::Timeout("waiting for the answer")));
                    }
                }
            }
            None => sent.await,
        };
        outcome.map_err(|mut e| match e.take_message() {
            Some(request) => Refused::Unsent(Box::new(request)),
            None => Refused::Failed(UpstreamError::Http(e.into_error())),
        })
    }

    /// The idle connection returned last that is ready; closed ones, and
    /// those idle too long (at the front: they go back in time order), are
    /// dropped, which closes them.
    fn checkout(&self) -> Option<SendRequest<PoolBody>> {
        let now = Instant::now();
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        let stale = idle.partition_point(|(_, since)| now - *since >= self.idle_timeout);
        idle.drain(..stale);
        while let Some((sender, _)) = idle.pop() {
            if sender.is_ready() {
                return Some(sender);
            }
        }
        None
    }

    /// Takes back a connection whose answer was read to its end.
    fn check_in(&self, sender: SendRequest<PoolBody>) {
        if sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < MAX_IDLE {
            idle.push((sender, Instant::now()));
        }
    }

    /// A new connection, its protocol driven by a task of its own.
    async fn connect(&self) -> Result<SendRequest<PoolBody>, UpstreamError> {
        let connecting = async {
            let mut last = None;
            for addr in tokio::net::lookup_host(&self.authority).await? {
                match TcpStream::connect(addr).await {
                    Ok(stream) => return Ok(stream),
                    Err(e) => last = Some(e),
                }
            }
            Err(last.unwrap_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "the upstream's host has no address",
                )
            }))
        };
        let stream = tokio::time::timeout(self.connect_timeout, connecting)
            .await
            .map_err(|_| UpstreamError::Timeout("connecting"))?
            .map_err(UpstreamError::Connect)?;
        // Each event goes out as the proxy writes it.
        let _ = stream.set_nodelay(true);
        let (sender, connection) = http1::Builder::new()
            .read_buf_exact_size(Some(READ_BUFFER))
            .handshake(TokioIo::new(stream))
            .await
            .map_err(UpstreamError::Http)?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "an upstream connection ended");
            }
        });
        Ok(sender)
    }
}

/// Why a request got no answer on a connection.
enum Refused {
    /// The connection closed before the request was written: it may go again.
    Unsent(Box<Request<PoolBody>>),
    Failed(UpstreamError),
}

impl Refused {
    fn into_error(self) -> UpstreamError {
        match self {
            Self::Unsent(_) => UpstreamError::Closed,
            Self::Failed(e) => e,
        }
    }
}

/// An answer's body from the pool, as its data chunks; its connection goes
/// back to the pool at the end, and closes if it is dropped before.
pub(super) struct AnswerBody {
    body: Incoming,
    clock: Option<ReadClock>,
    /// The connection and its pool; `None` once the answer has ended.
    keep: Option<(SendRequest<PoolBody>, Arc<Pool>)>,
}

impl futures::Stream for AnswerBody {
    type Item = Result<Bytes, UpstreamError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.keep.is_none() {
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.body).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    if let Some(clock) = &mut this.clock {
                        clock.read();
                    }
                    // Trailers carry no data.
                    if let Ok(data) = frame.into_data()
                        && !data.is_empty()
                    {
                        return Poll::Ready(Some(Ok(data)));
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    this.end();
                    return Poll::Ready(Some(Err(UpstreamError::Http(e))));
                }
                Poll::Ready(None) => {
                    if let Some((sender, pool)) = this.keep.take() {
                        pool.check_in(sender);
                    }
                    this.end();
                    return Poll::Ready(None);
                }
                Poll::Pending => {
                    if let Some(clock) = &mut this.clock
                        && clock.poll_expired(cx).is_ready()
                    {
                        this.end();
                        return Poll::Ready(Some(Err(UpstreamError::Timeout(
                            "waiting for the next bytes of the answer",
                        ))));
                    }
                    return Poll::Pending;
                }
            }
        }
    }
}

impl AnswerBody {
    /// Nothing more comes; a connection not yet given back closes.
    fn end(&mut self) {
        self.keep = None;
        self.clock = None;
    }
}

/// The read timeout: one timer per request, moved on only when it fires, so
/// that a read costs a clock reading rather than a timer update.
struct ReadClock {
    timeout: Duration,
    last_read: Instant,
    timer: Pin<Box<Sleep>>,
}

impl ReadClock {
    fn new(timeout: Duration) -> Self {
        let now = Instant::now();
        Self {
            timeout,
            last_read: now,
            timer: Box::pin(tokio::time::sleep_until(now + timeout)),
        }
    }

    /// Something was read now (or the wait starts now).
    fn read(&mut self) {
        self.last_read = Instant::now();
    }

    /// Ready once `timeout` has passed since the last read.
    fn poll_expired(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        loop {
            ready!(self.timer.as_mut().poll(cx));
            let deadline = self.last_read + self.timeout;
            if deadline <= Instant::now() {
                return Poll::Ready(());
            }
            self.timer.as_mut().reset(deadline);
        }
    }
}
