//! `toolrouter proxy --text-tools --constrain`: the grammar of the request's
//! tools goes upstream with the taught prompt, in the field of the profile's
//! server, only when `tool_choice` asks for calls (or always, if told); a
//! server that refuses it gets the request once more without it. The model
//! server here is a stand-in that records each request; the real one is
//! `llama_server.rs`'s.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use toolrouter::{Constrain, ProxyOptions, ProxyServer};

use crate::proxy::{post, proxy_with, recording, request};
use crate::support::replay::{ReplayServer, Reply};

async fn constrained_proxy(
    upstream: &ReplayServer,
    provider: &str,
    constrain: Constrain,
) -> ProxyServer {
    proxy_with(
        ProxyOptions::new(
            "127.0.0.1:0".parse().unwrap(),
            upstream.base_url(),
            provider,
        )
        .with_text_tools(true)
        .with_constrain(constrain),
    )
    .await
}

fn with_choice(choice: Value) -> Value {
    let mut body = request(false);
    body["tool_choice"] = choice;
    body
}

/// The one-piece answer's calls, as (name, arguments).
async fn calls_of(response: reqwest::Response) -> Vec<(String, Value)> {
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let arguments = call["function"]["arguments"].as_str().unwrap();
            (
                call["function"]["name"].as_str().unwrap().to_owned(),
                serde_json::from_str(arguments).unwrap(),
            )
        })
        .collect()
}

fn paris() -> Vec<(String, Value)> {
    vec![(
        "get_weather".to_owned(),
        json!({"city": "Paris", "unit": "celsius"}),
    )]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_call_goes_upstream_with_its_grammar_in_the_servers_field() {
    for (provider, field) in [("llamacpp", "grammar"), ("sglang", "ebnf")] {
        let upstream =
            ReplayServer::start(vec![Reply::sse(recording("openai-compat.xml-text.sse"))]).await;
        let proxy = constrained_proxy(&upstream, provider, Constrain::Auto).await;
        let calls = calls_of(post(&proxy, &with_choice(json!("required"))).await).await;
        assert_eq!(calls, paris());
        let received = upstream.received();
        assert_eq!(received.len(), 1);
        let sent = &received[0].body;
        // The tools are taught, not declared, and their grammar goes along:
        // one of the two tools' tags, in the XML tag convention.
        assert!(sent.get("tools").is_none() && sent.get("tool_choice").is_none());
        let gbnf = sent[field].as_str().unwrap();
        assert!(gbnf.starts_with("root ::= "), "{gbnf}");
        assert!(
            gbnf.contains("<get_weather>") && gbnf.contains("<get_time>"),
            "{gbnf}"
        );
        proxy.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_tool_is_the_only_one_its_grammar_allows() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.xml-text.sse"))]).await;
    let proxy = constrained_proxy(&upstream, "vllm", Constrain::Auto).await;
    let named = json!({"type": "function", "function": {"name": "get_weather"}});
    let calls = calls_of(post(&proxy, &with_choice(named)).await).await;
    assert_eq!(calls, paris());
    let sent = &upstream.received()[0].body;
    let gbnf = sent["structured_outputs"]["grammar"].as_str().unwrap();
    assert!(
        gbnf.contains("<get_weather>") && !gbnf.contains("<get_time>"),
        "{gbnf}"
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_the_grammar_gets_the_request_again_without_it() {
    let upstream = ReplayServer::start(vec![
        Reply::json(
            400,
            &json!({"error": {"code": 400, "message": "failed to parse grammar", "type": "invalid_request_error"}}),
        ),
        Reply::sse(recording("openai-compat.xml-text.sse")),
    ])
    .await;
    let proxy = constrained_proxy(&upstream, "llamacpp", Constrain::Auto).await;
    let calls = calls_of(post(&proxy, &with_choice(json!("required"))).await).await;
    assert_eq!(calls, paris());
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert!(received[0].body["grammar"].is_string());
    assert!(
        received[1].body.get("grammar").is_none(),
        "{}",
        received[1].body
    );
    // Otherwise the same request: the taught prompt and the question.
    assert_eq!(received[0].body["messages"], received[1].body["messages"]);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_of_the_request_without_a_grammar_is_the_clients_error() {
    // `tool_choice: auto` sends no grammar: the upstream's 400 is answered
    // as it is, and the request is not sent again.
    let upstream = ReplayServer::start(vec![Reply::json(
        400,
        &json!({"error": {"message": "context too long", "type": "invalid_request_error"}}),
    )])
    .await;
    let proxy = constrained_proxy(&upstream, "llamacpp", Constrain::Auto).await;
    let response = post(&proxy, &with_choice(json!("auto"))).await;
    assert_eq!(response.status(), 400);
    assert_eq!(upstream.received().len(), 1);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_is_constrained_only_when_always_and_never_on_a_hosted_profile() {
    let cases = [
        ("llamacpp", Constrain::Auto, json!("auto"), false),
        ("llamacpp", Constrain::Always, json!("auto"), true),
        ("llamacpp", Constrain::Always, json!("none"), false),
        ("llamacpp", Constrain::Off, json!("required"), false),
        (
            "openai-compatible",
            Constrain::Always,
            json!("required"),
            false,
        ),
    ];
    for (provider, mode, choice, constrained) in cases {
        let upstream =
            ReplayServer::start(vec![Reply::sse(recording("openai-compat.xml-text.sse"))]).await;
        let proxy = constrained_proxy(&upstream, provider, mode).await;
        let response = post(&proxy, &with_choice(choice.clone())).await;
        assert_eq!(response.status(), 200);
        let sent = &upstream.received()[0].body;
        assert_eq!(
            sent.get("grammar").is_some(),
            constrained,
            "{provider} {mode} {choice}: {sent}"
        );
        proxy.shutdown().await;
    }
}
