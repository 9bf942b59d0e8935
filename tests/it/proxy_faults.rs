//! `toolrouter proxy`'s faults, over real sockets on 127.0.0.1, each answered
//! the way an OpenAI SDK expects: an upstream HTTP error keeps its status in
//! OpenAI's error shape; a stream that breaks, or that the upstream ends with
//! an error, ends with an error event; a client that leaves cancels the
//! upstream request; a bad request gets 400 (413 when too large); the guards
//! (Host, Origin, token) refuse in the same shape.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use toolrouter::{ProxyError, ProxyOptions, UpstreamKey, serve_proxy};

use crate::proxy::{fold, frames, post, proxy_for, proxy_with, recording, request};
use crate::support::replay::{ReplayServer, Reply};
use crate::support::streams_dir;

fn options(upstream: &ReplayServer) -> ProxyOptions {
    ProxyOptions::new("127.0.0.1:0".parse().unwrap(), upstream.base_url(), "vllm")
}

#[tokio::test]
async fn an_upstream_http_error_comes_back_with_its_status_in_openais_shape() {
    let rate_limited = json!({"error": {
        "message": "Rate limit reached for requests", "type": "requests",
        "param": null, "code": "rate_limit_exceeded"}});
    let upstream = ReplayServer::start(vec![
        Reply::json(429, &rate_limited),
        Reply::text(503, "overloaded, try later"),
        Reply::json(
            404,
            &json!({"error": "model \"m\" not found, try pulling it first"}),
        ),
        Reply::json(401, &rate_limited),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let cases = [
        (429, rate_limited["error"].clone()),
        (
            503,
            json!({"message": "the upstream answered 503 Service Unavailable: overloaded, try later",
                   "type": "upstream_error", "param": null, "code": "503"}),
        ),
        (
            404,
            json!({"message": "model \"m\" not found, try pulling it first",
                   "type": "upstream_error", "param": null, "code": "404"}),
        ),
    ];
    for (status, error) in cases {
        let response = post(&proxy, &request(true)).await;
        assert_eq!(response.status().as_u16(), status);
        assert_eq!(response.headers()["content-type"], "application/json");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body, json!({"error": error}));
    }
    // Non-streaming too.
    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status().as_u16(), 401);
    assert_eq!(response.json::<Value>().await.unwrap(), rate_limited);
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_unreachable_upstream_is_a_502() {
    // A port nobody listens on any more.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let proxy = proxy_with(ProxyOptions::new(
        "127.0.0.1:0".parse().unwrap(),
        format!("http://{addr}/v1"),
        "vllm",
    ))
    .await;
    let response = post(&proxy, &request(true)).await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "upstream_error");
    assert_eq!(body["error"]["code"], "upstream_unreachable");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("cannot reach the upstream: "),
        "{message}"
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_upstream_that_ignores_stream_true_is_a_502() {
    let completion = json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]});
    let upstream = ReplayServer::start(vec![Reply::json(200, &completion)]).await;
    let proxy = proxy_for(&upstream).await;
    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstream_not_streaming");
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_upstream_cut_mid_stream_ends_the_clients_stream_with_an_error_event() {
    // Cut after frame 4: the call has begun (`{"city": "Pa`) and never ends.
    let file = recording("openai-compat.hermes-text.sse");
    let upstream = ReplayServer::start(vec![
        Reply::sse(&file).cut_after(5),
        Reply::sse(&file).cut_after(5),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(folded.content, "\n\nI'll check the weather in Paris.\n");
    assert_eq!(folded.calls.len(), 1);
    assert_eq!(folded.calls[0].1, "get_weather");
    assert_eq!(folded.calls[0].2, "{\"city\": \"Pa");
    assert_eq!(folded.finish_reason, None);
    assert!(!folded.done, "no [DONE] after an error");
    let error = folded.error.unwrap();
    assert_eq!(error["type"], "upstream_error");
    assert_eq!(error["code"], "upstream_truncated");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.starts_with("the upstream's stream broke"),
        "{message}"
    );

    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 502);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "upstream_truncated");
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_error_the_upstream_sends_mid_stream_ends_with_its_message() {
    let dir = streams_dir();
    let cases = [
        (
            "openai-chat.error.sse",
            "Working on",
            "The server had an error while processing your request. Sorry about that!",
        ),
        (
            "openai-compat.openrouter-error.sse",
            "Partial ans",
            "Provider disconnected unexpectedly",
        ),
    ];
    for (name, text, message) in cases {
        let file = dir.join(name);
        let upstream = ReplayServer::start(vec![Reply::sse(&file), Reply::sse(&file)]).await;
        let proxy = proxy_for(&upstream).await;
        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.content, text, "{name}");
        assert!(!folded.done, "{name}");
        let error = folded.error.unwrap();
        assert_eq!(error["message"], message, "{name}");
        assert_eq!(error["code"], "upstream_error", "{name}");

        let response = post(&proxy, &request(false)).await;
        assert_eq!(response.status(), 502, "{name}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["message"], message, "{name}");
        proxy.shutdown().await;
    }
}

#[tokio::test]
async fn a_call_cut_by_the_token_limit_finishes_with_length() {
    // `finish_reason: "length"` inside a structured call's arguments.
    let file = streams_dir().join("openai-chat.truncated.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file), Reply::sse(&file)]).await;
    let proxy = proxy_for(&upstream).await;
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    // The client saw the call begin, as OpenAI's own stream shows it.
    assert_eq!(folded.calls.len(), 1);
    assert_eq!(folded.calls[0].0, "call_Tr7nc8d");
    assert_eq!(folded.calls[0].1, "send_email");
    assert_eq!(
        folded.calls[0].2,
        "{\"to\": \"李雷\", \"subject\": \"Re: \\\"季度报告\\\" 📊\""
    );
    assert_eq!(folded.finish_reason.as_deref(), Some("length"));
    assert!(folded.done);
    // In one piece only completed calls are listed.
    let completion: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "length");
    assert!(choice["message"].get("tool_calls").is_none());
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_client_that_leaves_cancels_the_upstream_request() {
    let frames = (0..400).map(|n| {
        let chunk = json!({"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "choices": [{"index": 0, "delta": {"content": format!("word{n} ")},
            "finish_reason": null}]});
        format!("data: {chunk}\n\n")
    });
    let upstream =
        ReplayServer::start(vec![Reply::frames(frames).pause(Duration::from_millis(20))]).await;
    let proxy = proxy_for(&upstream).await;
    let response = post(&proxy, &request(true)).await;
    let mut body = response.bytes_stream();
    let first = body.next().await.unwrap().unwrap();
    assert!(std::str::from_utf8(&first).unwrap().contains("word0 "));
    drop(body);
    assert!(
        upstream.wait_abandoned(Duration::from_secs(10)).await,
        "the upstream kept streaming to a client that left"
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_malformed_body_gets_400_in_openais_shape_and_nothing_goes_upstream() {
    let upstream = ReplayServer::start(vec![]).await;
    let proxy = proxy_for(&upstream).await;
    let cases: [(&str, Option<&str>, &str); 9] = [
        ("{", None, "the request body is not valid JSON"),
        ("[1, 2]", None, "the request body must be a JSON object"),
        (
            r#"{"model": "m"}"#,
            Some("messages"),
            "`messages` must be an array",
        ),
        (
            r#"{"model": 5, "messages": []}"#,
            Some("model"),
            "`model` must be a string",
        ),
        (
            r#"{"model": "m", "messages": [], "stream": "yes"}"#,
            Some("stream"),
            "`stream` must be a boolean",
        ),
        (
            r#"{"model": "m", "messages": [], "n": 2}"#,
            Some("n"),
            "the proxy answers with one choice",
        ),
        (
            r#"{"model": "m", "messages": [], "tools": {}}"#,
            Some("tools"),
            "`tools` must be an array",
        ),
        (
            r#"{"model": "m", "messages": [], "tools": [{"type": "function", "function": {}}]}"#,
            Some("tools[0].function.name"),
            "a function tool needs a `name` string",
        ),
        (
            r#"{"model": "m", "messages": [], "tools": [{"type": "function", "function": {"name": "f", "parameters": 3}}]}"#,
            Some("tools[0].function.parameters"),
            "the parameters of `f` must be an object",
        ),
    ];
    let client = reqwest::Client::new();
    for (body, param, message) in cases {
        let response = client
            .post(format!("{}/chat/completions", proxy.url()))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{body}");
        let error: Value = response.json().await.unwrap();
        let error = &error["error"];
        assert_eq!(error["type"], "invalid_request_error", "{body}");
        assert_eq!(error["param"], json!(param), "{body}");
        let said = error["message"].as_str().unwrap();
        assert!(said.starts_with(message), "{body}: {said}");
    }
    assert!(upstream.received().is_empty());
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413() {
    let upstream = ReplayServer::start(vec![]).await;
    let proxy = proxy_with(options(&upstream).with_max_request_bytes(1_000)).await;
    let mut body = request(true);
    body["messages"][0]["content"] = json!("x".repeat(2_000));
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 413);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["code"], "request_too_large");
    assert!(upstream.received().is_empty());
    proxy.shutdown().await;
}

#[tokio::test]
async fn unknown_paths_and_methods_are_answered_in_openais_shape() {
    let upstream = ReplayServer::start(vec![]).await;
    let proxy = proxy_for(&upstream).await;
    let client = reqwest::Client::new();
    let response = client
        .get(format!("{}/chat/completions", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["code"], "method_not_allowed");
    let response = client
        .post(format!("{}/embeddings", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["code"], "unknown_url");
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_loopback_proxy_refuses_other_hosts_and_browser_origins() {
    let file = recording("openai-compat.answer.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file)]).await;
    let proxy = proxy_for(&upstream).await;
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", proxy.url());
    for (header, value) in [("host", "evil.example"), ("origin", "http://evil.example")] {
        let response = client
            .post(&url)
            .header(header, value)
            .json(&request(true))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 403, "{header}: {value}");
        let error: Value = response.json().await.unwrap();
        assert_eq!(error["error"]["code"], "forbidden_host");
    }
    // A page on a loopback origin is an app of this machine.
    let response = client
        .post(&url)
        .header("origin", "http://localhost:3000")
        .json(&request(true))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(upstream.received().len(), 1);
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_token_is_required_when_set_and_the_clients_key_is_forwarded_when_asked() {
    let file = recording("openai-compat.answer.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file), Reply::sse(&file)]).await;
    let proxy = proxy_with(options(&upstream).with_bearer_token("proxy-token")).await;
    let client = reqwest::Client::new();
    let url = format!("{}/chat/completions", proxy.url());
    let response = client.post(&url).json(&request(true)).send().await.unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["code"], "invalid_api_key");
    let response = client
        .post(&url)
        .bearer_auth("proxy-token")
        .json(&request(true))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let folded = fold(&frames(response).await);
    assert_eq!(folded.content, "It is 18 °C and sunny in Paris.");
    proxy.shutdown().await;

    let forwarding = proxy_with(options(&upstream).with_upstream_key(UpstreamKey::Forward)).await;
    let response = client
        .post(format!("{}/chat/completions", forwarding.url()))
        .bearer_auth("sk-the-clients-own")
        .json(&request(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let received = upstream.received();
    assert_eq!(
        received[1].headers["authorization"],
        "Bearer sk-the-clients-own"
    );
    forwarding.shutdown().await;
}

#[tokio::test]
async fn serve_proxy_refuses_what_it_cannot_serve_safely() {
    let base = |listen: &str, provider: &str| {
        ProxyOptions::new(listen.parse().unwrap(), "http://127.0.0.1:9/v1", provider)
    };
    let refused = |result: Result<toolrouter::ProxyServer, ProxyError>| match result {
        Ok(_) => panic!("the proxy started"),
        Err(e) => e,
    };
    let e = refused(serve_proxy(base("0.0.0.0:0", "vllm")).await);
    assert!(matches!(e, ProxyError::RemoteBindRefused(_)), "{e}");
    let e = refused(serve_proxy(base("0.0.0.0:0", "vllm").allow_remote(true)).await);
    assert!(matches!(e, ProxyError::RemoteWithoutToken(_)), "{e}");
    let e = refused(
        serve_proxy(
            base("127.0.0.1:0", "vllm")
                .with_bearer_token("t")
                .with_upstream_key(UpstreamKey::Forward),
        )
        .await,
    );
    assert!(matches!(e, ProxyError::ForwardKeyWithToken), "{e}");
    let e = refused(serve_proxy(base("127.0.0.1:0", "no-such-provider")).await);
    assert!(matches!(e, ProxyError::UnknownProvider { .. }), "{e}");
    let e = refused(
        serve_proxy(ProxyOptions::new(
            "127.0.0.1:0".parse().unwrap(),
            "ftp://127.0.0.1/v1",
            "vllm",
        ))
        .await,
    );
    assert!(matches!(e, ProxyError::InvalidUpstream { .. }), "{e}");
}

/// A caller that panics while holding a proxy (a test whose assertion fails)
/// fails instead of hanging: dropping the proxy stops it, and the caller's
/// runtime does not wait for the proxy's serving threads when it shuts down.
/// Before, a dropped proxy kept serving and the runtime waited on its threads
/// forever, so such a test hung (a failing Python SDK client in front of a
/// Gemini upstream was first taken for a proxy hang this way).
#[test]
fn a_caller_that_panics_while_holding_a_proxy_fails_and_the_proxy_stops() {
    let (sent, address) = std::sync::mpsc::channel();
    // What `#[tokio::test]` does with a body that panics: the panic unwinds
    // out of `block_on` and drops the runtime.
    let caller = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let upstream =
                ReplayServer::start(vec![Reply::sse(recording("openai-compat.answer.sse"))]).await;
            let proxy = proxy_for(&upstream).await;
            let answer = fold(&frames(post(&proxy, &request(true)).await).await);
            assert_eq!(answer.content, "It is 18 °C and sunny in Paris.");
            sent.send(proxy.local_addr()).unwrap();
            panic!("an assertion failed while the proxy was held");
        });
    });
    let address = address
        .recv_timeout(Duration::from_secs(60))
        .expect("the proxy answered");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !caller.is_finished() {
        assert!(
            std::time::Instant::now() < deadline,
            "the caller's runtime still waits on the dropped proxy's threads"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(caller.join().is_err(), "the caller's panic comes through");
    // The proxy stopped with its caller: its port takes no more connections.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(address).is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "the dropped proxy still accepts connections"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
