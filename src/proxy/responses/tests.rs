#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};
use toolrouter_providers::{StopReason, Usage};

use std::sync::Arc;

use super::items::{OutputItem, Status};
use super::request::ResponsesRequest;
use super::stream::ResponseWriter;
use super::{Echo, ItemStore};
use crate::core::{DetectEvent, WireFormat};
use crate::proxy::meta::ChunkMeta;
use crate::proxy::turn::FrameWriter;
use crate::router::RouteEvent;

fn upstream(body: Value) -> Value {
    let read = ResponsesRequest::read(body.to_string().as_bytes(), &ItemStore::default()).unwrap();
    let sent = crate::proxy::tests::OPENAI.body(&read.body).unwrap();
    serde_json::from_slice(&sent).unwrap()
}

#[test]
fn a_request_with_items_calls_and_outputs_translates_field_by_field() {
    let sent = upstream(json!({
        "model": "m", "instructions": "Be brief.", "max_output_tokens": 100,
        "temperature": 0.2, "top_p": 0.9, "parallel_tool_calls": false, "store": true,
        "metadata": {"k": "v"}, "reasoning": {"effort": "low", "summary": "auto"},
        "text": {"format": {"type": "json_schema", "name": "w", "strict": true,
                            "schema": {"type": "object"}}},
        "tools": [{"type": "function", "name": "get_weather", "description": "Weather",
                   "parameters": {"type": "object"}, "strict": true}],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "input": [
            {"role": "developer", "content": "Use tools."},
            {"type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Weather in"}, {"type": "input_text", "text": "Paris?"}]},
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "message", "role": "assistant", "content": [
                {"type": "output_text", "text": "Checking.", "annotations": []}]},
            {"type": "function_call", "call_id": "call_1", "name": "get_weather",
             "arguments": "{\"city\":\"Paris\"}"},
            {"type": "function_call", "call_id": "call_2", "name": "get_weather",
             "arguments": "{\"city\":\"Lyon\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "18 °C"},
            {"type": "function_call_output", "call_id": "call_2",
             "output": [{"type": "input_text", "text": "20 °C"}]},
            {"role": "user", "content": [
                {"type": "input_image", "image_url": "data:image/png;base64,AAA", "detail": "low"},
                {"type": "input_text", "text": "And this?"}]},
        ],
    }));
    let call = |id: &str, city: &str| {
        json!({"id": id, "type": "function", "function": {"name": "get_weather",
               "arguments": format!("{{\"city\":\"{city}\"}}")}})
    };
    assert_eq!(
        sent,
        json!({
            "model": "m", "max_tokens": 100, "temperature": 0.2, "top_p": 0.9,
            "parallel_tool_calls": false, "reasoning_effort": "low",
            "response_format": {"type": "json_schema", "json_schema": {"name": "w",
                "strict": true, "schema": {"type": "object"}}},
            "tools": [{"type": "function", "function": {"name": "get_weather",
                "description": "Weather", "parameters": {"type": "object"}, "strict": true}}],
            "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
            "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "system", "content": "Use tools."},
                {"role": "user", "content": "Weather in\nParis?"},
                {"role": "assistant", "content": "Checking.",
                 "tool_calls": [call("call_1", "Paris"), call("call_2", "Lyon")]},
                {"role": "tool", "tool_call_id": "call_1", "content": "18 °C"},
                {"role": "tool", "tool_call_id": "call_2", "content": "20 °C"},
                {"role": "user", "content": [
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA", "detail": "low"}},
                    {"type": "text", "text": "And this?"}]},
            ],
        })
    );
}

#[test]
fn a_call_with_no_message_before_it_opens_an_assistant_turn() {
    let sent = upstream(json!({"model": "m", "tool_choice": "required", "input": [
        {"role": "user", "content": "Hi"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"},
    ]}));
    assert_eq!(sent["tool_choice"], "required");
    assert_eq!(
        sent["messages"][1],
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "c",
               "type": "function", "function": {"name": "f", "arguments": "{}"}}]})
    );
}

#[test]
fn what_has_no_equivalent_is_a_400_naming_the_field() {
    for (body, param) in [
        (
            json!({"model": "m", "input": "x", "tools": [{"type": "file_search"}]}),
            "tools[0].type",
        ),
        (
            json!({"model": "m", "input": "x", "conversation": "c"}),
            "conversation",
        ),
        (
            json!({"model": "m", "input": "x", "background": true}),
            "background",
        ),
        (
            json!({"model": "m", "input": "x", "tool_choice": {"type": "web_search"}}),
            "tool_choice",
        ),
        (
            json!({"model": "m", "input": "x", "text": {"format": {"type": "xml"}}}),
            "text.format",
        ),
        (
            json!({"model": "m", "input": [{"role": "tool", "content": "x"}]}),
            "input[0].role",
        ),
        (
            json!({"model": "m", "input": [{"role": "user", "content": [
            {"type": "input_file", "file_id": "f"}]}]}),
            "input[0].content",
        ),
        (
            json!({"model": "m", "input": [{"role": "user", "content": [
            {"type": "input_image", "file_id": "f"}]}]}),
            "input[0].content",
        ),
    ] {
        let error =
            ResponsesRequest::read(body.to_string().as_bytes(), &ItemStore::default()).unwrap_err();
        assert_eq!(error.status, 400, "{body}");
        assert_eq!(error.error["param"], param, "{body}");
    }
    // `store` and `background: false` change nothing.
    let read = ResponsesRequest::read(
        br#"{"model":"m","input":"x","store":false,"background":false}"#,
        &ItemStore::default(),
    );
    assert!(read.is_ok());
}

fn meta() -> ChunkMeta {
    ChunkMeta {
        id: "chatcmpl-abc".to_owned(),
        model: "m-up".to_owned(),
        created: 7,
        system_fingerprint: None,
    }
}

/// The events written for `events`, as `(type, data)`.
fn written(events: Vec<RouteEvent>) -> Vec<(String, Value)> {
    let mut writer = ResponseWriter::new(Echo::default(), Arc::new(ItemStore::default()));
    let mut out = Vec::new();
    let mut events = events;
    writer.write(&mut events, &meta, &mut out);
    let text = String::from_utf8(out).unwrap();
    text.split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| {
            let data = e.split_once("\ndata: ").unwrap().1;
            let data: Value = serde_json::from_str(data).unwrap();
            (data["type"].as_str().unwrap().to_owned(), data)
        })
        .collect()
}

fn text(text: &str) -> RouteEvent {
    RouteEvent::Detect(DetectEvent::Text { text: text.into() })
}

fn finish(stop: StopReason) -> RouteEvent {
    RouteEvent::Finish {
        stop,
        error: None,
        partial_calls: Vec::new(),
    }
}

#[test]
fn a_refusal_after_text_is_the_messages_second_part() {
    let events = written(vec![
        text("Well"),
        RouteEvent::Refusal { text: "No.".into() },
        finish(StopReason::EndTurn),
    ]);
    let parts: Vec<(&str, &Value)> = events
        .iter()
        .filter(|(t, _)| t.starts_with("response.content_part") || t.ends_with(".delta"))
        .map(|(t, d)| (t.as_str(), &d["content_index"]))
        .collect();
    assert_eq!(
        parts,
        [
            ("response.content_part.added", &json!(0)),
            ("response.output_text.delta", &json!(0)),
            ("response.content_part.done", &json!(0)),
            ("response.content_part.added", &json!(1)),
            ("response.refusal.delta", &json!(1)),
            ("response.content_part.done", &json!(1)),
        ]
    );
    let (last, completed) = events.last().unwrap();
    assert_eq!(last, "response.completed");
    let response = &completed["response"];
    assert_eq!(response["id"], "resp_abc");
    assert_eq!(response["created_at"], 7);
    assert_eq!(response["model"], "m-up");
    assert_eq!(
        response["output"],
        json!([{"type": "message", "id": "msg_abc", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "Well", "annotations": [], "logprobs": []},
                        {"type": "refusal", "refusal": "No."}]}])
    );
}

#[test]
fn a_call_cut_by_the_token_limit_makes_the_response_incomplete() {
    let events = written(vec![
        RouteEvent::Detect(DetectEvent::CallStart {
            index: 0,
            id: "call_x".to_owned(),
            name: "f".to_owned(),
            format: WireFormat::Hermes,
        }),
        RouteEvent::Detect(DetectEvent::ArgsDelta {
            index: 0,
            fragment: "{\"a\": ".into(),
        }),
        RouteEvent::Usage {
            usage: Usage {
                input_tokens: Some(5),
                output_tokens: Some(9),
                total_tokens: None,
            },
        },
        finish(StopReason::MaxTokens),
    ]);
    let (last, incomplete) = events.last().unwrap();
    assert_eq!(last, "response.incomplete");
    let response = &incomplete["response"];
    assert_eq!(response["status"], "incomplete");
    assert_eq!(
        response["incomplete_details"],
        json!({"reason": "max_output_tokens"})
    );
    assert_eq!(
        response["output"],
        json!([{"type": "function_call", "id": "fc_x", "call_id": "call_x", "name": "f",
                "arguments": "{\"a\": ", "status": "incomplete"}])
    );
    assert_eq!(response["usage"]["total_tokens"], 14);
    for (n, (_, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], n);
    }
}

#[test]
fn an_upstream_error_before_any_output_still_starts_the_response() {
    let events = written(vec![
        RouteEvent::ProviderError {
            kind: toolrouter_providers::ErrorKind::Provider,
            message: "overloaded".to_owned(),
        },
        finish(StopReason::Error),
    ]);
    let types: Vec<&str> = events.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(
        types,
        [
            "response.created",
            "response.in_progress",
            "response.failed"
        ]
    );
    let response = &events[2].1["response"];
    assert_eq!(response["status"], "failed");
    assert_eq!(
        response["error"],
        json!({"code": "upstream_error", "message": "overloaded"})
    );
}

#[test]
fn item_references_to_kept_items_translate_as_the_items_and_others_are_refused() {
    let items = ItemStore::default();
    let reasoning = Arc::new(OutputItem::Reasoning {
        id: "rs_1".into(),
        status: Status::Completed,
        text: Some("Think.".into()),
    });
    let call = Arc::new(OutputItem::call(
        "call_1".into(),
        "get_weather".into(),
        "{\"city\":\"Paris\"}".into(),
        Status::Completed,
    ));
    items.keep([&reasoning, &call]);
    let body = json!({"model": "m", "input": [
        {"role": "user", "content": "Weather?"},
        {"type": "item_reference", "id": "rs_1"},
        {"id": "fc_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": "18 C"},
    ]});
    let read = ResponsesRequest::read(body.to_string().as_bytes(), &items).unwrap();
    assert_eq!(
        read.body.to_tree(usize::MAX).unwrap()["messages"],
        json!([
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
                "type": "function", "function": {"name": "get_weather",
                "arguments": "{\"city\":\"Paris\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18 C"},
        ])
    );
    let missing = json!({"model": "m", "input": [{"type": "item_reference", "id": "fc_9"}]});
    let error = ResponsesRequest::read(missing.to_string().as_bytes(), &items).unwrap_err();
    assert_eq!(error.status, http::StatusCode::BAD_REQUEST);
    assert_eq!(error.error["param"], "input[0].id");
    assert!(
        error.error["message"]
            .as_str()
            .unwrap()
            .starts_with("input[0] refers to item `fc_9`, which this proxy did not write"),
        "{}",
        error.error
    );
}

#[test]
fn a_finished_streamed_answer_keeps_its_items_for_later_references() {
    let items = Arc::new(ItemStore::default());
    let mut writer = ResponseWriter::new(Echo::default(), items.clone());
    let mut out = Vec::new();
    let mut events = vec![text("Sunny."), finish(StopReason::EndTurn)];
    writer.write(&mut events, &meta, &mut out);
    // `msg_` and the upstream's id without `chatcmpl-`.
    let kept = serde_json::to_value(&*items.get("msg_abc").unwrap()).unwrap();
    assert_eq!(kept["content"][0]["text"], "Sunny.");
}

#[test]
fn a_response_id_is_the_upstreams_under_the_resp_prefix() {
    let id = |upstream: &str| super::Head::new(upstream, "m", 1).id;
    assert_eq!(id("chatcmpl-abc"), "resp_abc");
    assert_eq!(id("msg_01X"), "resp_01X");
    // A Responses upstream's id is kept, not prefixed twice.
    assert_eq!(id("resp_68b0"), "resp_68b0");
    assert_eq!(id("7"), "resp_7");
    let made = id("");
    assert!(made.starts_with("resp_") && made.len() == 5 + 32, "{made}");
}

/// The events of `frames` joined, as `(type, data)`.
fn parse_events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|e| !e.is_empty())
        .map(|e| {
            let data = e.split_once("\ndata: ").unwrap().1;
            let data: Value = serde_json::from_str(data).unwrap();
            (data["type"].as_str().unwrap().to_owned(), data)
        })
        .collect()
}

#[test]
fn a_large_turn_is_repeated_one_event_a_frame_and_reads_as_a_small_one() {
    // 300 KiB of text, then a 300 KiB call: each `done` event and the final
    // response repeat them, and each of those waits for a frame of its own.
    let text_len = 300 * 1024;
    let piece = "y".repeat(1024);
    let mut events: Vec<RouteEvent> = (0..text_len / 1024).map(|_| text(&piece)).collect();
    events.push(RouteEvent::Detect(DetectEvent::CallStart {
        index: 0,
        id: "call_big".to_owned(),
        name: "f".to_owned(),
        format: WireFormat::OpenAiChat,
    }));
    let arguments = format!("{{\"a\": \"{}\"}}", "z".repeat(text_len));
    events.push(RouteEvent::Detect(DetectEvent::ArgsDelta {
        index: 0,
        fragment: arguments.as_str().into(),
    }));
    events.push(RouteEvent::Detect(DetectEvent::CallEnd {
        index: 0,
        call: Box::new(crate::core::ToolCall::new(
            "call_big",
            "f",
            None,
            WireFormat::OpenAiChat,
        )),
    }));
    events.push(finish(StopReason::EndTurn));
    let items = Arc::new(ItemStore::default());
    let mut writer = ResponseWriter::new(Echo::default(), Arc::clone(&items));
    let mut first = Vec::new();
    writer.write(&mut events, &meta, &mut first);
    assert!(writer.ended());
    let mut frames = vec![first];
    loop {
        let mut frame = Vec::new();
        if !writer.held(&mut frame) {
            break;
        }
        frames.push(frame);
    }
    // No frame holds the turn's text, or its arguments, twice.
    let (whole_text, whole_arguments) = ("y".repeat(text_len), "z".repeat(text_len));
    for frame in &frames {
        let frame = String::from_utf8(frame.clone()).unwrap();
        assert!(
            frame.matches(&whole_text).count() <= 1,
            "{} bytes",
            frame.len()
        );
        assert!(
            frame.matches(&whole_arguments).count() <= 1,
            "{} bytes",
            frame.len()
        );
    }
    // The held events are: text done, part done, message done, arguments
    // done, call done, completed: each in a frame of its own.
    assert!(frames.len() >= 7, "{} frames", frames.len());
    let joined: String = frames
        .iter()
        .map(|f| String::from_utf8(f.clone()).unwrap())
        .collect();
    let events = parse_events(&joined);
    for (n, (_, data)) in events.iter().enumerate() {
        assert_eq!(data["sequence_number"], n);
    }
    let kinds: Vec<&str> = events
        .iter()
        .map(|(kind, _)| kind.as_str())
        .filter(|kind| !kind.ends_with(".delta"))
        .collect();
    assert_eq!(
        kinds,
        [
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.content_part.added",
            "response.output_text.done",
            "response.content_part.done",
            "response.output_item.done",
            "response.output_item.added",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
    );
    let (_, completed) = events.last().unwrap();
    let output = &completed["response"]["output"];
    assert_eq!(
        output[0]["content"][0]["text"].as_str().unwrap().len(),
        text_len
    );
    assert_eq!(output[1]["arguments"], arguments.as_str());
    // The items kept are the writer's, not copies.
    let kept = items.get("fc_big").unwrap();
    assert_eq!(
        Arc::strong_count(&kept),
        3,
        "the writer's, the store's, this one"
    );
}

#[test]
fn the_responses_door_writes_many_calls_in_linear_work() {
    // Fewer than on the other doors: each call here is a dozen events.
    // (What this door scanned, the ids of the items before a new one's,
    // cost little next to them at this size: this holds the work linear
    // rather than showing the scan.)
    const N: usize = 20_000;
    let mut writer = ResponseWriter::new(Echo::default(), Arc::new(ItemStore::default()));
    let (calls, end) = crate::proxy::shown::tests::write_many(
        N,
        "event: response.function_call_arguments.done\n",
        move |events, out| writer.write(events, &meta, out),
    );
    assert_eq!(calls, N);
    let (name, data) = end.split_once("\ndata: ").unwrap();
    assert_eq!(name, "event: response.completed");
    let completed: Value = serde_json::from_str(data.trim_end()).unwrap();
    let output = completed["response"]["output"].as_array().unwrap();
    assert_eq!(output.len(), 2 * N);
    // The message items' ids are unique: the first, then each with its
    // output index.
    assert_eq!(output[0]["id"], "msg_abc");
    assert_eq!(output[2]["id"], "msg_abc_2");
    assert_eq!(output[2 * N - 2]["id"], format!("msg_abc_{}", 2 * N - 2));
}
