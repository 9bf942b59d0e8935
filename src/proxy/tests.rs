//! Unit tests of the proxy: reading a request, writing a routed turn as
//! chunks and as one answer (with a real `RouteSession` fed SSE text), the
//! metadata sniffer, the error shapes, the loopback check.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::{Value, json};
use toolrouter_providers::Wire;

use super::chunks::ChunkWriter;
use super::completion::{Completion, CompletionBuilder};
use super::error::ApiError;
use super::meta::{ChunkMeta, MetaSniffer};
use super::request::{ChatRequest, UpstreamShape};
use super::turn::FrameWriter;
use crate::core::{JsonObject, ToolCatalog};

/// An OpenAI-compatible upstream with tool support.
pub(super) const OPENAI: UpstreamShape = UpstreamShape {
    wire: Wire::OpenAiChat,
    text_tools: false,
    max_request_bytes: crate::proxy::DEFAULT_MAX_REQUEST_BYTES,
    constrain: None,
};
use crate::detect::DetectConfig;
use crate::router::{RouteEvent, RouteSession};

fn meta() -> ChunkMeta {
    ChunkMeta {
        id: "chatcmpl-1".to_owned(),
        model: "m".to_owned(),
        created: 7,
        system_fingerprint: None,
    }
}

/// An OpenAI SSE stream whose text deltas are `texts`, ended by `finish`
/// (`None`: the stream just stops).
fn sse(texts: &[&str], finish: Option<&str>) -> String {
    let mut out = String::new();
    for text in texts {
        let chunk = json!({"choices": [{"index": 0, "delta": {"content": text}}]});
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    if let Some(reason) = finish {
        let chunk = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]});
        out.push_str(&format!("data: {chunk}\n\ndata: [DONE]\n\n"));
    }
    out
}

/// Routes `stream` (fed delta by delta) with the tool `get_weather`.
fn routed(stream: &str) -> Vec<RouteEvent> {
    let schema: JsonObject = serde_json::from_value(
        json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    )
    .unwrap();
    let catalog = Arc::new(ToolCatalog::from_schemas([("get_weather", &schema)]));
    let mut session = RouteSession::new(Wire::OpenAiChat, catalog, DetectConfig::default());
    let mut events = Vec::new();
    for frame in stream.split_inclusive("\n\n") {
        session.feed(frame.as_bytes(), &mut events);
    }
    session.finish(&mut events);
    events
}

/// The frames a client receives for `stream`: chunk and error objects as
/// JSON, `[DONE]` as a string.
fn check_stream(stream: &str, include_usage: bool) -> Vec<Value> {
    let mut events = routed(stream);
    let mut writer = ChunkWriter::new(include_usage);
    let mut out = Vec::new();
    writer.write(&mut events, &meta, &mut out);
    assert!(writer.ended(), "the stream is complete after Finish");
    String::from_utf8(out)
        .unwrap()
        .split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|f| {
            let data = f.strip_prefix("data: ").unwrap();
            serde_json::from_str(data).unwrap_or_else(|_| json!(data))
        })
        .collect()
}

fn deltas(frames: &[Value]) -> Vec<Value> {
    frames
        .iter()
        .filter_map(|f| f["choices"][0].get("delta").cloned())
        .collect()
}

#[test]
fn a_text_call_becomes_tool_call_deltas() {
    let frames = check_stream(
        &sse(
            &[
                "Sure. <tool_call>{\"name\": \"get_weather\", \"argu",
                "ments\": {\"city\": \"Paris\"}}</tool_call>",
            ],
            Some("stop"),
        ),
        false,
    );
    let deltas = deltas(&frames);
    assert_eq!(deltas[0], json!({"role": "assistant", "content": "Sure. "}));
    let start = &deltas[1]["tool_calls"][0];
    assert_eq!(start["index"], 0);
    assert_eq!(start["type"], "function");
    assert_eq!(
        start["function"],
        json!({"name": "get_weather", "arguments": ""})
    );
    let arguments: String = deltas[2..]
        .iter()
        .filter_map(|d| d["tool_calls"][0]["function"]["arguments"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&arguments).unwrap(),
        json!({"city": "Paris"})
    );
    let last = &frames[frames.len() - 2];
    assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(frames[frames.len() - 1], json!("[DONE]"));
    assert_eq!(frames[0]["id"], "chatcmpl-1");
    assert_eq!(frames[0]["object"], "chat.completion.chunk");
}

#[test]
fn a_call_without_arguments_still_gets_an_object() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",",
        "\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let frames = check_stream(stream, false);
    let deltas = deltas(&frames);
    assert_eq!(deltas[0]["tool_calls"][0]["id"], "c1");
    assert_eq!(deltas[1]["tool_calls"][0]["function"]["arguments"], "{}");
}

#[test]
fn a_text_call_that_breaks_after_it_began_ends_the_stream_with_an_error() {
    // The call is announced, then its arguments turn out not to be JSON.
    let frames = check_stream(
        &sse(
            &[
                "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": ",
                "Paris}}</tool_call> more text",
            ],
            Some("stop"),
        ),
        false,
    );
    let announced = deltas(&frames);
    assert_eq!(
        announced[0]["tool_calls"][0]["function"]["name"],
        "get_weather"
    );
    let last = frames.last().unwrap();
    assert_eq!(last["error"]["code"], "incomplete_tool_call");
    let message = last["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the model's call to `get_weather` did not complete"),
        "{message}"
    );
    assert!(!frames.contains(&json!("[DONE]")));
}

#[test]
fn a_text_call_cut_by_the_token_limit_finishes_with_length() {
    let frames = check_stream(
        &sse(
            &["<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa"],
            Some("length"),
        ),
        false,
    );
    let deltas = deltas(&frames);
    // The markup given back at the end is not sent as text.
    assert!(
        deltas.iter().all(|d| d.get("content").is_none()),
        "{deltas:?}"
    );
    let finish = &frames[frames.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "length");
    assert_eq!(frames[frames.len() - 1], json!("[DONE]"));
}

#[test]
fn a_text_call_cut_by_a_natural_stop_is_an_error() {
    let frames = check_stream(
        &sse(
            &["<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Pa"],
            Some("stop"),
        ),
        false,
    );
    assert_eq!(
        frames.last().unwrap()["error"]["code"],
        "incomplete_tool_call"
    );
}

#[test]
fn unknown_tools_stay_text() {
    let text = "<tool_call>{\"name\": \"launch\", \"arguments\": {}}</tool_call>";
    let frames = check_stream(&sse(&[text], Some("stop")), false);
    let content: String = deltas(&frames)
        .iter()
        .filter_map(|d| d["content"].as_str())
        .collect();
    assert_eq!(content, text);
    assert_eq!(
        frames[frames.len() - 2]["choices"][0]["finish_reason"],
        "stop"
    );
}

#[test]
fn usage_comes_after_the_finish_chunk_only_when_asked_for() {
    let mut stream = sse(&["Hi."], None);
    stream.push_str(concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n",
        "data: [DONE]\n\n",
    ));
    let frames = check_stream(&stream, true);
    let usage = &frames[frames.len() - 2];
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(
        usage["usage"],
        json!({"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5})
    );
    let frames = check_stream(&stream, false);
    assert!(frames.iter().all(|f| f.get("usage").is_none()));
}

#[test]
fn a_stream_without_a_finish_ends_with_a_truncation_error() {
    let frames = check_stream(&sse(&["Half an ans"], None), false);
    let last = frames.last().unwrap();
    assert_eq!(last["error"]["code"], "upstream_truncated");
    assert_eq!(last["error"]["type"], "upstream_error");
}

/// The one-piece answer for `stream`.
fn check_completion(stream: &str) -> Result<Completion, ApiError> {
    let mut builder = CompletionBuilder::default();
    builder.push(&mut routed(stream));
    builder.build(meta())
}

#[test]
fn a_one_piece_answer_keeps_completed_calls_and_gives_broken_markup_back_as_text() {
    let good = serde_json::to_value(
        check_completion(&sse(
            &["Sure.", "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>"],
            Some("stop"),
        ))
        .unwrap(),
    )
    .unwrap();
    let message = &good["choices"][0]["message"];
    assert_eq!(message["content"], "Sure.");
    assert_eq!(
        message["tool_calls"][0]["function"]["arguments"],
        "{\"city\":\"Paris\"}"
    );
    assert_eq!(good["choices"][0]["finish_reason"], "tool_calls");

    let broken =
        "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": Paris}}</tool_call>";
    let answer =
        serde_json::to_value(check_completion(&sse(&[broken], Some("stop"))).unwrap()).unwrap();
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["content"], broken);
    assert!(message.get("tool_calls").is_none());
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");

    let cut = check_completion(&sse(&["Half"], None)).unwrap_err();
    assert_eq!(cut.status, 502);
    assert_eq!(cut.error["code"], "upstream_truncated");
}

#[test]
fn requests_are_read_once_and_go_upstream_streaming() {
    let check = |body: Value, stream: bool, include_usage: bool, tools: &[&str]| {
        let request = ChatRequest::read(body.to_string().into_bytes()).unwrap();
        assert_eq!(request.stream, stream, "{body}");
        assert_eq!(request.include_usage, include_usage, "{body}");
        let mut names: Vec<&str> = request.catalog.names().collect();
        names.sort_unstable();
        assert_eq!(names, tools, "{body}");
        let upstream: Value = serde_json::from_slice(&OPENAI.body(&request.body).unwrap()).unwrap();
        assert_eq!(upstream["stream"], true);
        upstream
    };
    let tool = |name: &str| json!({"type": "function", "function": {"name": name}});
    let up = check(json!({"model": "m", "messages": []}), false, false, &[]);
    assert_eq!(up["stream_options"], json!({"include_usage": true}));
    let up = check(
        json!({"model": "m", "messages": [], "stream": true, "stream_options": {"include_usage": true},
               "tools": [tool("b"), tool("a"), {"type": "web_search"}]}),
        true,
        true,
        &["a", "b"],
    );
    assert_eq!(up["tools"][2], json!({"type": "web_search"}));
    check(
        json!({"model": "m", "messages": [], "stream": true, "functions": [{"name": "old"}]}),
        true,
        false,
        &["old"],
    );
}

#[test]
fn the_metadata_is_read_from_the_first_frames_that_carry_it() {
    let stream = concat!(
        ": keep-alive\n\n",
        "data: {\"id\":\"\",\"model\":\"\",\"choices\":[],\"prompt_filter_results\":[]}\n\n",
        "data: {\"id\":\"chatcmpl-9\",\"created\":42,\"model\":\"gpt-x\",\"system_fingerprint\":\"fp\",\"choices\":[]}\n\n",
    );
    for cut in [1, 7, 60, stream.len()] {
        let mut sniffer = MetaSniffer::default();
        let (a, b) = stream.as_bytes().split_at(cut.min(stream.len()));
        sniffer.observe(a);
        sniffer.observe(b);
        let meta = sniffer.meta("fallback");
        assert_eq!(meta.id, "chatcmpl-9");
        assert_eq!(meta.model, "gpt-x");
        assert_eq!(meta.created, 42);
        assert_eq!(meta.system_fingerprint.as_deref(), Some("fp"));
    }
    // Anthropic's `message_start` and Responses' `response.created` carry
    // them one level down.
    let nested = [
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"claude-x\"}}\n\n",
        "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"created_at\":1756198800,\"model\":\"gpt-5\"}}\n\n",
    ];
    for (stream, id, model, created) in [
        (nested[0], "msg_1", "claude-x", None),
        (nested[1], "resp_1", "gpt-5", Some(1756198800)),
    ] {
        let mut sniffer = MetaSniffer::default();
        sniffer.observe(stream.as_bytes());
        let meta = sniffer.meta("fallback");
        assert_eq!((meta.id.as_str(), meta.model.as_str()), (id, model));
        if let Some(created) = created {
            assert_eq!(meta.created, created);
        }
    }
    let meta = MetaSniffer::default().meta("fallback");
    assert!(meta.id.starts_with("chatcmpl-"));
    assert_eq!(meta.model, "fallback");
    assert!(meta.created > 0);
}

#[test]
fn upstream_errors_are_read_in_every_shape() {
    let check = |body: &str, error: Value| {
        let got = ApiError::from_upstream(http::StatusCode::BAD_REQUEST, body.as_bytes());
        assert_eq!(got.status, 400);
        assert_eq!(got.error, error, "{body}");
    };
    check(
        r#"{"error": {"message": "bad tools", "type": "invalid_request_error", "param": "tools", "code": null}}"#,
        json!({"message": "bad tools", "type": "invalid_request_error", "param": "tools", "code": null}),
    );
    check(
        r#"{"error": "model not found"}"#,
        json!({"message": "model not found", "type": "upstream_error", "param": null, "code": "400"}),
    );
    check(
        "",
        json!({"message": "the upstream answered 400 Bad Request", "type": "upstream_error", "param": null, "code": "400"}),
    );
    let long = "x".repeat(10_000);
    let got = ApiError::from_upstream(http::StatusCode::BAD_GATEWAY, long.as_bytes());
    assert!(got.error["message"].as_str().unwrap().len() < 400);
}

#[test]
fn loopback_authorities() {
    use super::server::is_loopback_authority;
    for yes in [
        "localhost",
        "localhost:8080",
        "LOCALHOST:1",
        "127.0.0.1",
        "127.0.0.1:9",
        "127.1.2.3:9",
        "[::1]",
        "[::1]:80",
    ] {
        assert!(is_loopback_authority(yes), "{yes}");
    }
    for no in [
        "",
        "evil.example",
        "evil.example:80",
        "10.0.0.1:80",
        "[::2]:80",
        "localhost.evil.example",
        "[::1",
    ] {
        assert!(!is_loopback_authority(no), "{no}");
    }
}

/// Two parallel Gemini calls, the first signed (as `gemini.parallel.sse`).
const GEMINI_SIGNED: &str = concat!(
    r#"data: {"candidates": [{"content": {"parts": ["#,
    r#"{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}, "thoughtSignature": "SIG-1"}, "#,
    r#"{"functionCall": {"name": "get_time", "args": {}}}], "role": "model"}}]}"#,
    "\n\n",
    r#"data: {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]}"#,
    "\n\n"
);

fn gemini_routed(stream: &str) -> Vec<RouteEvent> {
    let mut session = RouteSession::new(
        Wire::Gemini,
        Arc::new(ToolCatalog::new()),
        DetectConfig::default(),
    );
    let mut events = Vec::new();
    session.feed(stream.as_bytes(), &mut events);
    session.finish(&mut events);
    events
}

#[test]
fn a_gemini_signature_rides_on_its_calls_first_delta_and_in_the_whole_answer() {
    let mut events = gemini_routed(GEMINI_SIGNED);
    let mut writer = ChunkWriter::new(false);
    let mut out = Vec::new();
    writer.write(&mut events, &meta, &mut out);
    let text = String::from_utf8(out).unwrap();
    let calls: Vec<Value> = text
        .split("\n\n")
        .filter_map(|f| serde_json::from_str::<Value>(f.strip_prefix("data: ")?).ok())
        .filter_map(|f| f["choices"][0]["delta"].get("tool_calls").cloned())
        .collect();
    let id = |n: usize| calls[n][0]["id"].clone();
    assert_eq!(
        calls,
        [
            json!([{"index": 0, "id": id(0), "type": "function",
                    "function": {"name": "get_weather", "arguments": ""},
                    "extra_content": {"google": {"thought_signature": "SIG-1"}}}]),
            json!([{"index": 0, "function": {"arguments": "{\"city\":\"Paris\"}"}}]),
            json!([{"index": 1, "id": id(2), "type": "function",
                    "function": {"name": "get_time", "arguments": ""}}]),
            json!([{"index": 1, "function": {"arguments": "{}"}}]),
        ]
    );

    let mut builder = CompletionBuilder::default();
    builder.push(&mut gemini_routed(GEMINI_SIGNED));
    let answer = serde_json::to_value(builder.build(meta()).unwrap()).unwrap();
    let calls = &answer["choices"][0]["message"]["tool_calls"];
    assert_eq!(
        calls[0]["extra_content"],
        json!({"google": {"thought_signature": "SIG-1"}})
    );
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert!(calls[1].get("extra_content").is_none(), "{calls}");
}

/// An OpenAI stream of one structured call to `get_weather` with
/// `arguments`, ended by `finish_reason: tool_calls`.
fn structured_call(arguments: &str) -> String {
    let start = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
        "id": "c1", "function": {"name": "get_weather", "arguments": arguments}}]}}]});
    let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    format!("data: {start}\n\ndata: {end}\n\ndata: [DONE]\n\n")
}

#[test]
fn a_structured_call_that_breaks_fails_the_one_piece_answer_as_the_stream() {
    for arguments in ["[1,2]", "{\"city\": Paris}", "\"Paris\""] {
        let error = check_completion(&structured_call(arguments)).unwrap_err();
        assert_eq!(error.status, 502, "{arguments}");
        assert_eq!(error.error["code"], "incomplete_tool_call", "{arguments}");
        let message = error.error["message"].as_str().unwrap();
        assert!(
            message.starts_with("the model's call to `get_weather` did not complete"),
            "{message}"
        );
        let frames = check_stream(&structured_call(arguments), false);
        assert_eq!(
            frames.last().unwrap()["error"]["code"],
            "incomplete_tool_call"
        );
    }
    let good = check_completion(&structured_call("{\"city\": \"Paris\"}")).unwrap();
    let good = serde_json::to_value(&good).unwrap();
    assert_eq!(good["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(
        good["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        "{\"city\":\"Paris\"}"
    );
}

#[test]
fn tool_calls_is_the_finish_reason_only_of_an_answer_with_calls() {
    use super::chunks::finish_reason;
    use toolrouter_providers::StopReason;
    assert_eq!(finish_reason(StopReason::ToolUse, true), "tool_calls");
    assert_eq!(finish_reason(StopReason::ToolUse, false), "stop");
    assert_eq!(finish_reason(StopReason::EndTurn, true), "tool_calls");
    assert_eq!(finish_reason(StopReason::MaxTokens, true), "length");
    assert_eq!(
        finish_reason(StopReason::ContentFilter, true),
        "content_filter"
    );
}

#[test]
fn the_chat_door_writes_many_calls_in_linear_work() {
    // Many: each call's own work is small next to a scan of those before.
    const N: usize = 250_000;
    let mut writer = ChunkWriter::new(false);
    let (calls, end) =
        super::shown::tests::write_many(N, r#""type":"function""#, move |events, out| {
            writer.write(events, &meta, out)
        });
    assert_eq!(calls, N);
    assert_eq!(
        end,
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":7,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"
    );
}

#[test]
fn a_whole_answer_with_many_signed_calls_is_built_in_linear_work() {
    use crate::core::{DetectEvent, ToolCall, WireFormat};
    use crate::router::RouteEvent;
    // Many: each call's own work is small next to a look through the
    // signatures of the others.
    const N: usize = 300_000;
    let completion = super::shown::tests::within_a_minute(|| {
        let mut builder = CompletionBuilder::default();
        let mut events: Vec<RouteEvent> = (0..N)
            .map(|index| RouteEvent::CallSignature {
                index,
                signature: format!("sig{index}"),
            })
            .collect();
        builder.push(&mut events);
        for index in 0..N {
            let call = ToolCall::new(
                format!("call_{index}"),
                "get_weather",
                Some(Default::default()),
                WireFormat::OpenAiChat,
            );
            events.push(
                DetectEvent::CallEnd {
                    index,
                    call: Box::new(call),
                }
                .into(),
            );
        }
        events.push(RouteEvent::Finish {
            stop: toolrouter_providers::StopReason::ToolUse,
            error: None,
            partial_calls: Vec::new(),
        });
        builder.push(&mut events);
        builder.build(meta())
    })
    .unwrap();
    let completion = serde_json::to_value(&completion).unwrap();
    let calls = completion["choices"][0]["message"]["tool_calls"]
        .as_array()
        .unwrap();
    assert_eq!(calls.len(), N);
    for index in [0, N / 2, N - 1] {
        assert_eq!(calls[index]["id"], format!("call_{index}"));
        assert_eq!(
            calls[index]["extra_content"]["google"]["thought_signature"],
            format!("sig{index}")
        );
    }
}
