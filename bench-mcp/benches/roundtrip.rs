//! `tools/call` round trips of an echo tool: in process (the executor), over a
//! stdio-style byte pipe in the same process, over the stdin and stdout of a
//! server in a process of its own (`stdio_process`, how MCP hosts run stdio
//! servers), and over Streamable HTTP on 127.0.0.1, with 1 and 16
//! requests in flight, for toolrouter's server and for a plain rmcp echo server
//! measured in the same run with the same rmcp client.
//!
//! `CARGO_TARGET_DIR=/work/target-exec cargo bench -- --warm-up-time 1 --measurement-time 3`
//!
//! The stateless rows: `http_json_stateless` (JSON replies) and
//! `http_sse_stateless` (SSE replies) for both servers; rmcp's stateless JSON
//! mode is the baseline of the HTTP target.
#![allow(clippy::unwrap_used)]

mod echo;

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use echo::{RmcpEcho, hub, rmcp_http, toolrouter_http};
use rmcp::ServiceExt as _;
use rmcp::handler::server::ServerHandler;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;
use toolrouter::{ServerOptions, ToolCall, WireFormat};

type Client = RunningService<RoleClient, ()>;

fn call_params() -> CallToolRequestParams {
    let serde_json::Value::Object(args) = json!({ "text": "hello" }) else {
        unreachable!()
    };
    CallToolRequestParams::new("echo").with_arguments(args)
}

/// Runs `iters` calls with `in_flight` outstanding at a time; returns the time
/// per call batch so criterion reports time per call.
async fn drive(client: &Client, iters: u64, in_flight: usize) -> Duration {
    let started = Instant::now();
    let mut left = iters as usize;
    while left > 0 {
        let n = left.min(in_flight);
        let calls = (0..n).map(|_| client.call_tool(call_params()));
        for result in futures::future::join_all(calls).await {
            assert_eq!(result.unwrap().is_error, Some(false));
        }
        left -= n;
    }
    started.elapsed()
}

async fn pipe_client<S: ServerHandler>(server: S) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.unwrap()
}

/// A client of `echo_server SERVER stdio`, a server in a process of its own
/// reached over its stdin and stdout, as an MCP host starts a stdio server.
/// `ECHO_SERVER_BIN` runs another build of `echo_server` (A/B comparisons).
async fn process_client(server: &str) -> Client {
    let bin = std::env::var_os("ECHO_SERVER_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_echo_server").into());
    let mut command = tokio::process::Command::new(bin);
    command.args([server, "stdio"]);
    ().serve(TokioChildProcess::new(command).unwrap())
        .await
        .unwrap()
}

async fn http_client(url: String) -> Client {
    ().serve(StreamableHttpClientTransport::from_uri(url))
        .await
        .unwrap()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("tools_call");

    let hub = hub();
    let call = ToolCall::new(
        "c1",
        "echo",
        Some(call_params().arguments.unwrap()),
        WireFormat::OpenAiFunction,
    );
    group.bench_function("in_process/toolrouter/1", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    let result = hub.execute(&call).await;
                    assert_eq!(result.is_error, Some(false));
                }
                started.elapsed()
            })
        })
    });

    // Our stdio server as `toolrouter serve --stdio` runs it (`serve_io`: its
    // own line reader and direct path), not `McpServer` under rmcp's loop.
    let ours_pipe = rt.block_on(async {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let hub = hub.clone();
        tokio::spawn(async move {
            let (read, write) = tokio::io::split(server_io);
            toolrouter::serve_io(hub, ServerOptions::default(), read, write)
                .await
                .unwrap();
        });
        ().serve(client_io).await.unwrap()
    });
    let rmcp_pipe = rt.block_on(pipe_client(RmcpEcho));
    let ours_process = rt.block_on(process_client("toolrouter"));
    let rmcp_process = rt.block_on(process_client("rmcp"));
    let url = |addr: std::net::SocketAddr| format!("http://{addr}/mcp");
    let ours_sse = rt.block_on(async {
        http_client(url(toolrouter_http(hub.clone(), false, true).await)).await
    });
    let ours_json = rt.block_on(async {
        http_client(url(toolrouter_http(hub.clone(), true, false).await)).await
    });
    let ours_sse_stateless = rt.block_on(async {
        http_client(url(toolrouter_http(hub.clone(), false, false).await)).await
    });
    let rmcp_sse = rt.block_on(async { http_client(url(rmcp_http(false, true).await)).await });
    let rmcp_json = rt.block_on(async { http_client(url(rmcp_http(true, false).await)).await });
    let rmcp_sse_stateless =
        rt.block_on(async { http_client(url(rmcp_http(false, false).await)).await });

    for in_flight in [1usize, 16] {
        for (name, client) in [
            ("stdio_pipe/toolrouter", &ours_pipe),
            ("stdio_pipe/rmcp_echo", &rmcp_pipe),
            ("stdio_process/toolrouter", &ours_process),
            ("stdio_process/rmcp_echo", &rmcp_process),
            ("http_sse_session/toolrouter", &ours_sse),
            ("http_sse_session/rmcp_echo", &rmcp_sse),
            ("http_json_stateless/toolrouter", &ours_json),
            ("http_json_stateless/rmcp_echo", &rmcp_json),
            ("http_sse_stateless/toolrouter", &ours_sse_stateless),
            ("http_sse_stateless/rmcp_echo", &rmcp_sse_stateless),
        ] {
            group.bench_function(format!("{name}/{in_flight}"), |b| {
                b.iter_custom(|iters| rt.block_on(drive(client, iters, in_flight)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
