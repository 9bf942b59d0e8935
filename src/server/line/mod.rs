//! The stdio transport's fast path: newline-delimited JSON-RPC where
//! `tools/call` of an initialized session is answered without rmcp's service
//! loop, and everything else is relayed to rmcp unchanged.
//!
//! rmcp's own stdio transport hands every message to its service loop, which
//! spawns a task per request, routes the reply through two channels and spawns
//! another task to write it behind a lock. Here one reader task frames lines
//! (memchr), and for a `tools/call` in a session that did the `initialize`
//! handshake it calls the server's rmcp `Service::handle_request` itself (so
//! rmcp's protocol checks and result shaping still apply), polling it once in
//! the reader when it is the only call in flight and in a task of its own
//! otherwise (or when it has to wait), and queues the encoded reply. Every
//! other line (the handshake, lists, notifications, replies to server-to-client
//! requests, JSON of a shape rmcp answers itself, and any request that names
//! its own protocol version) goes, byte for byte, to an
//! rmcp service running on [`RelayTransport`], which parses it with rmcp's own
//! `AsyncRwTransport`. One writer task owns the output and writes whole lines in
//! the order they were queued, so a handler's progress or log notification
//! (sent through rmcp's peer, queued when rmcp hands it to the transport) always
//! precedes the reply of the call that sent it.
//!
//! Every line is answered: one that is not JSON (invalid UTF-8, a NUL byte, a
//! syntax error) gets a parse error with a null id here, where rmcp would drop
//! it silently, and a line over the 16 MiB limit gets an invalid-request error
//! with the id read from its first 4 KiB, while the rest of it is drained
//! without being buffered (`bad_input.rs`).

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::{Buf as _, BytesMut};
use rmcp::model::{
    CallToolRequest, ClientNotification, ClientRequest, GetExtensions as _, GetMeta as _,
    JsonRpcMessage, JsonRpcRequest, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RequestContext, RoleServer, Service as _};
use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, DuplexStream};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::bad_input;
use super::handler::McpServer;

/// Encoded output lines, each ending in `\n`.
mod relay;

use relay::{RelayTransport, RelayedRequests};

type LineSender = mpsc::UnboundedSender<Vec<u8>>;

/// How long in-flight calls may take to answer after the input closes (as
/// rmcp's service loop allows its handlers).
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

/// Size of the in-memory pipe that carries relayed lines to rmcp.
const RELAY_PIPE_BYTES: usize = 64 * 1024;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Serves `server` over a byte stream pair until the input closes.
pub(crate) async fn serve_lines<R, W>(
    server: McpServer,
    reader: R,
    writer: W,
) -> Result<(), super::ServeError>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    use rmcp::ServiceExt as _;

    let (out, out_rx) = mpsc::unbounded_channel();
    let writer_task = tokio::spawn(write_lines(writer, out_rx));
    let (relay_in, relay_out) = tokio::io::duplex(RELAY_PIPE_BYTES);
    let relayed = Arc::new(RelayedRequests::new());
    let front = Front {
        server: server.clone(),
        peer: Arc::new(OnceLock::new()),
        out: out.clone(),
        in_flight: Arc::new(Mutex::new(HashMap::new())),
        shutdown: CancellationToken::new(),
        calls_ct: CancellationToken::new(),
        relayed: relayed.clone(),
    };
    let peer_slot = front.peer.clone();
    let shutdown = front.shutdown.clone();
    let reader_task = tokio::spawn(front.read_loop(reader, relay_in));
    let transport = RelayTransport::new(relay_out, out, relayed);
    let result = match server.serve(transport).await {
        Ok(running) => {
            // From here on `tools/call` takes the direct path.
            let _ = peer_slot.set(running.peer().clone());
            running
                .waiting()
                .await
                .map(|_| ())
                .map_err(|e| super::ServeError::Io(io::Error::other(e.to_string())))
        }
        Err(e) => Err(super::ServeError::Handshake(e.to_string())),
    };
    // rmcp stops when the relay pipe closes, which the reader does once the
    // input has ended and the calls in flight have answered (or had 5 s to);
    // if rmcp stopped for another reason (a failed handshake), stop the reader
    // too.
    shutdown.cancel();
    let _ = reader_task.await;
    // Every sender is gone now (the reader's, the calls', rmcp's transport), so
    // the writer ends once it has written what was queued. A client that hung
    // up before reading its last replies is not an error of the server (rmcp
    // logs failed sends too).
    if let Ok(Err(e)) = writer_task.await {
        tracing::debug!(error = %e, "output closed before every reply was written");
    }
    result
}

/// Writes queued lines, batching whatever is ready into one write and flush.
async fn write_lines<W>(
    mut writer: W,
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let mut batch = Vec::new();
    while let Some(line) = lines.recv().await {
        if lines.is_empty() {
            writer.write_all(&line).await?;
        } else {
            batch.clear();
            batch.extend_from_slice(&line);
            while let Ok(more) = lines.try_recv() {
                batch.extend_from_slice(&more);
            }
            writer.write_all(&batch).await?;
        }
        writer.flush().await?;
    }
    writer.shutdown().await.or(Ok(()))
}

/// The reader side: frames lines and dispatches them.
struct Front {
    server: McpServer,
    /// Set once the `initialize` handshake is done.
    peer: Arc<OnceLock<Peer<RoleServer>>>,
    out: LineSender,
    /// Cancellation tokens of the direct-path calls still running.
    in_flight: Arc<Mutex<HashMap<RequestId, CancellationToken>>>,
    /// Cancelled when the rmcp service has stopped: stops reading.
    shutdown: CancellationToken,
    /// Parent of every direct-path call's token: cancelled once the input has
    /// closed and the calls had their time to answer.
    calls_ct: CancellationToken,
    /// The requests rmcp's loop is answering.
    relayed: Arc<RelayedRequests>,
}

impl Front {
    async fn read_loop<R>(self, mut reader: R, mut relay: DuplexStream)
    where
        R: AsyncRead + Unpin,
    {
        let mut buf = BytesMut::with_capacity(8 * 1024);
        let mut scanned = 0;
        let mut discarding = false;
        let mut calls = JoinSet::new();
        'read: loop {
            let mut next = memchr::memchr(b'\n', &buf[scanned..]).map(|pos| scanned + pos);
            while let Some(pos) = next {
                let end = pos + 1;
                if discarding {
                    buf.advance(end);
                    discarding = false;
                    next = memchr::memchr(b'\n', &buf);
                    continue;
                }
                let line = buf.split_to(end);
                next = memchr::memchr(b'\n', &buf);
                // A call with nothing else to read or run may run right here.
                let alone = next.is_none() && calls.is_empty();
                if !self.dispatch(&line, alone, &mut relay, &mut calls).await {
                    break 'read;
                }
            }
            if discarding {
                // The rest of an oversize line: dropped as it arrives, never buffered.
                buf.clear();
            }
            scanned = buf.len();
            if buf.len() > DEFAULT_MAX_LINE_LENGTH {
                // Same limit as rmcp's transport: drop the line, keep the
                // connection, and answer it (with its id when its first bytes
                // hold one) so that its client does not wait forever.
                tracing::debug!(
                    max_line_length = DEFAULT_MAX_LINE_LENGTH,
                    "incoming message exceeded the maximum line length, discarding it"
                );
                let error = bad_input::oversize_error(&buf, DEFAULT_MAX_LINE_LENGTH);
                self.answer(&error);
                buf.clear();
                scanned = 0;
                discarding = true;
            }
            while calls.try_join_next().is_some() {}
            buf.reserve(8 * 1024);
            let read = tokio::select! {
                read = reader.read_buf(&mut buf) => read,
                _ = self.shutdown.cancelled() => break,
            };
            match read {
                Ok(0) => {
                    // A last line without a newline still counts (as in rmcp).
                    if !discarding && !buf.is_empty() {
                        let mut line = buf.split();
                        line.extend_from_slice(b"\n");
                        let _ = self.dispatch(&line, false, &mut relay, &mut calls).await;
                    }
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    tracing::error!(error = %e, "error reading from stream");
                    break;
                }
            }
        }
        // The input is done: let running calls answer (bounded, as rmcp does),
        // the reader's and rmcp's, then cancel what is left. The relay stays
        // open meanwhile: once it closes, rmcp's loop only waits for its
        // handlers' replies and no longer sends their (or the reader's calls')
        // progress and log notifications, so a call that sends one after that
        // would wait for it until its time is up, and its reply would be lost.
        // Closing the relay then tells rmcp to finish.
        let _ = relay.write_all(&self.relayed.end_line()).await;
        let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
            let own = async { while calls.join_next().await.is_some() {} };
            let relayed = async {
                tokio::select! {
                    () = self.relayed.answered() => {}
                    // rmcp has stopped: nothing it runs will answer.
                    () = self.shutdown.cancelled() => {}
                }
            };
            tokio::join!(own, relayed);
        })
        .await;
        if drained.is_err() {
            tracing::warn!("timed out draining in-flight calls");
        }
        drop(relay);
        self.calls_ct.cancel();
        calls.abort_all();
    }

    /// Queues a reply the reader makes itself.
    fn answer(&self, message: &serde_json::Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        let _ = self.out.send(line);
    }

    /// Handles one line (ending in `\n`); `false` when the relay is closed.
    async fn dispatch(
        &self,
        line: &[u8],
        alone: bool,
        relay: &mut DuplexStream,
        calls: &mut JoinSet<()>,
    ) -> bool {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        let body = body.strip_prefix(UTF8_BOM).unwrap_or(body);
        let mut read = false;
        if let Some(peer) = self.peer.get() {
            // A plain call read straight into rmcp's types, else rmcp's
            // message parse with requests narrowed to `tools/call` (without
            // the thirteen request types `ClientRequest`, an untagged union,
            // tries and fails first). Other requests parse neither way and are
            // relayed to rmcp.
            let message: Option<CallOrNotification> = super::fast_call::read_message(body);
            match message {
                Some(JsonRpcMessage::Request(request)) => {
                    read = true;
                    let request = super::fast_call::client_request(request);
                    if direct_path(peer, &request) {
                        self.call(peer, request, alone, calls);
                        return true;
                    }
                }
                Some(JsonRpcMessage::Notification(notification)) => {
                    if let ClientNotification::CancelledNotification(cancelled) =
                        &notification.notification
                        && let Some(id) = &cancelled.params.request_id
                    {
                        let token = self
                            .in_flight
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .remove(id);
                        if let Some(token) = token {
                            tracing::info!(%id, reason = ?cancelled.params.reason, "cancelled");
                            token.cancel();
                        }
                    }
                    // rmcp sees every notification too (it ignores a
                    // cancellation of a request it does not know).
                    read = true;
                }
                Some(_) => read = true,
                None => {}
            }
        }
        // rmcp drops a line that is not JSON without a word; its client would
        // wait for an answer forever. Blank lines are nothing and stay rmcp's.
        if !read && !body.trim_ascii().is_empty() && !bad_input::is_json(body) {
            tracing::debug!("a line that is not JSON: answered with a parse error");
            self.answer(&bad_input::parse_error(body));
            return true;
        }
        relay.write_all(line).await.is_ok()
    }

    /// Runs one `tools/call` the way rmcp's service loop would, minus the loop.
    fn call(
        &self,
        peer: &Peer<RoleServer>,
        request: JsonRpcRequest<ClientRequest>,
        alone: bool,
        calls: &mut JoinSet<()>,
    ) {
        let JsonRpcRequest {
            id, mut request, ..
        } = request;
        let request_ct = self.calls_ct.child_token();
        self.in_flight
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), request_ct.clone());
        let mut context = RequestContext::new(id.clone(), peer.clone());
        context.ct = request_ct.child_token();
        context.meta = std::mem::take(request.get_meta_mut());
        context.extensions = std::mem::take(request.extensions_mut());
        let server = self.server.clone();
        let in_flight = self.in_flight.clone();
        let out = self.out.clone();
        let mut call = Box::pin(async move {
            let reply = match server.handle_request(request, context).await {
                Ok(result) => ServerJsonRpcMessage::response(result, id.clone()),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id.clone())),
            };
            // A cancelled request gets no reply (as in rmcp).
            let Some(token) = in_flight
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id)
            else {
                tracing::debug!(%id, "dropping response for cancelled request");
                return;
            };
            token.cancel();
            match encode(&reply) {
                Ok(line) => {
                    let _ = out.send(line);
                }
                Err(e) => tracing::error!(error = %e, %id, "could not encode a reply"),
            }
        });
        // With one call in flight, run it here first: most finish without
        // waiting, which saves a task and a wake-up. One that waits continues
        // in a task of its own (its first poll used a no-op waker; the task's
        // first poll registers the real one). With more lines or calls
        // pending, calls start in their own tasks so they run side by side.
        if alone && futures::FutureExt::now_or_never(&mut call).is_some() {
            return;
        }
        calls.spawn(call);
    }
}

/// What the reader needs to recognise in a line: a `tools/call` request or a
/// notification (responses are parsed but not looked at).
type CallOrNotification =
    JsonRpcMessage<CallToolRequest, serde::de::IgnoredAny, ClientNotification>;

/// A `tools/call` takes the direct path once the session did the `initialize`
/// handshake, unless it names a protocol version other than the session's own
/// (rmcp then scopes the handler to that version, which only its loop can do).
fn direct_path(peer: &Peer<RoleServer>, request: &JsonRpcRequest<ClientRequest>) -> bool {
    let Some(info) = peer.peer_info() else {
        return false;
    };
    match request.request.get_meta().protocol_version() {
        None => true,
        Some(version) => version == info.protocol_version,
    }
}

fn encode(message: &ServerJsonRpcMessage) -> io::Result<Vec<u8>> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    Ok(line)
}
