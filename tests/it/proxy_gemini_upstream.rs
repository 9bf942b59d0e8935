//! `toolrouter proxy --provider gemini`: the OpenAI and Anthropic doors in
//! front of a Gemini upstream. reqwest and the official `openai` (streamed and
//! whole) and `anthropic` SDKs run tool loops through it against recorded
//! Gemini streams (`tests/data/streams/gemini.*`); the upstream must
//! receive `streamGenerateContent` requests, the clients their own wire's
//! answers. Expectations are written by hand from the recordings and their
//! `.expect.json` files.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::proxy::shared_sse as stream;
use crate::proxy::{
    BONJOUR, args, fold, forwarding_proxy, frames, get_json, post, post_as_client, request,
    weather_follow_up,
};
use crate::proxy_anthropic::anthropic_sdk_loop;
use crate::proxy_python::{assert_weather_loop, openai_sdk_loop};
use crate::support::replay::{ReplayServer, Reply};

async fn gemini_proxy(upstream: &ReplayServer) -> toolrouter::ProxyServer {
    forwarding_proxy(upstream, "gemini").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_tool_loop_against_a_gemini_upstream() {
    let upstream =
        ReplayServer::start(vec![stream("gemini.single.sse"), stream("gemini.text.sse")]).await;
    let proxy = gemini_proxy(&upstream).await;
    let first = fold(&frames(post_as_client(&proxy, &request(true)).await).await);
    // gemini.single.sse.expect.json
    assert_eq!(
        first.content,
        "Let me check the current weather in Paris for you."
    );
    assert!(first.done);
    assert_eq!(first.calls.len(), 1, "{:?}", first.calls);
    let (id, name, arguments, _) = &first.calls[0];
    assert_eq!(name, "get_weather");
    assert_eq!(args(arguments), json!({"city": "Paris", "unit": "celsius"}));
    // Gemini's calls carry no id: the router made one up.
    assert!(!id.is_empty());
    let second = fold(&frames(post_as_client(&proxy, &weather_follow_up(&first)).await).await);
    // gemini.text.sse.expect.json
    assert_eq!(second.content, BONJOUR);
    assert!(second.calls.is_empty() && second.done);

    let received = upstream.received();
    assert_eq!(received.len(), 2);
    // The model is in the URL; the client's key goes on in Gemini's header.
    assert_eq!(received[0].path, "/v1/models/m:streamGenerateContent");
    assert_eq!(received[0].query, "alt=sse");
    assert_eq!(received[0].headers["x-goog-api-key"], "sk-client");
    assert!(received[0].headers.get("authorization").is_none());
    assert_eq!(
        received[0].body,
        json!({
            "contents": [{"role": "user", "parts": [{"text": "What is the weather in Paris?"}]}],
            "tools": [{"functionDeclarations": [
                {"name": "get_weather", "parameters": {"type": "OBJECT", "properties": {
                    "city": {"type": "STRING"}, "unit": {"type": "STRING"}},
                    "required": ["city"]}},
                {"name": "get_time", "parameters": {"type": "OBJECT", "properties": {
                    "timezone": {"type": "STRING"}}}}]}]
        })
    );
    // The second request: the call as a `functionCall` part, its result as a
    // `functionResponse` named after the call its id answers.
    assert_eq!(received[1].body["contents"], weather_loop_contents());
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_request_fields_are_translated_field_by_field() {
    let upstream = ReplayServer::start(vec![stream("gemini.parallel.sse")]).await;
    let proxy = gemini_proxy(&upstream).await;
    let mut body = request(false);
    body["model"] = json!("gemini-2.5-flash");
    body["messages"] = json!([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "18 °C"},
        {"role": "user", "content": "And the time in Tokyo?"}]);
    body["max_tokens"] = json!(256);
    body["stop"] = json!(["END"]);
    body["temperature"] = json!(0.3);
    body["top_p"] = json!(0.9);
    body["seed"] = json!(42);
    body["logprobs"] = json!(false);
    body["tool_choice"] = json!({"type": "function", "function": {"name": "get_time"}});
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    let sent = &upstream.received()[0];
    assert_eq!(
        sent.path,
        "/v1/models/gemini-2.5-flash:streamGenerateContent"
    );
    let expected = json!({
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}},
                 "thoughtSignature": "skip_thought_signature_validator"}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "18 °C"}}},
                {"text": "And the time in Tokyo?"}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "tools": [{"functionDeclarations": [
            {"name": "get_weather", "parameters": {"type": "OBJECT", "properties": {
                "city": {"type": "STRING"}, "unit": {"type": "STRING"}}, "required": ["city"]}},
            {"name": "get_time", "parameters": {"type": "OBJECT", "properties": {
                "timezone": {"type": "STRING"}}}}]}],
        "toolConfig": {"functionCallingConfig": {
            "mode": "ANY", "allowedFunctionNames": ["get_time"]}},
        "generationConfig": {"maxOutputTokens": 256, "temperature": 0.3, "topP": 0.9,
                             "stopSequences": ["END"]}
    });
    let sent = sent.body.as_object().unwrap();
    let expected = expected.as_object().unwrap();
    for (key, value) in expected {
        assert_eq!(&sent[key], value, "`{key}`");
    }
    assert_eq!(sent.len(), expected.len(), "{sent:?}");
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gemini_error_comes_back_with_its_status_in_each_doors_shape() {
    let exhausted = json!({"error": {"code": 429,
        "message": "Resource has been exhausted (e.g. check quota).",
        "status": "RESOURCE_EXHAUSTED"}});
    let upstream = ReplayServer::start(vec![
        Reply::json(429, &exhausted),
        Reply::json(429, &exhausted),
    ])
    .await;
    let proxy = gemini_proxy(&upstream).await;
    let seen = crate::proxy_python::app("error", &proxy.url()).await;
    assert_eq!(seen["class"], "RateLimitError");
    assert_eq!(seen["status"], 429);
    assert_eq!(
        seen["body"]["message"],
        "Resource has been exhausted (e.g. check quota)."
    );
    assert_eq!(seen["body"]["status"], "RESOURCE_EXHAUSTED");
    // The Anthropic door: the same status, in Anthropic's shape.
    let root = proxy.url().strip_suffix("/v1").unwrap().to_owned();
    let response = reqwest::Client::new()
        .post(format!("{root}/v1/messages"))
        .json(&json!({"model": "gemini-2.5-flash", "max_tokens": 10,
            "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    let error: Value = response.json().await.unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(
        error["error"]["message"],
        "Resource has been exhausted (e.g. check quota)."
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_model_list_is_translated_into_openais() {
    let list = json!({"models": [
        {"name": "models/gemini-2.5-flash", "displayName": "Gemini 2.5 Flash",
         "supportedGenerationMethods": ["generateContent"]},
        {"name": "models/gemini-2.5-pro"}],
        "nextPageToken": "x"});
    let one = json!({"name": "models/gemini-2.5-pro", "version": "2.5"});
    let upstream = ReplayServer::start(vec![Reply::json(200, &list), Reply::json(200, &one)]).await;
    let proxy = gemini_proxy(&upstream).await;
    let models = get_json(&proxy, "models", Some("sk-client")).await;
    assert_eq!(
        models,
        json!({"object": "list", "data": [
            {"id": "gemini-2.5-flash", "object": "model", "created": 0, "owned_by": "gemini"},
            {"id": "gemini-2.5-pro", "object": "model", "created": 0, "owned_by": "gemini"}]})
    );
    let model = get_json(&proxy, "models/gemini-2.5-pro", None).await;
    assert_eq!(
        model,
        json!({"id": "gemini-2.5-pro", "object": "model", "created": 0, "owned_by": "gemini"})
    );
    let received = upstream.received();
    assert_eq!(received[0].path, "/v1/models");
    assert_eq!(received[0].query, "pageSize=1000");
    assert_eq!(received[0].headers["x-goog-api-key"], "sk-client");
    assert_eq!(received[1].path, "/v1/models/gemini-2.5-pro");
    proxy.shutdown().await;
}

/// The recorded weather loop: a call (`single`), then the final text (`text`).
fn weather_loop() -> Vec<Reply> {
    vec![stream("gemini.single.sse"), stream("gemini.text.sse")]
}

/// The official `openai` SDK's tool loop (call, the app's tool result, the
/// final answer) against a Gemini upstream, streamed (`loop`) and whole
/// (`loop_complete`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_runs_a_tool_loop_against_a_gemini_upstream_streamed_and_whole() {
    for scenario in ["loop", "loop_complete"] {
        let (seen, received) = openai_sdk_loop(scenario, "gemini", weather_loop()).await;
        // gemini.single.sse.expect.json, then gemini.text.sse.expect.json;
        // Gemini's calls carry no id: the router made one up (`call_…`).
        assert_weather_loop(&seen, scenario);
        if scenario == "loop_complete" {
            // usageMetadata: 96 prompt, 12 candidates, 108 in all.
            let usage = json!({"prompt_tokens": 96, "completion_tokens": 12, "total_tokens": 108});
            assert_eq!(seen["first"]["usage"], usage);
            assert_eq!(seen["second"]["usage"], usage);
            assert_eq!(seen["first"]["object"], "chat.completion");
        }
        // The second request carried the call and the app's result upstream.
        assert_eq!(received.len(), 2, "{scenario}");
        assert_eq!(received[1].path, "/v1/models/m:streamGenerateContent");
        assert_eq!(received[1].body["contents"], weather_loop_contents());
    }
}

/// The official `anthropic` SDK's streamed tool loop on the Messages door,
/// against a Gemini upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_anthropic_sdk_runs_a_tool_loop_against_a_gemini_upstream() {
    let (seen, received) = anthropic_sdk_loop("gemini", weather_loop()).await;
    // Gemini's calls carry no id: the router made one up.
    let id = seen["first"]["content"][1]["id"].as_str().unwrap();
    assert!(id.starts_with("call_"), "{id}");
    crate::proxy_anthropic::assert_weather_loop(
        &seen,
        id,
        json!({"input_tokens": 96, "output_tokens": 12}),
    );
    assert_eq!(received.len(), 2);
    // The Messages door has no place for Gemini's signature: the call goes
    // back with the value that skips Gemini's check.
    let contents = weather_loop_contents();
    assert_eq!(received[1].body["contents"][1], contents[1]);
    assert_eq!(received[1].body["contents"][2], contents[2]);
}

/// Two calls in one Gemini turn and no text (`gemini.parallel.sse`): the app
/// sends `content: null` and two tool results, which go upstream as one
/// `user` turn of two `functionResponse` parts, each named after its call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openai_sdk_answers_two_gemini_calls_of_one_turn() {
    let (seen, received) = openai_sdk_loop(
        "loop",
        "gemini",
        vec![stream("gemini.parallel.sse"), stream("gemini.text.sse")],
    )
    .await;
    let calls = seen["first"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{seen}");
    assert_eq!(calls[0]["name"], "get_weather");
    assert_eq!(calls[1]["name"], "get_time");
    assert_eq!(calls[1]["arguments"], json!({"timezone": "Asia/Tokyo"}));
    assert_eq!(seen["first"]["content"], "");
    assert_eq!(seen["first"]["finish_reason"], "tool_calls");
    assert_eq!(seen["second"]["finish_reason"], "stop");
    assert_eq!(
        received[1].body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather",
                                  "args": {"city": "Paris", "unit": "celsius"}},
                 "thoughtSignature": "skip_thought_signature_validator"},
                {"functionCall": {"name": "get_time", "args": {"timezone": "Asia/Tokyo"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather",
                                      "response": {"output": "18 °C and sunny"}}},
                {"functionResponse": {"name": "get_time",
                                      "response": {"output": "get_time: done"}}}]}
        ])
    );
}

/// The signature Gemini put on the first of its two parallel calls
/// (`gemini.parallel.sse`), written out by hand.
const PARALLEL_SIGNATURE: &str = "CiQBVKhc7uG2e0mQ5pX3kVz9yW8tR1sJ4aN6bD0cF2hL7oP9rS";

/// Gemini 3 refuses a request whose earlier calls come back without their
/// `thoughtSignature`. The Chat door hands the signature to the client where
/// Google's OpenAI-compatible endpoint does (`extra_content.google`), on the
/// call's first delta; the client sends it back on the call, and the next
/// request carries it on that `functionCall` part, and on no other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gemini_thought_signature_goes_to_the_client_and_back_upstream() {
    let upstream = ReplayServer::start(vec![
        stream("gemini.parallel.sse"),
        stream("gemini.text.sse"),
    ])
    .await;
    let proxy = gemini_proxy(&upstream).await;
    let first = frames(post(&proxy, &request(true)).await).await;
    let entries: Vec<Value> = first
        .iter()
        .filter_map(|f| serde_json::from_str::<Value>(f).ok())
        .filter_map(|chunk| chunk["choices"][0]["delta"].get("tool_calls").cloned())
        .flat_map(|calls| calls.as_array().cloned().unwrap_or_default())
        .collect();
    let signed: Vec<&Value> = entries
        .iter()
        .filter(|e| e.get("extra_content").is_some())
        .collect();
    assert_eq!(signed.len(), 1, "{entries:?}");
    // The first delta of the first call: the one with its id and name.
    assert_eq!(signed[0]["index"], 0);
    assert_eq!(signed[0]["function"]["name"], "get_weather");
    assert!(signed[0]["id"].is_string());
    assert_eq!(
        signed[0]["extra_content"],
        json!({"google": {"thought_signature": PARALLEL_SIGNATURE}})
    );
    let folded = fold(&first);
    assert_eq!(folded.calls.len(), 2, "{:?}", folded.calls);
    let (weather_id, _, weather_args, _) = folded.calls[0].clone();
    let (time_id, time_name, time_args, _) = folded.calls[1].clone();
    assert_eq!(time_name, "get_time");

    let mut second = request(true);
    second["messages"] = json!([
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": weather_id, "type": "function",
             "function": {"name": "get_weather", "arguments": weather_args},
             "extra_content": {"google": {"thought_signature": PARALLEL_SIGNATURE}}},
            {"id": time_id, "type": "function",
             "function": {"name": "get_time", "arguments": time_args}}]},
        {"role": "tool", "tool_call_id": weather_id, "content": "18 °C"},
        {"role": "tool", "tool_call_id": time_id, "content": "09:00"}]);
    let second = fold(&frames(post(&proxy, &second).await).await);
    assert!(second.done && second.calls.is_empty());

    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather",
                                  "args": {"city": "Paris", "unit": "celsius"}},
                 "thoughtSignature": PARALLEL_SIGNATURE},
                {"functionCall": {"name": "get_time", "args": {"timezone": "Asia/Tokyo"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "18 °C"}}},
                {"functionResponse": {"name": "get_time", "response": {"output": "09:00"}}}]}
        ])
    );
    proxy.shutdown().await;
}

/// A whole (non-streamed) answer carries the signature on its call
/// (`gemini.thinking.sse` signs its one call); a client that does not send it
/// back gets Google's sentinel on the call instead, which Gemini accepts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_sent_back_without_its_signature_goes_upstream_with_the_sentinel() {
    let upstream = ReplayServer::start(vec![
        stream("gemini.thinking.sse"),
        stream("gemini.text.sse"),
    ])
    .await;
    let proxy = gemini_proxy(&upstream).await;
    let first = post(&proxy, &request(false)).await;
    assert_eq!(first.status(), 200);
    let first: Value = first.json().await.unwrap();
    let message = &first["choices"][0]["message"];
    assert_eq!(first["choices"][0]["finish_reason"], "tool_calls");
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{message}");
    assert_eq!(calls[0]["function"]["name"], "get_time");
    assert_eq!(
        calls[0]["extra_content"],
        json!({"google": {"thought_signature":
            "CtwBAVSoXO6kS9zM1pQ4rT7uW0xY3aB5cD8eF1gH4iJ7kL0mN3oP6q"}})
    );
    let id = calls[0]["id"].as_str().unwrap();

    let mut second = request(false);
    second["messages"] = json!([
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": id, "type": "function",
             "function": {"name": "get_time", "arguments": "{\"timezone\": \"Asia/Tokyo\"}"}}]},
        {"role": "tool", "tool_call_id": id, "content": "09:00"}]);
    let second = post(&proxy, &second).await;
    assert_eq!(second.status(), 200);

    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(
        received[1].body["contents"][1],
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "get_time", "args": {"timezone": "Asia/Tokyo"}},
             "thoughtSignature": "skip_thought_signature_validator"}]})
    );
    proxy.shutdown().await;
}

/// The second request of the `gemini.single.sse` loop, as Gemini takes it:
/// the call as a `functionCall` part (unsigned by the client, so with the
/// value that skips Gemini's check), its result as a `functionResponse` named
/// after the call its id answers.
fn weather_loop_contents() -> Value {
    json!([
        {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]},
        {"role": "model", "parts": [
            {"text": "Let me check the current weather in Paris for you."},
            {"functionCall": {"name": "get_weather",
                              "args": {"city": "Paris", "unit": "celsius"}},
             "thoughtSignature": "skip_thought_signature_validator"}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "get_weather",
                                  "response": {"output": "18 °C and sunny"}}}]}
    ])
}
