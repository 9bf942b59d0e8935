//! `toolrouter proxy` over real sockets on 127.0.0.1: a client (reqwest) in
//! front, the proxy in the middle, a loopback model server replaying recorded
//! streams behind (`support::replay`). Calls the model wrote into its text
//! (Hermes, Qwen3-Coder, Mistral, harmony; `tests/data/proxy/`) and structured
//! calls of the shared recordings (`tests/data/streams/`) must reach
//! the client as OpenAI `tool_calls`, their arguments streamed; faults must
//! come back in OpenAI's error shape. Expectations are written by hand from
//! the recordings (or are the fixtures' own hand-checked `.expect.json`).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Notify;
use toolrouter::{ProxyOptions, ProxyServer, serve_proxy};

use crate::support::replay::{ReplayServer, Reply};
use crate::support::{repo_root, streams_dir};

/// A recording of `tests/data/proxy/`.
pub(crate) fn recording(name: &str) -> std::path::PathBuf {
    repo_root().join("tests/data/proxy").join(name)
}

/// A proxy in front of `upstream` with the `vllm` profile.
pub(crate) async fn proxy_for(upstream: &ReplayServer) -> ProxyServer {
    proxy_with(ProxyOptions::new(
        "127.0.0.1:0".parse().unwrap(),
        upstream.base_url(),
        "vllm",
    ))
    .await
}

pub(crate) async fn proxy_with(options: ProxyOptions) -> ProxyServer {
    serve_proxy(options).await.unwrap()
}

/// The final answer of the recorded weather loops (`*.text.*` of
/// `tests/data/streams/` and their `.expect.json`).
pub(crate) const BONJOUR: &str =
    "Bonjour! 👋 I can help with weather, time zones, and email. 你想知道什么？";

/// The app's next request after `first`, an answer with one call: the
/// question, that answer's text and call, and the app's result `18 °C and
/// sunny`.
pub(crate) fn weather_follow_up(first: &Folded) -> Value {
    let (id, name, arguments, _) = &first.calls[0];
    let mut next = request(true);
    next["messages"] = json!([
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": first.content, "tool_calls": [
            {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}]},
        {"role": "tool", "tool_call_id": id, "content": "18 °C and sunny"}]);
    next
}

/// A recording of `tests/data/streams/`, replayed as SSE.
pub(crate) fn shared_sse(name: &str) -> Reply {
    Reply::sse(streams_dir().join(name))
}

/// A proxy in front of `upstream` with `provider`'s profile that sends the
/// client's own key upstream (`--forward-key`).
pub(crate) async fn forwarding_proxy(upstream: &ReplayServer, provider: &str) -> ProxyServer {
    proxy_with(
        ProxyOptions::new(
            "127.0.0.1:0".parse().unwrap(),
            upstream.base_url(),
            provider,
        )
        .with_upstream_key(toolrouter::UpstreamKey::Forward),
    )
    .await
}

/// `POST /v1/chat/completions` with the client's key `sk-client`.
pub(crate) async fn post_as_client(proxy: &ProxyServer, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/chat/completions", proxy.url()))
        .bearer_auth("sk-client")
        .json(body)
        .send()
        .await
        .unwrap()
}

/// The app's tools: `get_weather` and `get_time`.
pub(crate) fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
            "required": ["city"]}}},
        {"type": "function", "function": {"name": "get_time", "parameters": {
            "type": "object", "properties": {"timezone": {"type": "string"}}}}}
    ])
}

pub(crate) fn request(stream: bool) -> Value {
    json!({
        "model": "m",
        "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
        "tools": tools(),
        "stream": stream,
    })
}

pub(crate) async fn post(proxy: &ProxyServer, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/chat/completions", proxy.url()))
        .json(body)
        .send()
        .await
        .unwrap()
}

/// `GET {proxy}/{path}` (with `key` as a bearer token, if any): the answer's
/// JSON.
pub(crate) async fn get_json(proxy: &ProxyServer, path: &str, key: Option<&str>) -> Value {
    let mut request = reqwest::Client::new().get(format!("{}/{path}", proxy.url()));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    request.send().await.unwrap().json().await.unwrap()
}

/// What a client saw in a stream: the `data:` payloads in order.
pub(crate) async fn frames(response: reqwest::Response) -> Vec<String> {
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let text = response.text().await.unwrap();
    text.split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|f| f.strip_prefix("data: ").unwrap().to_owned())
        .collect()
}

/// A stream folded as an SDK folds it.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Folded {
    pub(crate) content: String,
    pub(crate) reasoning: String,
    /// `(id, name, arguments text, number of argument fragments)`.
    pub(crate) calls: Vec<(String, String, String, usize)>,
    pub(crate) finish_reason: Option<String>,
    pub(crate) usage: Option<Value>,
    pub(crate) error: Option<Value>,
    pub(crate) done: bool,
}

pub(crate) fn fold(frames: &[String]) -> Folded {
    let mut folded = Folded::default();
    for frame in frames {
        assert!(!folded.done, "nothing follows [DONE]");
        if frame == "[DONE]" {
            folded.done = true;
            continue;
        }
        let chunk: Value = serde_json::from_str(frame).unwrap();
        if let Some(error) = chunk.get("error") {
            folded.error = Some(error.clone());
            continue;
        }
        assert_eq!(chunk["object"], "chat.completion.chunk");
        if !chunk["usage"].is_null() {
            folded.usage = Some(chunk["usage"].clone());
        }
        for choice in chunk["choices"].as_array().unwrap() {
            let delta = &choice["delta"];
            folded.content += delta["content"].as_str().unwrap_or("");
            folded.reasoning += delta["reasoning_content"].as_str().unwrap_or("");
            for call in delta["tool_calls"].as_array().into_iter().flatten() {
                let index = call["index"].as_u64().unwrap() as usize;
                if index == folded.calls.len() {
                    folded.calls.push(Default::default());
                }
                let slot = &mut folded.calls[index];
                if let Some(id) = call["id"].as_str() {
                    slot.0 = id.to_owned();
                    assert_eq!(call["type"], "function");
                }
                slot.1 += call["function"]["name"].as_str().unwrap_or("");
                if let Some(args) = call["function"]["arguments"].as_str()
                    && !args.is_empty()
                {
                    slot.2 += args;
                    slot.3 += 1;
                }
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                folded.finish_reason = Some(reason.to_owned());
            }
        }
    }
    folded
}

pub(crate) fn args(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("arguments {text:?}: {e}"))
}

#[tokio::test]
async fn a_hermes_call_in_the_text_streams_as_tool_calls_before_the_upstream_finishes() {
    // Frames 4 and 5 carry `{"city": "Pa` and `ris", "unit": "cel`; frame 6
    // (the rest of the call) is held until the client has seen both fragments.
    let gate = Arc::new(Notify::new());
    let upstream = ReplayServer::start(vec![
        Reply::sse(recording("openai-compat.hermes-text.sse")).hold_at(6, Arc::clone(&gate)),
    ])
    .await;
    let proxy = proxy_for(&upstream).await;
    let response = post(&proxy, &request(true)).await;
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let mut released = false;
    let read = tokio::time::timeout(Duration::from_secs(20), async {
        while let Some(bytes) = body.next().await {
            text.push_str(std::str::from_utf8(&bytes.unwrap()).unwrap());
            // The frames complete so far.
            let complete = &text[..text.rfind("\n\n").map_or(0, |i| i + 2)];
            let so_far: Vec<String> = complete
                .split("\n\n")
                .filter(|f| !f.is_empty())
                .map(|f| f.strip_prefix("data: ").unwrap().to_owned())
                .collect();
            let folded = fold(&so_far);
            if !released && folded.calls.first().is_some_and(|c| c.3 >= 2) {
                // Two fragments out while the upstream still holds the call's end.
                assert_eq!(folded.calls[0].1, "get_weather");
                assert!(folded.finish_reason.is_none());
                released = true;
                gate.notify_one();
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the arguments were held back: {text}");
    assert!(released);
    let frames: Vec<String> = text
        .split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|f| f.strip_prefix("data: ").unwrap().to_owned())
        .collect();
    let folded = fold(&frames);
    assert_eq!(
        folded.reasoning,
        "\nThe user wants the weather in Paris; get_weather takes a city.\n"
    );
    assert_eq!(folded.content, "\n\nI'll check the weather in Paris.\n");
    assert_eq!(folded.calls.len(), 1);
    let (id, name, arguments, fragments) = &folded.calls[0];
    assert!(id.starts_with("call_"), "{id}");
    assert_eq!(name, "get_weather");
    assert_eq!(args(arguments), json!({"city": "Paris", "unit": "celsius"}));
    assert_eq!(*fragments, 3);
    assert_eq!(folded.finish_reason.as_deref(), Some("tool_calls"));
    // Usage was not asked for: no usage chunk.
    assert_eq!(folded.usage, None);
    assert!(folded.done);
    let first: Value = serde_json::from_str(&frames[0]).unwrap();
    assert_eq!(first["id"], "chatcmpl-9f3c2a7e41b8");
    assert_eq!(first["model"], "Qwen/Qwen3-8B");
    assert_eq!(first["created"], 1767225600);
    assert_eq!(first["choices"][0]["delta"]["role"], "assistant");
    proxy.shutdown().await;
}

/// A recording, what the client must see: content, reasoning, the one call's
/// arguments.
struct TextCase {
    file: &'static str,
    content: &'static str,
    reasoning: &'static str,
    arguments: Value,
}

fn text_cases() -> Vec<TextCase> {
    let paris = json!({"city": "Paris", "unit": "celsius"});
    vec![
        TextCase {
            file: "openai-compat.hermes-text.sse",
            content: "\n\nI'll check the weather in Paris.\n",
            reasoning: "\nThe user wants the weather in Paris; get_weather takes a city.\n",
            arguments: paris.clone(),
        },
        TextCase {
            file: "openai-compat.qwen3-coder-text.sse",
            content: "Let me look that up.\n",
            reasoning: "",
            arguments: paris.clone(),
        },
        TextCase {
            file: "openai-compat.mistral-text.sse",
            content: "Checking the weather.",
            reasoning: "",
            arguments: paris.clone(),
        },
        TextCase {
            file: "openai-compat.harmony-text.sse",
            content: "",
            reasoning: "Need the weather for Paris.",
            arguments: paris,
        },
    ]
}

#[tokio::test]
async fn every_dialect_written_in_the_text_becomes_a_structured_call() {
    for case in text_cases() {
        let upstream = ReplayServer::start(vec![
            Reply::sse(recording(case.file)),
            Reply::sse(recording(case.file)),
        ])
        .await;
        let proxy = proxy_for(&upstream).await;

        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.content, case.content, "{}", case.file);
        assert_eq!(folded.reasoning, case.reasoning, "{}", case.file);
        assert_eq!(folded.calls.len(), 1, "{}", case.file);
        assert_eq!(folded.calls[0].1, "get_weather", "{}", case.file);
        assert_eq!(args(&folded.calls[0].2), case.arguments, "{}", case.file);
        assert!(folded.calls[0].3 >= 2, "{}: arguments in pieces", case.file);
        assert_eq!(folded.finish_reason.as_deref(), Some("tool_calls"));
        assert!(folded.done);

        let response = post(&proxy, &request(false)).await;
        assert_eq!(response.status(), 200);
        let completion: Value = response.json().await.unwrap();
        assert_eq!(completion["object"], "chat.completion");
        let message = &completion["choices"][0]["message"];
        let content = if case.content.is_empty() {
            Value::Null
        } else {
            json!(case.content)
        };
        assert_eq!(message["content"], content, "{}", case.file);
        if case.reasoning.is_empty() {
            assert!(message.get("reasoning_content").is_none());
        } else {
            assert_eq!(message["reasoning_content"], case.reasoning);
        }
        let call = &message["tool_calls"][0];
        assert_eq!(call["type"], "function");
        assert_eq!(call["function"]["name"], "get_weather");
        assert_eq!(
            args(call["function"]["arguments"].as_str().unwrap()),
            case.arguments
        );
        assert_eq!(message["tool_calls"].as_array().unwrap().len(), 1);
        assert_eq!(completion["choices"][0]["finish_reason"], "tool_calls");
        proxy.shutdown().await;
    }
}

/// OpenAI's `finish_reason` for a fixture's normalised stop.
fn finish_for(stop: &str) -> &'static str {
    match stop {
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        "content_filter" => "content_filter",
        _ => "stop",
    }
}

#[tokio::test]
async fn recorded_openai_compatible_streams_keep_their_text_calls_and_stop() {
    // The shared recordings whose turn ends without an error, read against
    // their own hand-checked expectations.
    let fixtures = [
        "openai-chat.single.sse",
        "openai-chat.parallel.sse",
        "openai-chat.unicode.sse",
        "openai-chat.text.sse",
        "openai-chat.no-args.sse",
        "openai-chat.escape-split.sse",
        "openai-chat.interleaved.sse",
        "openai-chat.legacy-function-call.sse",
        "openai-compat.deepseek.sse",
        "openai-compat.groq.sse",
        "openai-compat.ollama.sse",
        "openai-compat.vllm.sse",
        "openai-compat.repeated-id.sse",
        "openai-compat.index-reuse.sse",
        "openai-compat.openrouter.sse",
        "openai-compat.azure.sse",
        "openai-compat.empty-finish-reason.sse",
        "openai-compat.gemini.sse",
        "mistral.parallel.sse",
    ];
    let dir = streams_dir();
    for name in fixtures {
        let expect: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.expect.json"))).unwrap(),
        )
        .unwrap();
        let mut body = request(true);
        // Every tool a recording calls is one the app declared.
        let mut tools = tools().as_array().unwrap().clone();
        for call in expect["calls"].as_array().unwrap() {
            tools.push(json!({"type": "function", "function": {"name": call["name"], "parameters": {"type": "object"}}}));
        }
        body["tools"] = Value::Array(tools);
        let upstream =
            ReplayServer::start(vec![Reply::sse(dir.join(name)), Reply::sse(dir.join(name))]).await;
        let proxy = proxy_for(&upstream).await;

        let folded = fold(&frames(post(&proxy, &body).await).await);
        assert_eq!(folded.content, expect["text"].as_str().unwrap(), "{name}");
        assert_eq!(
            folded.reasoning,
            expect["reasoning"].as_str().unwrap_or(""),
            "{name}"
        );
        let calls = expect["calls"].as_array().unwrap();
        assert_eq!(folded.calls.len(), calls.len(), "{name}");
        for (seen, want) in folded.calls.iter().zip(calls) {
            if let Some(id) = want["id"].as_str() {
                assert_eq!(seen.0, id, "{name}");
            }
            assert_eq!(seen.1, want["name"].as_str().unwrap(), "{name}");
            assert_eq!(args(&seen.2), want["arguments"], "{name}");
        }
        let stop = finish_for(expect["stop"].as_str().unwrap());
        assert_eq!(folded.finish_reason.as_deref(), Some(stop), "{name}");
        assert!(folded.done, "{name}");

        body["stream"] = json!(false);
        let completion: Value = post(&proxy, &body).await.json().await.unwrap();
        let message = &completion["choices"][0]["message"];
        let text = expect["text"].as_str().unwrap();
        if !text.is_empty() || calls.is_empty() {
            assert_eq!(message["content"], text, "{name}");
        }
        let got = message["tool_calls"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(got.len(), calls.len(), "{name}");
        for (seen, want) in got.iter().zip(calls) {
            assert_eq!(seen["function"]["name"], want["name"], "{name}");
            let arguments = seen["function"]["arguments"].as_str().unwrap();
            assert_eq!(args(arguments), want["arguments"], "{name}");
        }
        assert_eq!(completion["choices"][0]["finish_reason"], stop, "{name}");
        proxy.shutdown().await;
    }
}

#[tokio::test]
async fn usage_id_model_and_created_are_carried_over() {
    let file = streams_dir().join("openai-chat.single.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file), Reply::sse(&file)]).await;
    let proxy = proxy_for(&upstream).await;
    let mut body = request(true);
    body["stream_options"] = json!({"include_usage": true});
    let frames = frames(post(&proxy, &body).await).await;
    let folded = fold(&frames);
    let usage = json!({"prompt_tokens": 182, "completion_tokens": 41, "total_tokens": 223});
    assert_eq!(folded.usage, Some(usage.clone()));
    // The usage chunk comes after the finish chunk, with no choices, as OpenAI's.
    let last: Value = serde_json::from_str(&frames[frames.len() - 2]).unwrap();
    assert_eq!(last["choices"], json!([]));
    for frame in &frames[..frames.len() - 1] {
        let chunk: Value = serde_json::from_str(frame).unwrap();
        assert_eq!(chunk["id"], "chatcmpl-C7fJ2kQm1XzR0aYb9TnVwLpE3sUd");
        assert_eq!(chunk["model"], "gpt-4.1-2025-04-14");
        assert_eq!(chunk["created"], 1756198800);
        assert_eq!(chunk["system_fingerprint"], "fp_b3f1157249");
    }
    let completion: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    assert_eq!(completion["id"], "chatcmpl-C7fJ2kQm1XzR0aYb9TnVwLpE3sUd");
    assert_eq!(completion["usage"], usage);
    proxy.shutdown().await;
}

#[tokio::test]
async fn every_worker_thread_serves_whole_streams() {
    // Four serving threads, more concurrent streams than threads: each stream
    // is served whole, whichever thread accepted it.
    let file = streams_dir().join("openai-chat.single.sse");
    let streams = 16;
    let upstream = ReplayServer::start((0..streams).map(|_| Reply::sse(&file)).collect()).await;
    let options = ProxyOptions::new("127.0.0.1:0".parse().unwrap(), upstream.base_url(), "vllm")
        .with_workers(4);
    let proxy = proxy_with(options).await;
    let answers = futures::future::join_all(
        (0..streams).map(|_| async { fold(&frames(post(&proxy, &request(true)).await).await) }),
    )
    .await;
    // The recording's one call (its `.expect.json`).
    for answer in &answers {
        assert!(answer.done);
        assert_eq!(
            answer.content,
            "Let me check the current weather in Paris for you."
        );
        assert_eq!(answer.calls.len(), 1, "{:?}", answer.calls);
        let (id, name, arguments, _) = &answer.calls[0];
        assert_eq!(id, "call_Qm8vB2nXfL4kR7tYcW1aZ9pD");
        assert_eq!(name, "get_weather");
        let arguments: Value = serde_json::from_str(arguments).unwrap();
        assert_eq!(arguments, json!({"city": "Paris", "unit": "celsius"}));
        assert_eq!(answer.finish_reason.as_deref(), Some("tool_calls"));
    }
    assert_eq!(upstream.received().len(), streams);
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_request_goes_upstream_as_it_came() {
    let file = recording("openai-compat.answer.sse");
    let upstream = ReplayServer::start(vec![Reply::sse(&file), Reply::sse(&file)]).await;
    let proxy = proxy_for(&upstream).await;
    let mut body = json!({
        "model": "Qwen/Qwen3-8B",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "What is the weather in Paris?"},
            // `extra_content` is where Google's OpenAI endpoint takes a
            // call's thought signature back: it goes upstream untouched.
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"},
                "extra_content": {"google": {"thought_signature": "SIG-1"}}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18 °C and sunny"}
        ],
        "tools": tools(),
        "tool_choice": "auto",
        "stop": ["</answer>"],
        "max_tokens": 64,
        "temperature": 0.2,
        "stream": true,
    });
    let folded = fold(&frames(post(&proxy, &body).await).await);
    assert_eq!(folded.content, "It is 18 °C and sunny in Paris.");
    assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
    body["stream"] = json!(false);
    let completion: Value = post(&proxy, &body).await.json().await.unwrap();
    assert_eq!(
        completion["choices"][0]["message"]["content"],
        "It is 18 °C and sunny in Paris."
    );
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    for seen in &received {
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.path, "/v1/chat/completions");
        assert_eq!(seen.headers["accept"], "text/event-stream");
        for key in [
            "model",
            "messages",
            "tools",
            "tool_choice",
            "stop",
            "max_tokens",
            "temperature",
        ] {
            assert_eq!(seen.body[key], body[key], "{key}");
        }
        assert_eq!(
            seen.body["messages"][2]["tool_calls"][0]["extra_content"]["google"]["thought_signature"],
            "SIG-1"
        );
        assert_eq!(seen.body["stream"], true);
    }
    // A streaming client's request is left alone; a one-piece client's asks
    // for usage, so that its answer can carry it.
    assert!(received[0].body.get("stream_options").is_none());
    assert_eq!(
        received[1].body["stream_options"],
        json!({"include_usage": true})
    );
    proxy.shutdown().await;
}

#[tokio::test]
async fn models_are_passed_through() {
    let list = json!({"object": "list", "data": [{"id": "Qwen/Qwen3-8B", "object": "model", "owned_by": "vllm"}]});
    let one = json!({"id": "Qwen/Qwen3-8B", "object": "model", "owned_by": "vllm"});
    let upstream = ReplayServer::start(vec![Reply::json(200, &list), Reply::json(200, &one)]).await;
    let proxy = proxy_for(&upstream).await;
    assert_eq!(get_json(&proxy, "models", None).await, list);
    assert_eq!(get_json(&proxy, "models/Qwen/Qwen3-8B", None).await, one);
    // No way out of `models/` on the upstream.
    // (Written on the socket: an HTTP client would resolve the dots itself.)
    for sneaky in ["models/../admin", "models/%2e%2E/admin", "models/a/./b"] {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut socket = tokio::net::TcpStream::connect(proxy.local_addr())
            .await
            .unwrap();
        let head =
            format!("GET /v1/{sneaky} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
        socket.write_all(head.as_bytes()).await.unwrap();
        let mut answer = String::new();
        socket.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 400"), "{sneaky}: {answer}");
    }
    let paths: Vec<String> = upstream.received().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/models", "/v1/models/Qwen/Qwen3-8B"]);
    proxy.shutdown().await;
}
