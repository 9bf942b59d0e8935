//! The server's share of a `tools/call` round trip: a raw client that writes
//! pre-encoded JSON-RPC lines and reads reply lines, so (almost) all the time
//! measured is spent in the server under test, toolrouter's or a plain rmcp one.
//! Compare with `roundtrip`, where rmcp's own client costs about as much again.
//!
//! `cargo bench --bench server_only -- --warm-up-time 1 --measurement-time 3`
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServiceExt as _};
use serde_json::json;
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, ReadHalf, WriteHalf};
use toolrouter::{Hub, JsonObject, ServerOptions};

fn schema() -> Arc<JsonObject> {
    let serde_json::Value::Object(map) = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"]
    }) else {
        unreachable!()
    };
    Arc::new(map)
}

fn echo_result(args: &JsonObject) -> CallToolResult {
    let text = args.get("text").and_then(|v| v.as_str()).unwrap_or("");
    CallToolResult::success(vec![ContentBlock::text(text.to_owned())])
}

fn hub() -> Hub {
    let hub = Hub::new();
    hub.registry()
        .register_fn(Tool::new("echo", "echoes its text", schema()), |args, _| async move {
            Ok(echo_result(&args))
        })
        .unwrap();
    hub
}

#[derive(Clone)]
struct RmcpEcho;

impl ServerHandler for RmcpEcho {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![Tool::new("echo", "echoes its text", schema())]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(echo_result(&request.arguments.unwrap_or_default()).into())
    }
}

struct RawClient {
    read: BufReader<ReadHalf<DuplexStream>>,
    write: WriteHalf<DuplexStream>,
    line: String,
    next_id: u64,
}

impl RawClient {
    async fn connect(io: DuplexStream) -> Self {
        let (read, write) = tokio::io::split(io);
        let mut client = Self { read: BufReader::new(read), write, line: String::new(), next_id: 1 };
        client
            .send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#)
            .await;
        let reply = client.recv().await;
        assert!(reply.contains("\"result\""), "{reply}");
        client.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
        client
    }

    async fn send(&mut self, line: &str) {
        self.write.write_all(line.as_bytes()).await.unwrap();
        self.write.write_all(b"\n").await.unwrap();
    }

    async fn recv(&mut self) -> String {
        self.line.clear();
        self.read.read_line(&mut self.line).await.unwrap();
        std::mem::take(&mut self.line)
    }

    async fn drive(&mut self, iters: u64, in_flight: usize) -> Duration {
        let started = Instant::now();
        let mut left = iters as usize;
        let mut batch = String::new();
        while left > 0 {
            let n = left.min(in_flight);
            batch.clear();
            for _ in 0..n {
                batch.push_str(&format!(
                    r#"{{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}}}}}}"#,
                    self.next_id
                ));
                batch.push('\n');
                self.next_id += 1;
            }
            self.write.write_all(batch.as_bytes()).await.unwrap();
            for _ in 0..n {
                let reply = self.recv().await;
                assert!(reply.contains("\"hello\""), "{reply}");
            }
            left -= n;
        }
        started.elapsed()
    }
}

async fn raw_client<S: ServerHandler>(server: S) -> RawClient {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let running = server.serve(server_io).await.unwrap();
        let _ = running.waiting().await;
    });
    RawClient::connect(client_io).await
}

async fn raw_client_ours(hub: Hub) -> RawClient {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_io);
        toolrouter::serve_io(hub, ServerOptions::default(), r, w).await.unwrap();
    });
    RawClient::connect(client_io).await
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut group = c.benchmark_group("server_only");
    let mut ours = rt.block_on(raw_client_ours(hub()));
    let mut rmcp = rt.block_on(raw_client(RmcpEcho));
    for in_flight in [1usize, 16] {
        group.bench_function(format!("stdio_pipe/toolrouter/{in_flight}"), |b| {
            b.iter_custom(|iters| rt.block_on(ours.drive(iters, in_flight)))
        });
        group.bench_function(format!("stdio_pipe/rmcp_echo/{in_flight}"), |b| {
            b.iter_custom(|iters| rt.block_on(rmcp.drive(iters, in_flight)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
