//! The `/mcp` service in stateless mode (`DirectHttp`): an admitted `tools/call`
//! is answered by `DirectCalls`, anything else is handed to rmcp's service.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::{Request, StatusCode};
use rmcp::model::{
    ClientCapabilities, ClientJsonRpcMessage, Implementation, InitializeRequestParams,
    ProtocolVersion, ServerJsonRpcMessage,
};
use rmcp::service::{RoleServer, RunningService};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use tokio_util::sync::CancellationToken;

use super::admission::{Admission, parse_call};
use super::reply::Responder;
use crate::server::handler::McpServer;

/// What the direct path needs: which requests it takes, how it answers them,
/// and the idle rmcp services whose peers it lends its calls.
pub(crate) struct DirectCalls {
    admission: Admission,
    responder: Responder,
    /// The services behind the admission's peers: they idle until shutdown
    /// (dropping one would stop it).
    _services: Vec<RunningService<RoleServer, McpServer>>,
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
        Self {
            admission: Admission::new(config, peers),
            responder: Responder::new(server, config),
            _services: services,
        }
    }
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
            let Some(peer) = direct.admission.admit(&request) else {
                return fallback(inner.as_ref(), request).await;
            };
            let (parts, body) = request.into_parts();
            let bytes = match axum::body::to_bytes(body, direct.admission.max_body_bytes).await {
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
                Some(call) => Ok(direct.responder.answer(peer, call, parts).await),
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
