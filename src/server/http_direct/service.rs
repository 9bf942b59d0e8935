//! The `/mcp` service with the direct path in front (`DirectHttp`): an
//! admitted `tools/call` is answered by `DirectCalls`, anything else is handed
//! to rmcp's service. In stateless mode a call runs on one shared server with
//! a peer per protocol revision; in sessions mode on its session's own server
//! and peer (`SessionTable`).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http::{Method, Request, StatusCode};
use rmcp::model::{
    ClientCapabilities, ClientJsonRpcMessage, Implementation, InitializeRequestParams,
    ServerJsonRpcMessage,
};
use rmcp::service::{Peer, RoleServer, RunningService};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio_util::sync::CancellationToken;

use super::admission::{Admission, handshake_versions, parse_call};
use super::reply::{Call, Responder};
use super::sessions::{SessionTable, cancelled_request};
use crate::server::handler::McpServer;

/// The header naming a request's session.
const SESSION_ID: &str = "mcp-session-id";

/// What the direct path needs: which requests it takes, how it answers them,
/// and what it runs them on.
pub(crate) struct DirectCalls {
    admission: Admission,
    responder: Responder,
    mode: Mode,
}

enum Mode {
    Stateless {
        server: McpServer,
        /// One peer per entry of `handshake_versions`.
        peers: Vec<Peer<RoleServer>>,
        /// The services behind the peers: they idle until shutdown (dropping
        /// one would stop it).
        _services: Vec<RunningService<RoleServer, McpServer>>,
    },
    Sessions(Arc<SessionTable>),
}

impl DirectCalls {
    /// The stateless direct path: calls run on `server`, configured as
    /// `config` configures rmcp's service.
    pub(crate) fn stateless(server: McpServer, config: &StreamableHttpServerConfig) -> Self {
        let shutdown = config.cancellation_token.clone();
        let mut peers = Vec::new();
        let mut services = Vec::new();
        for version in handshake_versions() {
            // What rmcp's stateless path gives a handler: the header's version,
            // no capabilities, a default client implementation.
            let info = InitializeRequestParams::new(
                ClientCapabilities::default(),
                Implementation::default(),
            )
            .with_protocol_version(version);
            let running = rmcp::service::serve_directly_with_ct(
                server.clone(),
                IdleTransport(shutdown.child_token()),
                Some(info),
                shutdown.child_token(),
            );
            peers.push(running.peer().clone());
            services.push(running);
        }
        Self {
            admission: Admission::new(config),
            responder: Responder::new(config),
            mode: Mode::Stateless {
                server,
                peers,
                _services: services,
            },
        }
    }

    /// The sessions-mode direct path: calls of the sessions in `table`.
    pub(crate) fn sessions(table: Arc<SessionTable>, config: &StreamableHttpServerConfig) -> Self {
        Self {
            admission: Admission::new(config),
            responder: Responder::new(config),
            mode: Mode::Sessions(table),
        }
    }

    async fn stateless_request<S>(
        &self,
        inner: &S,
        server: &McpServer,
        peers: &[Peer<RoleServer>],
        request: Request<Body>,
    ) -> Result<Response, Infallible>
    where
        S: tower::Service<Request<Body>, Error = Infallible> + Clone,
        S::Response: IntoResponse,
    {
        let Some(peer) = self.admission.admit(&request).and_then(|v| peers.get(v)) else {
            return fallback(inner, request).await;
        };
        let (parts, bytes) = match self.read(request).await {
            Ok(read) => read,
            Err(response) => return Ok(response),
        };
        match parse_call(&bytes) {
            Some(call) => {
                let call_state = Call {
                    ct: CancellationToken::new(),
                    guard: (),
                };
                Ok(self
                    .responder
                    .answer(server.clone(), peer.clone(), call, parts, call_state)
                    .await)
            }
            None => fallback(inner, Request::from_parts(parts, Body::from(bytes))).await,
        }
    }

    async fn session_request<S>(
        &self,
        inner: &S,
        table: &SessionTable,
        request: Request<Body>,
    ) -> Result<Response, Infallible>
    where
        S: tower::Service<Request<Body>, Error = Infallible> + Clone,
        S::Response: IntoResponse,
    {
        let Some(id) = request
            .headers()
            .get(SESSION_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
        else {
            // An `initialize`, most likely: note the session rmcp opens.
            let response = fallback(inner, request).await?;
            if let Some(id) = response
                .headers()
                .get(SESSION_ID)
                .and_then(|v| v.to_str().ok())
            {
                table.opened(id);
            }
            return Ok(response);
        };
        // rmcp answers for sessions it does not know.
        let Some(session) = table.request(&id) else {
            return fallback(inner, request).await;
        };
        if request.method() == Method::DELETE {
            let response = fallback(inner, request).await?;
            if response.status().is_success() {
                table.closed(&id);
            }
            return Ok(response);
        }
        if self.admission.admit(&request).is_none() {
            return fallback(inner, request).await;
        }
        let (parts, bytes) = match self.read(request).await {
            Ok(read) => read,
            Err(response) => return Ok(response),
        };
        if let Some(call) = parse_call(&bytes)
            && let Some((server, peer)) = session.direct()
        {
            let ct = CancellationToken::new();
            let guard = session.start_call(call.id.clone(), ct.clone());
            let call_state = Call { ct, guard };
            return Ok(self
                .responder
                .answer(server, peer, call, parts, call_state)
                .await);
        }
        if let Some(cancelled) = cancelled_request(&bytes) {
            session.cancel(&cancelled);
        }
        fallback(inner, Request::from_parts(parts, Body::from(bytes))).await
    }

    /// The request's head and whole body, or rmcp's answer when the body
    /// cannot be read.
    async fn read(
        &self,
        request: Request<Body>,
    ) -> Result<(http::request::Parts, Bytes), Response> {
        let (parts, body) = request.into_parts();
        match axum::body::to_bytes(body, self.admission.max_body_bytes).await {
            Ok(bytes) => Ok((parts, bytes)),
            Err(e) => Err((
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("Failed to read request body: {e}"),
            )
                .into_response()),
        }
    }
}

/// The `/mcp` service: the direct path in front of rmcp's.
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
            match &direct.mode {
                Mode::Stateless { server, peers, .. } => {
                    direct
                        .stateless_request(inner.as_ref(), server, peers, request)
                        .await
                }
                Mode::Sessions(table) => {
                    direct.session_request(inner.as_ref(), table, request).await
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
