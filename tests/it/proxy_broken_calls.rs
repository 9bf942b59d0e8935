//! A broken call never disappears. An upstream's structured call whose
//! arguments are not one JSON object (`[1,2]`, or not JSON) reaches the
//! client of every door as an error its SDK raises (code
//! `incomplete_tool_call`), streamed or whole, never as an answer that says
//! it stopped for calls and lists none; a broken call to a server-side tool
//! is answered to the model as an `isError` result, and the answer goes on.
//! The upstream's turns are written here by hand.

#![allow(clippy::unwrap_used)]

use std::time::Duration;

use serde_json::{Value, json};
use toolrouter::{BuiltinsConfig, Hub, ProxyOptions, register_builtins};

use crate::proxy::{fold, frames, post, proxy_for, proxy_with, request};
use crate::proxy_anthropic::app as anthropic_app;
use crate::proxy_python::app as openai_app;
use crate::proxy_server_tools::turn;
use crate::support::replay::{ReplayServer, Reply};

/// An upstream turn of one structured call to `name` whose arguments are
/// `arguments`, ended by `finish_reason: tool_calls`.
fn call_turn(name: &str, arguments: &str) -> Reply {
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({"id": "chatcmpl-broken", "object": "chat.completion.chunk",
            "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    Reply::frames([
        chunk(
            json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_b",
                "type": "function", "function": {"name": name, "arguments": ""}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        "data: [DONE]\n\n".to_owned(),
    ])
}

/// Arguments that are JSON but not an object, and arguments that are not JSON.
const BROKEN: [&str; 2] = ["[1,2]", "{\"city\": Paris}"];

#[tokio::test]
async fn a_broken_call_in_one_piece_is_a_502_not_a_finish_without_calls() {
    let upstream =
        ReplayServer::start(BROKEN.iter().map(|a| call_turn("get_weather", a)).collect()).await;
    let proxy = proxy_for(&upstream).await;
    for arguments in BROKEN {
        let response = post(&proxy, &request(false)).await;
        assert_eq!(response.status(), 502, "{arguments}");
        let body: Value = response.json().await.unwrap();
        let error = &body["error"];
        assert_eq!(error["code"], "incomplete_tool_call", "{body}");
        assert_eq!(error["type"], "upstream_error", "{body}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with("the model's call to `get_weather` did not complete"),
            "{message}"
        );
    }
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_broken_call_in_a_stream_ends_it_with_an_error_event() {
    let upstream =
        ReplayServer::start(BROKEN.iter().map(|a| call_turn("get_weather", a)).collect()).await;
    let proxy = proxy_for(&upstream).await;
    for arguments in BROKEN {
        let folded = fold(&frames(post(&proxy, &request(true)).await).await);
        assert_eq!(folded.calls[0].1, "get_weather", "{arguments}");
        assert_eq!(folded.finish_reason, None, "{folded:?}");
        assert!(!folded.done, "{folded:?}");
        let error = folded.error.unwrap();
        assert_eq!(error["code"], "incomplete_tool_call", "{error}");
    }
    proxy.shutdown().await;
}

#[tokio::test]
async fn an_upstream_that_stops_for_calls_it_never_sent_stops() {
    // `finish_reason: tool_calls` and no call at all.
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({"id": "chatcmpl-x", "object": "chat.completion.chunk",
            "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    let frames_of = || {
        Reply::frames([
            chunk(json!({"content": "Hm."}), Value::Null),
            chunk(json!({}), json!("tool_calls")),
            "data: [DONE]\n\n".to_owned(),
        ])
    };
    let upstream = ReplayServer::start(vec![frames_of(), frames_of()]).await;
    let proxy = proxy_for(&upstream).await;
    let whole: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    assert_eq!(whole["choices"][0]["finish_reason"], "stop", "{whole}");
    assert!(whole["choices"][0]["message"].get("tool_calls").is_none());
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
    assert!(folded.calls.is_empty());
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_sdk_raises_a_broken_call_streamed_or_whole() {
    // The arguments each scenario meets, in the order of the requests.
    let replies = [0, 1, 1, 0, 1, 0, 1]
        .map(|n| call_turn("get_weather", BROKEN[n]))
        .into_iter()
        .collect();
    let upstream = ReplayServer::start(replies).await;
    let proxy = proxy_for(&upstream).await;
    let url = proxy.url();
    let run = async {
        // The openai SDK, Chat Completions: a 502 it raises, then an error
        // event it raises.
        let seen = openai_app("error", &url).await;
        assert_eq!(seen["class"], "InternalServerError", "{seen}");
        assert_eq!(seen["status"], 502);
        assert_eq!(seen["body"]["code"], "incomplete_tool_call", "{seen}");
        let seen = openai_app("stream_error", &url).await;
        assert_eq!(seen["class"], "APIError", "{seen}");
        assert_eq!(seen["body"]["code"], "incomplete_tool_call", "{seen}");

        // The anthropic SDK, Messages: the same, in Anthropic's shape.
        let seen = anthropic_app("error", &proxy).await;
        assert_eq!(seen["class"], "InternalServerError", "{seen}");
        assert_eq!(seen["status"], 502);
        assert_eq!(seen["body"]["error"]["type"], "api_error", "{seen}");
        let seen = anthropic_app("stream_error", &proxy).await;
        assert_eq!(seen["class"], "APIStatusError", "{seen}");
        assert_eq!(seen["body"]["type"], "error", "{seen}");
        let message = seen["body"]["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("`get_weather` did not complete"),
            "{message}"
        );
        // Fragments that are not JSON: the SDK raises as it reads them,
        // before the error event.
        let seen = anthropic_app("stream_error", &proxy).await;
        assert_eq!(seen["class"], "ValueError", "{seen}");
        let message = seen["message"].as_str().unwrap();
        assert!(
            message.contains("Unable to parse tool parameter JSON"),
            "{message}"
        );

        // The openai SDK, Responses: a 502, then `response.failed`.
        let seen = openai_app("responses_error", &url).await;
        assert_eq!(seen["class"], "InternalServerError", "{seen}");
        assert_eq!(seen["body"]["code"], "incomplete_tool_call", "{seen}");
        let seen = openai_app("responses_stream_error", &url).await;
        let types = seen["types"].as_array().unwrap();
        assert_eq!(types.last().unwrap(), "response.failed", "{seen}");
        assert_eq!(seen["error"]["code"], "incomplete_tool_call", "{seen}");
    };
    tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the SDKs' scenarios hung");
    assert_eq!(upstream.received().len(), 7);
    proxy.shutdown().await;
}

async fn proxy_with_builtins(upstream: &ReplayServer) -> toolrouter::ProxyServer {
    let hub = Hub::new();
    register_builtins(hub.registry(), &BuiltinsConfig::new(std::env::temp_dir())).unwrap();
    proxy_with(
        ProxyOptions::new("127.0.0.1:0".parse().unwrap(), upstream.base_url(), "vllm")
            .with_server_tools(hub),
    )
    .await
}

/// The tool message the model got for the broken call, in the follow-up
/// request `body`: the assistant's turn carries the call (with `{}`), and
/// its result says why it was not run.
fn assert_answered_as_an_error(body: &Value) {
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:?}");
    let call = &messages[1]["tool_calls"][0];
    assert_eq!(call["id"], "call_b");
    assert_eq!(call["function"]["name"], "calculate");
    assert_eq!(call["function"]["arguments"], "{}");
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_b");
    // The executor's way: an `isError` result, `Error: …` in a tool message.
    let content = messages[2]["content"].as_str().unwrap();
    assert!(
        content.starts_with("Error: invalid arguments for tool `calculate`"),
        "{content}"
    );
}

#[tokio::test]
async fn a_broken_server_side_call_is_answered_to_the_model_as_an_error() {
    let upstream = ReplayServer::start(vec![
        call_turn("calculate", "[1,2]"),
        turn(&["Sorry, ", "I could not compute it."], 10, 5),
        call_turn("calculate", "{\"expression\": 1+}"),
        turn(&["Sorry again."], 10, 5),
    ])
    .await;
    let proxy = proxy_with_builtins(&upstream).await;
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    assert_eq!(
        folded.content, "Sorry, I could not compute it.",
        "{folded:?}"
    );
    assert!(folded.calls.is_empty(), "{folded:?}");
    assert_eq!(folded.error, None);
    assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
    assert!(folded.done);

    let whole: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    assert_eq!(whole["choices"][0]["message"]["content"], "Sorry again.");
    assert_eq!(whole["choices"][0]["finish_reason"], "stop");

    let received = upstream.received();
    assert_eq!(received.len(), 4);
    assert_answered_as_an_error(&received[1].body);
    assert_answered_as_an_error(&received[3].body);
    proxy.shutdown().await;
}
