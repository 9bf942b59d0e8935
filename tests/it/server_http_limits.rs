//! The Streamable HTTP server's header, body and idle
//! timeouts and its connection cap, on raw loopback sockets.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::json;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use toolrouter::{HttpOptions, HttpServer, Hub, ServerOptions, serve_http};

/// Long enough that a test waiting on it never fails on a slow machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// A short timeout, set through the options so the tests run in seconds.
const SHORT: Duration = Duration::from_millis(300);

/// Options whose timeouts are all long (so only the one under test fires).
fn relaxed() -> HttpOptions {
    HttpOptions::new("127.0.0.1:0".parse().unwrap())
        .with_header_timeout(PATIENCE * 3)
        .with_body_timeout(PATIENCE * 3)
        .with_idle_timeout(PATIENCE * 3)
}

/// `stream`: a progress notification, then 1.5 s of work, then `stream done`.
fn hub() -> Hub {
    let hub = Hub::new();
    let schema = serde_json::from_value(json!({ "type": "object" })).unwrap();
    hub.registry()
        .register_fn(
            Tool::new("stream", "streams for a while", std::sync::Arc::new(schema)),
            |_, ctx| async move {
                ctx.progress(1.0, None, Some("started".to_owned())).await;
                tokio::time::sleep(Duration::from_millis(1500)).await;
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "stream done",
                )]))
            },
        )
        .unwrap();
    hub
}

async fn start(options: HttpOptions) -> HttpServer {
    serve_http(hub(), ServerOptions::default(), options)
        .await
        .unwrap()
}

async fn connect(server: &HttpServer) -> TcpStream {
    TcpStream::connect(server.local_addr()).await.unwrap()
}

/// Reads until `needle` has arrived; what was read.
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut got = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains(needle) {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(
                n > 0,
                "closed before {needle:?}: {}",
                String::from_utf8_lossy(&got)
            );
            got.extend_from_slice(&buf[..n]);
        }
    })
    .await;
    let got = String::from_utf8_lossy(&got).into_owned();
    assert!(read.is_ok(), "no {needle:?} in time: {got}");
    got
}

/// Whether the server closes the connection (reads on until it does).
async fn is_closed_by_server(stream: &mut TcpStream) -> bool {
    tokio::time::timeout(PATIENCE, async {
        let mut buf = [0u8; 4096];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await
    .is_ok()
}

/// A request whose answer is a small 404 (a path nobody serves).
const SMALL_REQUEST: &[u8] = b"GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

async fn small_request_is_answered(stream: &mut TcpStream) {
    stream.write_all(SMALL_REQUEST).await.unwrap();
    let head = read_until(stream, "\r\n\r\n").await;
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
}

#[tokio::test]
async fn a_half_sent_header_is_closed_after_the_header_timeout() {
    let server = start(relaxed().with_header_timeout(SHORT)).await;
    let mut stream = connect(&server).await;
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    assert!(is_closed_by_server(&mut stream).await);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_half_sent_body_is_closed_after_the_body_timeout() {
    let server = start(relaxed().with_body_timeout(SHORT)).await;
    let mut stream = connect(&server).await;
    stream
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n\
Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":",
        )
        .await
        .unwrap();
    assert!(is_closed_by_server(&mut stream).await);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed_but_a_streaming_reply_is_not() {
    let server = start(
        relaxed()
            .with_sessions(false)
            .with_header_timeout(SHORT)
            .with_idle_timeout(SHORT),
    )
    .await;
    let mut stream = connect(&server).await;
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "stream", "arguments": {}, "_meta": { "progressToken": "p" } }
    })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json, text/event-stream\r\n\
Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // The SSE reply streams for 1.5 s, five idle timeouts: it is not cut.
    read_until(&mut stream, "notifications/progress").await;
    read_until(&mut stream, "stream done").await;
    // Then the connection is idle, and closed.
    assert!(is_closed_by_server(&mut stream).await);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn connections_over_the_cap_get_503_and_retry_after() {
    let server = start(relaxed().with_max_connections(2)).await;
    let mut first = connect(&server).await;
    let mut second = connect(&server).await;
    small_request_is_answered(&mut first).await;
    small_request_is_answered(&mut second).await;

    let mut third = connect(&server).await;
    let refusal = read_until(&mut third, "\r\n\r\n").await;
    assert!(refusal.starts_with("HTTP/1.1 503"), "{refusal}");
    assert!(refusal.contains("Retry-After: 1\r\n"), "{refusal}");
    assert!(is_closed_by_server(&mut third).await);

    // The two open connections still work.
    small_request_is_answered(&mut first).await;
    small_request_is_answered(&mut second).await;

    // Once one closes, a new one is served (when the server has seen it go).
    drop(first);
    let served = tokio::time::timeout(PATIENCE, async {
        loop {
            let mut next = connect(&server).await;
            next.write_all(SMALL_REQUEST).await.unwrap();
            let mut head = [0u8; 12];
            if next.read_exact(&mut head).await.is_ok() && head.starts_with(b"HTTP/1.1 404") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(served.is_ok(), "no connection served after one closed");
    server.shutdown().await.unwrap();
}

/// POSTs `initialize`; the status, the `Retry-After` header, the session id
/// and the body.
async fn initialize(server: &HttpServer) -> (u16, Option<String>, Option<String>, String) {
    let response = reqwest::Client::new()
        .post(server.url())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "t", "version": "1" }
                }
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let (retry_after, session) = (header("retry-after"), header("mcp-session-id"));
    let status = response.status().as_u16();
    (status, retry_after, session, response.text().await.unwrap())
}

/// The status of a `tools/list` in `session`.
async fn list_in(server: &HttpServer, session: &str) -> u16 {
    reqwest::Client::new()
        .post(server.url())
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn sessions_over_the_cap_are_refused_with_a_json_rpc_error() {
    let server = start(relaxed().with_max_sessions(2)).await;
    let (status, _, first, _) = initialize(&server).await;
    assert_eq!(status, 200);
    let (status, _, _, _) = initialize(&server).await;
    assert_eq!(status, 200);

    let (status, retry_after, session, body) = initialize(&server).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(retry_after.as_deref(), Some("1"));
    assert_eq!(session, None);
    let reply: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["error"]["code"], -32000, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("too many sessions"),
        "{reply}"
    );

    // Ending a session makes room for a new one.
    let ended = reqwest::Client::new()
        .delete(server.url())
        .header("Mcp-Session-Id", first.unwrap())
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(ended.status().is_success());
    let (status, _, session, body) = initialize(&server).await;
    assert_eq!(status, 200, "{body}");
    assert!(session.is_some());
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_session_expires() {
    let server = start(relaxed().with_session_idle_expiry(SHORT)).await;
    let (status, _, session, _) = initialize(&server).await;
    assert_eq!(status, 200);
    let session = session.unwrap();
    let expired = tokio::time::timeout(PATIENCE, async {
        while list_in(&server, &session).await != 404 {
            tokio::time::sleep(SHORT * 2).await;
        }
    })
    .await;
    assert!(expired.is_ok(), "the idle session never expired");
    server.shutdown().await.unwrap();
}
