//! `toolrouter proxy`'s Anthropic Messages door, `POST /v1/messages`, in front
//! of a loopback OpenAI-compatible model server replaying recordings
//! (`support::replay`, `tests/data/proxy/`): first with reqwest as the client,
//! reading the SSE events as they are written, then with the official
//! `anthropic` Python SDK as the app (`tests/proxy/anthropic_client.py`).
//! Expectations are written by hand from the recordings.

#![allow(clippy::unwrap_used)]

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolrouter::ProxyServer;

use crate::proxy::{proxy_for, recording};
use crate::support::ext::python_with_anthropic;
use crate::support::replay::{ReplayServer, Reply};
use crate::support::{repo_root, run_json_client};

fn tools() -> Value {
    json!([{"name": "get_weather", "description": "The weather", "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
        "required": ["city"]}}])
}

fn request(stream: bool) -> Value {
    json!({
        "model": "m", "max_tokens": 512, "stream": stream, "tools": tools(),
        "system": "You are terse.",
        "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
    })
}

async fn post(proxy: &ProxyServer, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/messages", proxy.url()))
        .header("x-api-key", "sk-ant-client")
        .json(body)
        .send()
        .await
        .unwrap()
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

/// The `partial_json` fragments sent for block `index`.
fn json_fragments(events: &[(String, Value)], index: u64) -> Vec<String> {
    events
        .iter()
        .filter(|(_, d)| d["index"] == index && d["delta"]["type"] == "input_json_delta")
        .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap().to_owned())
        .collect()
}

/// The text of the `kind` deltas of block `index`.
fn block_text(events: &[(String, Value)], index: u64, kind: &str) -> String {
    events
        .iter()
        .filter(|(_, d)| d["index"] == index && d["delta"]["type"] == format!("{kind}_delta"))
        .map(|(_, d)| d["delta"][kind].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_hermes_call_in_the_text_streams_as_a_tool_use_block_before_the_upstream_finishes() {
    // Frame 6 (the end of the call) is held until the client has seen the two
    // fragments of frames 4 and 5.
    let gate = Arc::new(Notify::new());
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")).hold_at(6, Arc::clone(&gate)),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let response = post(&proxy, &request(true)).await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let mut released = false;
    let read = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(bytes) = body.next().await {
            text.push_str(std::str::from_utf8(&bytes.unwrap()).unwrap());
            if !released && json_fragments(&events(&text), 2).len() >= 2 {
                assert!(!text.contains("message_delta"));
                released = true;
                gate.notify_one();
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the input was held back: {text}");
    assert!(released);
    let events = events(&text);
    assert_blocks_in_order(&events);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    let mut runs = names.clone();
    runs.dedup();
    assert_eq!(
        runs,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    let start = &events[0].1["message"];
    assert_eq!(start["id"], "msg_9f3c2a7e41b8");
    assert_eq!(start["model"], "Qwen/Qwen3-8B");
    assert_eq!(start["role"], "assistant");
    assert_eq!(start["content"], json!([]));
    let starts: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "content_block_start")
        .map(|(_, d)| d)
        .collect();
    assert_eq!(
        starts[0]["content_block"],
        json!({"type": "thinking", "thinking": "", "signature": ""})
    );
    assert_eq!(
        starts[1]["content_block"],
        json!({"type": "text", "text": ""})
    );
    let call = &starts[2]["content_block"];
    assert_eq!(call["type"], "tool_use");
    assert_eq!(call["name"], "get_weather");
    assert_eq!(call["input"], json!({}));
    assert!(call["id"].as_str().unwrap().starts_with("call_"));
    assert_eq!(
        block_text(&events, 0, "thinking"),
        "\nThe user wants the weather in Paris; get_weather takes a city.\n"
    );
    assert_eq!(
        block_text(&events, 1, "text"),
        "\n\nI'll check the weather in Paris.\n"
    );
    let fragments = json_fragments(&events, 2);
    assert_eq!(fragments.len(), 3);
    let input: Value = serde_json::from_str(&fragments.concat()).unwrap();
    assert_eq!(input, json!({"city": "Paris", "unit": "celsius"}));
    let delta = &events[events.len() - 2].1;
    assert_eq!(
        delta["delta"],
        json!({"stop_reason": "tool_use", "stop_sequence": null})
    );
    assert_eq!(delta["usage"]["output_tokens"], 58);
    assert_eq!(delta["usage"]["input_tokens"], 212);
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_request_goes_upstream_as_chat_completions() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.answer.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let mut body = request(false);
    body["stop_sequences"] = json!(["\n\nHuman:"]);
    body["tool_choice"] = json!({"type": "tool", "name": "get_weather"});
    body["metadata"] = json!({"user_id": "u-1"});
    body["messages"] = json!([
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": [
            {"type": "text", "text": "I'll check."},
            {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01", "content": "18 °C and sunny"}]},
    ]);
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    let message: Value = response.json().await.unwrap();
    assert_eq!(message["type"], "message");
    assert_eq!(message["role"], "assistant");
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "It is 18 °C and sunny in Paris."}])
    );
    assert_eq!(message["stop_reason"], "end_turn");
    let received = upstream.received();
    assert_eq!(received[0].path, "/v1/chat/completions");
    assert_eq!(
        received[0].body,
        json!({
            "model": "m", "max_tokens": 512, "stop": ["\n\nHuman:"],
            "stream": true, "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "get_weather",
                "description": "The weather", "parameters": tools()[0]["input_schema"]}}],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "What is the weather in Paris?"},
                {"role": "assistant", "content": "I'll check.", "tool_calls": [{"id": "toolu_01",
                    "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
                {"role": "tool", "tool_call_id": "toolu_01", "content": "18 °C and sunny"},
            ],
        })
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn faults_come_back_in_anthropics_error_shape() {
    let upstream = ReplayServer::start(vec![
        Reply::json(529, &json!({"error": {"message": "busy", "type": "x"}})),
        Reply::sse(recording("openai-compat.hermes-text.sse")).cut_after(5),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 529);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
    );
    // The upstream cut inside the call: the stream ends with an error event.
    let response = post(&proxy, &request(true)).await;
    let text = response.text().await.unwrap();
    let events = events(&text);
    let (name, last) = events.last().unwrap();
    assert_eq!(name, "error");
    assert_eq!(last["error"]["type"], "api_error");
    assert!(!text.contains("message_stop"));
    // A body that is not JSON: 400 and nothing sent upstream.
    let response = reqwest::Client::new()
        .post(format!("{}/messages", proxy.url()))
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(upstream.received().len(), 2);
    proxy.shutdown().await;
}

/// Runs one scenario of the SDK script against the proxy; its JSON line.
pub(crate) async fn app(scenario: &str, proxy: &ProxyServer) -> Value {
    let mut command = Command::new(python_with_anthropic());
    command
        .arg(repo_root().join("tests/proxy/anthropic_client.py"))
        .arg(scenario)
        .arg(format!("http://{}", proxy.local_addr()));
    run_json_client(command).await
}

/// The Hermes recording's call as a `tool_use` block; its id.
fn hermes_call(block: &Value) -> String {
    assert_eq!(block["type"], "tool_use");
    assert_eq!(block["name"], "get_weather");
    assert_eq!(block["input"], json!({"city": "Paris", "unit": "celsius"}));
    let id = block["id"].as_str().unwrap();
    assert!(id.starts_with("call_"), "{id}");
    id.to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_streams_a_hermes_call_as_a_tool_use_block() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.hermes-text.sse"))]).await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("stream", &proxy).await;
    assert_eq!(seen["id"], "msg_9f3c2a7e41b8");
    assert_eq!(seen["model"], "Qwen/Qwen3-8B");
    let content = seen["content"].as_array().unwrap();
    assert_eq!(content.len(), 3, "{seen}");
    assert_eq!(
        content[0],
        json!({"type": "thinking",
               "thinking": "\nThe user wants the weather in Paris; get_weather takes a city.\n"})
    );
    assert_eq!(
        content[1],
        json!({"type": "text", "text": "\n\nI'll check the weather in Paris.\n"})
    );
    hermes_call(&content[2]);
    assert_eq!(seen["input_json_deltas"], json!([3]));
    assert_eq!(seen["stop_reason"], "tool_use");
    assert_eq!(
        seen["usage"],
        json!({"input_tokens": 212, "output_tokens": 58})
    );
    assert_eq!(seen["events"][0], "message_start");
    assert_eq!(
        seen["events"].as_array().unwrap().last().unwrap(),
        "message_stop"
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_gets_one_message_with_a_tool_use_block() {
    let upstream = ReplayServer::start(vec![Reply::sse(recording(
        "openai-compat.qwen3-coder-text.sse",
    ))])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("complete", &proxy).await;
    assert_eq!(seen["id"], "msg_2b71d04c93aa");
    assert_eq!(seen["model"], "Qwen/Qwen3-Coder-30B-A3B-Instruct");
    assert_eq!(seen["role"], "assistant");
    let content = seen["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "{seen}");
    assert_eq!(
        content[0],
        json!({"type": "text", "text": "Let me look that up.\n"})
    );
    hermes_call(&content[1]);
    assert_eq!(seen["stop_reason"], "tool_use");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_runs_a_full_tool_loop_through_the_proxy() {
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")),
        Reply::sse(recording("openai-compat.answer.sse")),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let seen = app("loop", &proxy).await;
    let id = hermes_call(&seen["first"]["content"][2]);
    assert_eq!(seen["first"]["stop_reason"], "tool_use");
    assert_eq!(
        seen["second"]["content"],
        json!([{"type": "text", "text": "It is 18 °C and sunny in Paris."}])
    );
    assert_eq!(seen["second"]["stop_reason"], "end_turn");
    // The second request carried the call and its result upstream as Chat
    // Completions messages: the assistant turn, then a `tool` message.
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    let messages = received[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(
        messages[1]["content"],
        "\n\nI'll check the weather in Paris.\n"
    );
    assert_eq!(messages[1]["tool_calls"][0]["id"], id.as_str());
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
    // The SDK's key went nowhere: the proxy uses the profile's (none here).
    assert!(received[1].headers.get("authorization").is_none());
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_sees_each_fault_as_its_own_error() {
    let rate_limited = json!({"error": {"message": "Rate limit reached for requests",
        "type": "requests", "param": null, "code": "rate_limit_exceeded"}});
    let long = (0..400).map(|n| {
        let chunk = json!({"id": "chatcmpl-long", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "choices": [{"index": 0, "delta": {"content": format!("word{n} ")},
            "finish_reason": null}]});
        format!("data: {chunk}\n\n")
    });
    let upstream = ReplayServer::start(vec![
        Reply::json(429, &rate_limited),
        Reply::sse(recording("openai-compat.hermes-text.sse")).cut_after(5),
        Reply::frames(long).pause(Duration::from_millis(20)),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;

    // An upstream HTTP error: the SDK's class for the status, Anthropic's shape.
    let seen = app("error", &proxy).await;
    assert_eq!(seen["class"], "RateLimitError");
    assert_eq!(seen["status"], 429);
    assert_eq!(
        seen["body"],
        json!({"type": "error", "error": {"type": "rate_limit_error",
               "message": "Rate limit reached for requests"}})
    );

    // The upstream cut mid-stream: an `error` event, which the SDK raises.
    let seen = app("stream_error", &proxy).await;
    assert_eq!(seen["class"], "APIStatusError");
    assert_eq!(seen["text"], "\n\nI'll check the weather in Paris.\n");
    assert_eq!(seen["body"]["type"], "error");
    assert_eq!(seen["body"]["error"]["type"], "api_error");

    // A block the proxy cannot forward: 400, nothing sent upstream.
    let seen = app("bad_request", &proxy).await;
    assert_eq!(seen["class"], "BadRequestError");
    assert_eq!(seen["status"], 400);
    assert_eq!(seen["body"]["error"]["type"], "invalid_request_error");

    // An app that closes its stream: the upstream request is cancelled.
    let seen = app("disconnect", &proxy).await;
    assert_eq!(seen["first"], "word0 ");
    assert!(
        upstream.wait_abandoned(Duration::from_secs(10)).await,
        "the upstream kept streaming after the app closed its stream"
    );
    assert_eq!(upstream.received().len(), 3);
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_token_and_the_forwarded_key_are_read_from_x_api_key() {
    use toolrouter::{ProxyOptions, UpstreamKey};
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.answer.sse")),
        Reply::sse(recording("openai-compat.answer.sse")),
    ])
    .await;
    let options = || ProxyOptions::new("127.0.0.1:0".parse().unwrap(), upstream.base_url(), "vllm");
    let guarded = crate::proxy::proxy_with(options().with_bearer_token("sk-ant-client")).await;
    // `post` sends `x-api-key: sk-ant-client`: the token.
    assert_eq!(post(&guarded, &request(false)).await.status(), 200);
    let response = reqwest::Client::new()
        .post(format!("{}/messages", guarded.url()))
        .header("x-api-key", "wrong")
        .json(&request(false))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "authentication_error");
    guarded.shutdown().await;

    let forwarding =
        crate::proxy::proxy_with(options().with_upstream_key(UpstreamKey::Forward)).await;
    assert_eq!(post(&forwarding, &request(false)).await.status(), 200);
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].headers["authorization"], "Bearer sk-ant-client");
    forwarding.shutdown().await;
}

/// At most one block open at a time, started, written and stopped in order.
fn assert_blocks_in_order(events: &[(String, Value)]) {
    let mut open: Option<u64> = None;
    let mut next = 0;
    for (name, data) in events {
        match name.as_str() {
            "content_block_start" => {
                assert_eq!(open, None, "a block starts while another is open");
                assert_eq!(data["index"], next);
                open = Some(next);
                next += 1;
            }
            "content_block_delta" => assert_eq!(Some(data["index"].as_u64().unwrap()), open),
            "content_block_stop" => {
                assert_eq!(Some(data["index"].as_u64().unwrap()), open);
                open = None;
            }
            _ => assert_eq!(open, None, "{name} inside a block"),
        }
    }
}

#[tokio::test]
async fn interleaved_structured_calls_become_one_tool_use_block_after_another() {
    // OpenAI streams the arguments of two parallel calls interleaved; Anthropic
    // blocks cannot interleave: the second waits, its fragments kept in order.
    let stream = crate::support::streams_dir().join("openai-chat.interleaved.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&stream)]).await;
    let proxy = proxy_for(&upstream).await;
    let response = post(&proxy, &request(true)).await;
    let events = events(&response.text().await.unwrap());
    assert_blocks_in_order(&events);
    let starts: Vec<&Value> = events
        .iter()
        .filter(|(n, _)| n == "content_block_start")
        .map(|(_, d)| &d["content_block"])
        .collect();
    assert_eq!(
        starts,
        [
            &json!({"type": "tool_use", "id": "call_A1", "name": "get_weather", "input": {}}),
            &json!({"type": "tool_use", "id": "call_B2", "name": "get_time", "input": {}}),
        ]
    );
    assert_eq!(
        json_fragments(&events, 0),
        ["{\"ci", "ty\":\"Pa", "ris\",\"uni", "t\":\"celsius\"}"]
    );
    assert_eq!(
        json_fragments(&events, 1),
        ["{\"tim", "ezone\":\"", "Asia/Tokyo\"}"]
    );
    assert_eq!(
        events[events.len() - 2].1["delta"]["stop_reason"],
        "tool_use"
    );
    assert_eq!(events[0].1["message"]["model"], "gpt-4.1-2025-04-14");
    proxy.shutdown().await;
}

/// A hand-written upstream answer: reasoning, then text cut by the token limit.
fn cut_by_length() -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({"id": "chatcmpl-len1", "object": "chat.completion.chunk", "created": 1,
            "model": "m-upstream", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    vec![
        chunk(
            json!({"role": "assistant", "reasoning_content": "Think"}),
            Value::Null,
        ),
        chunk(json!({"reasoning_content": "ing."}), Value::Null),
        chunk(json!({"content": "It is"}), Value::Null),
        chunk(json!({}), json!("length")),
        "data: [DONE]\n\n".to_owned(),
    ]
}

#[tokio::test]
async fn reasoning_becomes_a_thinking_block_and_length_is_max_tokens() {
    let upstream = ReplayServer::start(vec![
        Reply::frames(cut_by_length()),
        Reply::frames(cut_by_length()),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let message: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    assert_eq!(message["id"], "msg_len1");
    assert_eq!(message["model"], "m-upstream");
    assert_eq!(
        message["content"],
        json!([{"type": "thinking", "thinking": "Thinking.", "signature": ""},
               {"type": "text", "text": "It is"}])
    );
    assert_eq!(message["stop_reason"], "max_tokens");
    assert_eq!(message["stop_sequence"], Value::Null);

    let response = post(&proxy, &request(true)).await;
    let events = events(&response.text().await.unwrap());
    assert_blocks_in_order(&events);
    assert_eq!(block_text(&events, 0, "thinking"), "Thinking.");
    assert_eq!(block_text(&events, 1, "text"), "It is");
    assert_eq!(
        events[events.len() - 2].1["delta"]["stop_reason"],
        "max_tokens"
    );
    assert_eq!(events.last().unwrap().0, "message_stop");
    proxy.shutdown().await;
}

/// The official `anthropic` SDK's streamed tool loop (call, the app's tool
/// result, the next answer) on the Messages door, in front of `provider`'s
/// upstream answering with `replies` (the client's key sent on); what the SDK
/// saw and what the upstream received. Within a minute: a loop that hangs
/// fails.
pub(crate) async fn anthropic_sdk_loop(
    provider: &str,
    replies: Vec<Reply>,
) -> (Value, Vec<crate::support::replay::Received>) {
    let upstream = ReplayServer::start(replies).await;
    let proxy = crate::proxy::forwarding_proxy(&upstream, provider).await;
    let seen = tokio::time::timeout(Duration::from_secs(60), app("loop", &proxy))
        .await
        .unwrap_or_else(|_| panic!("the SDK's loop against {provider} hung"));
    proxy.shutdown().await;
    (seen, upstream.received())
}

/// What the SDK's `loop` saw of a recorded weather loop (`*.single.*`, then
/// `*.text.*`): the text and the weather call `id` (`tool_use`), then the
/// final text (`end_turn`) and its `usage`.
pub(crate) fn assert_weather_loop(seen: &Value, id: &str, usage: Value) {
    assert_eq!(seen["first"]["content"], weather_turn(id));
    assert_eq!(seen["first"]["stop_reason"], "tool_use");
    assert_eq!(seen["second"]["content"], bonjour_turn());
    assert_eq!(seen["second"]["stop_reason"], "end_turn");
    assert_eq!(seen["second"]["usage"], usage);
}

/// The first turn of the recorded weather loops (`*.single.*` and their
/// `.expect.json`) as the SDK's message content, the call's id `id`.
pub(crate) fn weather_turn(id: &str) -> Value {
    json!([
        {"type": "text", "text": "Let me check the current weather in Paris for you."},
        {"type": "tool_use", "id": id, "name": "get_weather",
         "input": {"city": "Paris", "unit": "celsius"}}])
}

/// The final answer of the recorded weather loops (`*.text.*`) as the SDK's
/// message content.
pub(crate) fn bonjour_turn() -> Value {
    json!([{"type": "text", "text": crate::proxy::BONJOUR}])
}
