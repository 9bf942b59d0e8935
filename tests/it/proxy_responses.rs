//! `toolrouter proxy`'s OpenAI Responses door, `POST /v1/responses`, in front
//! of a loopback upstream replaying recordings (`support::replay`,
//! `tests/data/proxy/`, `tests/data/streams/`): the official `openai`
//! Python SDK as the app (`tests/proxy/openai_client.py`, its `responses_*`
//! scenarios), and reqwest where the bytes themselves matter. Expectations
//! are written by hand from the recordings.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolrouter::{ProxyOptions, ProxyServer};

use crate::proxy::{proxy_for, proxy_with, recording};
use crate::proxy_python::app;
use crate::support::replay::{ReplayServer, Reply};
use crate::support::streams_dir;

const REASONING: &str = "\nThe user wants the weather in Paris; get_weather takes a city.\n";
const TEXT: &str = "\n\nI'll check the weather in Paris.\n";

/// The schema of the app's `get_weather` (`openai_client.py`).
fn weather_schema() -> Value {
    json!({"type": "object", "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
        "required": ["city"]})
}

/// `get_weather` as Chat Completions declares it upstream.
fn chat_tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather",
        "description": "The current weather in a city", "parameters": weather_schema()}}])
}

/// The Hermes recording's call as a `function_call` item; its call id.
fn hermes_call(item: &Value) -> String {
    assert_eq!(item["type"], "function_call", "{item}");
    assert_eq!(item["name"], "get_weather");
    assert_eq!(item["status"], "completed");
    let arguments: Value = serde_json::from_str(item["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris", "unit": "celsius"}));
    let call_id = item["call_id"].as_str().unwrap().to_owned();
    assert!(call_id.starts_with("call_"), "{call_id}");
    assert!(item["id"].as_str().unwrap().starts_with("fc_"), "{item}");
    call_id
}

/// The Hermes recording's reasoning and text items.
fn hermes_text_items(output: &[Value]) {
    assert_eq!(output[0]["type"], "reasoning");
    assert_eq!(
        output[0]["summary"],
        json!([{"type": "summary_text", "text": REASONING}])
    );
    assert_eq!(output[1]["type"], "message");
    assert_eq!(output[1]["role"], "assistant");
    assert_eq!(output[1]["status"], "completed");
    assert_eq!(output[1]["content"][0]["type"], "output_text");
    assert_eq!(output[1]["content"][0]["text"], TEXT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_streams_a_hermes_call_as_a_function_call_item() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.hermes-text.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("responses_stream", &proxy.url()).await;
    assert_eq!(
        seen["types"],
        json!([
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.reasoning_summary_part.added",
            "response.reasoning_summary_text.delta",
            "response.reasoning_summary_text.done",
            "response.reasoning_summary_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.delta",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ])
    );
    assert_eq!(seen["text"], TEXT);
    let response = &seen["final"];
    assert_eq!(response["id"], "resp_9f3c2a7e41b8");
    assert_eq!(response["object"], "response");
    assert_eq!(response["model"], "Qwen/Qwen3-8B");
    assert_eq!(response["status"], "completed");
    let output = response["output"].as_array().unwrap();
    assert_eq!(output.len(), 3, "{response}");
    hermes_text_items(output);
    hermes_call(&output[2]);
    // `{"city": "Pa`, `ris", "unit": "cel`, `sius"}`: one per upstream piece.
    let item_id = output[2]["id"].as_str().unwrap();
    assert_eq!(seen["argument_deltas"], json!({item_id: 3}));
    assert_eq!(
        response["usage"],
        json!({"input_tokens": 212, "input_tokens_details": {"cached_tokens": 0},
               "output_tokens": 58, "output_tokens_details": {"reasoning_tokens": 0},
               "total_tokens": 270})
    );
    assert_eq!(seen["error"], Value::Null);
    proxy.shutdown().await;
}

/// `(event name, data)` of each complete SSE event in `text`.
fn events(text: &str) -> Vec<(String, Value)> {
    let complete = &text[..text.rfind("\n\n").map_or(0, |i| i + 2)];
    complete
        .split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| {
            let (name, data) = e.split_once('\n').unwrap();
            let name = name.strip_prefix("event: ").unwrap().to_owned();
            let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(
                data["type"],
                name.as_str(),
                "the data's type names its event"
            );
            (name, data)
        })
        .collect()
}

/// What the SDK's `responses_loop` saw of a recorded weather loop
/// (`*.single.*`, then `*.text.*`): the first response's text, its weather
/// call `call_id` and its `usage` (input, output tokens), then the final text.
/// Gives the first response.
pub(crate) fn assert_weather_responses<'a>(
    seen: &'a Value,
    call_id: &str,
    (input, output): (u64, u64),
) -> &'a Value {
    let first = &seen["first"]["final"];
    assert_eq!(
        first["output"][0]["content"][0]["text"],
        "Let me check the current weather in Paris for you."
    );
    let call = &first["output"][1];
    assert_eq!(call["call_id"], call_id);
    assert_eq!(call["name"], "get_weather");
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris", "unit": "celsius"}));
    assert_eq!(first["usage"]["input_tokens"], input);
    assert_eq!(first["usage"]["output_tokens"], output);
    assert_eq!(seen["second"]["output_text"], crate::proxy::BONJOUR);
    first
}

async fn post(proxy: &ProxyServer, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/responses", proxy.url()))
        .json(body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn argument_deltas_reach_the_client_before_the_upstream_finishes() {
    // Frame 6 (the end of the call) is held until the client has seen the
    // two argument deltas of frames 4 and 5.
    let gate = Arc::new(Notify::new());
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")).hold_at(6, Arc::clone(&gate)),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let body = json!({"model": "m", "input": "What is the weather in Paris?", "stream": true,
        "tools": [{"type": "function", "name": "get_weather", "parameters": weather_schema()}]});
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    let mut released = false;
    let deltas = |events: &[(String, Value)]| {
        events
            .iter()
            .filter(|(n, _)| n == "response.function_call_arguments.delta")
            .map(|(_, d)| d["delta"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let read = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(bytes) = stream.next().await {
            text.push_str(std::str::from_utf8(&bytes.unwrap()).unwrap());
            if !released && deltas(&events(&text)).len() >= 2 {
                assert!(!text.contains("response.completed"));
                released = true;
                gate.notify_one();
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the arguments were held back: {text}");
    assert!(released);
    let events = events(&text);
    assert_eq!(
        deltas(&events),
        ["{\"city\": \"Pa", "ris\", \"unit\": \"cel", "sius\"}"]
    );
    for (n, (_, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], n, "{data}");
    }
    // Each item's events name its output index and id.
    let added: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "response.output_item.added")
        .map(|(_, d)| d)
        .collect();
    assert_eq!(added.len(), 3);
    let call = &added[2];
    assert_eq!(call["output_index"], 2);
    assert_eq!(call["item"]["status"], "in_progress");
    assert_eq!(call["item"]["arguments"], "");
    let done = events
        .iter()
        .find(|(n, _)| n == "response.function_call_arguments.done")
        .unwrap();
    assert_eq!(done.1["item_id"], call["item"]["id"]);
    assert_eq!(done.1["output_index"], 2);
    assert_eq!(
        done.1["arguments"],
        "{\"city\": \"Paris\", \"unit\": \"celsius\"}"
    );
    let (last, completed) = events.last().unwrap();
    assert_eq!(last, "response.completed");
    assert_eq!(completed["response"]["tools"], body["tools"]);
    assert_eq!(completed["response"]["tool_choice"], "auto");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdks_stream_helper_gives_the_final_response_of_a_text_answer() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.answer.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("responses_helper", &proxy.url()).await;
    assert_eq!(seen["text"], "It is 18 °C and sunny in Paris.");
    let response = &seen["final_response"];
    assert_eq!(response["id"], "resp_e8d2f6a3c174");
    assert_eq!(response["status"], "completed");
    assert_eq!(response["output_text"], "It is 18 °C and sunny in Paris.");
    assert_eq!(
        response["output"],
        json!([{"type": "message", "id": "msg_e8d2f6a3c174", "role": "assistant",
                "status": "completed", "content": [{"type": "output_text",
                "text": "It is 18 °C and sunny in Paris.", "annotations": [], "logprobs": []}]}])
    );
    assert_eq!(response["usage"]["input_tokens"], 301);
    assert_eq!(response["usage"]["output_tokens"], 12);
    assert_eq!(response["usage"]["total_tokens"], 313);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_response_object_and_the_request_translated_into_chat_completions() {
    let upstream = ReplayServer::start(vec![Reply::sse(recording(
        "openai-compat.qwen3-coder-text.sse",
    ))])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("responses_complete", &proxy.url()).await;
    assert_eq!(seen["id"], "resp_2b71d04c93aa");
    assert_eq!(seen["object"], "response");
    assert_eq!(seen["status"], "completed");
    assert_eq!(seen["model"], "Qwen/Qwen3-Coder-30B-A3B-Instruct");
    assert_eq!(seen["output_text"], "Let me look that up.\n");
    let output = seen["output"].as_array().unwrap();
    assert_eq!(output.len(), 2, "{seen}");
    assert_eq!(
        output[0]["content"],
        json!([{"type": "output_text", "text": "Let me look that up.\n",
                "annotations": [], "logprobs": []}])
    );
    hermes_call(&output[1]);
    let received = upstream.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].path, "/v1/chat/completions");
    assert_eq!(
        received[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "What is the weather in Paris?"},
            ],
            "max_tokens": 256,
            "tools": chat_tools(),
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_runs_a_full_tool_loop_through_the_responses_door() {
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")),
        Reply::sse(recording("openai-compat.answer.sse")),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("responses_loop", &proxy.url()).await;
    let first = &seen["first"]["final"];
    assert_eq!(first["status"], "completed");
    let call_id = hermes_call(&first["output"][2]);
    let second = &seen["second"];
    assert_eq!(second["status"], "completed");
    assert_eq!(second["output_text"], "It is 18 °C and sunny in Paris.");
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    // The app sent back the message item, the function_call item and its
    // output (the reasoning item it left out): the assistant's turn with its
    // call, then a `tool` message.
    let arguments = first["output"][2]["arguments"].as_str().unwrap();
    assert_eq!(
        received[1].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": "What is the weather in Paris?"},
                {"role": "assistant", "content": TEXT, "tool_calls": [{"id": call_id,
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": arguments}}]},
                {"role": "tool", "tool_call_id": call_id, "content": "18 °C and sunny"},
            ],
            "tools": chat_tools(),
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_sees_each_fault_of_the_responses_door() {
    let rate_limited = json!({"error": {"message": "Rate limit reached for requests",
        "type": "requests", "param": null, "code": "rate_limit_exceeded"}});
    let upstream = ReplayServer::start(vec![
        Reply::json(429, &rate_limited),
        Reply::sse(recording("openai-compat.hermes-text.sse")).cut_after(5),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let url = proxy.url();

    // An upstream HTTP error: its status, OpenAI's error shape.
    let seen = app("responses_error", &url).await;
    assert_eq!(seen["class"], "RateLimitError");
    assert_eq!(seen["status"], 429);
    assert_eq!(seen["body"], rate_limited["error"]);

    // The upstream cut inside the call: `response.failed`, its output the
    // items done before the cut, no `response.completed`.
    let seen = app("responses_stream_error", &url).await;
    let types = seen["types"].as_array().unwrap();
    assert_eq!(types.last().unwrap(), "response.failed");
    assert!(!types.contains(&json!("response.completed")));
    assert_eq!(seen["final"]["status"], "failed");
    assert_eq!(seen["error"]["code"], "upstream_truncated");
    let output = seen["final"]["output"].as_array().unwrap();
    assert_eq!(output.len(), 2, "{seen}");
    hermes_text_items(output);

    // A hosted tool has no equivalent: 400 naming the field, nothing sent.
    let seen = app("responses_bad_request", &url).await;
    assert_eq!(seen["class"], "BadRequestError");
    assert_eq!(seen["status"], 400);
    assert_eq!(seen["body"]["type"], "invalid_request_error");
    assert_eq!(seen["body"]["param"], "tools[0].type");
    assert_eq!(upstream.received().len(), 2);
    proxy.shutdown().await;
}

#[tokio::test]
async fn malformed_and_stateful_requests_get_a_400() {
    let upstream = ReplayServer::start(vec![]).await;
    let proxy = proxy_for(&upstream).await;
    let response = reqwest::Client::new()
        .post(format!("{}/responses", proxy.url()))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the request body is not valid JSON"),
        "{body}"
    );
    let cases = [
        (
            json!({"model": "m", "input": "Hi", "previous_response_id": "resp_1"}),
            "previous_response_id",
        ),
        (json!({"model": "m", "input": 3}), "input"),
        (json!({"input": "Hi"}), "model"),
        (
            // A reference to an item this proxy never wrote.
            json!({"model": "m", "input": [{"type": "item_reference", "id": "x"}]}),
            "input[0].id",
        ),
        (
            json!({"model": "m", "input": [{"type": "function_call_output", "output": "x"}]}),
            "input[0].call_id",
        ),
    ];
    for (body, param) in cases {
        let response = post(&proxy, &body).await;
        assert_eq!(response.status(), 400, "{body}");
        let answer: Value = response.json().await.unwrap();
        assert_eq!(answer["error"]["param"], param, "{answer}");
    }
    let response = reqwest::Client::new()
        .get(format!("{}/responses", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 405);
    assert!(upstream.received().is_empty());
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_responses_door_in_front_of_an_anthropic_upstream() {
    let fixture = |name: &str| Reply::sse(streams_dir().join(name));
    let upstream = ReplayServer::start(vec![
        fixture("anthropic.single.sse"),
        fixture("anthropic.text.sse"),
    ])
    .await;
    let proxy = proxy_with(ProxyOptions::new(
        "127.0.0.1:0".parse().unwrap(),
        upstream.base_url(),
        "anthropic",
    ))
    .await;
    let seen = app("responses_loop", &proxy.url()).await;
    let first = assert_weather_responses(&seen, "toolu_01A09q90qw90lq917835lq9S", (412, 87));
    assert_eq!(first["id"], "resp_01XfQ8kY3bN2mP7rT5vW9zAc");
    assert_eq!(first["model"], "claude-sonnet-4-5-20250929");
    let call = &first["output"][1];
    assert!(seen["first"]["argument_deltas"][call["id"].as_str().unwrap()].as_u64() >= Some(2));
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].path, "/v1/messages");
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check the current weather in Paris for you."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9S", "name": "get_weather",
                 "input": {"city": "Paris", "unit": "celsius"}}]},
            {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": "toolu_01A09q90qw90lq917835lq9S", "content": "18 °C and sunny"}]}
        ])
    );
    assert_eq!(received[1].body["max_tokens"], 4096);
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_the_upstream_request() {
    let long = (0..400).map(|n| {
        let chunk = json!({"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "choices": [{"index": 0, "delta": {"content": format!("word{n} ")},
            "finish_reason": null}]});
        format!("data: {chunk}\n\n")
    });
    let upstream =
        ReplayServer::start(vec![Reply::frames(long).pause(Duration::from_millis(20))]).await;
    let proxy = proxy_for(&upstream).await;
    let body = json!({"model": "m", "input": "Talk.", "stream": true});
    let response = post(&proxy, &body).await;
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    while !text.contains("response.output_text.delta") {
        let bytes = stream.next().await.unwrap().unwrap();
        text.push_str(std::str::from_utf8(&bytes).unwrap());
    }
    drop(stream);
    assert!(
        upstream.wait_abandoned(Duration::from_secs(10)).await,
        "the upstream kept streaming after the client left"
    );
    proxy.shutdown().await;
}
