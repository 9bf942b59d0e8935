//! The server's share of a `tools/call` round trip: a raw client that writes
//! pre-encoded JSON-RPC lines and reads reply lines, so (almost) all the time
//! measured is spent in the server under test, toolrouter's or a plain rmcp one.
//! Compare with `roundtrip`, where rmcp's own client costs about as much again.
//!
//! The `http_*` rows do the same over Streamable HTTP in stateless mode: a raw
//! HTTP/1.1 client writes a pre-encoded `tools/call` POST and reads the reply
//! (JSON with a `Content-Length`, or a chunked or sized SSE body), either on one
//! kept-alive connection per in-flight slot (`keepalive`) or on a new
//! connection per call (`connect`, what rmcp's own client does: its default
//! reqwest client keeps no idle connections).
//!
//! The `*_process` rows run each server in a process of its own
//! (`echo_server`, this crate's binary), as a deployed server runs, and drive
//! it from a client on a current-thread runtime: the thread that waits for a
//! reply is the one that reads it, so the client adds no thread hand-offs of
//! its own (on the multi-threaded runtime, `block_on` parks the bench thread
//! and a worker wakes it for every reply). The other HTTP rows share the
//! bench's multi-threaded runtime with the client. Two floors run
//! beside them: `floor`, a bare tokio loop answering each request with a fixed
//! reply (the loopback round trip and the runtime's wake-ups, nothing else),
//! and `floor_hyper`, hyper's HTTP/1 server reading the body and sending the
//! same fixed reply (what any server on rmcp's HTTP stack costs at least).
//!
//! `cargo bench --bench server_only -- --warm-up-time 1 --measurement-time 3`
//!
//! With one call in flight between processes, where the client and the server
//! run decides most of the time on a small VM: waking a halted vCPU costs
//! more than the work of a call (docs/performance.md). `taskset -c 0 cargo
//! bench ...` puts the bench and its servers on one vCPU, which leaves the
//! servers' own work to compare.
#![allow(clippy::unwrap_used)]

mod echo;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use echo::{RmcpEcho, hub, rmcp_http, toolrouter_http};
use rmcp::ServiceExt as _;
use rmcp::handler::server::ServerHandler;
use tokio::io::{
    AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, ReadHalf,
    WriteHalf,
};
use tokio::net::TcpStream;
use toolrouter::{Hub, ServerOptions};

struct RawClient {
    read: BufReader<ReadHalf<DuplexStream>>,
    write: WriteHalf<DuplexStream>,
    line: String,
    next_id: u64,
}

impl RawClient {
    async fn connect(io: DuplexStream) -> Self {
        let (read, write) = tokio::io::split(io);
        let mut client = Self {
            read: BufReader::new(read),
            write,
            line: String::new(),
            next_id: 1,
        };
        client
            .send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#)
            .await;
        let reply = client.recv().await;
        assert!(reply.contains("\"result\""), "{reply}");
        client
            .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
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
        toolrouter::serve_io(hub, ServerOptions::default(), r, w)
            .await
            .unwrap();
    });
    RawClient::connect(client_io).await
}

/// An HTTP endpoint and the pre-encoded requests calls send to it: one for a
/// stateless server, one per in-flight slot (each its own session, as a
/// separate client) for a server with sessions.
#[derive(Clone)]
struct HttpTarget {
    addr: std::net::SocketAddr,
    requests: Arc<Vec<Vec<u8>>>,
    /// The server runs in a process of its own (driven by the lean client).
    own_process: bool,
}

impl HttpTarget {
    fn new(addr: std::net::SocketAddr) -> Self {
        Self {
            addr,
            requests: Arc::new(vec![call_request(addr, None)]),
            own_process: false,
        }
    }

    /// A server with sessions: `slots` sessions opened (initialize, then
    /// initialized), one per in-flight slot.
    fn with_sessions(addr: std::net::SocketAddr, slots: usize) -> Self {
        let requests = (0..slots)
            .map(|_| call_request(addr, Some(&open_session(addr))))
            .collect();
        Self {
            addr,
            requests: Arc::new(requests),
            own_process: false,
        }
    }

    async fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(self.addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        stream
    }

    /// One call of slot `slot` on `stream`; `buf` is scratch space.
    async fn call(&self, slot: usize, stream: &mut TcpStream, buf: &mut Vec<u8>) {
        let request = &self.requests[slot % self.requests.len()];
        stream.write_all(request).await.unwrap();
        buf.clear();
        loop {
            let mut chunk = [0u8; 4096];
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(
                n > 0,
                "connection closed mid-reply: {}",
                String::from_utf8_lossy(buf)
            );
            buf.extend_from_slice(&chunk[..n]);
            if reply_complete(buf) {
                break;
            }
        }
        assert!(
            memchr::memmem::find(buf, b"\"hello\"").is_some(),
            "{}",
            String::from_utf8_lossy(buf)
        );
    }

    async fn drive(&self, iters: u64, in_flight: usize, keepalive: bool) -> Duration {
        let started = Instant::now();
        let per_slot = (iters as usize).div_ceil(in_flight);
        let slots = (0..in_flight).map(|slot| async move {
            let mut buf = Vec::with_capacity(4096);
            let mut stream = if keepalive {
                Some(self.connect().await)
            } else {
                None
            };
            for _ in 0..per_slot {
                match &mut stream {
                    Some(stream) => self.call(slot, stream, &mut buf).await,
                    None => self.call(slot, &mut self.connect().await, &mut buf).await,
                }
            }
        });
        futures::future::join_all(slots).await;
        started
            .elapsed()
            .mul_f64(iters as f64 / (per_slot * in_flight) as f64)
    }
}

/// The pre-encoded `tools/call` of `echo`, in session `session` if given.
fn call_request(addr: std::net::SocketAddr, session: Option<&str>) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
    let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\n{session}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Opens a session on `addr` as a client without capabilities does; its id.
fn open_session(addr: std::net::SocketAddr) -> String {
    use std::io::{Read as _, Write as _};
    let post = |body: &str, session: Option<&str>| {
        let session = session.map_or(String::new(), |id| format!("Mcp-Session-Id: {id}\r\n"));
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2025-11-25\r\n{session}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply
    };
    let reply = post(
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
        None,
    );
    let id = reply
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id in {reply}"));
    let reply = post(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        Some(&id),
    );
    assert!(reply.starts_with("HTTP/1.1 202"), "{reply}");
    id
}

/// Whether `buf` holds a whole HTTP/1.1 reply (sized or chunked).
fn reply_complete(buf: &[u8]) -> bool {
    let Some(head_end) = memchr::memmem::find(buf, b"\r\n\r\n") else {
        return false;
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    if let Some(length) = head.lines().find_map(|l| l.strip_prefix("content-length:")) {
        return buf.len() >= head_end + 4 + length.trim().parse::<usize>().unwrap();
    }
    buf.ends_with(b"\r\n0\r\n\r\n")
}

/// A server in a process of its own (`echo_server`), as deployed; the
/// child ends when its stdin closes, that is when the bench process exits.
fn http_process(server: &str, reply: &str) -> HttpTarget {
    let addr = spawn_echo_server(server, reply);
    HttpTarget {
        own_process: true,
        ..HttpTarget::new(addr)
    }
}

/// [`http_process`] with sessions: one per in-flight slot.
fn http_session_process(server: &str, slots: usize) -> HttpTarget {
    let addr = spawn_echo_server(server, "session");
    HttpTarget {
        own_process: true,
        ..HttpTarget::with_sessions(addr, slots)
    }
}

/// Starts `echo_server SERVER REPLY`; its address. `toolrouter_base` is
/// toolrouter served by the `echo_server` binary `BENCH_MCP_BASE_SERVER`
/// names (one built from another commit), for before/after rows in one run.
fn spawn_echo_server(server: &str, reply: &str) -> std::net::SocketAddr {
    use std::io::BufRead as _;
    let (binary, server) = match server {
        "toolrouter_base" => (
            std::env::var("BENCH_MCP_BASE_SERVER").unwrap(),
            "toolrouter",
        ),
        _ => (env!("CARGO_BIN_EXE_echo_server").to_owned(), server),
    };
    let mut child = std::process::Command::new(binary)
        .args([server, reply])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    std::mem::forget(child);
    line.trim().parse().unwrap()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let client_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
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
    let targets = rt.block_on(async {
        [
            (
                "http_json_stateless/toolrouter",
                HttpTarget::new(toolrouter_http(hub(), true, false).await),
            ),
            (
                "http_json_stateless/rmcp_echo",
                HttpTarget::new(rmcp_http(true, false).await),
            ),
            (
                "http_sse_stateless/toolrouter",
                HttpTarget::new(toolrouter_http(hub(), false, false).await),
            ),
            (
                "http_sse_stateless/rmcp_echo",
                HttpTarget::new(rmcp_http(false, false).await),
            ),
            (
                "http_json_stateless_process/floor",
                http_process("floor", "json"),
            ),
            (
                "http_json_stateless_process/floor_hyper",
                http_process("floor_hyper", "json"),
            ),
            (
                "http_json_stateless_process/toolrouter",
                http_process("toolrouter", "json"),
            ),
            (
                "http_json_stateless_process/rmcp_echo",
                http_process("rmcp", "json"),
            ),
            (
                "http_sse_stateless_process/toolrouter",
                http_process("toolrouter", "sse"),
            ),
            (
                "http_sse_stateless_process/rmcp_echo",
                http_process("rmcp", "sse"),
            ),
            (
                "http_sse_session_process/toolrouter",
                http_session_process("toolrouter", 16),
            ),
            (
                "http_sse_session_process/rmcp_echo",
                http_session_process("rmcp", 16),
            ),
        ]
    });
    let mut targets = targets.to_vec();
    if std::env::var_os("BENCH_MCP_BASE_SERVER").is_some() {
        targets.push((
            "http_sse_session_process/toolrouter_base",
            http_session_process("toolrouter_base", 16),
        ));
    }
    for keepalive in [true, false] {
        let mode = if keepalive { "keepalive" } else { "connect" };
        for in_flight in [1usize, 16] {
            for (name, target) in &targets {
                // Servers in processes of their own get the lean client.
                let client = if target.own_process { &client_rt } else { &rt };
                group.bench_function(format!("{name}/{mode}/{in_flight}"), |b| {
                    b.iter_custom(|iters| {
                        client.block_on(target.drive(iters, in_flight, keepalive))
                    })
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
