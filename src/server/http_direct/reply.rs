//! The reply of an admitted call (`Responder`): the call runs in the
//! connection's task, and its result (with any notifications it sent) goes out
//! in rmcp's shape, as one JSON body or as SSE events, streamed once the call
//! outlives its first notification or the keep-alive interval.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::HeaderName;
use http::StatusCode;
use http::header::{CACHE_CONTROL, CONTENT_TYPE};
use rmcp::model::{
    ClientRequest, GetExtensions as _, GetMeta as _, JsonRpcRequest, ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RequestContext, RoleServer, Service as _};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::admission::{EVENT_STREAM_MIME_TYPE, JSON_MIME_TYPE};
use crate::server::handler::McpServer;
use crate::server::peer::NotificationSink;

/// The SSE comment rmcp (sse-stream) writes to keep an idle stream open.
const KEEP_ALIVE_EVENT: &[u8] = b":\n\n";
/// Body chunks buffered between a running call and its open response stream.
const STREAM_CHANNEL_CAPACITY: usize = 16;

/// What an admitted call carries besides its request: its cancellation token,
/// and a guard dropped when it ends.
pub(super) struct Call<G> {
    pub(super) ct: CancellationToken,
    pub(super) guard: G,
}

/// A call's reply, being computed.
type CallFuture = Pin<Box<dyn Future<Output = ServerJsonRpcMessage> + Send>>;

/// Runs admitted calls and writes their replies as rmcp's configuration says.
pub(super) struct Responder {
    json_response: bool,
    keep_alive: Option<Duration>,
    shutdown: CancellationToken,
}

impl Responder {
    /// Answers calls with the reply settings of the same `config` rmcp's
    /// service gets.
    pub(super) fn new(config: &StreamableHttpServerConfig) -> Self {
        Self {
            json_response: config.json_response,
            keep_alive: config.sse_keep_alive,
            shutdown: config.cancellation_token.clone(),
        }
    }

    /// Answers one admitted `tools/call` on `server` with `peer`. `call.ct`
    /// is the request's own token (cancelled, as in rmcp, when the client
    /// goes away before the reply); `call.guard` is held until the call ends.
    pub(super) async fn answer<G: Send + 'static>(
        &self,
        server: McpServer,
        peer: Peer<RoleServer>,
        request: JsonRpcRequest<ClientRequest>,
        parts: http::request::Parts,
        call: Call<G>,
    ) -> Response {
        let JsonRpcRequest {
            id, mut request, ..
        } = request;
        let Call {
            ct: request_ct,
            guard,
        } = call;
        let (notifications, mut pending) = mpsc::unbounded_channel();
        let mut context = RequestContext::new(id.clone(), peer);
        context.ct = request_ct.child_token();
        context.meta = std::mem::take(request.get_meta_mut());
        context.extensions = std::mem::take(request.extensions_mut());
        context.extensions.insert(parts);
        context
            .extensions
            .insert(NotificationSink::new(notifications));
        let mut call: CallFuture = Box::pin(async move {
            let _guard = guard;
            match server.handle_request(request, context).await {
                Ok(result) => ServerJsonRpcMessage::response(result, id),
                Err(error) => ServerJsonRpcMessage::error(error, Some(id)),
            }
        });

        let disconnect = request_ct.clone().drop_guard();
        // rmcp opens an SSE reply at once and keeps it alive while the call
        // runs; a reply held back this long is opened the same way.
        let keep_alive = async {
            match self.keep_alive {
                Some(interval) if !self.json_response => tokio::time::sleep(interval).await,
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            reply = &mut call => {
                disconnect.disarm();
                let mut events = Vec::new();
                while let Ok(notification) = pending.try_recv() {
                    push_event(&mut events, &notification);
                }
                if events.is_empty() && self.json_response {
                    return json_response(&reply);
                }
                push_event(&mut events, &reply);
                sse_response(Body::from(events))
            }
            Some(first) = pending.recv() => {
                disconnect.disarm();
                let mut events = Vec::new();
                push_event(&mut events, &first);
                self.stream(events, call, pending, request_ct)
            }
            () = keep_alive => {
                disconnect.disarm();
                self.stream(KEEP_ALIVE_EVENT.to_vec(), call, pending, request_ct)
            }
            () = self.shutdown.cancelled() => {
                // rmcp's answer when the server stops before the first message.
                internal_error(
                    "empty response",
                    "no response message received from handler",
                )
            }
        }
    }

    /// Opens an SSE reply starting with `first` and writes what the call sends
    /// until its result.
    fn stream(
        &self,
        first: Vec<u8>,
        call: CallFuture,
        pending: mpsc::UnboundedReceiver<Box<ServerJsonRpcMessage>>,
        request_ct: CancellationToken,
    ) -> Response {
        let (body, chunks) = mpsc::channel(STREAM_CHANNEL_CAPACITY);
        tokio::spawn(drive(
            call,
            pending,
            body,
            request_ct,
            self.shutdown.clone(),
        ));
        let keep_alive = self.keep_alive;
        let stream = futures::stream::unfold(
            (Some(Bytes::from(first)), chunks),
            move |(first, mut chunks)| async move {
                if let Some(first) = first {
                    return Some((Ok::<_, Infallible>(first), (None, chunks)));
                }
                let next = match keep_alive {
                    None => chunks.recv().await,
                    Some(interval) => tokio::select! {
                        chunk = chunks.recv() => chunk,
                        () = tokio::time::sleep(interval) => Some(Bytes::from_static(KEEP_ALIVE_EVENT)),
                    },
                };
                next.map(|chunk| (Ok(chunk), (None, chunks)))
            },
        );
        sse_response(Body::from_stream(stream))
    }
}

/// Runs a call whose reply stream is open: writes each notification as it
/// comes, then the result, and ends the stream. A client that goes away (or a
/// server that stops) cancels the call.
async fn drive(
    mut call: CallFuture,
    mut pending: mpsc::UnboundedReceiver<Box<ServerJsonRpcMessage>>,
    body: mpsc::Sender<Bytes>,
    request_ct: CancellationToken,
    shutdown: CancellationToken,
) {
    loop {
        tokio::select! {
            biased;
            reply = &mut call => {
                let mut events = Vec::new();
                while let Ok(notification) = pending.try_recv() {
                    push_event(&mut events, &notification);
                }
                push_event(&mut events, &reply);
                if body.send(Bytes::from(events)).await.is_err() {
                    tracing::debug!("the client went away before the reply was written");
                }
                return;
            }
            Some(notification) = pending.recv() => {
                let mut event = Vec::new();
                push_event(&mut event, &notification);
                if body.send(Bytes::from(event)).await.is_err() {
                    request_ct.cancel();
                    return;
                }
            }
            () = body.closed() => {
                request_ct.cancel();
                return;
            }
            () = shutdown.cancelled() => {
                request_ct.cancel();
                return;
            }
        }
    }
}

/// Appends `message` as one SSE event, as rmcp writes it (`data: JSON`, blank line).
fn push_event(out: &mut Vec<u8>, message: &ServerJsonRpcMessage) {
    let start = out.len();
    out.extend_from_slice(b"data: ");
    if let Err(e) = serde_json::to_writer(&mut *out, message) {
        tracing::error!(error = %e, "could not encode a message for the SSE stream");
        out.truncate(start);
        return;
    }
    out.extend_from_slice(b"\n\n");
}

fn json_response(message: &ServerJsonRpcMessage) -> Response {
    match serde_json::to_vec(message) {
        Ok(body) => (StatusCode::OK, [(CONTENT_TYPE, JSON_MIME_TYPE)], body).into_response(),
        Err(e) => internal_error("serialize json response", e),
    }
}

/// The headers rmcp puts on every SSE reply.
fn sse_response(body: Body) -> Response {
    (
        StatusCode::OK,
        [
            (CONTENT_TYPE, EVENT_STREAM_MIME_TYPE),
            (CACHE_CONTROL, "no-cache"),
            (HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        body,
    )
        .into_response()
}

/// rmcp's `500` answer, same text.
pub(super) fn internal_error(context: &str, error: impl std::fmt::Display) -> Response {
    tracing::error!("Internal server error when {context}: {error}");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("Encounter an error when {context}: {error}"),
    )
        .into_response()
}
