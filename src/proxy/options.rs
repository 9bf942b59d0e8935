//! `ProxyOptions`: where the proxy listens, where it forwards, and its limits.

use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use super::constrain::Constrain;
use super::upstream::without_userinfo;
use crate::detect::DetectConfig;
use crate::http_conn::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
};
use crate::hub::Hub;

/// Default of [`ProxyOptions::max_request_bytes`]: 16 MiB.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// Default of [`ProxyOptions::max_turn_bytes`]: 64 MiB.
pub const DEFAULT_MAX_TURN_BYTES: usize = 64 * 1024 * 1024;
/// Default of [`ProxyOptions::connect_timeout`]: 10 s.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`ProxyOptions::read_timeout`]: 300 s.
pub const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);

/// Where the upstream's API key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum UpstreamKey {
    /// The provider profile's environment variable (`OPENAI_API_KEY`,
    /// `VLLM_API_KEY`, …), read once at start; no key when it is unset.
    #[default]
    Profile,
    /// The client's own `Authorization: Bearer` key (else its `x-api-key`),
    /// sent on in the profile's header style; no key when the client sent none.
    Forward,
}

/// How to run `toolrouter proxy` ([`serve_proxy`](super::serve_proxy)).
#[derive(Clone)]
#[non_exhaustive]
pub struct ProxyOptions {
    /// The address to listen on (port 0 picks a free port).
    pub listen: SocketAddr,
    /// The upstream's base URL as its SDK takes it (`http://127.0.0.1:8000/v1`);
    /// chat requests go to `{upstream}/chat/completions`. A user name and
    /// password in it (`http://user:pw@host/v1`) are sent as Basic
    /// authentication and never printed.
    pub upstream: String,
    /// The upstream's provider profile (`vllm`, `llamacpp`, `openai`, …): its
    /// wire, the dialects its models write calls in, its key variable.
    pub provider: String,
    /// The token every request must carry, if any, as `Authorization: Bearer`
    /// (the scheme in any case) or `x-api-key`. An empty or blank token is
    /// refused by [`serve_proxy`](super::serve_proxy).
    pub bearer_token: Option<String>,
    /// Allows a non-loopback `listen` (which also needs a bearer token).
    pub allow_remote: bool,
    /// Where the upstream's API key comes from.
    pub upstream_key: UpstreamKey,
    /// The detector's dialects and limits; the profile's text dialects are
    /// added to them.
    pub detect: DetectConfig,
    /// Time a client has to send a request's head. `None` waits forever.
    pub header_timeout: Option<Duration>,
    /// Time a client has to send a request's body, from its head.
    pub body_timeout: Option<Duration>,
    /// Time a keep-alive connection may sit idle (a streaming answer is not idle).
    pub idle_timeout: Option<Duration>,
    /// Open connections at most, over all [`workers`](Self::workers); one
    /// more gets `503` with `Retry-After: 1`, in its door's error shape.
    pub max_connections: Option<usize>,
    /// The largest request body accepted; a larger one gets `413`.
    pub max_request_bytes: usize,
    /// The most bytes of one upstream answer read; past it the turn ends with
    /// an error. It bounds what a non-streaming answer holds.
    pub max_turn_bytes: usize,
    /// Time to connect to the upstream.
    pub connect_timeout: Duration,
    /// Time the upstream may send nothing, before and during its answer,
    /// before the request is given up. `None` waits forever.
    pub read_timeout: Option<Duration>,
    /// For an upstream without tool support: the request's tools are taught
    /// in the system prompt in the XML tag convention instead of being
    /// declared, and earlier calls and results go upstream as text.
    pub text_tools: bool,
    /// When a grammar of the request's tools goes with it, on a server that
    /// takes one (`docs/constrain.md`); only `--text-tools` requests.
    pub constrain: Constrain,
    /// Server-side tools: the hub whose tools (a gateway's MCP servers, the
    /// built-ins) join every request's tools; the proxy runs their calls
    /// itself and continues the conversation upstream.
    pub server_tools: Option<Hub>,
    /// The most rounds of server-side calls one request may take.
    pub max_steps: usize,
    /// Threads serving requests, each with a single-threaded runtime, its own
    /// accept loop on the shared listener and its own upstream client, so a
    /// request's client connection, handler and upstream connection stay on
    /// one thread (a hand-off between threads costs more than the request's
    /// own work). `None`: one per CPU. They share one connection cap.
    pub workers: Option<usize>,
}

/// Default of [`ProxyOptions::max_steps`].
pub const DEFAULT_MAX_STEPS: usize = 8;

impl fmt::Debug for ProxyOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The token is a secret: say whether there is one, never what it is.
        f.debug_struct("ProxyOptions")
            .field("listen", &self.listen)
            .field("upstream", &without_userinfo(&self.upstream))
            .field("provider", &self.provider)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "…"))
            .field("allow_remote", &self.allow_remote)
            .field("upstream_key", &self.upstream_key)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("max_turn_bytes", &self.max_turn_bytes)
            .field("text_tools", &self.text_tools)
            .field("constrain", &self.constrain)
            .field("server_tools", &self.server_tools.is_some())
            .field("max_steps", &self.max_steps)
            .field("workers", &self.workers)
            .finish_non_exhaustive()
    }
}

impl ProxyOptions {
    /// Options for listening on `listen` in front of `upstream`, read with the
    /// profile `provider`; no token, the key from the profile's variable, the
    /// default limits.
    pub fn new(
        listen: SocketAddr,
        upstream: impl Into<String>,
        provider: impl Into<String>,
    ) -> Self {
        Self {
            listen,
            upstream: upstream.into(),
            provider: provider.into(),
            bearer_token: None,
            allow_remote: false,
            upstream_key: UpstreamKey::Profile,
            detect: DetectConfig::default(),
            header_timeout: Some(DEFAULT_HEADER_TIMEOUT),
            body_timeout: Some(DEFAULT_BODY_TIMEOUT),
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            max_connections: Some(DEFAULT_MAX_CONNECTIONS),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            max_turn_bytes: DEFAULT_MAX_TURN_BYTES,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            read_timeout: Some(DEFAULT_READ_TIMEOUT),
            text_tools: false,
            constrain: Constrain::Auto,
            server_tools: None,
            max_steps: DEFAULT_MAX_STEPS,
            workers: None,
        }
    }

    /// Requires this bearer token on every request.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }

    /// Allows a non-loopback `listen`.
    pub fn allow_remote(mut self, allow: bool) -> Self {
        self.allow_remote = allow;
        self
    }

    /// Sets where the upstream's key comes from.
    pub fn with_upstream_key(mut self, key: UpstreamKey) -> Self {
        self.upstream_key = key;
        self
    }

    /// Sets the detector's dialects and limits (the profile's dialects are
    /// added to them).
    pub fn with_detect_config(mut self, detect: DetectConfig) -> Self {
        self.detect = detect;
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

    /// Sets the number of serving threads (`None`: one per CPU).
    pub fn with_workers(mut self, workers: impl Into<Option<usize>>) -> Self {
        self.workers = workers.into();
        self
    }

    /// Sets the connection cap (`None`: no cap).
    pub fn with_max_connections(mut self, max: impl Into<Option<usize>>) -> Self {
        self.max_connections = max.into();
        self
    }

    /// Sets the largest request body accepted.
    pub fn with_max_request_bytes(mut self, max: usize) -> Self {
        self.max_request_bytes = max;
        self
    }

    /// Sets the most bytes of one upstream answer read.
    pub fn with_max_turn_bytes(mut self, max: usize) -> Self {
        self.max_turn_bytes = max;
        self
    }

    /// Sets the upstream connect timeout.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets the upstream read timeout (`None`: none).
    pub fn with_read_timeout(mut self, timeout: impl Into<Option<Duration>>) -> Self {
        self.read_timeout = timeout.into();
        self
    }

    /// Runs `hub`'s tools as server-side tools
    /// ([`server_tools`](Self::server_tools)).
    pub fn with_server_tools(mut self, hub: Hub) -> Self {
        self.server_tools = Some(hub);
        self
    }

    /// Sets the most rounds of server-side calls one request may take.
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// Teaches the tools in the system prompt instead of declaring them
    /// ([`text_tools`](Self::text_tools)).
    pub fn with_text_tools(mut self, text_tools: bool) -> Self {
        self.text_tools = text_tools;
        self
    }

    /// When a grammar goes with a request ([`constrain`](Self::constrain)).
    pub fn with_constrain(mut self, constrain: Constrain) -> Self {
        self.constrain = constrain;
        self
    }
}
