//! `toolrouter proxy --provider anthropic`: the OpenAI door in front of an
//! Anthropic upstream. The official `openai` SDK runs a tool loop through it
//! against recorded Messages streams (`tests/data/streams/anthropic.*`);
//! the upstream must receive Messages requests, and the SDK Chat Completions
//! answers. Expectations are written by hand from the recordings and their
//! `.expect.json` files.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use toolrouter::ProxyOptions;

use crate::proxy::shared_sse as stream;
use crate::proxy::{fold, frames, post, proxy_with, request};
use crate::support::replay::{ReplayServer, Reply};

async fn anthropic_proxy(upstream: &ReplayServer) -> toolrouter::ProxyServer {
    proxy_with(ProxyOptions::new(
        "127.0.0.1:0".parse().unwrap(),
        upstream.base_url(),
        "anthropic",
    ))
    .await
}

const CALL_ID: &str = "toolu_01A09q90qw90lq917835lq9S";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_runs_a_tool_loop_against_an_anthropic_upstream() {
    let upstream = ReplayServer::start(vec![
        stream("anthropic.single.sse"),
        stream("anthropic.text.sse"),
    ])
    .await;
    let proxy = anthropic_proxy(&upstream).await;
    let seen = crate::proxy_python::app("loop", &proxy.url()).await;
    let first = &seen["first"];
    assert_eq!(
        first["content"],
        "Let me check the current weather in Paris for you."
    );
    let calls = first["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{first}");
    assert_eq!(calls[0]["id"], CALL_ID);
    assert_eq!(calls[0]["name"], "get_weather");
    assert_eq!(
        calls[0]["arguments"],
        json!({"city": "Paris", "unit": "celsius"})
    );
    assert!(calls[0]["fragments"].as_u64().unwrap() >= 2, "{first}");
    assert_eq!(first["finish_reason"], "tool_calls");
    assert_eq!(first["ids"], json!(["msg_01XfQ8kY3bN2mP7rT5vW9zAc"]));
    assert_eq!(first["models"], json!(["claude-sonnet-4-5-20250929"]));
    assert_eq!(seen["second"]["content"], crate::proxy::BONJOUR);
    assert_eq!(seen["second"]["finish_reason"], "stop");

    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].path, "/v1/messages");
    assert_eq!(received[0].headers["anthropic-version"], "2023-06-01");
    let body = &received[0].body;
    assert_eq!(body["model"], "m");
    assert_eq!(body["max_tokens"], 4096);
    assert_eq!(body["stream"], true);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "What is the weather in Paris?"}]}])
    );
    assert_eq!(body["tools"][0]["name"], "get_weather");
    assert_eq!(
        body["tools"][0]["description"],
        "The current weather in a city"
    );
    assert_eq!(
        body["tools"][0]["input_schema"]["required"],
        json!(["city"])
    );
    for key in ["stream_options", "tool_choice", "system"] {
        assert!(body.get(key).is_none(), "`{key}` sent: {body}");
    }
    // The loop's second request: the call as a `tool_use` block, its result
    // as a `tool_result` block in the next user turn.
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check the current weather in Paris for you."},
                {"type": "tool_use", "id": CALL_ID, "name": "get_weather",
                 "input": {"city": "Paris", "unit": "celsius"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": CALL_ID, "content": "18 °C and sunny"}]}
        ])
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn one_completion_with_usage_and_the_request_fields_translated() {
    let upstream = ReplayServer::start(vec![stream("anthropic.single.sse")]).await;
    let proxy = anthropic_proxy(&upstream).await;
    let mut body = request(false);
    body["messages"] = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [
            {"type": "text", "text": "And this?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]);
    body["max_completion_tokens"] = json!(300);
    body["stop"] = json!("END");
    body["temperature"] = json!(0.2);
    body["tool_choice"] = json!({"type": "function", "function": {"name": "get_weather"}});
    body["parallel_tool_calls"] = json!(false);
    let completion: Value = post(&proxy, &body).await.json().await.unwrap();
    assert_eq!(completion["id"], "msg_01XfQ8kY3bN2mP7rT5vW9zAc");
    assert_eq!(completion["model"], "claude-sonnet-4-5-20250929");
    let choice = &completion["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(
        choice["message"]["content"],
        "Let me check the current weather in Paris for you."
    );
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["id"], CALL_ID);
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"city": "Paris", "unit": "celsius"}));
    assert_eq!(completion["usage"]["prompt_tokens"], 412);
    assert_eq!(completion["usage"]["completion_tokens"], 87);

    let sent = &upstream.received()[0].body;
    assert_eq!(sent["system"], "Be brief.");
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "And this?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgo="}}]}])
    );
    assert_eq!(sent["max_tokens"], 300);
    assert_eq!(sent["stop_sequences"], json!(["END"]));
    assert_eq!(sent["temperature"], 0.2);
    assert_eq!(
        sent["tool_choice"],
        json!({"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true})
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_upstreams_errors_come_back_in_openais_shape() {
    let overloaded = json!({"type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let upstream = ReplayServer::start(vec![
        Reply::json(529, &overloaded),
        stream("anthropic.error.sse"),
    ])
    .await;
    let proxy = anthropic_proxy(&upstream).await;
    // Refused before answering: its status, its message.
    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 529);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["message"], "Overloaded");
    // Failing mid-stream: the text so far, then an error event, no [DONE].
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(folded.content, "Let me check");
    assert!(!folded.done);
    assert_eq!(folded.error.unwrap()["message"], "Overloaded");
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_request_with_no_anthropic_equivalent_is_refused_before_the_upstream() {
    let upstream = ReplayServer::start(vec![]).await;
    let proxy = anthropic_proxy(&upstream).await;
    let mut body = request(false);
    body["messages"] = json!([{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]}]);
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["param"], "messages[0].content[0]");
    assert!(upstream.received().is_empty());
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_anthropic_door_reaches_an_anthropic_upstream_too() {
    let upstream = ReplayServer::start(vec![stream("anthropic.single.sse")]).await;
    let proxy = anthropic_proxy(&upstream).await;
    let root = proxy.url().strip_suffix("/v1").unwrap().to_owned();
    let message: Value = reqwest::Client::new()
        .post(format!("{root}/v1/messages"))
        .json(&json!({"model": "claude-sonnet-4-5", "max_tokens": 200,
            "system": "Be brief.",
            "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
            "tools": [{"name": "get_weather", "input_schema": {"type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}]}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(message["id"], "msg_01XfQ8kY3bN2mP7rT5vW9zAc");
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(
        message["content"],
        json!([
            {"type": "text", "text": "Let me check the current weather in Paris for you."},
            {"type": "tool_use", "id": CALL_ID, "name": "get_weather",
             "input": {"city": "Paris", "unit": "celsius"}}])
    );
    let sent = &upstream.received()[0].body;
    assert_eq!(sent["system"], "Be brief.");
    assert_eq!(sent["max_tokens"], 200);
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "What is the weather in Paris?"}]}])
    );
    assert_eq!(sent["tools"][0]["name"], "get_weather");
    proxy.shutdown().await;
}
