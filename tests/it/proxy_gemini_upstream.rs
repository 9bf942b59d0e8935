//! `toolrouter proxy --provider gemini`: the OpenAI door in front of a Gemini
//! upstream. The official `openai` SDK runs a tool loop through it against
//! recorded Gemini streams (`../shared/fixtures/streams/gemini.*`); the upstream
//! must receive `streamGenerateContent` requests, the SDK Chat Completions
//! answers. Expectations are written by hand from the recordings and their
//! `.expect.json` files.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use toolrouter::{ProxyOptions, UpstreamKey};

use crate::proxy::{args, fold, frames, post, proxy_with, request};
use crate::support::replay::{ReplayServer, Reply};
use crate::support::shared_dir;

fn stream(name: &str) -> Reply {
    Reply::sse(shared_dir().join("fixtures/streams").join(name))
}

async fn gemini_proxy(upstream: &ReplayServer) -> toolrouter::ProxyServer {
    proxy_with(
        ProxyOptions::new(
            "127.0.0.1:0".parse().unwrap(),
            upstream.base_url(),
            "gemini",
        )
        .with_upstream_key(UpstreamKey::Forward),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_tool_loop_against_a_gemini_upstream() {
    let upstream =
        ReplayServer::start(vec![stream("gemini.single.sse"), stream("gemini.text.sse")]).await;
    let proxy = gemini_proxy(&upstream).await;
    let client_post = |body: Value| {
        let url = format!("{}/chat/completions", proxy.url());
        async move {
            reqwest::Client::new()
                .post(url)
                .bearer_auth("sk-client")
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let first = fold(&frames(client_post(request(true)).await).await);
    // gemini.single.sse.expect.json
    assert_eq!(
        first.content,
        "Let me check the current weather in Paris for you."
    );
    assert!(first.done);
    assert_eq!(first.calls.len(), 1, "{:?}", first.calls);
    let (id, name, arguments, _) = first.calls[0].clone();
    assert_eq!(name, "get_weather");
    assert_eq!(
        args(&arguments),
        json!({"city": "Paris", "unit": "celsius"})
    );
    // Gemini's calls carry no id: the router made one up.
    assert!(!id.is_empty());
    let mut second = request(true);
    second["messages"] = json!([
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": first.content, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": id, "content": "18 °C and sunny"}]);
    let second = fold(&frames(client_post(second).await).await);
    // gemini.text.sse.expect.json
    assert_eq!(
        second.content,
        "Bonjour! 👋 I can help with weather, time zones, and email. 你想知道什么？"
    );
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
    assert_eq!(
        received[1].body["contents"],
        json!([
            {"role": "user", "parts": [{"text": "What is the weather in Paris?"}]},
            {"role": "model", "parts": [
                {"text": "Let me check the current weather in Paris for you."},
                {"functionCall": {"name": "get_weather",
                                  "args": {"city": "Paris", "unit": "celsius"}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "get_weather",
                                      "response": {"output": "18 °C and sunny"}}}]}
        ])
    );
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
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]},
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
    let client = reqwest::Client::new();
    let models: Value = client
        .get(format!("{}/models", proxy.url()))
        .bearer_auth("sk-client")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        models,
        json!({"object": "list", "data": [
            {"id": "gemini-2.5-flash", "object": "model", "created": 0, "owned_by": "gemini"},
            {"id": "gemini-2.5-pro", "object": "model", "created": 0, "owned_by": "gemini"}]})
    );
    let model: Value = client
        .get(format!("{}/models/gemini-2.5-pro", proxy.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
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
