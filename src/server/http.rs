//! Streamable HTTP transport: rmcp's `StreamableHttpService` on axum, endpoint
//! `/mcp`, loopback by default, DNS-rebinding protection (`Host` and `Origin`
//! checks), an optional bearer token, and `TCP_NODELAY` on every accepted socket.
//! Connections are accepted by [`http_conn`](crate::http_conn), under a
//! connection cap and header, body and idle timeouts.
//! In stateless mode a plain `tools/call` takes the direct path of
//! [`http_direct`](super::http_direct) in front of rmcp's service. A body rmcp
//! cannot read gets a JSON-RPC error (HTTP 400), not rmcp's plain-text 415.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::bad_input;
use super::error::ServeError;
use super::handler::{McpServer, SessionHook, Shared};
use super::http_direct::{DirectCalls, DirectHttp, SessionTable};
use super::http_sessions::{
    SessionCap, prefix_session_ids, refuse_sessions_over_cap, session_prefix_is_valid,
};
use super::options::ServerOptions;
use crate::http_conn::{
    BearerToken, ConnCap, ConnLimits, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS, OverCapAnswer, RateLimitedLog, Timeouts,
    is_blank, serve_connections, service_unavailable,
};
use crate::hub::Hub;

/// The MCP endpoint path.
pub const MCP_PATH: &str = "/mcp";
/// The health-check path: `GET` answers `200 ok` once the server accepts
/// connections, with no token, `Host` check or MCP work (for load balancers
/// and supervisors).
pub const HEALTH_PATH: &str = "/healthz";

/// How to serve Streamable HTTP.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    /// The address to bind (port 0 picks a free port).
    pub bind: SocketAddr,
    /// Required `Authorization: Bearer` token, if any (the scheme in any
    /// case). An empty or blank token is refused by [`serve_http`].
    pub bearer_token: Option<String>,
    /// Allows binding a non-loopback address.
    pub allow_remote: bool,
    /// Extra `Host` names accepted besides the loopback names and the bound
    /// address (needed behind a proxy or for a remote bind).
    pub extra_hosts: Vec<String>,
    /// Extra browser origins accepted besides loopback ones
    /// (`https://app.example.com:443`).
    pub extra_origins: Vec<String>,
    /// Answers plain request/response calls with `application/json` instead
    /// of an SSE stream (stateless mode only; sessions always use SSE).
    pub json_response: bool,
    /// Keeps a session per client (`Mcp-Session-Id`); off means every request
    /// stands alone.
    pub sessions: bool,
    /// Time a client has to send a request's head, from its first byte (or,
    /// on a new connection, from the accept); the connection is closed when
    /// it runs out. `None` waits forever. Default 10 s.
    pub header_timeout: Option<Duration>,
    /// Time a client has to send a request's body, from the end of its head;
    /// the connection is closed when it runs out. `None` waits forever.
    /// Default 30 s.
    pub body_timeout: Option<Duration>,
    /// Time a keep-alive connection may sit with no request in flight before
    /// it is closed. A response still streaming (SSE) is in flight. `None`
    /// keeps idle connections open. Default 60 s.
    pub idle_timeout: Option<Duration>,
    /// Open connections at most; one over it is answered `503` with
    /// `Retry-After: 1` (plain text) and closed. `None` means no cap.
    /// Default 512, well under the common limit of 1,024 file descriptors.
    pub max_connections: Option<usize>,
    /// Open sessions at most; an `initialize` past it gets HTTP 503 with
    /// `Retry-After: 1` and a JSON-RPC error (-32000). `None` means no cap.
    /// Default 1,000.
    pub max_sessions: Option<usize>,
    /// A session with no request for this long is closed and its memory
    /// released (rmcp's session keep-alive). `None` keeps idle sessions.
    /// Default 300 s.
    pub session_idle_expiry: Option<Duration>,
    /// With sessions: every session id handed out becomes `PREFIX.id`, and
    /// the prefix is taken off the ids clients send, so that a load balancer
    /// can send a session's requests to the process that holds it (1 to 32
    /// ASCII letters, digits, `-` or `_`). `None`: plain ids.
    pub session_id_prefix: Option<String>,
}

/// Default of [`HttpOptions::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 1_000;
/// Default of [`HttpOptions::session_idle_expiry`].
pub const DEFAULT_SESSION_IDLE_EXPIRY: Duration = Duration::from_secs(300);

impl HttpOptions {
    /// Options for `bind`, with sessions on and no token.
    pub fn new(bind: SocketAddr) -> Self {
        Self {
            bind,
            bearer_token: None,
            allow_remote: false,
            extra_hosts: Vec::new(),
            extra_origins: Vec::new(),
            json_response: false,
            sessions: true,
            header_timeout: Some(DEFAULT_HEADER_TIMEOUT),
            body_timeout: Some(DEFAULT_BODY_TIMEOUT),
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            max_connections: Some(DEFAULT_MAX_CONNECTIONS),
            max_sessions: Some(DEFAULT_MAX_SESSIONS),
            session_idle_expiry: Some(DEFAULT_SESSION_IDLE_EXPIRY),
            session_id_prefix: None,
        }
    }

    /// Sets the session cap (`None`: no cap).
    pub fn with_max_sessions(mut self, max: impl Into<Option<usize>>) -> Self {
        self.max_sessions = max.into();
        self
    }

    /// Sets the session idle expiry (`None`: sessions never expire).
    pub fn with_session_idle_expiry(mut self, expiry: impl Into<Option<Duration>>) -> Self {
        self.session_idle_expiry = expiry.into();
        self
    }

    /// Puts `PREFIX.` before every session id (see
    /// [`session_id_prefix`](Self::session_id_prefix)).
    pub fn with_session_id_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.session_id_prefix = Some(prefix.into());
        self
    }

    /// Sets the header-read timeout (`None`: none).
    pub fn with_header_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.header_timeout = timeout.into();
        self
    }

    /// Sets the body-read timeout (`None`: none).
    pub fn with_body_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.body_timeout = timeout.into();
        self
    }

    /// Sets the idle keep-alive timeout (`None`: none).
    pub fn with_idle_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.idle_timeout = timeout.into();
        self
    }

    /// Sets the connection cap (`None`: no cap).
    pub fn with_max_connections(mut self, max: impl Into<Option<usize>>) -> Self {
        self.max_connections = max.into();
        self
    }

    /// Requires this bearer token on every request.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Allows a non-loopback bind.
    pub fn allow_remote(mut self, allow: bool) -> Self {
        self.allow_remote = allow;
        self
    }

    /// Turns sessions on or off.
    pub fn with_sessions(mut self, sessions: bool) -> Self {
        self.sessions = sessions;
        self
    }

    /// Accepts these `Host` names too (`name` for any port, or `name:port`),
    /// as a reverse proxy passes them on.
    pub fn with_extra_hosts(mut self, hosts: impl IntoIterator<Item = String>) -> Self {
        self.extra_hosts.extend(hosts);
        self
    }

    /// Accepts these browser origins too (`https://app.example.com:443`).
    pub fn with_extra_origins(mut self, origins: impl IntoIterator<Item = String>) -> Self {
        self.extra_origins.extend(origins);
        self
    }

    /// Prefers JSON replies in stateless mode.
    pub fn with_json_response(mut self, json: bool) -> Self {
        self.json_response = json;
        self
    }
}

/// A running Streamable HTTP server. Dropping it does not stop it; call
/// [`shutdown`](Self::shutdown).
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    shutdown: CancellationToken,
    task: JoinHandle<Result<(), ServeError>>,
}

impl HttpServer {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The MCP endpoint URL (`http://127.0.0.1:PORT/mcp`).
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.local_addr)
    }

    /// Stops accepting, ends every session, and waits for the server to stop.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        self.shutdown.cancel();
        self.wait().await
    }

    /// Waits until the server stops (on its own, it runs until shut down).
    pub async fn wait(self) -> Result<(), ServeError> {
        match self.task.await {
            Ok(result) => result,
            Err(e) => Err(ServeError::Io(std::io::Error::other(e.to_string()))),
        }
    }

    /// A token that stops the server when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }
}

/// Binds and serves `hub` over Streamable HTTP at `/mcp`.
///
/// Refused before binding: a non-loopback address without
/// [`allow_remote`](HttpOptions::allow_remote), an empty or blank bearer
/// token, and an invalid session id prefix.
pub async fn serve_http(
    hub: Hub,
    server: ServerOptions,
    options: HttpOptions,
) -> Result<HttpServer, ServeError> {
    if options.bearer_token.as_deref().is_some_and(is_blank) {
        return Err(ServeError::EmptyToken);
    }
    let ip = options.bind.ip();
    if !ip.is_loopback() {
        if !options.allow_remote {
            return Err(ServeError::RemoteBindRefused(options.bind));
        }
        tracing::warn!(
            addr = %options.bind,
            "serving MCP on a non-loopback address: anyone who can reach it can run tools{}",
            if options.bearer_token.is_some() { "" } else { " (and no bearer token is set)" }
        );
    }
    if let Some(prefix) = &options.session_id_prefix
        && !session_prefix_is_valid(prefix)
    {
        return Err(ServeError::Io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("session id prefix {prefix:?}: use 1 to 32 ASCII letters, digits, - or _"),
        )));
    }
    let listener = tokio::net::TcpListener::bind(options.bind)
        .await
        .map_err(ServeError::Io)?;
    let local_addr = listener.local_addr().map_err(ServeError::Io)?;
    let shutdown = CancellationToken::new();
    let (router, limits) = router(hub, server, &options, &shutdown);
    let stop = shutdown.clone();
    let task = tokio::spawn(async move {
        serve_connections(listener, router, limits, stop).await;
        Ok(())
    });
    Ok(HttpServer {
        local_addr,
        shutdown,
        task,
    })
}

/// The `/mcp` router `serve_http` serves, and the limits of its connections;
/// `shutdown` ends its sessions and the direct path's services.
fn router(
    hub: Hub,
    server: ServerOptions,
    options: &HttpOptions,
    shutdown: &CancellationToken,
) -> (axum::Router, ConnLimits) {
    let ip = options.bind.ip();
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    if !ip.is_loopback() && !ip.is_unspecified() {
        hosts.push(ip.to_string());
    }
    hosts.extend(options.extra_hosts.iter().cloned());
    let mut origins: Vec<String> = vec![
        "http://localhost:*".into(),
        "http://127.0.0.1:*".into(),
        "http://[::1]:*".into(),
    ];
    origins.extend(options.extra_origins.iter().cloned());
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .enforce_origin_validation()
        .with_legacy_session_mode(options.sessions)
        .with_json_response(options.json_response)
        .with_sse_keep_alive(Some(Duration::from_secs(15)))
        .with_cancellation_token(shutdown.child_token());
    if ip.is_unspecified() {
        // Bound to every interface: the Host a client uses is not known here.
        config = config.disable_allowed_hosts();
    }
    let config_max_body = config.max_request_body_bytes;
    let mut sessions = LocalSessionManager::default();
    // In sessions mode the direct path's table keeps the idle clock (see
    // `SessionTable`): rmcp's worker would not see the direct calls.
    sessions.session_config.keep_alive = None;
    let sessions = Arc::new(sessions);
    // A plain `tools/call` is answered by the direct path, with the same
    // configuration as rmcp's service: on one shared server in stateless mode,
    // on the session's own server in sessions mode.
    let (shared, direct) = if options.sessions {
        let table = Arc::new(SessionTable::new());
        tokio::spawn(Arc::clone(&table).sweep(
            Arc::clone(&sessions),
            options.session_idle_expiry,
            shutdown.child_token(),
        ));
        let hook_table = Arc::clone(&table);
        let hook: SessionHook = Arc::new(move |parts, server, peer| {
            if let Some(id) = parts
                .headers
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
            {
                hook_table.initialized(id, server, peer);
            }
        });
        let shared = Shared::with_hook(server, Some(hook));
        (shared, DirectCalls::sessions(table, &config))
    } else {
        let shared = Shared::new(server);
        let server = McpServer::with_shared(hub.clone(), shared.clone());
        (shared, DirectCalls::stateless(server, &config))
    };
    let service = StreamableHttpService::new(
        move || Ok(McpServer::with_shared(hub.clone(), shared.clone())),
        Arc::clone(&sessions),
        config,
    );
    let mut router = axum::Router::new().route_service(MCP_PATH, DirectHttp::new(service, direct));
    // Without sessions rmcp answers `DELETE` with 405, so the session-DELETE
    // fix-up applies only with them.
    if options.sessions {
        router = router.layer(axum::middleware::from_fn(delete_answers_no_content));
        if let Some(max) = options.max_sessions {
            let cap = SessionCap {
                sessions,
                max,
                max_body_bytes: config_max_body,
                refusals: Arc::new(std::sync::Mutex::new(RateLimitedLog::new())),
            };
            router = router.layer(axum::middleware::from_fn(
                move |req: Request, next: Next| {
                    let cap = cap.clone();
                    async move { refuse_sessions_over_cap(cap, req, next).await }
                },
            ));
        }
        if let Some(prefix) = &options.session_id_prefix {
            let prefix: Arc<str> = Arc::from(format!("{prefix}."));
            router = router.layer(axum::middleware::from_fn(
                move |req: Request, next: Next| {
                    let prefix = prefix.clone();
                    async move { prefix_session_ids(&prefix, req, next).await }
                },
            ));
        }
    }
    let max_body_bytes = config_max_body;
    router = router.layer(axum::middleware::from_fn(
        move |req: Request, next: Next| async move {
            json_rpc_body_errors(max_body_bytes, req, next).await
        },
    ));
    if let Some(token) = &options.bearer_token {
        // `None` for a blank token, which `serve_http` refuses: nothing
        // matches it.
        let token = BearerToken::new(token);
        router = router.layer(axum::middleware::from_fn(
            move |req: Request, next: Next| {
                let token = token.clone();
                async move { check_bearer(token.as_ref(), req, next).await }
            },
        ));
    }
    // Added after the layers above, so no token or body check applies.
    router = router.route(HEALTH_PATH, axum::routing::get(|| async { "ok\n" }));
    let limits = ConnLimits {
        timeouts: Timeouts {
            header: options.header_timeout,
            body: options.body_timeout,
            idle: options.idle_timeout,
        },
        cap: options.max_connections.map(|max| {
            let answer = service_unavailable("text/plain", "too many open connections\r\n");
            ConnCap::new(max, OverCapAnswer::Fixed(answer))
        }),
    };
    (router, limits)
}

/// rmcp answers a session's `DELETE` with `202 Accepted`; clients (the Python
/// SDK among them) expect a plain success, `200` or `204`, and warn otherwise.
/// The session is gone when the response is written, so say `204 No Content`.
async fn delete_answers_no_content(req: Request, next: Next) -> Response {
    let is_delete = req.method() == http::Method::DELETE;
    let mut response = next.run(req).await;
    if is_delete && response.status() == http::StatusCode::ACCEPTED {
        *response.status_mut() = http::StatusCode::NO_CONTENT;
        *response.body_mut() = axum::body::Body::empty();
    }
    response
}

/// rmcp answers a `POST` whose JSON body it cannot read with a plain-text 415.
/// The Streamable HTTP transport wants an HTTP error status whose body may be
/// a JSON-RPC error with no id: so a body that is not JSON gets HTTP 400 with
/// a parse error (-32700, id null), and JSON that is not a message rmcp knows
/// gets HTTP 400 with an invalid-request error (-32600, with its id when it has
/// one). Only rmcp's 415 is rewritten: its order of checks (Host, Origin,
/// Accept, Content-Type, session) stays as it is. The body is read here,
/// bounded by rmcp's own limit, and handed on as it came.
async fn json_rpc_body_errors(max_body_bytes: usize, req: Request, next: Next) -> Response {
    let declared = req
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let json_body = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            let essence = v.split_once(';').map_or(v, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        });
    if req.method() != http::Method::POST
        || !json_body
        || declared.is_some_and(|n| n > max_body_bytes)
    {
        // Not a JSON message (rmcp's 415 for the wrong media type stays), or
        // one rmcp refuses by its size (413).
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, max_body_bytes).await {
        Ok(bytes) => bytes,
        // rmcp's answer to a body over its limit; a body that broke off has
        // nobody left to read an answer.
        Err(_) => {
            return (
                http::StatusCode::PAYLOAD_TOO_LARGE,
                format!("Payload Too Large: request body exceeds {max_body_bytes} bytes"),
            )
                .into_response();
        }
    };
    let response = next
        .run(Request::from_parts(
            parts,
            axum::body::Body::from(bytes.clone()),
        ))
        .await;
    if response.status() != http::StatusCode::UNSUPPORTED_MEDIA_TYPE
        || !response_is_plain_text(&response)
    {
        return response;
    }
    let reply = if bad_input::is_json(&bytes) {
        bad_input::invalid_message(&bytes)
    } else {
        bad_input::parse_error(&bytes)
    };
    tracing::debug!(code = %reply["error"]["code"], "a body rmcp cannot read");
    (
        http::StatusCode::BAD_REQUEST,
        [(http::header::CONTENT_TYPE, "application/json")],
        reply.to_string(),
    )
        .into_response()
}

/// rmcp's 415s are plain text; a JSON 415 would be someone else's answer.
fn response_is_plain_text(response: &Response) -> bool {
    response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|v| v.starts_with("text/plain"))
}

/// Lets through a request whose `Authorization` carries `token`.
async fn check_bearer(token: Option<&BearerToken>, req: Request, next: Next) -> Response {
    let given = req.headers().get(http::header::AUTHORIZATION);
    if let (Some(token), Some(given)) = (token, given)
        && token.in_authorization(given.as_bytes())
    {
        next.run(req).await
    } else {
        (
            http::StatusCode::UNAUTHORIZED,
            [(http::header::WWW_AUTHENTICATE, "Bearer")],
            "missing or wrong bearer token",
        )
            .into_response()
    }
}

/// The HTTP server's request path over any byte stream, for the `http_direct`
/// fuzz target (compiled only with `--cfg fuzzing`, not part of the API): the
/// router [`serve_http`] builds, each connection served as an accepted socket
/// is (hyper's HTTP/1 under the connection clock), without a listener.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    use tokio::io::{AsyncRead, AsyncWrite};
    use tokio_util::sync::CancellationToken;

    use super::{HttpOptions, ServerOptions, router};
    use crate::http_conn::{ConnLimits, serve_connection};
    use crate::hub::Hub;

    /// One server's router and connection limits; dropping it ends its
    /// sessions and services.
    pub struct Connections {
        router: axum::Router,
        limits: ConnLimits,
        shutdown: CancellationToken,
    }

    impl Connections {
        /// The server [`serve_http`](super::serve_http) would run with these
        /// options (`options.bind` only decides the allowed hosts). Call it
        /// inside a tokio runtime.
        pub fn new(hub: Hub, server: ServerOptions, options: &HttpOptions) -> Self {
            let shutdown = CancellationToken::new();
            let (router, limits) = router(hub, server, options, &shutdown);
            Self {
                router,
                limits,
                shutdown,
            }
        }

        /// Serves one connection over `io` until it ends or its clock expires.
        pub async fn serve<S>(&self, io: S)
        where
            S: AsyncRead + AsyncWrite + Send + Unpin + 'static,
        {
            serve_connection(
                io,
                self.router.clone(),
                self.limits.timeouts,
                self.shutdown.clone(),
                None,
            )
            .await;
        }
    }

    impl Drop for Connections {
        fn drop(&mut self) {
            self.shutdown.cancel();
        }
    }
}
