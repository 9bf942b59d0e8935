//! A server answering the benches' `echo` tool in a process of its own, as a
//! deployed server runs: `echo_server toolrouter|rmcp|floor|floor_hyper json|sse|stdio`.
//!
//! - `json`, `sse`: stateless Streamable HTTP with that reply type; `session`:
//!   Streamable HTTP with sessions (SSE replies). It binds 127.0.0.1 on a free
//!   port, prints the address on stdout, and serves until its stdin closes.
//! - `stdio` (`toolrouter` or `rmcp` only): MCP over its own stdin and stdout,
//!   as a client such as Claude Desktop starts it; ours runs `serve_stdio` (what
//!   `toolrouter serve --stdio` runs), rmcp's its `transport::stdio()`.
//!
//! `ECHO_RUNTIME=current_thread` runs it on one thread instead of tokio's
//! multi-threaded runtime.
#![allow(clippy::unwrap_used)]

#[path = "../../benches/echo/mod.rs"]
mod echo;

use std::sync::Arc;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

fn main() {
    // `ECHO_RUNTIME=current_thread` runs the server on one thread; the default
    // is tokio's multi-threaded runtime with a worker per CPU.
    let mut runtime = match std::env::var("ECHO_RUNTIME").as_deref() {
        Ok("current_thread") => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    runtime.enable_all().build().unwrap().block_on(serve());
}

async fn serve() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [server, reply] = args.as_slice() else {
        panic!("usage: echo_server toolrouter|rmcp|floor|floor_hyper json|sse|session|stdio");
    };
    if reply == "stdio" {
        return serve_stdio(server).await;
    }
    let (json_response, sessions) = match reply.as_str() {
        "json" => (true, false),
        "sse" => (false, false),
        "session" => (false, true),
        other => panic!("unknown reply mode {other}"),
    };
    let addr = match server.as_str() {
        "toolrouter" => echo::toolrouter_http(echo::hub(), json_response, sessions).await,
        "rmcp" => echo::rmcp_http(json_response, sessions).await,
        "floor" => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(floor(listener, json_response));
            addr
        }
        "floor_hyper" => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            tokio::spawn(floor_hyper(listener, json_response));
            addr
        }
        other => panic!("unknown server {other}"),
    };
    println!("{addr}");
    let mut sink = Vec::new();
    let _ = tokio::io::stdin().read_to_end(&mut sink).await;
}

/// Serves MCP over this process's stdin and stdout until the client closes it.
async fn serve_stdio(server: &str) {
    use rmcp::ServiceExt as _;
    match server {
        "toolrouter" => toolrouter::serve_stdio(echo::hub(), toolrouter::ServerOptions::default())
            .await
            .unwrap(),
        "rmcp" => {
            let running = echo::RmcpEcho
                .serve(rmcp::transport::stdio())
                .await
                .unwrap();
            let _ = running.waiting().await;
        }
        other => panic!("no stdio server {other}"),
    }
}

/// The floor: no MCP, no HTTP framework. Each request (headers and a sized
/// body) is answered with a fixed reply shaped like a `tools/call` result, so
/// what is left is the loopback round trip and the runtime's wake-ups.
async fn floor(listener: tokio::net::TcpListener, json_response: bool) {
    let (content_type, body) = fixed_reply(json_response);
    let reply = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let reply: Arc<[u8]> = reply.into_bytes().into();
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let reply = reply.clone();
        tokio::spawn(async move {
            let mut buf = Vec::with_capacity(4096);
            loop {
                let mut chunk = [0u8; 4096];
                let Ok(n) = stream.read(&mut chunk).await else {
                    return;
                };
                if n == 0 {
                    return;
                }
                buf.extend_from_slice(&chunk[..n]);
                while let Some(len) = request_len(&buf) {
                    buf.drain(..len);
                    if stream.write_all(&reply).await.is_err() {
                        return;
                    }
                }
            }
        });
    }
}

/// The length of the whole request at the start of `buf`, once it is there.
fn request_len(buf: &[u8]) -> Option<usize> {
    let head_end = buf.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&buf[..head_end])
        .ok()?
        .to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))?
        .trim()
        .parse()
        .ok()?;
    (buf.len() >= head_end + length).then_some(head_end + length)
}

/// The content type and body of a `tools/call` result as the servers send it.
fn fixed_reply(json_response: bool) -> (&'static str, String) {
    let body = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}"#;
    if json_response {
        ("application/json", body.to_owned())
    } else {
        ("text/event-stream", format!("data: {body}\n\n"))
    }
}

/// The floor of hyper's HTTP/1 server alone: each request's body is read and
/// the fixed reply sent.
async fn floor_hyper(listener: tokio::net::TcpListener, json_response: bool) {
    use http_body_util::BodyExt as _;
    let (content_type, body) = fixed_reply(json_response);
    let body = axum::body::Bytes::from(body);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let body = body.clone();
        let service =
            hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
                let body = body.clone();
                async move {
                    let request = request.into_body().collect().await?.to_bytes();
                    assert!(!request.is_empty());
                    let mut response = http::Response::new(http_body_util::Full::new(body));
                    response.headers_mut().insert(
                        http::header::CONTENT_TYPE,
                        http::HeaderValue::from_static(content_type),
                    );
                    Ok::<_, hyper::Error>(response)
                }
            });
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}
