//! `serve_proxy`: checks the options, binds, and serves the front door on the
//! shared accept loop (`http_conn`: one connection cap for every worker,
//! header, body and idle timeouts), behind a Host/Origin guard and the
//! optional bearer token.

use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{get, post};
use http::StatusCode;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use toolrouter_providers::{ProviderProfile, Wire, find_profile};

use super::constrain::ConstrainPlan;
use super::error::{ApiError, INVALID_REQUEST, ProxyError, SERVER_ERROR};
use super::handlers::{ProxyState, chat_completions, method_not_allowed, models, not_found};
use super::options::{ProxyOptions, UpstreamKey};
use super::responses::ItemStore;
use super::upstream::{Upstream, without_userinfo};
use crate::core::WireFormat;
use crate::detect::DetectConfig;
use crate::detect::text_formats;
use crate::http_conn::{
    BearerToken, ConnCap, ConnLimits, OverCapAnswer, Timeouts, serve_connections,
    service_unavailable,
};

/// The path the SDKs take as their base URL.
pub const PROXY_BASE_PATH: &str = "/v1";

/// A running proxy. It serves until [`shutdown`](Self::shutdown), until its
/// [`shutdown_token`](Self::shutdown_token) is cancelled, or until it is
/// dropped: dropping it stops it as `shutdown` does (requests in flight
/// finish) without waiting. Its serving threads are its own, so a caller's
/// runtime never waits for them when it shuts down.
#[derive(Debug)]
pub struct ProxyServer {
    local_addr: SocketAddr,
    upstream: String,
    shutdown: CancellationToken,
    /// Resolves (or fails, if its sender is gone) once every serving thread
    /// has ended; taken by [`wait`](Self::wait).
    stopped: Option<oneshot::Receiver<()>>,
}

impl Drop for ProxyServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl ProxyServer {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The base URL an SDK takes (`http://127.0.0.1:PORT/v1`).
    pub fn url(&self) -> String {
        format!("http://{}{PROXY_BASE_PATH}", self.local_addr)
    }

    /// The upstream's base URL, any user name and password in it replaced
    /// by `***` (`http://***@host/v1`), as it may be printed.
    pub fn upstream(&self) -> &str {
        &self.upstream
    }

    /// A token that stops the proxy when cancelled.
    pub fn shutdown_token(&self) -> CancellationToken {
        self.shutdown.clone()
    }

    /// Stops accepting, lets the requests in flight finish, and waits.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        self.wait().await;
    }

    /// Waits until the proxy stops: until its
    /// [`shutdown_token`](Self::shutdown_token) is cancelled and the requests
    /// in flight have finished. Dropping this future before then stops the
    /// proxy, as dropping the proxy does.
    pub async fn wait(mut self) {
        if let Some(stopped) = self.stopped.take()
            && stopped.await.is_err()
        {
            tracing::warn!("the proxy's serving threads ended without saying so");
        }
    }
}

/// Starts a proxy: binds `options.listen` and forwards to `options.upstream`.
///
/// Every profile's own wire is served. Refused before binding: an unknown
/// profile, an upstream URL that is not `http(s)://`, an empty or blank
/// bearer token, a non-loopback address without
/// [`allow_remote`](ProxyOptions::allow_remote)
/// and a bearer token, and a bearer token together with
/// [`UpstreamKey::Forward`] (both would read `Authorization`).
pub async fn serve_proxy(options: ProxyOptions) -> Result<ProxyServer, ProxyError> {
    let found = find_profile(&options.provider).map_err(|_| ProxyError::UnknownProvider {
        name: options.provider.clone(),
    })?;
    if !matches!(
        found.wire,
        Wire::OpenAiChat
            | Wire::OpenAiResponses
            | Wire::Anthropic
            | Wire::Gemini
            | Wire::Ollama
            | Wire::Bedrock
    ) {
        return Err(ProxyError::UnsupportedWire {
            provider: found.profile.name.clone(),
            wire: found.wire.as_str(),
        });
    }
    let token = match options.bearer_token.as_deref() {
        None => None,
        Some(token) => Some(BearerToken::new(token).ok_or(ProxyError::EmptyToken)?),
    };
    let ip = options.listen.ip();
    if !ip.is_loopback() {
        if !options.allow_remote {
            return Err(ProxyError::RemoteBindRefused(options.listen));
        }
        if options.bearer_token.is_none() {
            return Err(ProxyError::RemoteWithoutToken(options.listen));
        }
    }
    if options.upstream_key == UpstreamKey::Forward && options.bearer_token.is_some() {
        return Err(ProxyError::ForwardKeyWithToken);
    }
    // Checked here, so that a bad key source or URL is an error of this call.
    let upstream_base = Upstream::new(&options, found.profile, found.wire)?;
    let upstream_base = without_userinfo(upstream_base.base()).into_owned();
    let listener = std::net::TcpListener::bind(options.listen)?;
    listener.set_nonblocking(true)?;
    let local_addr = listener.local_addr()?;
    let workers = options
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let limits = ConnLimits {
        timeouts: Timeouts {
            header: options.header_timeout,
            body: options.body_timeout,
            idle: options.idle_timeout,
        },
        // One cap for the process: every worker's accept loop counts
        // against it.
        cap: options
            .max_connections
            .map(|max| ConnCap::new(max, over_cap_answer())),
    };
    let mut detect = options
        .detect
        .clone()
        .with_formats(profile_formats(found.profile));
    // `--text-tools` writes values with XML entities and teaches the model to.
    detect.xml_entities |= options.text_tools;
    let constrain = ConstrainPlan::new(options.constrain, found.profile, options.text_tools);
    let shutdown = CancellationToken::new();
    let items = Arc::new(ItemStore::default());
    // Should a later thread fail to start, the ones started stop.
    let started = shutdown.clone().drop_guard();
    let mut threads = Vec::with_capacity(workers);
    for i in 0..workers {
        let worker = Worker {
            listener: listener.try_clone()?,
            upstream: Upstream::new(&options, found.profile, found.wire)?,
            wire: found.wire,
            detect: detect.clone(),
            options: options.clone(),
            token: token.clone(),
            limits: limits.clone(),
            stop: shutdown.clone(),
            items: Arc::clone(&items),
            constrain: constrain.clone(),
        };
        let thread = std::thread::Builder::new()
            .name(format!("toolrouter-proxy-{i}"))
            .spawn(move || worker.run())?;
        threads.push(thread);
    }
    drop(listener);
    // Joins the workers on a thread of its own, not the caller's runtime's
    // blocking pool: a runtime waits for its blocking tasks when it shuts
    // down, so a caller that panicked while holding the proxy would hang.
    let (done, stopped) = oneshot::channel();
    // Detached: `wait` hears from it through `stopped`.
    std::thread::Builder::new()
        .name("toolrouter-proxy-join".to_owned())
        .spawn(move || {
            for thread in threads {
                if thread.join().is_err() {
                    tracing::warn!("a proxy worker thread panicked");
                }
            }
            let _ = done.send(());
        })?;
    started.disarm();
    Ok(ProxyServer {
        local_addr,
        upstream: upstream_base,
        shutdown,
        stopped: Some(stopped),
    })
}

/// One serving thread: a single-threaded runtime with its own accept loop on
/// the shared listener and its own upstream client.
struct Worker {
    listener: std::net::TcpListener,
    upstream: Upstream,
    wire: Wire,
    detect: DetectConfig,
    options: ProxyOptions,
    token: Option<BearerToken>,
    limits: ConnLimits,
    stop: CancellationToken,
    items: Arc<ItemStore>,
    constrain: Option<Arc<ConstrainPlan>>,
}

impl Worker {
    fn run(self) {
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(e) => {
                tracing::error!(error = %e, "a proxy worker could not start its runtime");
                return;
            }
        };
        runtime.block_on(async move {
            let listener = match tokio::net::TcpListener::from_std(self.listener) {
                Ok(listener) => listener,
                Err(e) => {
                    tracing::error!(error = %e, "a proxy worker could not use the listener");
                    return;
                }
            };
            let options = &self.options;
            let state = Arc::new(ProxyState {
                upstream: self.upstream,
                wire: self.wire,
                detect: self.detect,
                max_request_bytes: options.max_request_bytes,
                max_turn_bytes: options.max_turn_bytes,
                text_tools: options.text_tools,
                server_tools: options.server_tools.clone(),
                max_steps: options.max_steps,
                items: self.items,
                constrain: self.constrain,
            });
            let router = front_door(state, options, self.token);
            serve_connections(listener, router, self.limits, self.stop).await;
        });
    }
}

/// The routes and their guards: the log line, then the Host/Origin check,
/// then the token.
fn front_door(
    state: Arc<ProxyState>,
    options: &ProxyOptions,
    token: Option<BearerToken>,
) -> axum::Router {
    let router = axum::Router::new()
        .route(
            "/v1/chat/completions",
            post(chat_completions).fallback(method_not_allowed),
        )
        .route(
            "/v1/messages",
            post(super::anthropic::messages).fallback(method_not_allowed),
        )
        .route(
            "/v1/responses",
            post(super::responses::responses).fallback(method_not_allowed),
        )
        .route("/v1/models", get(models).fallback(method_not_allowed))
        .route("/v1/models/{*id}", get(models).fallback(method_not_allowed))
        .fallback(not_found)
        .with_state(state);
    let guard = Arc::new(Guard {
        loopback_only: !options.allow_remote,
        token,
    });
    router.layer(axum::middleware::from_fn_with_state(guard, guard_and_log))
}

/// What every request passes before its route.
struct Guard {
    /// Only loopback hosts and origins (`loopback_only`).
    loopback_only: bool,
    /// The token, when one is required.
    token: Option<BearerToken>,
}

/// The front door's one layer: the Host/Origin check, then the token, and a
/// debug line per request (method, path, status, time to the answer's head).
async fn guard_and_log(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let logged = tracing::enabled!(tracing::Level::DEBUG).then(|| {
        (
            Instant::now(),
            req.method().clone(),
            req.uri().path().to_owned(),
        )
    });
    let refused = if guard.loopback_only && !from_loopback(&req) {
        Some(ApiError::new(
            StatusCode::FORBIDDEN,
            "the proxy listens on loopback only: requests must name a loopback host and come from no page or a loopback one",
            INVALID_REQUEST,
            Some("forbidden_host"),
        ))
    } else if let Some(token) = &guard.token
        && !has_bearer(token, &req)
    {
        Some(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing or wrong bearer token",
            INVALID_REQUEST,
            Some("invalid_api_key"),
        ))
    } else {
        None
    };
    let response = match refused {
        Some(error) => super::anthropic::error_for_path(req.uri().path(), error),
        None => next.run(req).await,
    };
    if let Some((started, method, path)) = logged {
        tracing::debug!(
            %method,
            path = %crate::core::echo(&path),
            status = response.status().as_u16(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "proxy request"
        );
    }
    response
}

/// The profile's text dialects this build reads.
fn profile_formats(profile: &ProviderProfile) -> Vec<WireFormat> {
    let readable = text_formats();
    profile
        .text_formats
        .iter()
        .filter_map(|name| match WireFormat::from_str(name) {
            Ok(format) if readable.contains(&format) => Some(format),
            _ => {
                tracing::warn!(profile = %profile.name, dialect = %name, "a profile dialect this build does not read");
                None
            }
        })
        .collect()
}

/// Whether `req` carries the token: `Authorization: Bearer T` (the scheme
/// in any case), or `x-api-key: T` as the Anthropic SDKs send it.
fn has_bearer(token: &BearerToken, req: &Request) -> bool {
    let headers = req.headers();
    let in_authorization = headers
        .get(http::header::AUTHORIZATION)
        .is_some_and(|v| token.in_authorization(v.as_bytes()));
    let in_api_key = headers
        .get("x-api-key")
        .is_some_and(|v| token.is(v.as_bytes()));
    in_authorization || in_api_key
}

/// The `503` a connection over the cap gets, in its door's error shape:
/// Anthropic's for `/v1/messages`, OpenAI's for every other path (the
/// Chat Completions and Responses doors, the models, unknown paths), as the
/// front door answers its own errors.
fn over_cap_answer() -> OverCapAnswer {
    let error = ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "the proxy has too many open connections: retry shortly",
        SERVER_ERROR,
        Some("too_many_connections"),
    );
    let openai = service_unavailable("application/json", &error.body().to_string());
    let anthropic = service_unavailable(
        "application/json",
        &super::anthropic::anthropic_body(&error).to_string(),
    );
    OverCapAnswer::ByPath(Arc::new(move |path| {
        if super::anthropic::is_messages_path(path) {
            anthropic.clone()
        } else {
            openai.clone()
        }
    }))
}

/// A loopback proxy answers only requests addressed to a loopback name, from
/// no browser page or a loopback one: a web page cannot reach it through DNS
/// rebinding and spend the upstream's key.
fn from_loopback(req: &Request) -> bool {
    let host = req
        .headers()
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let origin = req
        .headers()
        .get(http::header::ORIGIN)
        .and_then(|v| v.to_str().ok());
    let origin_ok = origin.is_none_or(|origin| {
        ["http://", "https://"]
            .iter()
            .find_map(|scheme| origin.strip_prefix(scheme))
            .is_some_and(is_loopback_authority)
    });
    is_loopback_authority(host) && origin_ok
}

/// `localhost`, `127.0.0.1` or `[::1]`, with or without a port.
pub(super) fn is_loopback_authority(authority: &str) -> bool {
    let host = match authority.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or("", |(host, _)| host),
        None => authority
            .rsplit_once(':')
            .map_or(authority, |(host, _)| host),
    };
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}
