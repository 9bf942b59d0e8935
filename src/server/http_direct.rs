//! The Streamable HTTP transport's direct path: in stateless mode a `tools/call`
//! POST is answered here, without rmcp's per-request service loop; every other
//! request goes to rmcp's `StreamableHttpService` unchanged.
//!
//! For each stateless request rmcp builds a service loop (`serve_directly`)
//! with its own peer and channels, spawns it and a task for the handler, and
//! routes the reply back through a channel. Here the request's checks run in
//! place, the server's rmcp `Service::handle_request` (rmcp's protocol checks
//! and result shaping, then `McpServer::call_tool` and the hub's executor, the
//! same path as every other call) is polled in the connection's own task, and
//! the reply is written as one body.
//!
//! Only a request that is surely a plain stateless `tools/call` takes this
//! path; for anything else, or anything doubtful, the request is rebuilt from
//! the same bytes and handed to rmcp, which then applies its own checks and
//! writes its own answers (errors included). The direct path is taken when:
//! - the method is `POST`, the `Host` header names an allowed host, and there
//!   is no `Origin` header (browser requests go to rmcp, whose origin check
//!   then applies);
//! - `Accept` lists `application/json` and `text/event-stream` as plain
//!   entries (no quotes, no parameters such as `q`: rmcp's media-range rules
//!   decide those), and `Content-Type` is `application/json`;
//! - `Content-Length` is given and within rmcp's body limit;
//! - `MCP-Protocol-Version` is absent or names a revision with the
//!   `initialize` handshake (2024-11-05 to 2025-11-25), and the body's `_meta`
//!   names no protocol version: the 2026-07-28 wire (per-request metadata,
//!   standard `Mcp-*` headers, HTTP status mapping) is rmcp's;
//! - the body is one JSON-RPC request (no batch) whose method is
//!   `tools/call`, and its `_meta` declares neither sampling nor elicitation:
//!   a stateless request cannot carry the client's answer to a server-to-client
//!   request, and rmcp's handling of that case is kept as it is.
//!
//! What the handler sees matches rmcp's stateless path: a peer whose client
//! info names the header's protocol version (2025-03-26 when absent) with no
//! declared capabilities, the request's `_meta`, and the HTTP request parts in
//! its extensions. Progress and log notifications the handler sends go to the
//! request's own response (see [`NotificationSink`]). The reply has rmcp's
//! shape: `application/json` when JSON responses are on and the result is the
//! first message, otherwise `text/event-stream` with one `data:` event per
//! message (no event ids: rmcp's stateless streams carry none without an event
//! store), keep-alive comments while a call runs, status 200 either way. When
//! the call finishes before anything is written (the common case) the events
//! go out as one body with a `Content-Length`; otherwise the stream stays open
//! and each notification is written as it comes.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::header::{ACCEPT, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_TYPE, HOST, ORIGIN};
use http::{HeaderMap, HeaderName, Method, Request, StatusCode};
use rmcp::model::{
    CallToolRequest, ClientCapabilities, ClientJsonRpcMessage, ClientRequest, GetExtensions as _,
    GetMeta as _, Implementation, InitializeRequestParams, JsonRpcMessage, JsonRpcRequest,
    ProtocolVersion, ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RequestContext, RoleServer, RunningService, Service as _};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::handler::McpServer;
use super::peer::NotificationSink;

const JSON_MIME_TYPE: &str = "application/json";
const EVENT_STREAM_MIME_TYPE: &str = "text/event-stream";
const HEADER_MCP_PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// The SSE comment rmcp (sse-stream) writes to keep an idle stream open.
const KEEP_ALIVE_EVENT: &[u8] = b":\n\n";
/// Body chunks buffered between a running call and its open response stream.
const STREAM_CHANNEL_CAPACITY: usize = 16;

/// A call's reply, being computed.
type CallFuture = Pin<Box<dyn Future<Output = ServerJsonRpcMessage> + Send>>;

/// A `Host` authority the server accepts, normalized as rmcp does.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

impl Authority {
    fn new(host: &str, port: Option<u16>) -> Self {
        Self {
            host: bare_host(host).to_ascii_lowercase(),
            port,
        }
    }

    /// An entry of the allowed-hosts list (`name` or `name:port`).
    fn allowed(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        if entry.is_empty() {
            return None;
        }
        Some(match http::uri::Authority::try_from(entry) {
            Ok(authority) => Self::new(authority.host(), authority.port_u16()),
            Err(_) => Self::new(entry, None),
        })
    }

    /// Whether a request's `Host` (its host part as written, and its port)
    /// is this entry: hosts compare without case, as rmcp's lowercased
    /// copies do, but without making one per request.
    fn admits(&self, host: &str, port: Option<u16>) -> bool {
        self.host.eq_ignore_ascii_case(bare_host(host)) && self.port.is_none_or(|p| port == Some(p))
    }
}

/// A host without the brackets of an IPv6 literal, as rmcp compares hosts.
fn bare_host(host: &str) -> &str {
    host.trim_matches('[').trim_matches(']')
}

/// What the direct path needs: the server, one rmcp peer per protocol
/// revision it serves directly, and the parts of rmcp's configuration that
/// decide what a request may do.
pub(crate) struct DirectCalls {
    server: McpServer,
    /// `(version, peer)` for each revision with the `initialize` handshake.
    peers: Vec<(ProtocolVersion, Peer<RoleServer>)>,
    /// The services behind `peers`: they idle until shutdown (dropping one
    /// would stop it).
    _services: Vec<RunningService<RoleServer, McpServer>>,
    /// `None` admits any host (rmcp's empty allow-list).
    hosts: Option<Vec<Authority>>,
    json_response: bool,
    max_body_bytes: usize,
    keep_alive: Option<Duration>,
    shutdown: CancellationToken,
}

impl DirectCalls {
    /// Reads what it needs from the same `config` rmcp's service gets.
    pub(crate) fn new(server: McpServer, config: &StreamableHttpServerConfig) -> Self {
        let shutdown = config.cancellation_token.clone();
        let mut peers = Vec::new();
        let mut services = Vec::new();
        for version in ProtocolVersion::KNOWN_VERSIONS {
            if *version >= ProtocolVersion::V_2026_07_28 {
                continue;
            }
            // What rmcp's stateless path gives a handler: the header's version,
            // no capabilities, a default client implementation.
            let info = InitializeRequestParams::new(
                ClientCapabilities::default(),
                Implementation::default(),
            )
            .with_protocol_version(version.clone());
            let running = rmcp::service::serve_directly_with_ct(
                server.clone(),
                IdleTransport(shutdown.child_token()),
                Some(info),
                shutdown.child_token(),
            );
            peers.push((version.clone(), running.peer().clone()));
            services.push(running);
        }
        let hosts = (!config.allowed_hosts.is_empty()).then(|| {
            config
                .allowed_hosts
                .iter()
                .filter_map(|entry| Authority::allowed(entry))
                .collect()
        });
        Self {
            server,
            peers,
            _services: services,
            hosts,
            json_response: config.json_response,
            max_body_bytes: config.max_request_body_bytes,
            keep_alive: config.sse_keep_alive,
            shutdown,
        }
    }

    /// The peer for a request's `MCP-Protocol-Version` header, if the request
    /// may take the direct path; checks everything that needs no body.
    fn admit(&self, request: &Request<Body>) -> Option<Peer<RoleServer>> {
        if request.method() != Method::POST {
            return None;
        }
        let headers = request.headers();
        if headers.contains_key(ORIGIN) || !self.host_allowed(headers) {
            return None;
        }
        if !accepts_json_and_sse(headers) || !content_type_is_json(headers) {
            return None;
        }
        let length = headers
            .get(CONTENT_LENGTH)?
            .to_str()
            .ok()?
            .parse::<usize>()
            .ok()?;
        if length > self.max_body_bytes {
            return None;
        }
        let version = match headers.get(HEADER_MCP_PROTOCOL_VERSION) {
            None => ProtocolVersion::V_2025_03_26.as_str(),
            Some(value) => value.to_str().ok()?,
        };
        self.peers
            .iter()
            .find(|(known, _)| known.as_str() == version)
            .map(|(_, peer)| peer.clone())
    }

    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        let Some(allowed) = &self.hosts else {
            return true;
        };
        let Some(host) = headers.get(HOST).and_then(|value| value.to_str().ok()) else {
            return false;
        };
        let Ok(authority) = http::uri::Authority::try_from(host) else {
            return false;
        };
        let (host, port) = (authority.host(), authority.port_u16());
        allowed.iter().any(|entry| entry.admits(host, port))
    }

    /// Answers one admitted `tools/call`.
    async fn answer(
        &self,
        peer: Peer<RoleServer>,
        request: JsonRpcRequest<ClientRequest>,
        parts: http::request::Parts,
    ) -> Response {
        let JsonRpcRequest {
            id, mut request, ..
        } = request;
        // As in rmcp's stateless path: the request's own token, cancelled when
        // the client goes away before the reply.
        let request_ct = CancellationToken::new();
        let (notifications, mut pending) = mpsc::unbounded_channel();
        let mut context = RequestContext::new(id.clone(), peer);
        context.ct = request_ct.child_token();
        context.meta = std::mem::take(request.get_meta_mut());
        context.extensions = std::mem::take(request.extensions_mut());
        context.extensions.insert(parts);
        context
            .extensions
            .insert(NotificationSink::new(notifications));
        let server = self.server.clone();
        let mut call: CallFuture = Box::pin(async move {
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
fn internal_error(context: &str, error: impl std::fmt::Display) -> Response {
    tracing::error!("Internal server error when {context}: {error}");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        format!("Encounter an error when {context}: {error}"),
    )
        .into_response()
}

/// `Accept` lists both media types rmcp requires, as plain entries. Anything
/// this does not read for sure (quoted strings, parameters, weights) is left
/// to rmcp.
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let mut json = false;
    let mut sse = false;
    for value in headers.get_all(ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains(['"', ';']) {
            return false;
        }
        for entry in value.split(',') {
            let entry = entry.trim();
            json |= entry.eq_ignore_ascii_case(JSON_MIME_TYPE);
            sse |= entry.eq_ignore_ascii_case(EVENT_STREAM_MIME_TYPE);
        }
    }
    json && sse
}

/// rmcp's rule: the media type before any parameter is `application/json`.
fn content_type_is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case(JSON_MIME_TYPE)
        })
}

/// The body as a `tools/call` the direct path answers, or `None` for rmcp.
fn parse_call(body: &[u8]) -> Option<JsonRpcRequest<ClientRequest>> {
    // Most requests that are not calls never reach the JSON parser.
    memchr::memmem::find(body, b"\"tools/call\"")?;
    // The plain shape of a call is read straight into rmcp's types
    // (`fast_call`). Anything else gets rmcp's message parse with the request
    // type narrowed to `tools/call`: the same shape check and the same request
    // and `_meta` handling, without the thirteen request types that
    // `ClientRequest` (an untagged union) tries and fails before it reaches
    // `CallToolRequest` (measured: the server's CPU per call fell 12-18 %). A
    // body that parses neither way (another method, bad params) goes to rmcp
    // as it is.
    let message: JsonRpcMessage<CallToolRequest> = super::fast_call::read_message(body)?;
    let JsonRpcMessage::Request(request) = message else {
        return None;
    };
    let request = super::client_request(request);
    let meta = request.request.get_meta();
    if meta.protocol_version().is_some() {
        return None;
    }
    if meta
        .client_capabilities()
        .is_some_and(|caps| caps.sampling.is_some() || caps.elicitation.is_some())
    {
        return None;
    }
    Some(request)
}

/// The `/mcp` service in stateless mode: the direct path in front of rmcp's.
///
/// axum clones a route's service for every request; rmcp's (which carries its
/// whole configuration) is cloned only for the requests it answers.
pub(crate) struct DirectHttp<S> {
    inner: Arc<S>,
    direct: Arc<DirectCalls>,
}

impl<S> Clone for DirectHttp<S> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            direct: self.direct.clone(),
        }
    }
}

impl<S> DirectHttp<S> {
    pub(crate) fn new(inner: S, direct: DirectCalls) -> Self {
        Self {
            inner: Arc::new(inner),
            direct: Arc::new(direct),
        }
    }
}

impl<S> tower::Service<Request<Body>> for DirectHttp<S>
where
    S: tower::Service<Request<Body>, Error = Infallible> + Clone + Send + Sync + 'static,
    S::Response: IntoResponse,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // rmcp's service is always ready; it is polled again before a fallback.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let inner = self.inner.clone();
        let direct = self.direct.clone();
        Box::pin(async move {
            let Some(peer) = direct.admit(&request) else {
                return fallback(inner.as_ref(), request).await;
            };
            let (parts, body) = request.into_parts();
            let bytes = match axum::body::to_bytes(body, direct.max_body_bytes).await {
                Ok(bytes) => bytes,
                // rmcp's answer when the body cannot be read.
                Err(e) => {
                    return Ok((
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("Failed to read request body: {e}"),
                    )
                        .into_response());
                }
            };
            match parse_call(&bytes) {
                Some(call) => Ok(direct.answer(peer, call, parts).await),
                None => {
                    fallback(
                        inner.as_ref(),
                        Request::from_parts(parts, Body::from(bytes)),
                    )
                    .await
                }
            }
        })
    }
}

async fn fallback<S>(inner: &S, request: Request<Body>) -> Result<Response, Infallible>
where
    S: tower::Service<Request<Body>, Error = Infallible> + Clone,
    S::Response: IntoResponse,
{
    let mut inner = inner.clone();
    let response = tower::ServiceExt::ready(&mut inner)
        .await?
        .call(request)
        .await?;
    Ok(response.into_response())
}

/// The transport of the idle services whose peers the direct path lends its
/// calls: nothing arrives until shutdown, and nothing should be sent (a
/// direct call's notifications go to its own response).
struct IdleTransport(CancellationToken);

impl Transport<RoleServer> for IdleTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        tracing::debug!(?item, "dropping a message sent outside any request");
        std::future::ready(Ok(()))
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        let stop = self.0.clone();
        async move {
            stop.cancelled().await;
            None
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        std::future::ready(Ok(()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, http::HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn accept_needs_both_plain_media_types() {
        assert!(accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json, text/event-stream"
        )])));
        assert!(accepts_json_and_sse(&headers(&[
            ("accept", "text/event-stream"),
            ("accept", "Application/JSON"),
        ])));
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json"
        )])));
        assert!(!accepts_json_and_sse(&headers(&[])));
        // Weights and parameters are rmcp's to judge.
        assert!(!accepts_json_and_sse(&headers(&[(
            "accept",
            "application/json, text/event-stream;q=0"
        )])));
    }

    #[test]
    fn content_type_essence_is_json() {
        assert!(content_type_is_json(&headers(&[(
            "content-type",
            "application/json; charset=utf-8"
        )])));
        assert!(!content_type_is_json(&headers(&[(
            "content-type",
            "text/plain"
        )])));
        assert!(!content_type_is_json(&headers(&[])));
    }

    #[test]
    fn hosts_match_as_rmcp_normalizes_them() {
        let allowed: Vec<Authority> = ["localhost", "::1", "example.com:8080"]
            .iter()
            .filter_map(|entry| Authority::allowed(entry))
            .collect();
        let admitted = |host: &str| {
            let authority = http::uri::Authority::try_from(host).unwrap();
            let (host, port) = (authority.host(), authority.port_u16());
            allowed.iter().any(|entry| entry.admits(host, port))
        };
        assert!(admitted("localhost:3000"));
        assert!(admitted("LOCALHOST"));
        assert!(admitted("[::1]:9"));
        assert!(admitted("example.com:8080"));
        assert!(!admitted("example.com:8081"));
        assert!(!admitted("evil.example"));
        assert!(!admitted("localhost.evil.example"));
        assert!(!admitted("Example.COM"));
        assert!(admitted("Example.COM:8080"));
    }

    #[test]
    fn only_a_plain_tools_call_is_taken() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}"#;
        assert!(parse_call(call).is_some());
        let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        assert!(parse_call(list).is_none());
        let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}]"#;
        assert!(parse_call(batch).is_none());
        let versioned = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert!(parse_call(versioned).is_none());
        let sampling = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}"#;
        assert!(parse_call(sampling).is_none());
        let notification = br#"{"jsonrpc":"2.0","method":"tools/call"}"#;
        assert!(parse_call(notification).is_none());
        assert!(parse_call(b"not json \"tools/call\"").is_none());
    }
}
