//! `toolrouter proxy` with server-side tools (`ProxyOptions::with_server_tools`,
//! the CLI's `--builtins` / `--config`): the built-in `calculate` joins the
//! request's tools, the proxy runs the model's call to it and continues the
//! conversation upstream, and the client sees only the text and its own
//! tools' calls. The model's turns are written here by hand.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use toolrouter::{BuiltinsConfig, Hub, ProxyOptions, register_builtins};

use crate::proxy::{fold, frames, post, proxy_with, request};
use crate::support::replay::{ReplayServer, Reply};

/// An OpenAI-compatible stream of text pieces, then `finish_reason: stop`
/// and usage.
pub(crate) fn turn(pieces: &[&str], prompt_tokens: u64, completion_tokens: u64) -> Reply {
    let chunk = |delta: Value, finish: Value| {
        let chunk = json!({"id": "chatcmpl-srv", "object": "chat.completion.chunk",
            "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    let mut frames: Vec<String> = pieces
        .iter()
        .map(|p| chunk(json!({"content": p}), Value::Null))
        .collect();
    frames.push(chunk(json!({}), json!("stop")));
    let usage = json!({"id": "chatcmpl-srv", "object": "chat.completion.chunk", "created": 1,
        "model": "m", "choices": [], "usage": {"prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens}});
    frames.push(format!("data: {usage}\n\n"));
    frames.push("data: [DONE]\n\n".to_owned());
    Reply::frames(frames)
}

const CALCULATE: &str = "<tool_call>\n{\"name\": \"calculate\", \"arguments\": {\"expression\": \"(12+5)*3\"}}\n</tool_call>";

async fn proxy_with_builtins(upstream: &ReplayServer, max_steps: usize) -> toolrouter::ProxyServer {
    let hub = Hub::new();
    let workspace = std::env::temp_dir();
    register_builtins(hub.registry(), &BuiltinsConfig::new(workspace)).unwrap();
    proxy_with(
        ProxyOptions::new("127.0.0.1:0".parse().unwrap(), upstream.base_url(), "vllm")
            .with_server_tools(hub)
            .with_max_steps(max_steps),
    )
    .await
}

#[tokio::test]
async fn a_server_side_call_is_run_by_the_proxy_and_the_answer_streams_on() {
    let upstream = ReplayServer::start(vec![
        turn(
            &["Let me compute.\n", &CALCULATE[..30], &CALCULATE[30..]],
            100,
            20,
        ),
        turn(&["It is ", "51."], 150, 5),
    ])
    .await;
    let proxy = proxy_with_builtins(&upstream, 8).await;
    let mut body = request(true);
    body["stream_options"] = json!({"include_usage": true});
    let folded = fold(&frames(post(&proxy, &body).await).await);
    assert_eq!(folded.content, "Let me compute.\nIt is 51.");
    assert!(folded.calls.is_empty(), "{folded:?}");
    assert_eq!(folded.finish_reason.as_deref(), Some("stop"));
    assert!(folded.done);
    // Usage summed over both turns.
    assert_eq!(
        folded.usage.unwrap(),
        json!({"prompt_tokens": 250, "completion_tokens": 25, "total_tokens": 275})
    );

    let received = upstream.received();
    assert_eq!(received.len(), 2);
    // The server-side tools joined the client's.
    let names: Vec<&str> = received[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(names.starts_with(&["get_weather", "get_time"]), "{names:?}");
    assert!(names.contains(&"calculate"), "{names:?}");
    // The follow-up: the question, the assistant's turn with the call, the result.
    let messages = received[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"], "Let me compute.\n");
    let call = &messages[1]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "calculate");
    let args: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"expression": "(12+5)*3"}));
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], call["id"]);
    assert_eq!(messages[2]["content"], "51");
    proxy.shutdown().await;
}

#[tokio::test]
async fn client_tools_still_go_back_to_the_client_in_one_piece() {
    let weather = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
    let upstream = ReplayServer::start(vec![
        turn(&[CALCULATE], 10, 10),
        turn(&["Now the weather.\n", weather], 20, 10),
    ])
    .await;
    let proxy = proxy_with_builtins(&upstream, 8).await;
    let completion: Value = post(&proxy, &request(false)).await.json().await.unwrap();
    let message = &completion["choices"][0]["message"];
    assert_eq!(message["content"], "Now the weather.\n");
    let calls = message["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{completion}");
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert_eq!(completion["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(completion["usage"]["prompt_tokens"], 30);
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_rounds_are_bounded_by_max_steps() {
    let upstream = ReplayServer::start(vec![
        turn(&[CALCULATE], 1, 1),
        turn(&[CALCULATE], 1, 1),
        turn(&[CALCULATE], 1, 1),
    ])
    .await;
    let proxy = proxy_with_builtins(&upstream, 2).await;
    let folded = fold(&frames(post(&proxy, &request(true)).await).await);
    assert!(!folded.done);
    let error = folded.error.unwrap();
    assert!(
        error["message"].as_str().unwrap().contains("--max-steps"),
        "{error}"
    );
    // Two rounds ran: three upstream turns.
    assert_eq!(upstream.received().len(), 3);
    proxy.shutdown().await;
}

#[tokio::test]
async fn the_responses_door_streams_on_after_a_server_side_call() {
    let upstream = ReplayServer::start(vec![
        turn(&["Let me compute.\n", CALCULATE], 100, 20),
        turn(&["It is ", "51."], 150, 5),
    ])
    .await;
    let proxy = proxy_with_builtins(&upstream, 8).await;
    let body = json!({"model": "m", "input": "What is (12+5)*3?", "stream": true});
    let response = reqwest::Client::new()
        .post(format!("{}/responses", proxy.url()))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();
    let last = text.trim_end().rsplit("\n\n").next().unwrap();
    let completed: Value = serde_json::from_str(last.split_once("\ndata: ").unwrap().1).unwrap();
    assert_eq!(completed["type"], "response.completed");
    let response = &completed["response"];
    // One message item holding both turns' text; the server-side call is not
    // shown; usage summed over both turns.
    let output = response["output"].as_array().unwrap();
    assert_eq!(output.len(), 1, "{response}");
    assert_eq!(
        output[0]["content"][0]["text"],
        "Let me compute.\nIt is 51."
    );
    assert_eq!(response["usage"]["input_tokens"], 250);
    assert_eq!(response["usage"]["output_tokens"], 25);
    assert!(!text.contains("function_call"), "{text}");
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    let messages = received[1].body["messages"].as_array().unwrap();
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(messages[2]["content"], "51");
    proxy.shutdown().await;
}
