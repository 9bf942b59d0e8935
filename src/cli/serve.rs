//! `toolrouter serve`: the embedded MCP server over stdio or Streamable HTTP,
//! serving the built-in tools and, with `--config`, every upstream server's tools.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use toolrouter::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_EXPIRY, HttpOptions, Hub, ListGate, ServerOptions,
    StateKeys, serve_http, serve_stdio,
};

use super::setup::{ToolSetupArgs, Upstreams, with_tools};

/// The help's examples.
const EXAMPLES: &str = r#"
  # One MCP client over stdin/stdout (an editor's server command)
  toolrouter serve --stdio --workspace ~/project
  # Streamable HTTP at http://127.0.0.1:8765/mcp, with the tools of an MCP configuration
  toolrouter serve --http 127.0.0.1:8765 --config mcp.json
  # Without sessions, behind a load balancer, one state key for every process
  toolrouter serve --http 0.0.0.0:8765 --allow-remote --token "$TOKEN" --stateless --state-key-file keys.txt
"#;

/// Arguments of `toolrouter serve`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
#[command(after_help = super::help::examples(EXAMPLES))]
pub(crate) struct ServeArgs {
    /// Serve one client over stdin/stdout.
    #[arg(long)]
    stdio: bool,
    /// Serve Streamable HTTP at ADDR (endpoint `/mcp`; port 0 picks a free port).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Require `Authorization: Bearer TOKEN` on HTTP requests (an empty or
    /// blank TOKEN is refused).
    #[arg(long, value_name = "TOKEN", value_parser = token)]
    token: Option<String>,
    /// Allow binding a non-loopback address (exposes the tools to the network).
    #[arg(long)]
    allow_remote: bool,
    /// HTTP without sessions: every request stands alone (no `Mcp-Session-Id`),
    /// and a plain `tools/call` is answered on the direct path.
    #[arg(long, requires = "http")]
    stateless: bool,
    /// With `--stateless`: answer plain calls with `application/json` instead
    /// of a one-event SSE stream.
    #[arg(long, requires = "stateless")]
    json: bool,
    /// Sign multi-round `requestState` with the keys in FILE (one a line, hex
    /// or base64, at least 32 bytes; the first signs, all verify), so that
    /// processes behind one load balancer accept each other's states. Else
    /// `TOOLROUTER_STATE_KEY_FILE` or `TOOLROUTER_STATE_KEY`; else a random key.
    #[arg(long, value_name = "FILE")]
    state_key_file: Option<PathBuf>,
    /// HTTP: also accept this `Host` (NAME for any port, or NAME:PORT), as a
    /// reverse proxy in front passes it on; repeatable.
    #[arg(long, value_name = "NAME", requires = "http")]
    allow_host: Vec<String>,
    /// HTTP: also accept browser requests from this origin
    /// (`https://app.example.com:443`); repeatable.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    allow_origin: Vec<String>,
    /// HTTP with sessions: session ids become `NAME.id`, so that a load
    /// balancer can send a session's requests to this process (1 to 32 ASCII
    /// letters, digits, `-` or `_`; one NAME per process).
    #[arg(
        long,
        value_name = "NAME",
        requires = "http",
        conflicts_with = "stateless"
    )]
    session_id_prefix: Option<String>,
    /// HTTP: seconds a client has to send a request's head (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_HEADER_TIMEOUT.as_secs())]
    header_timeout: u64,
    /// HTTP: seconds a client has to send a request's body, from the end of
    /// its head (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_BODY_TIMEOUT.as_secs())]
    body_timeout: u64,
    /// HTTP: seconds a keep-alive connection may sit with no request in
    /// flight (a streaming response is in flight) before it is closed (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_IDLE_TIMEOUT.as_secs())]
    idle_timeout: u64,
    /// HTTP: open connections at most; one over it gets `503` with
    /// `Retry-After: 1` (0: no cap).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// HTTP with sessions: open sessions at most; an `initialize` over it
    /// gets `503` and a JSON-RPC error (0: no cap).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS)]
    max_sessions: usize,
    /// HTTP with sessions: seconds a session may go without a request before
    /// it is closed and its memory released (0: never).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_SESSION_IDLE_EXPIRY.as_secs())]
    session_idle_expiry: u64,
    /// Seconds a `tools/list` may wait for upstream servers still making
    /// their first connection (`--config`), so that a client listing once
    /// sees their tools. Everything else is served at once, and an upstream
    /// connecting later is announced with `tools/list_changed` (0: never wait).
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    upstream_wait: u64,
    /// Where the tools come from (built-ins, `--tools`, `--config` upstreams).
    #[command(flatten)]
    setup: ToolSetupArgs,
}

/// Runs the command until the client disconnects (stdio) or the process is
/// interrupted (HTTP), then stops the upstream servers.
pub(crate) fn run(args: ServeArgs) -> Result<(), String> {
    with_tools(&args.setup, Upstreams::Background, async |setup| {
        tracing::debug!(tools = setup.hub.registry().list().len(), "serving");
        let mut options = ServerOptions::default();
        let keys = match &args.state_key_file {
            Some(path) => Some(StateKeys::load(path).map_err(|e| e.to_string())?),
            None => StateKeys::from_env().map_err(|e| e.to_string())?,
        };
        if let Some(keys) = keys {
            options = options.with_state_keys(keys);
        }
        if let Some(gateway) = setup.gateway.clone()
            && args.upstream_wait > 0
        {
            let connected = async move { gateway.first_attempts().await };
            options = options.with_list_gate(ListGate::until(
                connected,
                seconds(args.upstream_wait).unwrap_or_default(),
            ));
        }
        serve(&args, setup.hub.clone(), options).await
    })
}

async fn serve(args: &ServeArgs, hub: Hub, options: ServerOptions) -> Result<(), String> {
    if args.stdio {
        return tokio::select! {
            served = serve_stdio(hub, options) => served.map_err(|e| e.to_string()),
            _ = interrupted() => Ok(()),
        };
    }
    let Some(addr) = args.http else {
        return Err("give --stdio or --http ADDR".to_owned());
    };
    let random_state_key = options.state_keys.is_none();
    let mut http = HttpOptions::new(addr)
        .allow_remote(args.allow_remote)
        .with_sessions(!args.stateless)
        .with_json_response(args.json)
        .with_header_timeout(seconds(args.header_timeout))
        .with_body_timeout(seconds(args.body_timeout))
        .with_idle_timeout(seconds(args.idle_timeout))
        .with_max_connections((args.max_connections > 0).then_some(args.max_connections))
        .with_max_sessions((args.max_sessions > 0).then_some(args.max_sessions))
        .with_session_idle_expiry(seconds(args.session_idle_expiry))
        .with_extra_hosts(args.allow_host.iter().cloned())
        .with_extra_origins(args.allow_origin.iter().cloned());
    if let Some(token) = &args.token {
        http = http.with_bearer_token(token.clone());
    }
    if let Some(prefix) = &args.session_id_prefix {
        http = http.with_session_id_prefix(prefix.clone());
    }
    let server = serve_http(hub, options, http)
        .await
        .map_err(|e| e.to_string())?;
    super::log::status(format_args!("serving MCP at {}", server.url()));
    if args.stateless && random_state_key {
        super::log::status(format_args!(
            "warning: --stateless with a random state key: a multi-round \
             (input_required) call whose next round reaches another process behind a \
             load balancer fails; share one key with --state-key-file"
        ));
    }
    let stop = server.shutdown_token();
    tokio::select! {
        _ = interrupted() => stop.cancel(),
        _ = stop.cancelled() => {}
    }
    server.wait().await.map_err(|e| e.to_string())
}

/// A `--token` value: refused when empty or blank, as an unset variable in
/// `--token "$TOKEN"` gives, for it would let in a client sending an empty
/// key.
pub(crate) fn token(value: &str) -> Result<String, String> {
    if value.trim().is_empty() {
        Err(
            "the token is empty or blank (an unset variable?): give a real token, or no --token"
                .to_owned(),
        )
    } else {
        Ok(value.to_owned())
    }
}

/// A timeout flag's value: whole seconds, 0 for none.
pub(crate) fn seconds(secs: u64) -> Option<Duration> {
    (secs > 0).then(|| Duration::from_secs(secs))
}

/// Resolves on Ctrl-C or (on Unix) `SIGTERM`, so a supervisor's stop request
/// still shuts the upstream servers down.
pub(crate) async fn interrupted() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(e) => {
                tracing::warn!("cannot watch SIGTERM: {e}");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
