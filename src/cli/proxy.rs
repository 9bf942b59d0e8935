//! `toolrouter proxy`: an OpenAI-compatible API (Chat Completions and
//! Responses, and Anthropic's Messages API) in front of a model server,
//! whose answers come back through the router (`toolrouter::serve_proxy`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use toolrouter::{
    DEFAULT_BODY_TIMEOUT, DEFAULT_CONNECT_TIMEOUT, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_STEPS, DEFAULT_MAX_TURN_BYTES,
    DetectConfig, ProxyOptions, UpstreamKey, serve_proxy,
};

use super::detect_args::DetectArgs;
use super::help::examples;
use super::names::PROVIDER;
use super::serve::{interrupted, seconds, token};
use super::setup::{ToolSetup, ToolSetupArgs, Upstreams, runtime};
use super::size::{parse_size, show_size};

/// The help's examples.
const EXAMPLES: &str = r#"
  # In front of a local vLLM server; clients use http://127.0.0.1:4000/v1
  toolrouter proxy --listen 127.0.0.1:4000 --upstream http://127.0.0.1:8000/v1 --provider vllm
  # In front of Anthropic (ANTHROPIC_API_KEY), for OpenAI SDK clients too
  toolrouter proxy --listen 127.0.0.1:4000 --upstream https://api.anthropic.com --provider anthropic
  # The clients' own keys go upstream; the proxy runs the built-in tools itself
  toolrouter proxy --listen 127.0.0.1:4000 --upstream https://api.openai.com/v1 --provider openai --forward-key --builtins
  # On the network: a token, and a larger request limit
  toolrouter proxy --listen 0.0.0.0:4000 --allow-remote --token "$TOKEN" --upstream http://10.0.0.5:8000/v1 --provider llamacpp --max-request-bytes 64MiB
"#;

/// Arguments of `toolrouter proxy`.
#[derive(Debug, Args)]
#[command(after_help = examples(EXAMPLES))]
pub(crate) struct ProxyArgs {
    /// Listen at ADDR (loopback by default; port 0 picks a free port). The
    /// OpenAI SDKs' base URL is `http://ADDR/v1` (`POST /v1/chat/completions`,
    /// `POST /v1/responses`), the Anthropic SDKs' `http://ADDR`
    /// (`POST /v1/messages`).
    #[arg(long, value_name = "ADDR")]
    listen: SocketAddr,
    /// The upstream's base URL, as its SDK takes it
    /// (`http://127.0.0.1:8000/v1`); chat requests go to
    /// `{URL}/chat/completions`, model lists to `{URL}/models`.
    #[arg(long, value_name = "URL")]
    upstream: String,
    /// The upstream's provider: a profile (its name or one of its other
    /// names) or a wire a profile offers (`openai-responses`,
    /// `ollama-openai`). Its API is the one requests are translated to, its
    /// dialects are detected in the text and its key variable is read
    /// (Bedrock: a Bedrock API key; no SigV4).
    #[arg(long, value_name = "NAME", value_parser = PROVIDER)]
    provider: String,
    /// Require `Authorization: Bearer TOKEN` (or `x-api-key: TOKEN`) on every
    /// request (an empty or blank TOKEN is refused).
    #[arg(long, value_name = "TOKEN", value_parser = token)]
    token: Option<String>,
    /// Allow a non-loopback --listen (needs --token).
    #[arg(long)]
    allow_remote: bool,
    /// Send the client's own key upstream (`Authorization: Bearer`, else
    /// `x-api-key`) instead of the profile's environment variable.
    #[arg(long, conflicts_with = "token")]
    forward_key: bool,
    /// Threads serving requests, each with its own accept loop and upstream
    /// client (default: one per CPU); they share one connection cap.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    workers: Option<u16>,
    /// Seconds a client has to send a request's head (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_HEADER_TIMEOUT.as_secs())]
    header_timeout: u64,
    /// Seconds a client has to send a request's body, from its head (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_BODY_TIMEOUT.as_secs())]
    body_timeout: u64,
    /// Seconds a keep-alive connection may sit idle (a streaming answer is
    /// not idle) before it is closed (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_IDLE_TIMEOUT.as_secs())]
    idle_timeout: u64,
    /// Open connections at most, over all workers; one more gets `503` with
    /// `Retry-After: 1` (0: no cap).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    max_connections: usize,
    /// The largest request body accepted (`413` past it).
    #[arg(long, value_name = "SIZE", value_parser = parse_size::<usize>,
          default_value = show_size(DEFAULT_MAX_REQUEST_BYTES))]
    max_request_bytes: usize,
    /// The most bytes of one upstream answer read; past it the answer ends
    /// with an error.
    #[arg(long, value_name = "SIZE", value_parser = parse_size::<usize>,
          default_value = show_size(DEFAULT_MAX_TURN_BYTES))]
    max_turn_bytes: usize,
    /// Seconds the upstream may send nothing before its request is given up
    /// (0: no limit).
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    read_timeout: u64,
    /// Seconds a new connection to the upstream may take.
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_CONNECT_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    connect_timeout: u64,
    /// For an upstream without tool support: teach the request's tools in the
    /// system prompt (the XML tag convention) instead of declaring them, and
    /// send earlier calls and results upstream as text.
    #[arg(long)]
    text_tools: bool,
    /// With --text-tools, on a server that takes a grammar (the llamacpp,
    /// vllm and sglang profiles): send a grammar of the request's tools so
    /// that its calls are valid. `auto`: when `tool_choice` is `required` or
    /// names a tool; `always`: also for `auto`; `off`: never.
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = ["off", "auto", "always"])]
    constrain: String,
    /// Server-side tools: the MCP servers of this configuration (an
    /// `mcpServers` JSON file or a `toolrouter.toml`). Their tools join every
    /// request's tools; the proxy runs their calls and continues upstream.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Server-side tools: the built-in tools (read-only ones unless
    /// `--allow-write`).
    #[arg(long)]
    builtins: bool,
    /// Root of the built-in file tools (default: the configuration's
    /// `workspace`, else the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Declare the built-in tools that change files.
    #[arg(long)]
    allow_write: bool,
    /// The most rounds of server-side calls one request may take.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    max_steps: usize,
    /// Detector options.
    #[command(flatten)]
    detect: DetectArgs,
}

/// Runs the proxy until the process is interrupted.
pub(crate) fn run(args: ProxyArgs) -> Result<(), String> {
    // The profile's dialects are added by the proxy itself.
    let detect = args.detect.config(DetectConfig::default(), &[])?;
    let mut options = ProxyOptions::new(args.listen, args.upstream.clone(), &args.provider)
        .allow_remote(args.allow_remote)
        .with_detect_config(detect)
        .with_header_timeout(seconds(args.header_timeout))
        .with_body_timeout(seconds(args.body_timeout))
        .with_idle_timeout(seconds(args.idle_timeout))
        .with_max_connections((args.max_connections > 0).then_some(args.max_connections))
        .with_max_request_bytes(args.max_request_bytes)
        .with_max_turn_bytes(args.max_turn_bytes)
        .with_read_timeout(seconds(args.read_timeout))
        .with_connect_timeout(Duration::from_secs(args.connect_timeout))
        .with_text_tools(args.text_tools)
        .with_constrain(args.constrain.parse()?)
        .with_max_steps(args.max_steps)
        .with_workers(args.workers.map(usize::from));
    if let Some(token) = &args.token {
        options = options.with_bearer_token(token.clone());
    }
    if args.forward_key {
        options = options.with_upstream_key(UpstreamKey::Forward);
    }
    runtime()?.block_on(async {
        let setup = if args.config.is_some() || args.builtins {
            let tools = ToolSetupArgs {
                workspace: args.workspace.clone(),
                tools: None,
                config: args.config.clone(),
                no_builtins: !args.builtins,
                allow_write: args.allow_write,
            };
            let setup = ToolSetup::build(&tools, Upstreams::Background).await?;
            options = options.with_server_tools(setup.hub.clone());
            Some(setup)
        } else {
            None
        };
        let served = serve(options).await;
        if let Some(setup) = setup {
            setup.shutdown().await;
        }
        served
    })
}

/// Serves until interrupted.
async fn serve(options: ProxyOptions) -> Result<(), String> {
    let proxy = serve_proxy(options).await.map_err(|e| e.to_string())?;
    super::log::status(format_args!(
        "proxying at {} -> {}",
        proxy.url(),
        proxy.upstream()
    ));
    let stop = proxy.shutdown_token();
    tokio::select! {
        () = interrupted() => stop.cancel(),
        () = stop.cancelled() => {}
    }
    proxy.wait().await;
    Ok(())
}
