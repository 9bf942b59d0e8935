//! `toolrouter proxy` with the official `openai` Python SDK (PyPI) as the app:
//! `tests/proxy/openai_client.py` makes the requests and prints what the SDK
//! gave it; the proxy runs here, in front of a loopback model server replaying
//! recordings (`support::replay`). The expectations are written by hand from
//! the recordings.

#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::proxy::{proxy_for, recording};
use crate::support::ext::python_with_openai;
use crate::support::replay::{ReplayServer, Reply};
use crate::support::{repo_root, run_json_client, streams_dir};

/// The SDK's `scenario` (`loop`, streamed, or `loop_complete`) in front of
/// `provider`'s upstream answering with `replies` (the client's key sent on);
/// what the SDK saw and what the upstream received. Within a minute: a loop
/// that hangs fails.
pub(crate) async fn openai_sdk_loop(
    scenario: &str,
    provider: &str,
    replies: Vec<Reply>,
) -> (Value, Vec<crate::support::replay::Received>) {
    let upstream = ReplayServer::start(replies).await;
    let proxy = crate::proxy::forwarding_proxy(&upstream, provider).await;
    let seen = tokio::time::timeout(Duration::from_secs(60), app(scenario, &proxy.url()))
        .await
        .unwrap_or_else(|_| panic!("the SDK's `{scenario}` against {provider} hung"));
    proxy.shutdown().await;
    (seen, upstream.received())
}

/// What the SDK's `loop` or `loop_complete` saw of a recorded weather loop
/// (`*.single.*`, then `*.text.*`): the text and one weather call (finish
/// `tool_calls`), then the final text and no call (`stop`); gives the call's id.
pub(crate) fn assert_weather_loop(seen: &Value, scenario: &str) -> String {
    let (first, second) = (&seen["first"], &seen["second"]);
    assert_eq!(
        first["content"], "Let me check the current weather in Paris for you.",
        "{scenario}"
    );
    let id = weather_call(first)["id"].as_str().unwrap().to_owned();
    assert_eq!(first["finish_reason"], "tool_calls", "{scenario}");
    assert_eq!(second["content"], crate::proxy::BONJOUR, "{scenario}");
    assert_eq!(second["tool_calls"], json!([]), "{scenario}");
    assert_eq!(second["finish_reason"], "stop", "{scenario}");
    id
}

/// Runs one scenario of the client script against `base_url`; its JSON line.
pub(crate) async fn app(scenario: &str, base_url: &str) -> Value {
    let mut command = Command::new(python_with_openai());
    command
        .arg(repo_root().join("tests/proxy/openai_client.py"))
        .arg(scenario)
        .arg(base_url);
    run_json_client(command).await
}

/// The one weather call of an answer (the Hermes recording's, the recorded
/// weather loops'), as the SDK folds it: `get_weather` for Paris in celsius,
/// its id the upstream's or one the router made (`call_…`).
pub(crate) fn weather_call(seen: &Value) -> &Value {
    let calls = seen["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{seen}");
    let call = &calls[0];
    assert!(call["id"].as_str().unwrap().starts_with("call_"), "{call}");
    assert_eq!(call["type"], "function");
    assert_eq!(call["name"], "get_weather");
    assert_eq!(
        call["arguments"],
        json!({"city": "Paris", "unit": "celsius"})
    );
    call
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_streams_a_hermes_call_as_tool_calls_in_fragments() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.hermes-text.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("stream", &proxy.url()).await;
    assert_eq!(seen["content"], "\n\nI'll check the weather in Paris.\n");
    assert_eq!(
        seen["reasoning"],
        "\nThe user wants the weather in Paris; get_weather takes a city.\n"
    );
    let call = weather_call(&seen);
    // `{"city": "Pa`, `ris", "unit": "cel`, `sius"}`: one per upstream piece.
    assert_eq!(call["fragments"], 3);
    assert_eq!(seen["finish_reason"], "tool_calls");
    assert_eq!(
        seen["usage"],
        json!({"prompt_tokens": 212, "completion_tokens": 58, "total_tokens": 270})
    );
    assert_eq!(seen["ids"], json!(["chatcmpl-9f3c2a7e41b8"]));
    assert_eq!(seen["models"], json!(["Qwen/Qwen3-8B"]));
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_gets_one_completion_with_tool_calls() {
    let upstream = ReplayServer::start(vec![Reply::sse(recording(
        "openai-compat.qwen3-coder-text.sse",
    ))])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("complete", &proxy.url()).await;
    assert_eq!(seen["object"], "chat.completion");
    assert_eq!(seen["id"], "chatcmpl-2b71d04c93aa");
    assert_eq!(seen["model"], "Qwen/Qwen3-Coder-30B-A3B-Instruct");
    assert_eq!(seen["content"], "Let me look that up.\n");
    weather_call(&seen);
    assert_eq!(seen["finish_reason"], "tool_calls");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_runs_a_full_tool_loop_through_the_proxy() {
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")),
        Reply::sse(recording("openai-compat.answer.sse")),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("loop", &proxy.url()).await;
    let id = weather_call(&seen["first"])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(seen["first"]["finish_reason"], "tool_calls");
    assert_eq!(seen["second"]["content"], "It is 18 °C and sunny in Paris.");
    assert_eq!(seen["second"]["tool_calls"], json!([]));
    assert_eq!(seen["second"]["finish_reason"], "stop");
    // The second request carried the call and its result to the upstream as
    // the app wrote them: the assistant turn, then a `tool` message.
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    let messages = received[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["tool_calls"][0]["id"], id);
    assert_eq!(
        messages[1]["tool_calls"][0]["function"]["name"],
        "get_weather"
    );
    let sent: Value = serde_json::from_str(
        messages[1]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(sent, json!({"city": "Paris", "unit": "celsius"}));
    assert_eq!(
        messages[2],
        json!({"role": "tool", "tool_call_id": id, "content": "18 °C and sunny"})
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_sees_each_fault_as_its_own_error() {
    let rate_limited = json!({"error": {"message": "Rate limit reached for requests",
        "type": "requests", "param": null, "code": "rate_limit_exceeded"}});
    let error_stream = streams_dir().join("openai-chat.error.sse");
    let long = (0..400).map(|n| {
        let chunk = json!({"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "choices": [{"index": 0, "delta": {"content": format!("word{n} ")},
            "finish_reason": null}]});
        format!("data: {chunk}\n\n")
    });
    let upstream = ReplayServer::start(vec![
        Reply::json(429, &rate_limited),
        Reply::sse(recording("openai-compat.hermes-text.sse")).cut_after(5),
        Reply::sse(&error_stream),
        Reply::frames(long).pause(Duration::from_millis(20)),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let url = proxy.url();

    // An upstream HTTP error: the SDK's error class for the status, the body as sent.
    let seen = app("error", &url).await;
    assert_eq!(seen["class"], "RateLimitError");
    assert_eq!(seen["status"], 429);
    assert_eq!(seen["body"], rate_limited["error"]);

    // The upstream cut mid-stream: the stream raises.
    let seen = app("stream_error", &url).await;
    assert_eq!(seen["class"], "APIError");
    assert_eq!(seen["content"], "\n\nI'll check the weather in Paris.\n");
    assert_eq!(seen["body"]["code"], "upstream_truncated");

    // The upstream's own error mid-stream: its message.
    let seen = app("stream_error", &url).await;
    assert_eq!(seen["class"], "APIError");
    assert_eq!(seen["content"], "Working on");
    assert_eq!(
        seen["message"],
        "The server had an error while processing your request. Sorry about that!"
    );

    // A malformed request: 400 in OpenAI's shape, nothing sent upstream.
    let seen = app("bad_request", &url).await;
    assert_eq!(seen["class"], "BadRequestError");
    assert_eq!(seen["status"], 400);
    assert_eq!(seen["body"]["param"], "messages");
    assert_eq!(seen["body"]["type"], "invalid_request_error");

    // An app that closes its stream: the upstream request is cancelled.
    let seen = app("disconnect", &url).await;
    assert_eq!(seen["first"], "word0 ");
    assert!(
        upstream.wait_abandoned(Duration::from_secs(10)).await,
        "the upstream kept streaming after the app closed its stream"
    );
    assert_eq!(upstream.received().len(), 4);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_lists_the_upstreams_models() {
    let list = json!({"object": "list", "data": [
        {"id": "Qwen/Qwen3-8B", "object": "model", "created": 1767225600, "owned_by": "vllm"}]});
    let upstream = ReplayServer::start(vec![Reply::json(200, &list)]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("models", &proxy.url()).await;
    assert_eq!(seen["ids"], json!(["Qwen/Qwen3-8B"]));
    proxy.shutdown().await;
}
