//! The accept loop's cap over several loops, and its answers over the cap,
//! on loopback sockets.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::{ConnCap, ConnLimits, OverCapAnswer, Timeouts, serve_connections, service_unavailable};

/// Long enough that a test waiting on it never fails on a slow machine.
const PATIENCE: Duration = Duration::from_secs(20);

fn limits(cap: ConnCap, header: Duration) -> ConnLimits {
    ConnLimits {
        timeouts: Timeouts {
            header: Some(header),
            body: Some(PATIENCE * 3),
            idle: Some(PATIENCE * 3),
        },
        cap: Some(cap),
    }
}

/// Starts an accept loop with `limits` (every path gets a 404); its address.
async fn accept_loop(limits: ConnLimits, stop: &CancellationToken) -> std::net::SocketAddr {
    accept_loop_task(limits, stop).await.0
}

/// [`accept_loop`], and its task, which ends once the loop has stopped and
/// every connection and refusal has ended.
async fn accept_loop_task(
    limits: ConnLimits,
    stop: &CancellationToken,
) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(serve_connections(
        listener,
        axum::Router::new(),
        limits,
        stop.clone(),
    ));
    (addr, task)
}

/// Sends `request` (if any) and reads until the server closes or a whole
/// head has come; what was read.
async fn answer_to(stream: &mut TcpStream, request: &[u8]) -> String {
    stream.write_all(request).await.unwrap();
    let read = tokio::time::timeout(PATIENCE, async {
        let mut got = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            let n = stream.read(&mut buf).await.unwrap_or(0);
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got).into_owned();
            if n == 0 || (text.starts_with("HTTP/1.1 404") && text.contains("\r\n\r\n")) {
                return text;
            }
        }
    })
    .await;
    read.unwrap()
}

const GET: &[u8] = b"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

#[tokio::test]
async fn two_accept_loops_given_one_cap_share_it() {
    let stop = CancellationToken::new();
    let cap = ConnCap::new(
        2,
        OverCapAnswer::Fixed(service_unavailable("text/plain", "full")),
    );
    // All connections to the first loop, then one to the second: each loop
    // alone is under the cap, together they are at it.
    let first = accept_loop(limits(cap.clone(), PATIENCE), &stop).await;
    let second = accept_loop(limits(cap, PATIENCE), &stop).await;
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut stream = TcpStream::connect(first).await.unwrap();
        let answer = answer_to(&mut stream, GET).await;
        assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
        held.push(stream);
    }
    let mut stream = TcpStream::connect(second).await.unwrap();
    let answer = answer_to(&mut stream, GET).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nfull"), "{answer}");
    stop.cancel();
}

#[tokio::test]
async fn an_answer_by_path_waits_for_the_head_and_falls_back_when_none_comes() {
    let stop = CancellationToken::new();
    let by_path = |path: &str| service_unavailable("text/plain", &format!("path={path}"));
    let cap = ConnCap::new(1, OverCapAnswer::ByPath(Arc::new(by_path)));
    let addr = accept_loop(limits(cap, Duration::from_millis(200)), &stop).await;
    let mut held = TcpStream::connect(addr).await.unwrap();
    assert!(answer_to(&mut held, GET).await.starts_with("HTTP/1.1 404"));

    // The head comes in pieces, then the body: the answer names its path.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(b"POST /v1/mess").await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    let answer = answer_to(
        &mut stream,
        b"ages?beta=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.ends_with("\r\n\r\npath=/v1/messages"), "{answer}");

    // No head within the header timeout: the answer for no path.
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let answer = answer_to(&mut stream, b"").await;
    assert!(answer.ends_with("\r\n\r\npath="), "{answer}");
    drop(held);
    stop.cancel();
}

#[tokio::test]
async fn a_refusal_waiting_for_a_head_ends_when_the_loop_stops() {
    let stop = CancellationToken::new();
    let by_path = |path: &str| service_unavailable("text/plain", &format!("path={path}"));
    let cap = ConnCap::new(1, OverCapAnswer::ByPath(Arc::new(by_path)));
    // A header timeout the test would never see the end of.
    let hour = Duration::from_secs(3600);
    let (addr, task) = accept_loop_task(limits(cap.clone(), hour), &stop).await;
    let mut held = TcpStream::connect(addr).await.unwrap();
    assert!(answer_to(&mut held, GET).await.starts_with("HTTP/1.1 404"));
    // Over the cap, and silent: its refusal waits for a head.
    let mut silent = TcpStream::connect(addr).await.unwrap();
    let under_way = tokio::time::timeout(PATIENCE, async {
        while cap.refusals_in_flight(64) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(under_way.is_ok(), "the silent connection was never refused");
    stop.cancel();
    let stopped = tokio::time::timeout(PATIENCE, task).await;
    assert!(
        stopped.is_ok(),
        "the loop waited for the silent client's head"
    );
    let answer = answer_to(&mut silent, b"").await;
    assert!(answer.ends_with("\r\n\r\npath="), "{answer}");
}

#[tokio::test]
async fn past_the_refusal_budget_a_connection_still_gets_the_answer_for_no_path() {
    let stop = CancellationToken::new();
    let by_path = |path: &str| service_unavailable("text/plain", &format!("path={path}"));
    let cap = ConnCap::with_refusal_budget(1, OverCapAnswer::ByPath(Arc::new(by_path)), 1);
    let addr = accept_loop(limits(cap.clone(), PATIENCE * 3), &stop).await;
    let mut held = TcpStream::connect(addr).await.unwrap();
    assert!(answer_to(&mut held, GET).await.starts_with("HTTP/1.1 404"));
    // The one refusal the budget allows waits for a silent client's head.
    let _silent = TcpStream::connect(addr).await.unwrap();
    let under_way = tokio::time::timeout(PATIENCE, async {
        while cap.refusals_in_flight(1) == 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await;
    assert!(under_way.is_ok(), "the silent connection was never refused");
    // The next one is answered at once, without its head, and closed.
    let mut next = TcpStream::connect(addr).await.unwrap();
    let answer = answer_to(&mut next, b"").await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.ends_with("\r\n\r\npath="), "{answer}");
    stop.cancel();
}

#[test]
fn clones_of_a_cap_count_against_one_max() {
    let cap = ConnCap::new(2, OverCapAnswer::Fixed(Bytes::new()));
    let other = cap.clone();
    let first = cap.admit();
    let second = other.admit();
    assert!(first.is_some() && second.is_some());
    assert!(cap.admit().is_none());
    assert!(other.admit().is_none());
    drop(first);
    assert!(other.admit().is_some());
}
