//! `toolrouter proxy` with the Vercel AI SDK (`ai`, `@ai-sdk/openai-compatible`
//! and, for the Responses door, `@ai-sdk/openai` from npm) as the app: `tests/proxy/vercel_client.mjs`
//! makes the requests and prints what the SDK gave it. The proxy runs here in
//! front of a loopback model server replaying recordings of a model that writes
//! its calls as Hermes text; the expectations are written by hand from them.

#![allow(clippy::unwrap_used)]

use std::process::Command;

use serde_json::{Value, json};

use crate::proxy::{proxy_for, recording};
use crate::support::ext::npm_modules;
use crate::support::replay::{ReplayServer, Reply};
use crate::support::{repo_root, run_json_client};
use toolrouter::ProxyServer;

/// Keep in sync with `.ci/setup-npm.sh`.
const SDK: [&str; 3] = [
    "ai@7.0.173",
    "@ai-sdk/openai-compatible@3.0.92",
    "@ai-sdk/openai@4.0.118",
];

/// Runs one scenario of the client script against `base_url`; its JSON line.
async fn app(scenario: &str, base_url: &str) -> Value {
    let mut command = Command::new("node");
    command
        .arg(repo_root().join("tests/proxy/vercel_client.mjs"))
        .arg(scenario)
        .arg(base_url)
        .env("NODE_MODULES", npm_modules(&SDK, "@ai-sdk/openai"));
    run_json_client(command).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vercel_ai_sdk_streams_a_hermes_call_as_tool_input_deltas() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.hermes-text.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("stream", &proxy.url()).await;
    assert_eq!(seen["text"], "\n\nI'll check the weather in Paris.\n");
    let calls = seen["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{seen}");
    assert_eq!(calls[0]["name"], "get_weather");
    assert_eq!(
        calls[0]["input"],
        json!({"city": "Paris", "unit": "celsius"})
    );
    // `{"city": "Pa`, `ris", "unit": "cel`, `sius"}`: one per upstream piece.
    assert_eq!(calls[0]["deltas"], 3, "{seen}");
    let parts: Vec<&str> = seen["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let at = |kind: &str| parts.iter().position(|p| *p == kind).unwrap_or(usize::MAX);
    assert!(at("reasoning-delta") < at("text-delta"), "{parts:?}");
    assert!(at("text-delta") < at("tool-input-start"), "{parts:?}");
    assert!(at("tool-input-delta") < at("tool-call"), "{parts:?}");
    assert_eq!(seen["finishReason"], "tool-calls", "{seen}");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vercel_ai_sdk_runs_its_tool_loop_through_the_proxy() {
    let (upstream, proxy, seen) = weather_loop("loop").await;
    let steps = seen["steps"].as_array().unwrap();
    assert_eq!(steps[0]["toolCalls"][0]["name"], "get_weather");
    // The second request carried the call and the SDK's result upstream.
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    let messages = received[1].body["messages"].as_array().unwrap();
    let id = steps[0]["toolCalls"][0]["id"].as_str().unwrap();
    assert!(id.starts_with("call_"), "{id}");
    let assistant = messages.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(assistant["tool_calls"][0]["id"], id);
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(result["tool_call_id"], id);
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .contains("18 °C and sunny"),
        "{result}"
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vercel_ai_sdk_streams_a_hermes_call_through_the_responses_door() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.hermes-text.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("responses-stream", &proxy.url()).await;
    assert_eq!(seen["text"], "\n\nI'll check the weather in Paris.\n");
    let calls = seen["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{seen}");
    assert_eq!(calls[0]["name"], "get_weather");
    assert_eq!(
        calls[0]["input"],
        json!({"city": "Paris", "unit": "celsius"})
    );
    // One `response.function_call_arguments.delta` per upstream piece.
    assert_eq!(calls[0]["deltas"], 3, "{seen}");
    assert_eq!(
        seen["parts"],
        json!([
            "start",
            "start-step",
            "reasoning-start",
            "reasoning-delta",
            "reasoning-end",
            "text-start",
            "text-delta",
            "text-end",
            "tool-input-start",
            "tool-input-delta",
            "tool-input-end",
            "tool-call",
            "finish-step",
            "finish"
        ])
    );
    assert_eq!(seen["finishReason"], "tool-calls", "{seen}");
    proxy.shutdown().await;
}

/// The SDK's second request names the first answer's items by
/// `item_reference` (its default, `store` on): the proxy resolves them from
/// the items it wrote.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_vercel_ai_sdk_runs_its_tool_loop_through_the_responses_door() {
    let (upstream, proxy, seen) = weather_loop("responses-loop").await;
    let steps = seen["steps"].as_array().unwrap();
    let id = steps[0]["toolCalls"][0]["id"].as_str().unwrap();
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": "\n\nI'll check the weather in Paris.\n",
             "tool_calls": [{"id": id, "type": "function", "function": {"name": "get_weather",
                 "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"}}]},
            {"role": "tool", "tool_call_id": id, "content": "18 °C and sunny"},
        ])
    );
    proxy.shutdown().await;
}

/// Runs the SDK's tool-loop `scenario` against a Hermes-text call, then the
/// answer (`openai-compat.hermes-text.sse`, `openai-compat.answer.sse`), and
/// checks what every door's loop shares: the tool ran once with the call's
/// arguments, two steps, the first ending in `tool-calls`, the final text.
async fn weather_loop(scenario: &str) -> (ReplayServer, ProxyServer, Value) {
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")),
        Reply::sse(recording("openai-compat.answer.sse")),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app(scenario, &proxy.url()).await;
    assert_eq!(
        seen["executed"],
        json!([{"city": "Paris", "unit": "celsius"}])
    );
    let steps = seen["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{seen}");
    assert_eq!(steps[0]["finishReason"], "tool-calls");
    assert_eq!(seen["text"], "It is 18 °C and sunny in Paris.");
    (upstream, proxy, seen)
}
