//! How long many calls in one stream take: through the proxy (the Chat door,
//! structured calls; the Messages door, Hermes calls written in the text),
//! from a stand-in upstream on 127.0.0.1, and through a bare `RouteSession`.
//! The figures in docs/performance.md ("Proxy under hostile input"):
//!
//! ```text
//! cargo run --release --example many_calls -- session 5000 10000 20000 100000
//! cargo run --release --example many_calls -- chat 5000 10000 20000 100000
//! cargo run --release --example many_calls -- messages 10000 20000 40000
//! ```

#![allow(clippy::unwrap_used, missing_docs)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use toolrouter::providers::Wire;
use toolrouter::{DetectConfig, JsonObject, ProxyOptions, RouteSession, ToolCatalog, serve_proxy};

fn structured_body(n: usize) -> String {
    let mut body = String::new();
    for i in 0..n {
        let chunk = json!({"id":"c","object":"chat.completion.chunk","created":1,"model":"m",
            "choices":[{"index":0,"delta":{"tool_calls":[{"index":i,"id":format!("call_{i}"),"type":"function",
            "function":{"name":"get_weather","arguments":"{\"city\":\"P\"}"}}]},"finish_reason":null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    body
}

fn text_body(n: usize) -> String {
    let mut body = String::new();
    for _ in 0..n {
        let text = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\"}}</tool_call>\n";
        let chunk = json!({"id":"c","object":"chat.completion.chunk","created":1,"model":"m",
            "choices":[{"index":0,"delta":{"content":text},"finish_reason":null}]});
        body.push_str(&format!("data: {chunk}\n\n"));
    }
    body.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    body
}

async fn upstream(body: Arc<String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let body = Arc::clone(&body);
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 65536];
                loop {
                    let n = stream.read(&mut chunk).await.unwrap_or(0);
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                        let len: usize = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map_or(0, |n| n.trim().parse().unwrap());
                        if buf.len() >= end + 4 + len {
                            break;
                        }
                    }
                }
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).await.unwrap();
                stream.write_all(body.as_bytes()).await.unwrap();
                let _ = stream.shutdown().await;
            });
        }
    });
    format!("http://{addr}/v1")
}

async fn through_proxy(body: String, door: &str) -> (Duration, usize) {
    let base = upstream(Arc::new(body)).await;
    let proxy = serve_proxy(
        ProxyOptions::new("127.0.0.1:0".parse().unwrap(), &base, "vllm")
            .with_workers(1)
            .with_read_timeout(Duration::from_secs(600))
            .with_max_turn_bytes(1 << 30),
    )
    .await
    .unwrap();
    let (path, request) = if door == "messages" {
        (
            "messages",
            json!({"model":"m","max_tokens":100,"stream":true,
                "messages":[{"role":"user","content":"hi"}],
                "tools":[{"name":"get_weather","input_schema":{"type":"object"}}]}),
        )
    } else {
        (
            "chat/completions",
            json!({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],
                "tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}),
        )
    };
    let started = Instant::now();
    let text = reqwest::Client::new()
        .post(format!("{}/{path}", proxy.url()))
        .json(&request)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let marker = if door == "messages" {
        "\"type\":\"tool_use\""
    } else {
        "\"type\":\"function\""
    };
    let n = text.matches(marker).count();
    proxy.shutdown().await;
    (elapsed, n)
}

fn session(body: &str) -> (Duration, usize) {
    let schema: JsonObject = serde_json::from_str(r#"{"type":"object"}"#).unwrap();
    let catalog = Arc::new(ToolCatalog::from_schemas([("get_weather", &schema)]));
    let started = Instant::now();
    let mut s = RouteSession::new(Wire::OpenAiChat, catalog, DetectConfig::default());
    let mut events = Vec::new();
    let mut ends = 0;
    for piece in body.as_bytes().chunks(4096) {
        s.feed(piece, &mut events);
        ends += events
            .iter()
            .filter(|e| format!("{e:?}").starts_with("Detect(CallEnd"))
            .count();
        events.clear();
    }
    s.finish(&mut events);
    ends += events
        .iter()
        .filter(|e| format!("{e:?}").starts_with("Detect(CallEnd"))
        .count();
    (started.elapsed(), ends)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let what = args.get(1).map(String::as_str).unwrap_or("all");
    let sizes: Vec<usize> = args[2.min(args.len())..]
        .iter()
        .map(|a| a.parse().unwrap())
        .collect();
    let pick = |default: &[usize]| {
        if sizes.is_empty() {
            default.to_vec()
        } else {
            sizes.clone()
        }
    };
    let limit = Duration::from_secs(120);
    if what == "all" || what == "session" {
        for n in pick(&[5_000, 10_000, 20_000, 100_000]) {
            let (t, ends) = session(&structured_body(n));
            println!(
                "session structured {n}: {:.3} s ({ends} ends)",
                t.as_secs_f64()
            );
        }
    }
    if what == "all" || what == "chat" {
        for n in pick(&[5_000, 10_000, 20_000, 100_000]) {
            match tokio::time::timeout(limit, through_proxy(structured_body(n), "chat")).await {
                Ok((t, seen)) => println!(
                    "chat door structured {n}: {:.3} s ({seen} calls)",
                    t.as_secs_f64()
                ),
                Err(_) => println!("chat door structured {n}: over {} s", limit.as_secs()),
            }
        }
    }
    if what == "all" || what == "messages" {
        for n in pick(&[10_000, 20_000, 40_000]) {
            match tokio::time::timeout(limit, through_proxy(text_body(n), "messages")).await {
                Ok((t, seen)) => println!(
                    "messages door text {n}: {:.3} s ({seen} calls)",
                    t.as_secs_f64()
                ),
                Err(_) => println!("messages door text {n}: over {} s", limit.as_secs()),
            }
        }
    }
}
