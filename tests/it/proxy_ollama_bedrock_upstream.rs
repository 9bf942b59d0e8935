//! `toolrouter proxy --provider ollama` and `--provider bedrock`: the OpenAI
//! door in front of native Ollama (`/api/chat`, NDJSON) and Bedrock
//! (ConverseStream, the AWS binary event stream), and the official `anthropic`
//! SDK's tool loop on the Messages door in front of both, replaying recordings from
//! `tests/data/streams/`. Expectations are written by hand from the
//! recordings and their `.expect.json` files.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::proxy::{args, fold, forwarding_proxy, frames, get_json, post, post_as_client, request};
use crate::proxy_anthropic::{anthropic_sdk_loop, assert_weather_loop, weather_turn};
use crate::support::replay::{ReplayServer, Reply};
use crate::support::streams_dir;

fn recording(name: &str) -> std::path::PathBuf {
    streams_dir().join(name)
}

fn eventstream(name: &str) -> Reply {
    Reply::binary(recording(name), "application/vnd.amazon.eventstream", 37)
}

async fn proxy_to(upstream: &ReplayServer, provider: &str) -> toolrouter::ProxyServer {
    forwarding_proxy(upstream, provider).await
}

/// A request with a call, its result, a system message and the sampling fields.
fn full_request(model: &str) -> Value {
    let mut body = request(true);
    body["model"] = json!(model);
    body["messages"] = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18 °C"},
        {"role": "user", "content": "Thanks."}]);
    body["max_tokens"] = json!(128);
    body["stop"] = json!("END");
    body["temperature"] = json!(0.2);
    body["tool_choice"] = json!("required");
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ollama_streams_its_call_and_gets_the_native_request() {
    let upstream =
        ReplayServer::start(vec![Reply::ndjson(recording("ollama.single.ndjson"))]).await;
    let proxy = proxy_to(&upstream, "ollama").await;
    let folded = fold(&frames(post_as_client(&proxy, &full_request("qwen3:8b")).await).await);
    // ollama.single.ndjson.expect.json
    assert_eq!(
        folded.content,
        "Let me check the current weather in Paris for you."
    );
    assert!(folded.done);
    assert_eq!(folded.calls.len(), 1);
    let (id, name, arguments, _) = &folded.calls[0];
    assert_eq!(id, "call_k3x9q2ab");
    assert_eq!(name, "get_weather");
    assert_eq!(args(arguments), json!({"city": "Paris", "unit": "celsius"}));

    let sent = &upstream.received()[0];
    assert_eq!(sent.path, "/v1/api/chat");
    assert_eq!(sent.headers["authorization"], "Bearer sk-client");
    assert_eq!(
        sent.body,
        json!({
            "model": "qwen3:8b",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "Checking.", "tool_calls": [
                    {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
                {"role": "tool", "content": "18 °C", "tool_name": "get_weather"},
                {"role": "user", "content": "Thanks."}],
            "tools": [
                {"type": "function", "function": {"name": "get_weather", "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                    "required": ["city"]}}},
                {"type": "function", "function": {"name": "get_time", "parameters": {
                    "type": "object", "properties": {"timezone": {"type": "string"}}}}}],
            "stream": true,
            "options": {"num_predict": 128, "temperature": 0.2, "stop": ["END"]}
        })
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn ollama_errors_and_its_model_list() {
    let tags = json!({"models": [
        {"name": "qwen3:8b", "model": "qwen3:8b", "modified_at": "2025-08-26T09:00:00Z"},
        {"name": "llama3.2:latest", "model": "llama3.2:latest"}]});
    let upstream = ReplayServer::start(vec![
        Reply::json(
            404,
            &json!({"error": "model \"nope\" not found, try pulling it first"}),
        ),
        Reply::json(200, &tags),
        Reply::json(200, &tags),
    ])
    .await;
    let proxy = proxy_to(&upstream, "ollama").await;
    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 404);
    let error: Value = response.json().await.unwrap();
    assert_eq!(
        error["error"]["message"],
        "model \"nope\" not found, try pulling it first"
    );
    let list = get_json(&proxy, "models", None).await;
    assert_eq!(
        list,
        json!({"object": "list", "data": [
            {"id": "qwen3:8b", "object": "model", "created": 0, "owned_by": "ollama"},
            {"id": "llama3.2:latest", "object": "model", "created": 0, "owned_by": "ollama"}]})
    );
    let one = get_json(&proxy, "models/qwen3%3A8b", None).await;
    assert_eq!(
        one,
        json!({"id": "qwen3:8b", "object": "model", "created": 0, "owned_by": "ollama"})
    );
    assert_eq!(upstream.received()[1].path, "/v1/api/tags");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bedrock_streams_its_call_from_the_event_stream_and_gets_a_converse_request() {
    let upstream = ReplayServer::start(vec![eventstream("bedrock.single.eventstream")]).await;
    let proxy = proxy_to(&upstream, "bedrock").await;
    let model = "anthropic.claude-3-5-sonnet-20240620-v1:0";
    let folded = fold(&frames(post_as_client(&proxy, &full_request(model)).await).await);
    // bedrock.single.eventstream.expect.json
    assert_eq!(
        folded.content,
        "Let me check the current weather in Paris for you."
    );
    assert!(folded.done);
    assert_eq!(folded.calls.len(), 1);
    let (id, name, arguments, _) = &folded.calls[0];
    assert_eq!(id, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q");
    assert_eq!(name, "get_weather");
    assert_eq!(args(arguments), json!({"city": "Paris", "unit": "celsius"}));

    let sent = &upstream.received()[0];
    assert_eq!(
        sent.path,
        "/v1/model/anthropic.claude-3-5-sonnet-20240620-v1:0/converse-stream"
    );
    assert_eq!(sent.headers["authorization"], "Bearer sk-client");
    assert_eq!(sent.headers["accept"], "application/vnd.amazon.eventstream");
    assert_eq!(
        sent.body,
        json!({
            "messages": [
                {"role": "user", "content": [{"text": "Weather in Paris?"}]},
                {"role": "assistant", "content": [
                    {"text": "Checking."},
                    {"toolUse": {"toolUseId": "call_1", "name": "get_weather",
                                 "input": {"city": "Paris"}}}]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "call_1", "content": [{"text": "18 °C"}]}},
                    {"text": "Thanks."}]}],
            "system": [{"text": "Be brief."}],
            "toolConfig": {
                "tools": [
                    {"toolSpec": {"name": "get_weather", "inputSchema": {"json": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                        "required": ["city"]}}}},
                    {"toolSpec": {"name": "get_time", "inputSchema": {"json": {
                        "type": "object", "properties": {"timezone": {"type": "string"}}}}}}],
                "toolChoice": {"any": {}}},
            "inferenceConfig": {"maxTokens": 128, "temperature": 0.2, "stopSequences": ["END"]}
        })
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn bedrock_errors_come_back_with_their_status_and_it_has_no_model_list() {
    let throttled = json!({"message": "Too many requests, please wait before trying again."});
    let upstream = ReplayServer::start(vec![
        Reply::json(429, &throttled),
        eventstream("bedrock.unicode.eventstream"),
    ])
    .await;
    let proxy = proxy_to(&upstream, "bedrock").await;
    let response = post(&proxy, &request(false)).await;
    assert_eq!(response.status(), 429);
    let error: Value = response.json().await.unwrap();
    assert_eq!(
        error["error"]["message"],
        "Too many requests, please wait before trying again."
    );
    // bedrock.unicode.eventstream.expect.json, in one completion.
    let completion: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    let message = &completion["choices"][0]["message"];
    assert_eq!(message["content"], "好的 👍");
    let call = &message["tool_calls"][0];
    assert_eq!(call["id"], "tooluse_Un1c0dEaBcDeFgHiJkLmNo");
    assert_eq!(call["function"]["name"], "send_email");
    assert_eq!(
        args(call["function"]["arguments"].as_str().unwrap()),
        json!({"to": "李雷", "subject": "Re: \"季度报告\" 📊",
               "body": "你好！\n请查看附件 👉 report.pdf\n\t— 東京より 🗼",
               "path": "C:\\Users\\me\\報告.txt", "tags": ["🚀", "日本語", "ok"]})
    );
    let response = reqwest::Client::new()
        .get(format!("{}/models", proxy.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["error"]["code"], "model_list_unavailable");
    assert_eq!(upstream.received().len(), 2);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_runs_a_tool_loop_against_an_ollama_upstream() {
    let (seen, received) = anthropic_sdk_loop(
        "ollama",
        vec![
            Reply::ndjson(recording("ollama.single.ndjson")),
            Reply::ndjson(recording("ollama.text.ndjson")),
        ],
    )
    .await;
    // ollama.text.ndjson.expect.json; prompt_eval_count 188, eval_count 41.
    assert_weather_loop(
        &seen,
        "call_k3x9q2ab",
        json!({"input_tokens": 188, "output_tokens": 41}),
    );
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": "What is the weather in Paris?"},
            {"role": "assistant", "content": "Let me check the current weather in Paris for you.",
             "tool_calls": [{"function": {"name": "get_weather",
                                          "arguments": {"city": "Paris", "unit": "celsius"}}}]},
            {"role": "tool", "content": "18 °C and sunny", "tool_name": "get_weather"}])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_runs_a_tool_loop_against_a_bedrock_upstream() {
    // No recorded Bedrock event stream ends in text alone: the second answer
    // is `bedrock.unicode.eventstream`, text and another call.
    let (seen, received) = anthropic_sdk_loop(
        "bedrock",
        vec![
            eventstream("bedrock.single.eventstream"),
            eventstream("bedrock.unicode.eventstream"),
        ],
    )
    .await;
    let id = "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q";
    assert_eq!(seen["first"]["content"], weather_turn(id));
    assert_eq!(seen["first"]["stop_reason"], "tool_use");
    let second = seen["second"]["content"].as_array().unwrap();
    assert_eq!(second.len(), 2, "{second:?}");
    assert_eq!(second[0], json!({"type": "text", "text": "好的 👍"}));
    assert_eq!(second[1]["id"], "tooluse_Un1c0dEaBcDeFgHiJkLmNo");
    assert_eq!(second[1]["name"], "send_email");
    assert_eq!(second[1]["input"]["to"], "李雷");
    assert_eq!(seen["second"]["stop_reason"], "tool_use");
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["messages"],
        json!([
            {"role": "user", "content": [{"text": "What is the weather in Paris?"}]},
            {"role": "assistant", "content": [
                {"text": "Let me check the current weather in Paris for you."},
                {"toolUse": {"toolUseId": id, "name": "get_weather",
                             "input": {"city": "Paris", "unit": "celsius"}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": id, "content": [{"text": "18 °C and sunny"}]}}]}])
    );
}
