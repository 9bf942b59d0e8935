#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};

use axum::extract::State;
use hyper_util::client::proxy::matcher::Matcher;
use toolrouter_providers::find_profile;

use super::*;
use crate::proxy::record::Door;

#[test]
fn plain_http_upstreams_no_proxy_covers_go_through_the_pool() {
    let none = Matcher::builder().build();
    let chat = "/v1/chat/completions";
    let pooled = |url: &str, proxies: &Matcher| pooled_authority(url, proxies);
    let both = |address: &str, host: &str| Some((address.to_owned(), host.to_owned()));
    let cases = [
        (
            format!("http://127.0.0.1:8000{chat}"),
            both("127.0.0.1:8000", "127.0.0.1:8000"),
        ),
        // The port connected to is explicit, the `Host` as written.
        (
            format!("http://localhost{chat}"),
            both("localhost:80", "localhost"),
        ),
        (
            format!("http://[::1]:8000{chat}"),
            both("[::1]:8000", "[::1]:8000"),
        ),
        (format!("https://api.openai.com{chat}"), None),
        // A key in the URL is reqwest's to send.
        (format!("http://user:key@127.0.0.1:8000{chat}"), None),
    ];
    for (url, expected) in cases {
        assert_eq!(pooled(&url, &none), expected, "{url}");
    }

    let proxied = Matcher::builder()
        .http("http://proxy.internal:3128")
        .no("localhost, 10.0.0.0/8")
        .build();
    let cases = [
        (format!("http://model-server:8000{chat}"), None),
        (
            format!("http://localhost:8000{chat}"),
            both("localhost:8000", "localhost:8000"),
        ),
        (
            format!("http://10.1.2.3:8000{chat}"),
            both("10.1.2.3:8000", "10.1.2.3:8000"),
        ),
    ];
    for (url, expected) in cases {
        assert_eq!(pooled(&url, &proxied), expected, "{url}");
    }
}

/// What the loopback upstream saw of each request: its path, the headers
/// that matter, its body.
type Seen = Arc<Mutex<Vec<(String, Vec<(String, String)>, String)>>>;

/// A loopback upstream: answers the first request of each pair with an SSE
/// body, the second with a 429.
async fn upstream() -> (String, Seen) {
    async fn answer(
        State(seen): State<Seen>,
        request: axum::extract::Request,
    ) -> axum::response::Response {
        let path = request.uri().path().to_owned();
        let headers = ["host", "content-type", "accept", "authorization"]
            .iter()
            .filter_map(|name| {
                let value = request.headers().get(*name)?.to_str().ok()?;
                Some(((*name).to_owned(), value.to_owned()))
            })
            .collect();
        let body = axum::body::to_bytes(request.into_body(), 1 << 20)
            .await
            .unwrap();
        let n = {
            let mut seen = seen.lock().unwrap();
            seen.push((path, headers, String::from_utf8(body.to_vec()).unwrap()));
            seen.len()
        };
        let builder = axum::response::Response::builder();
        if n % 2 == 1 {
            builder
                .header("content-type", "text/event-stream")
                .body(axum::body::Body::from("data: one\n\ndata: [DONE]\n\n"))
        } else {
            builder
                .status(429)
                .header("content-type", "application/json")
                .body(axum::body::Body::from(
                    r#"{"error": {"message": "slow down", "type": "requests"}}"#,
                ))
        }
        .unwrap()
    }
    let seen = Seen::default();
    let app = axum::Router::new()
        .fallback(answer)
        .with_state(Arc::clone(&seen));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/v1"), seen)
}

#[tokio::test]
async fn the_pool_and_reqwest_send_and_answer_alike() {
    let (base, seen) = upstream().await;
    let found = find_profile("vllm").unwrap();
    let options = ProxyOptions::new("127.0.0.1:0".parse().unwrap(), base.clone(), "vllm")
        .with_upstream_key(UpstreamKey::Forward);
    let pooled = Upstream::new(&options, found.profile, found.wire).unwrap();
    assert!(matches!(pooled.chat, ChatRoute::Pooled(..)));
    let mut shared = Upstream::new(&options, found.profile, found.wire).unwrap();
    let url = reqwest::Url::parse(&format!("{base}/chat/completions")).unwrap();
    shared.chat = ChatRoute::Client(Some(url));

    for upstream in [&pooled, &shared] {
        let mut record = RequestRecord::new(Door::OpenAi);
        let body = br#"{"model": "m", "stream": true}"#.to_vec();
        let stream = upstream
            .post_chat("m", body.clone(), Some("sk-1"), &mut record)
            .await
            .unwrap();
        let answer = read_bounded(stream, 1 << 20).await;
        assert_eq!(&answer[..], b"data: one\n\ndata: [DONE]\n\n");

        let error = upstream
            .post_chat("m", body, Some("sk-1"), &mut record)
            .await
            .err()
            .unwrap();
        assert_eq!(error.status, StatusCode::TOO_MANY_REQUESTS);
    }

    let host = base
        .trim_start_matches("http://")
        .trim_end_matches("/v1")
        .to_owned();
    let expected = (
        "/v1/chat/completions".to_owned(),
        vec![
            ("host".to_owned(), host),
            ("content-type".to_owned(), "application/json".to_owned()),
            ("accept".to_owned(), "text/event-stream".to_owned()),
            ("authorization".to_owned(), "Bearer sk-1".to_owned()),
        ],
        r#"{"model": "m", "stream": true}"#.to_owned(),
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    for request in seen.iter() {
        assert_eq!(request, &expected);
    }
}

/// A loopback upstream on raw TCP that counts its connections and answers
/// every request on each with the same small SSE body.
async fn counting_upstream() -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let connections = Arc::new(AtomicUsize::new(0));
    let count = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut chunk = [0u8; 1024];
                while let Ok(n @ 1..) = stream.read(&mut chunk).await {
                    seen.extend_from_slice(&chunk[..n]);
                    // Each request is a head and `{}` (content-length 2).
                    while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        if seen.len() < end + 6 {
                            break;
                        }
                        seen.drain(..end + 6);
                        let answer = "HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\ndata:\n";
                        if stream.write_all(answer.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, connections)
}

#[tokio::test]
async fn a_connection_idle_past_the_idle_timeout_is_not_used_again() {
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    for (idle_timeout, connections) in
        [(Duration::from_millis(50), 2), (Duration::from_secs(60), 1)]
    {
        let (addr, count) = counting_upstream().await;
        let pool = Arc::new(pool::Pool::new(
            addr.clone(),
            &addr,
            Duration::from_secs(5),
            Some(Duration::from_secs(5)),
            idle_timeout,
        ));
        for _ in 0..2 {
            let mut request = http::Request::new(pool::PoolBody::new(Bytes::from_static(b"{}")));
            *request.method_mut() = http::Method::POST;
            *request.uri_mut() = http::Uri::from_static("/v1/chat/completions");
            let answered = pool.send(request).await.unwrap();
            assert_eq!(answered.status, StatusCode::OK);
            let body = read_bounded(answered.body.boxed(), 1024).await;
            assert_eq!(&body[..], b"data:\n");
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        assert_eq!(
            count.load(Ordering::SeqCst),
            connections,
            "{idle_timeout:?}"
        );
    }
}
