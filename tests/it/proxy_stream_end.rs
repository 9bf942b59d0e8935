//! Where an upstream's answer ends, over real sockets on 127.0.0.1 against
//! an upstream written on raw TCP: the answer ends at the wire's end marker
//! (`data: [DONE]`, Anthropic's `message_stop`) even when the upstream keeps
//! its connection open after it, on every door, streamed and whole; what the
//! upstream sends after the marker is not read; a connection whose body ends
//! soon after goes back to the pool, one whose body does not is not used
//! again. A frame the proxy had to drop (a line over the frame limit,
//! invalid UTF-8) ends the answer with the door's error event, never with a
//! success that lacks it.
//!
//! Each test runs under a 10 s timeout while the proxy's read timeout is
//! 60 s: an answer that waited for the upstream to close would fail the test
//! rather than pass late.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolrouter::{ProxyOptions, ProxyServer};

use crate::proxy::{fold, frames, post, proxy_with, request};

/// Longer than any of these tests may take: a test that waits for it fails.
const READ_TIMEOUT: Duration = Duration::from_secs(60);

/// What a test may take.
const TEST_TIMEOUT: Duration = Duration::from_secs(10);

/// An upstream on raw TCP that answers every request with `body` as one
/// chunk of a chunked answer, then sends nothing more and keeps the
/// connection open; it counts the connections it accepted.
struct HeldOpen {
    base: String,
    connections: Arc<AtomicUsize>,
}

impl HeldOpen {
    async fn start(content_type: &'static str, body: Vec<u8>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(AtomicUsize::new(0));
        let seen = Arc::clone(&connections);
        let body = Arc::new(body);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                seen.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(answer_and_hold(stream, content_type, Arc::clone(&body)));
            }
        });
        Self {
            base: format!("http://{addr}/v1"),
            connections,
        }
    }

    fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

async fn answer_and_hold(mut stream: TcpStream, content_type: &str, body: Arc<Vec<u8>>) {
    read_request(&mut stream).await;
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    stream.write_all(b"\r\n").await.unwrap();
    // No last chunk: the answer's body never ends, the connection stays.
    std::future::pending::<()>().await;
}

/// An upstream on raw TCP that answers each request with `body` as one
/// chunk, and ends the body (its last chunk) a moment later, as a server
/// that writes `[DONE]` and its end separately; it keeps each connection
/// for the next request and counts the connections it accepted.
async fn ends_late(body: Vec<u8>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&connections);
    let body = Arc::new(body);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            seen.fetch_add(1, Ordering::SeqCst);
            let body = Arc::clone(&body);
            tokio::spawn(async move {
                while read_request(&mut stream).await {
                    let head = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n",
                        body.len()
                    );
                    stream.write_all(head.as_bytes()).await.unwrap();
                    stream.write_all(&body).await.unwrap();
                    stream.write_all(b"\r\n").await.unwrap();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    stream.write_all(b"0\r\n\r\n").await.unwrap();
                }
            });
        }
    });
    (format!("http://{addr}/v1"), connections)
}

/// Reads one request's head and `content-length` body; `false` at the end
/// of the connection.
async fn read_request(stream: &mut TcpStream) -> bool {
    let mut buffer = Vec::new();
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |n| n.trim().parse().unwrap());
            if buffer.len() >= end + 4 + length {
                return true;
            }
        }
        let mut chunk = [0u8; 4096];
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
}

/// A proxy with `provider`'s profile in front of `upstream`, one worker (so
/// that its requests share one pool), a long read timeout.
async fn proxy(upstream: &HeldOpen, provider: &str) -> ProxyServer {
    proxy_with(
        ProxyOptions::new("127.0.0.1:0".parse().unwrap(), &upstream.base, provider)
            .with_workers(1)
            .with_read_timeout(READ_TIMEOUT),
    )
    .await
}

/// `data: {chunk}` frames of an OpenAI-compatible answer.
fn sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

/// `Hi`, `stop` and `[DONE]`, then a frame that must not be read.
fn done_then_more() -> Vec<u8> {
    let mut body = sse(&[
        chunk(json!({"role": "assistant", "content": "Hi"}), None),
        chunk(json!({}), Some("stop")),
    ]);
    body.push_str("data: [DONE]\n\n");
    body.push_str(&sse(&[chunk(json!({"content": " after the end"}), None)]));
    body.into_bytes()
}

/// Runs `test` under [`TEST_TIMEOUT`].
async fn within_timeout<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(TEST_TIMEOUT, test)
        .await
        .expect("the answer waited for the upstream to close its connection")
}

/// `POST {proxy}/{path}` with `body`.
async fn post_to(proxy: &ProxyServer, path: &str, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/{path}", proxy.url()))
        .json(body)
        .send()
        .await
        .unwrap()
}

/// The `event:` names and data of an SSE answer.
async fn named_events(response: reqwest::Response) -> Vec<(String, Value)> {
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|frame| {
            let (name, data) = frame.split_once('\n').unwrap();
            let name = name.strip_prefix("event: ").unwrap().to_owned();
            let data = data.strip_prefix("data: ").unwrap();
            (name, serde_json::from_str(data).unwrap())
        })
        .collect()
}

fn messages_request(stream: bool) -> Value {
    json!({"model": "m", "max_tokens": 100, "stream": stream,
           "messages": [{"role": "user", "content": "Hello"}]})
}

fn responses_request(stream: bool) -> Value {
    json!({"model": "m", "input": "Hello", "stream": stream})
}

/// The text of the Messages door's `text_delta`s.
fn messages_text(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter(|(name, _)| name == "content_block_delta")
        .filter_map(|(_, data)| data["delta"]["text"].as_str())
        .collect()
}

/// The text of the Responses door's `response.output_text.delta`s.
fn responses_text(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter(|(name, _)| name == "response.output_text.delta")
        .filter_map(|(_, data)| data["delta"].as_str())
        .collect()
}

#[tokio::test]
async fn a_streamed_answer_ends_at_done_while_the_upstream_keeps_its_connection_open() {
    let upstream = HeldOpen::start("text/event-stream", done_then_more()).await;
    let proxy = proxy(&upstream, "vllm").await;
    within_timeout(async {
        for _ in 0..2 {
            let folded = fold(&frames(post(&proxy, &request(true)).await).await);
            assert_eq!(folded.content, "Hi", "nothing after [DONE] is read");
            assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
            assert_eq!(folded.error, None);
            assert!(folded.done);
        }
    })
    .await;
    // The first answer's connection was not read to its end: the second
    // request could not go on it.
    assert_eq!(upstream.connections(), 2);
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_connection_whose_body_ends_after_the_end_marker_goes_back_to_the_pool() {
    let (base, connections) = ends_late(done_then_more()).await;
    let proxy = proxy_with(
        ProxyOptions::new("127.0.0.1:0".parse().unwrap(), &base, "vllm")
            .with_workers(1)
            .with_read_timeout(READ_TIMEOUT),
    )
    .await;
    within_timeout(async {
        for _ in 0..3 {
            let folded = fold(&frames(post(&proxy, &request(true)).await).await);
            assert_eq!(folded.content, "Hi");
            assert!(folded.done);
            // Time for the body's end, which the client did not wait for.
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    })
    .await;
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_whole_answer_ends_at_done_while_the_upstream_keeps_its_connection_open() {
    let upstream = HeldOpen::start("text/event-stream", done_then_more()).await;
    let proxy = proxy(&upstream, "vllm").await;
    let body: Value = within_timeout(async {
        let response = post(&proxy, &request(false)).await;
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    })
    .await;
    let choice = &body["choices"][0];
    assert_eq!(choice["message"]["content"], "Hi");
    assert_eq!(choice["finish_reason"], "stop");
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_messages_and_responses_doors_end_at_done_too() {
    let upstream = HeldOpen::start("text/event-stream", done_then_more()).await;
    let proxy = proxy(&upstream, "vllm").await;
    within_timeout(async {
        let events = named_events(post_to(&proxy, "messages", &messages_request(true)).await).await;
        assert_eq!(messages_text(&events), "Hi");
        assert_eq!(events.last().unwrap().0, "message_stop");

        let events =
            named_events(post_to(&proxy, "responses", &responses_request(true)).await).await;
        assert_eq!(responses_text(&events), "Hi");
        assert_eq!(events.last().unwrap().0, "response.completed");

        let whole: Value = post_to(&proxy, "messages", &messages_request(false))
            .await
            .json()
            .await
            .unwrap();
        assert_eq!(whole["content"], json!([{"type": "text", "text": "Hi"}]));
        assert_eq!(whole["stop_reason"], "end_turn");
    })
    .await;
    proxy.shutdown().await;
}

/// An Anthropic upstream's answer: `Hi`, `end_turn`, `message_stop`, then
/// an event that must not be read.
fn anthropic_answer() -> Vec<u8> {
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
                   "role": "assistant", "model": "claude", "content": [],
                   "usage": {"input_tokens": 3, "output_tokens": 0}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                   "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": "Hi"}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                   "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                   "delta": {"type": "text_delta", "text": " after the end"}}),
        ),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect::<String>()
        .into_bytes()
}

#[tokio::test]
async fn an_anthropic_upstreams_answer_ends_at_message_stop() {
    let upstream = HeldOpen::start("text/event-stream", anthropic_answer()).await;
    let proxy = proxy(&upstream, "anthropic").await;
    within_timeout(async {
        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.content, "Hi");
        assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
        assert!(folded.done);

        let events = named_events(post_to(&proxy, "messages", &messages_request(true)).await).await;
        assert_eq!(messages_text(&events), "Hi");
        assert_eq!(events.last().unwrap().0, "message_stop");

        let whole: Value = post(&proxy, &request(false)).await.json().await.unwrap();
        assert_eq!(whole["choices"][0]["message"]["content"], "Hi");
    })
    .await;
    proxy.shutdown().await;
}

/// `Hi`, then `frame` (one `data:` payload, as bytes), then the rest of a
/// whole answer.
fn with_frame(frame: &[u8]) -> Vec<u8> {
    let mut body = sse(&[chunk(json!({"role": "assistant", "content": "Hi"}), None)]).into_bytes();
    body.extend_from_slice(b"data: ");
    body.extend_from_slice(frame);
    body.extend_from_slice(b"\n\n");
    body.extend_from_slice(sse(&[chunk(json!({}), Some("stop"))]).as_bytes());
    body.extend_from_slice(b"data: [DONE]\n\n");
    body
}

/// A frame of text over the adapters' 16 MiB frame limit.
fn over_the_frame_limit() -> Vec<u8> {
    let text = "x".repeat(16 * 1024 * 1024);
    chunk(json!({"content": text}), None)
        .to_string()
        .into_bytes()
}

/// A frame whose text holds a byte that is not UTF-8.
fn invalid_utf8() -> Vec<u8> {
    let mut frame = chunk(json!({"content": "a_b"}), None)
        .to_string()
        .into_bytes();
    let at = frame.windows(3).position(|w| w == b"a_b").unwrap() + 1;
    frame[at] = 0xff;
    frame
}

/// The message and code of the error each door ends with, for `frame`.
async fn door_errors(frame: Vec<u8>) -> Vec<(String, Value, Option<Value>)> {
    let upstream = HeldOpen::start("text/event-stream", with_frame(&frame)).await;
    let proxy = proxy(&upstream, "vllm").await;
    let seen = within_timeout(async {
        let mut seen = Vec::new();

        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.content, "Hi");
        assert!(!folded.done, "no [DONE] after an error");
        assert_eq!(folded.finish_reason, None);
        let error = folded.error.unwrap();
        seen.push((
            "chat, streamed".to_owned(),
            error["message"].clone(),
            Some(error["code"].clone()),
        ));

        let response = post(&proxy, &request(false)).await;
        assert_eq!(response.status(), 502);
        let body: Value = response.json().await.unwrap();
        seen.push((
            "chat, whole".to_owned(),
            body["error"]["message"].clone(),
            Some(body["error"]["code"].clone()),
        ));

        let events = named_events(post_to(&proxy, "messages", &messages_request(true)).await).await;
        assert_eq!(messages_text(&events), "Hi");
        let (name, error) = events.last().unwrap();
        assert_eq!(name, "error");
        assert_eq!(error["error"]["type"], "api_error");
        seen.push((
            "messages, streamed".to_owned(),
            error["error"]["message"].clone(),
            None,
        ));

        let events =
            named_events(post_to(&proxy, "responses", &responses_request(true)).await).await;
        assert_eq!(responses_text(&events), "Hi");
        let (name, failed) = events.last().unwrap();
        assert_eq!(name, "response.failed");
        assert_eq!(failed["response"]["status"], "failed");
        let error = &failed["response"]["error"];
        seen.push((
            "responses, streamed".to_owned(),
            error["message"].clone(),
            Some(error["code"].clone()),
        ));
        seen
    })
    .await;
    proxy.shutdown().await;
    seen
}

#[tokio::test]
async fn a_line_over_the_frame_limit_ends_the_answer_with_an_error_on_every_door() {
    let message =
        "the upstream's stream could not be read: frame longer than 16777216 bytes dropped";
    for (door, seen_message, code) in door_errors(over_the_frame_limit()).await {
        assert_eq!(seen_message, message, "{door}");
        if let Some(code) = code {
            assert_eq!(code, "upstream_frame_too_large", "{door}");
        }
    }
}

#[tokio::test]
async fn a_frame_with_invalid_utf8_ends_the_answer_with_an_error_on_every_door() {
    // The frame's bytes up to the bad one: `data: ` is not part of them.
    let at = invalid_utf8().iter().position(|&b| b == 0xff).unwrap();
    let message = format!(
        "the upstream's stream could not be read: frame with invalid UTF-8 at byte {at} dropped"
    );
    for (door, seen_message, code) in door_errors(invalid_utf8()).await {
        assert_eq!(seen_message, message.as_str(), "{door}");
        if let Some(code) = code {
            assert_eq!(code, "upstream_malformed", "{door}");
        }
    }
}
