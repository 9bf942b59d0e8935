//! `toolrouter proxy --provider openai-responses`: the OpenAI and Anthropic
//! doors in front of an OpenAI Responses upstream. reqwest and the official
//! `openai` (streamed and whole) and `anthropic` SDKs run tool loops through
//! it against recorded Responses streams
//! (`tests/data/streams/openai-responses.*`); the upstream must
//! receive `POST /v1/responses` requests, the clients their own wire's
//! answers. Expectations are written by hand from the recordings and their
//! `.expect.json` files.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::{Value, json};

use crate::proxy::shared_sse as stream;
use crate::proxy::{
    BONJOUR, args, fold, forwarding_proxy, frames, post, post_as_client, request, weather_follow_up,
};
use crate::proxy_anthropic::anthropic_sdk_loop;
use crate::proxy_python::{assert_weather_loop, openai_sdk_loop};
use crate::proxy_responses::assert_weather_responses;
use crate::support::replay::{ReplayServer, Reply};

async fn responses_proxy(upstream: &ReplayServer) -> toolrouter::ProxyServer {
    forwarding_proxy(upstream, "openai-responses").await
}

/// The call of `openai-responses.single.sse` (its `call_id`).
const CALL_ID: &str = "call_Rs1nGlE0a9B8c7D6e5F4g3H2";

/// The recorded weather loop: a call (`single`), then the final text (`text`).
fn weather_loop() -> Vec<Reply> {
    vec![
        stream("openai-responses.single.sse"),
        stream("openai-responses.text.sse"),
    ]
}

/// An upstream answering the recorded weather loop.
async fn weather_loop_upstream() -> ReplayServer {
    ReplayServer::start(weather_loop()).await
}

/// The app's two tools as Responses declares them.
fn declared_tools() -> Value {
    json!([
        {"type": "function", "name": "get_weather", "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"]}, "strict": false},
        {"type": "function", "name": "get_time", "parameters": {
            "type": "object", "properties": {"timezone": {"type": "string"}}}, "strict": false}
    ])
}

/// The second request's `input`: the question, the answer's text, its call
/// and the app's result.
fn weather_loop_input(call_id: &str) -> Value {
    json!([
        {"type": "message", "role": "user",
         "content": [{"type": "input_text", "text": "What is the weather in Paris?"}]},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "Let me check the current weather in Paris for you."}]},
        {"type": "function_call", "call_id": call_id, "name": "get_weather",
         "arguments": "{\"city\":\"Paris\",\"unit\":\"celsius\"}"},
        {"type": "function_call_output", "call_id": call_id, "output": "18 °C and sunny"}
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_tool_loop_against_a_responses_upstream() {
    let upstream = weather_loop_upstream().await;
    let proxy = responses_proxy(&upstream).await;
    let first = fold(&frames(post_as_client(&proxy, &request(true)).await).await);
    // openai-responses.single.sse.expect.json
    assert_eq!(
        first.content,
        "Let me check the current weather in Paris for you."
    );
    assert_eq!(first.finish_reason.as_deref(), Some("tool_calls"));
    assert!(first.done);
    assert_eq!(first.calls.len(), 1, "{:?}", first.calls);
    let (id, name, arguments, _) = &first.calls[0];
    assert_eq!(id, CALL_ID);
    assert_eq!(name, "get_weather");
    assert_eq!(args(arguments), json!({"city": "Paris", "unit": "celsius"}));
    let second = fold(&frames(post_as_client(&proxy, &weather_follow_up(&first)).await).await);
    // openai-responses.text.sse.expect.json
    assert_eq!(second.content, BONJOUR);
    assert_eq!(second.finish_reason.as_deref(), Some("stop"));
    assert!(second.calls.is_empty() && second.done);

    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].path, "/v1/responses");
    assert_eq!(received[0].headers["authorization"], "Bearer sk-client");
    assert_eq!(
        received[0].body,
        json!({
            "model": "m",
            "input": [{"type": "message", "role": "user",
                       "content": [{"type": "input_text", "text": "What is the weather in Paris?"}]}],
            "tools": declared_tools(),
            "store": false,
            "stream": true
        })
    );
    assert_eq!(received[1].body["input"], weather_loop_input(CALL_ID));
    proxy.shutdown().await;
}

#[tokio::test]
async fn reasoning_parallel_calls_errors_and_the_token_limit_in_chat_completions_shape() {
    let upstream = ReplayServer::start(vec![
        stream("openai-responses.reasoning.sse"),
        stream("openai-responses.parallel.sse"),
        stream("openai-responses.error.sse"),
        stream("openai-responses.incomplete.sse"),
    ])
    .await;
    let proxy = responses_proxy(&upstream).await;

    // openai-responses.reasoning.sse.expect.json
    let reasoning = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(
        reasoning.reasoning,
        "**Checking time**\n\nNeed Tokyo time; call get_time."
    );
    assert_eq!(reasoning.content, "");
    assert_eq!(reasoning.calls.len(), 1);
    assert_eq!(reasoning.calls[0].0, "call_ReAs0nInG1a2b3c4d5e6f7g8");
    assert_eq!(reasoning.calls[0].1, "get_time");
    assert_eq!(
        args(&reasoning.calls[0].2),
        json!({"timezone": "Asia/Tokyo"})
    );
    assert_eq!(reasoning.finish_reason.as_deref(), Some("tool_calls"));

    // openai-responses.parallel.sse.expect.json
    let parallel = fold(&frames(post(&proxy, &request(true)).await).await);
    let calls: Vec<(&str, &str, Value)> = parallel
        .calls
        .iter()
        .map(|(id, name, arguments, _)| (id.as_str(), name.as_str(), args(arguments)))
        .collect();
    assert_eq!(
        calls,
        vec![
            (
                "call_PaRa1lElA0b1C2d3E4f5G6h7",
                "get_weather",
                json!({"city": "Paris", "unit": "celsius"})
            ),
            (
                "call_PaRa1lElB9i8J7k6L5m4N3o2",
                "get_time",
                json!({"timezone": "Asia/Tokyo"})
            ),
        ]
    );
    assert_eq!(parallel.finish_reason.as_deref(), Some("tool_calls"));

    // openai-responses.error.sse.expect.json: the stream ends with the
    // upstream's message, and no [DONE].
    let failed = fold(&frames(post(&proxy, &request(true)).await).await);
    assert!(!failed.done);
    assert_eq!(
        failed.error.unwrap()["message"],
        "An error occurred while processing your request."
    );

    // openai-responses.incomplete.sse.expect.json: cut by the token limit
    // inside a call, which never completes.
    let cut = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(cut.content, "");
    assert_eq!(cut.finish_reason.as_deref(), Some("length"));
    proxy.shutdown().await;
}

/// The official `openai` SDK's tool loop (call, the app's tool result, the
/// final answer) against a Responses upstream, streamed (`loop`) and whole
/// (`loop_complete`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_runs_a_tool_loop_against_a_responses_upstream_streamed_and_whole() {
    for scenario in ["loop", "loop_complete"] {
        let (seen, received) = openai_sdk_loop(scenario, "openai-responses", weather_loop()).await;
        assert_eq!(assert_weather_loop(&seen, scenario), CALL_ID);
        if scenario == "loop_complete" {
            // `response.completed`'s usage: 211 in, 57 out.
            let usage = json!({"prompt_tokens": 211, "completion_tokens": 57, "total_tokens": 268});
            assert_eq!(seen["first"]["usage"], usage);
            assert_eq!(seen["first"]["object"], "chat.completion");
        }
        assert_eq!(received.len(), 2, "{scenario}");
        assert_eq!(received[1].path, "/v1/responses");
        assert_eq!(received[1].body["input"], weather_loop_input(CALL_ID));
    }
}

/// The official `anthropic` SDK's streamed tool loop on the Messages door,
/// against a Responses upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_runs_a_tool_loop_against_a_responses_upstream() {
    let (seen, received) = anthropic_sdk_loop("openai-responses", weather_loop()).await;
    // `response.completed`'s usage: 211 in, 57 out.
    crate::proxy_anthropic::assert_weather_loop(
        &seen,
        CALL_ID,
        json!({"input_tokens": 211, "output_tokens": 57}),
    );
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].path, "/v1/responses");
    assert_eq!(received[1].body["input"], weather_loop_input(CALL_ID));
}

/// The official `openai` SDK's Responses loop on the Responses door, in front
/// of a Responses upstream: Responses → Chat Completions → Responses on the
/// way up, and back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_responses_door_in_front_of_a_responses_upstream() {
    let upstream = weather_loop_upstream().await;
    let proxy = responses_proxy(&upstream).await;
    let seen = tokio::time::timeout(
        Duration::from_secs(60),
        crate::proxy_python::app("responses_loop", &proxy.url()),
    )
    .await
    .expect("the SDK's loop hung");
    // openai-responses.single.sse: its id, model, text, call and usage.
    let first = assert_weather_responses(&seen, CALL_ID, (211, 57));
    assert_eq!(
        first["id"],
        "resp_68b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2"
    );
    assert_eq!(first["model"], "gpt-5-2025-08-07");
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].path, "/v1/responses");
    assert_eq!(received[1].body["input"], weather_loop_input(CALL_ID));
    proxy.shutdown().await;
}
