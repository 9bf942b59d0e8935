//! The proxy's own connections to a plain-`http` upstream, over real sockets
//! on 127.0.0.1, against an upstream written on raw TCP so that its
//! connections can be counted, closed and stalled: requests in a row share
//! one kept-alive connection; a connection the upstream closed while idle is
//! not an error; the read timeout holds before the answer's head (`504`) and
//! between reads (an error event).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use toolrouter::{ProxyOptions, ProxyServer};

use crate::proxy::{fold, frames, post, proxy_with, request};

/// What the raw upstream does with each request.
#[derive(Clone, Copy)]
enum Behaviour {
    /// Answers, and keeps the connection for the next request.
    KeepAlive,
    /// Answers, then closes the connection 50 ms later, as an upstream's
    /// idle timeout does.
    CloseAfterEach,
    /// Reads the request and never answers.
    Silent,
    /// Sends the answer's head and first event, then nothing more.
    StallAfterFirst,
}

/// The upstream's counts: connections accepted, requests read.
#[derive(Default)]
struct Counts {
    connections: AtomicUsize,
    requests: AtomicUsize,
}

/// The first event and the end of every answer: the text `Hi`, then `stop`.
const FIRST: &str = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n";
const REST: &str = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

async fn raw_upstream(behaviour: Behaviour) -> (String, Arc<Counts>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counts = Arc::new(Counts::default());
    let seen = Arc::clone(&counts);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            seen.connections.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(serve(stream, behaviour, Arc::clone(&seen)));
        }
    });
    (format!("http://{addr}/v1"), counts)
}

async fn serve(mut stream: TcpStream, behaviour: Behaviour, counts: Arc<Counts>) {
    let mut buffer = Vec::new();
    while read_request(&mut stream, &mut buffer).await {
        counts.requests.fetch_add(1, Ordering::SeqCst);
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n";
        match behaviour {
            Behaviour::KeepAlive | Behaviour::CloseAfterEach => {
                let body = format!("{FIRST}{REST}");
                let answer = format!("{head}content-length: {}\r\n\r\n{body}", body.len());
                stream.write_all(answer.as_bytes()).await.unwrap();
                if matches!(behaviour, Behaviour::CloseAfterEach) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    return;
                }
            }
            Behaviour::Silent => std::future::pending().await,
            Behaviour::StallAfterFirst => {
                let answer = format!(
                    "{head}transfer-encoding: chunked\r\n\r\n{:x}\r\n{FIRST}\r\n",
                    FIRST.len()
                );
                stream.write_all(answer.as_bytes()).await.unwrap();
                std::future::pending().await
            }
        }
    }
}

/// Reads one request (head and `content-length` body) into `buffer`, less
/// what came before; `false` at the end of the connection.
async fn read_request(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> bool {
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .map_or(0, |n| n.trim().parse().unwrap());
            if buffer.len() >= end + 4 + length {
                buffer.drain(..end + 4 + length);
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

/// One worker, so that every request takes the same pool.
async fn proxy(base: &str) -> ProxyServer {
    proxy_with(
        ProxyOptions::new("127.0.0.1:0".parse().unwrap(), base, "vllm")
            .with_workers(1)
            .with_read_timeout(Duration::from_millis(300)),
    )
    .await
}

#[tokio::test]
async fn requests_in_a_row_share_one_kept_alive_connection() {
    let (base, counts) = raw_upstream(Behaviour::KeepAlive).await;
    let proxy = proxy(&base).await;
    for _ in 0..3 {
        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.content, "Hi");
        assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
        assert!(folded.done);
    }
    assert_eq!(counts.requests.load(Ordering::SeqCst), 3);
    assert_eq!(counts.connections.load(Ordering::SeqCst), 1);
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_connection_the_upstream_closed_while_idle_is_not_an_error() {
    let (base, counts) = raw_upstream(Behaviour::CloseAfterEach).await;
    let proxy = proxy(&base).await;
    for _ in 0..3 {
        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.content, "Hi");
        assert!(folded.done);
        // The upstream closes the connection meanwhile.
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    assert_eq!(counts.connections.load(Ordering::SeqCst), 3);
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_upstream_that_never_answers_is_a_504_after_the_read_timeout() {
    let (base, counts) = raw_upstream(Behaviour::Silent).await;
    let proxy = proxy(&base).await;
    let response = post(&proxy, &request(true)).await;
    assert_eq!(response.status(), 504);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstream_timeout");
    let message = body["error"]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "cannot reach the upstream: timed out waiting for the answer"
    );
    assert_eq!(counts.requests.load(Ordering::SeqCst), 1);
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_upstream_that_stalls_mid_stream_ends_it_with_an_error_event_after_the_read_timeout() {
    let (base, _) = raw_upstream(Behaviour::StallAfterFirst).await;
    let proxy = proxy(&base).await;
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(folded.content, "Hi");
    assert_eq!(folded.finish_reason, None);
    assert!(!folded.done, "no [DONE] after an error");
    let error = folded.error.unwrap();
    assert_eq!(error["code"], "upstream_truncated");
    assert_eq!(
        error["message"],
        "the upstream's stream broke: timed out waiting for the next bytes of the answer"
    );
    proxy.shutdown().await;
}
