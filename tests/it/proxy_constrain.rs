//! `toolrouter proxy --text-tools --constrain`: the grammar of the request's
//! tools goes upstream with the taught prompt, in the field of the profile's
//! server, only when `tool_choice` asks for calls (or always, if told); a
//! server that refuses it gets the request once more without it. The model
//! server here is a stand-in that records each request; the real one is
//! `llama_server.rs`'s.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use toolrouter::{Constrain, ProxyOptions, ProxyServer};

use crate::proxy::{post, proxy_with, recording, request};
use crate::support::replay::{ReplayServer, Reply};

async fn constrained_proxy(
    upstream: &ReplayServer,
    provider: &str,
    constrain: Constrain,
) -> ProxyServer {
    proxy_with(
        ProxyOptions::new(
            "127.0.0.1:0".parse().unwrap(),
            upstream.base_url(),
            provider,
        )
        .with_text_tools(true)
        .with_constrain(constrain),
    )
    .await
}

fn with_choice(choice: Value) -> Value {
    let mut body = request(false);
    body["tool_choice"] = choice;
    body
}

/// The one-piece answer's calls, as (name, arguments).
async fn calls_of(response: reqwest::Response) -> Vec<(String, Value)> {
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    answer["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let arguments = call["function"]["arguments"].as_str().unwrap();
            (
                call["function"]["name"].as_str().unwrap().to_owned(),
                serde_json::from_str(arguments).unwrap(),
            )
        })
        .collect()
}

fn paris() -> Vec<(String, Value)> {
    vec![(
        "get_weather".to_owned(),
        json!({"city": "Paris", "unit": "celsius"}),
    )]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_call_goes_upstream_with_its_grammar_in_the_servers_field() {
    for (provider, field) in [("llamacpp", "grammar"), ("sglang", "ebnf")] {
        let upstream =
            ReplayServer::start(vec![Reply::sse(recording("openai-compat.xml-text.sse"))]).await;
        let proxy = constrained_proxy(&upstream, provider, Constrain::Auto).await;
        let calls = calls_of(post(&proxy, &with_choice(json!("required"))).await).await;
        assert_eq!(calls, paris());
        let received = upstream.received();
        assert_eq!(received.len(), 1);
        let sent = &received[0].body;
        // The tools are taught, not declared, and their grammar goes along:
        // one of the two tools' tags, in the XML tag convention.
        assert!(sent.get("tools").is_none() && sent.get("tool_choice").is_none());
        let gbnf = sent[field].as_str().unwrap();
        assert!(gbnf.starts_with("root ::= "), "{gbnf}");
        assert!(
            gbnf.contains("<get_weather>") && gbnf.contains("<get_time>"),
            "{gbnf}"
        );
        proxy.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_tool_is_the_only_one_its_grammar_allows() {
    let upstream =
        ReplayServer::start(vec![Reply::sse(recording("openai-compat.xml-text.sse"))]).await;
    let proxy = constrained_proxy(&upstream, "vllm", Constrain::Auto).await;
    let named = json!({"type": "function", "function": {"name": "get_weather"}});
    let calls = calls_of(post(&proxy, &with_choice(named)).await).await;
    assert_eq!(calls, paris());
    let sent = &upstream.received()[0].body;
    let gbnf = sent["structured_outputs"]["grammar"].as_str().unwrap();
    assert!(
        gbnf.contains("<get_weather>") && !gbnf.contains("<get_time>"),
        "{gbnf}"
    );
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_refuses_the_grammar_gets_the_request_again_without_it() {
    let upstream = ReplayServer::start(vec![
        Reply::json(
            400,
            &json!({"error": {"code": 400, "message": "failed to parse grammar", "type": "invalid_request_error"}}),
        ),
        Reply::sse(recording("openai-compat.xml-text.sse")),
    ])
    .await;
    let proxy = constrained_proxy(&upstream, "llamacpp", Constrain::Auto).await;
    let calls = calls_of(post(&proxy, &with_choice(json!("required"))).await).await;
    assert_eq!(calls, paris());
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert!(received[0].body["grammar"].is_string());
    assert!(
        received[1].body.get("grammar").is_none(),
        "{}",
        received[1].body
    );
    // Otherwise the same request: the taught prompt and the question.
    assert_eq!(received[0].body["messages"], received[1].body["messages"]);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_of_the_request_without_a_grammar_is_the_clients_error() {
    // `tool_choice: auto` sends no grammar: the upstream's 400 is answered
    // as it is, and the request is not sent again.
    let upstream = ReplayServer::start(vec![Reply::json(
        400,
        &json!({"error": {"message": "context too long", "type": "invalid_request_error"}}),
    )])
    .await;
    let proxy = constrained_proxy(&upstream, "llamacpp", Constrain::Auto).await;
    let response = post(&proxy, &with_choice(json!("auto"))).await;
    assert_eq!(response.status(), 400);
    assert_eq!(upstream.received().len(), 1);
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_is_constrained_only_when_always_and_never_on_a_hosted_profile() {
    let cases = [
        ("llamacpp", Constrain::Auto, json!("auto"), false),
        ("sglang", Constrain::Always, json!("required"), true),
        ("llamacpp", Constrain::Always, json!("none"), false),
        ("llamacpp", Constrain::Off, json!("required"), false),
        (
            "openai-compatible",
            Constrain::Always,
            json!("required"),
            false,
        ),
    ];
    for (provider, mode, choice, constrained) in cases {
        let upstream =
            ReplayServer::start(vec![Reply::sse(recording("openai-compat.xml-text.sse"))]).await;
        let proxy = constrained_proxy(&upstream, provider, mode).await;
        let response = post(&proxy, &with_choice(choice.clone())).await;
        assert_eq!(response.status(), 200);
        let sent = &upstream.received()[0].body;
        assert_eq!(
            sent.get("grammar").is_some() || sent.get("ebnf").is_some(),
            constrained,
            "{provider} {mode} {choice}: {sent}"
        );
        proxy.shutdown().await;
    }
}

/// A legacy Completions chunk of llama.cpp's `/v1/completions`.
fn text_chunk(text: &str, finish: Value) -> String {
    let chunk = json!({"object": "text_completion",
                       "choices": [{"text": text, "index": 0, "logprobs": null, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_sends_auto_to_llamacpps_completions_with_a_lazy_grammar() {
    let upstream = ReplayServer::start(vec![
        Reply::json(200, &json!({"prompt": "<|im_start|>TEMPLATED"})),
        Reply::frames([
            text_chunk("I'll check.\n<get_weather>\n<city>Par", Value::Null),
            text_chunk(
                "is</city>\n<unit>celsius</unit>\n</get_weather>",
                Value::Null,
            ),
            text_chunk("", json!("stop")),
            "data: [DONE]\n\n".to_owned(),
        ]),
    ])
    .await;
    let proxy = constrained_proxy(&upstream, "llamacpp", Constrain::Always).await;
    let mut body = with_choice(json!("auto"));
    body["max_completion_tokens"] = json!(64);
    body["temperature"] = json!(0);
    let response = post(&proxy, &body).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.unwrap();
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["content"], "I'll check.\n");
    let call = &message["tool_calls"][0]["function"];
    assert_eq!(call["name"], "get_weather");
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"city": "Paris", "unit": "celsius"}));
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    // The taught messages, templated by the server itself.
    assert_eq!(received[0].path, "/apply-template");
    let messages = received[0].body["messages"].as_array().unwrap();
    assert_eq!(received[0].body.as_object().unwrap().len(), 1);
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("<get_weather>")
    );
    assert_eq!(messages[1]["content"], "What is the weather in Paris?");
    // Then the prompt, with the grammar from a trigger on, lazily.
    let sent = &received[1].body;
    assert_eq!(received[1].path, "/v1/completions");
    assert_eq!(sent["prompt"], "<|im_start|>TEMPLATED");
    assert_eq!(sent["grammar_lazy"], true);
    assert_eq!(
        sent["grammar_triggers"],
        json!([{"type": 1, "value": "<get_weather>"}, {"type": 1, "value": "<get_time>"}])
    );
    assert!(
        sent["grammar"]
            .as_str()
            .unwrap()
            .starts_with("root ::= call")
    );
    assert_eq!(sent["max_tokens"], 64);
    assert_eq!(sent["temperature"], 0);
    assert_eq!(sent["stream"], true);
    for chat_only in ["messages", "tools", "tool_choice", "max_completion_tokens"] {
        assert!(sent.get(chat_only).is_none(), "{chat_only}: {sent}");
    }
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_apply_template_gets_the_whole_grammar_on_its_chat_route() {
    // llama-cpp-python's server has no `/apply-template`.
    let upstream = ReplayServer::start(vec![
        Reply::text(404, "Not Found"),
        Reply::sse(recording("openai-compat.xml-text.sse")),
    ])
    .await;
    let proxy = constrained_proxy(&upstream, "llamacpp", Constrain::Always).await;
    let calls = calls_of(post(&proxy, &with_choice(json!("auto"))).await).await;
    assert_eq!(calls, paris());
    let received = upstream.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[1].path, "/v1/chat/completions");
    // The whole output's grammar: free text first.
    let gbnf = received[1].body["grammar"].as_str().unwrap();
    assert!(!gbnf.starts_with("root ::= call"), "{gbnf}");
    assert!(received[1].body.get("grammar_lazy").is_none());
    proxy.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prefilled_call_opening_is_finished_by_the_grammar_and_read_as_a_call() {
    let chunk = |content: &str, finish: Value| {
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]});
        format!("data: {chunk}\n\n")
    };
    // llama.cpp answers with the prefill, then what it samples; vLLM (with
    // `continue_final_message`) with what it samples only: the proxy reads
    // the opening first there.
    let cases = [
        (
            "llamacpp",
            Constrain::Always,
            json!("auto"),
            "Checking. <get_weather>\n",
            "Checking. ",
        ),
        (
            "llamacpp",
            Constrain::Auto,
            json!("required"),
            "Checking. <get_weather>\n",
            "Checking. ",
        ),
        ("vllm", Constrain::Always, json!("auto"), "\n", ""),
    ];
    for (provider, mode, choice, first, text) in cases {
        let upstream = ReplayServer::start(vec![Reply::frames([
            chunk(first, Value::Null),
            chunk("<city>Paris</city>\n<unit>cel", Value::Null),
            chunk("sius</unit>\n</get_weather>", json!("stop")),
            "data: [DONE]\n\n".to_owned(),
        ])])
        .await;
        let proxy = constrained_proxy(&upstream, provider, mode).await;
        let mut body = with_choice(choice);
        body["messages"]
            .as_array_mut()
            .unwrap()
            .push(json!({"role": "assistant", "content": "Checking. <get_weather>"}));
        let response = post(&proxy, &body).await;
        assert_eq!(response.status(), 200);
        let answer: Value = response.json().await.unwrap();
        let message = &answer["choices"][0]["message"];
        assert_eq!(
            answer["choices"][0]["finish_reason"], "tool_calls",
            "{answer}"
        );
        assert_eq!(
            message["content"].as_str().unwrap_or(""),
            text,
            "{provider}: {answer}"
        );
        assert_eq!(
            message["tool_calls"].as_array().unwrap().len(),
            1,
            "{answer}"
        );
        let call = &message["tool_calls"][0]["function"];
        assert_eq!(call["name"], "get_weather");
        let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"city": "Paris", "unit": "celsius"}));
        let received = upstream.received();
        assert_eq!(received.len(), 1);
        assert_eq!(received[0].path, "/v1/chat/completions");
        let sent = &received[0].body;
        // The grammar begins after the tag; the prefill goes as it was.
        let gbnf = match provider {
            "vllm" => sent["structured_outputs"]["grammar"].as_str().unwrap(),
            _ => sent["grammar"].as_str().unwrap(),
        };
        assert!(
            gbnf.starts_with("root ::= \"\\n\" get-weather-args"),
            "{gbnf}"
        );
        let last = sent["messages"].as_array().unwrap().last().unwrap();
        assert_eq!(last["content"], "Checking. <get_weather>");
        proxy.shutdown().await;
    }
}
