//! A call written in the text and cut off by the end of the stream
//! stays in the text, is one of the turn's partial calls (named when its name
//! was read, without id), never runs, and is not a completed call for the stop.

use futures::StreamExt;
use serde_json::json;
use toolrouter_providers::{PartialCall, StopReason, Wire};

use super::{echo_router, session_events};
use crate::core::DetectEvent;
use crate::router::{RouteEvent, TurnOutcome};

/// An OpenAI Chat stream whose content arrives as `pieces`, then `finish`.
fn content_stream(pieces: &[&str], finish: &str) -> String {
    let chunk = |delta: serde_json::Value, finish: serde_json::Value| {
        format!(
            "data: {}\n\n",
            json!({"choices":[{"index":0,"delta":delta,"finish_reason":finish}]})
        )
    };
    let mut s = String::new();
    for piece in pieces {
        s += &chunk(json!({ "content": piece }), json!(null));
    }
    s += &chunk(json!({}), json!(finish));
    s += "data: [DONE]\n\n";
    s
}

fn partial(name: &str, raw: &str) -> PartialCall {
    PartialCall {
        id: None,
        name: name.to_owned(),
        raw_arguments: raw.to_owned(),
    }
}

#[test]
fn a_hermes_call_cut_by_max_tokens_is_a_partial_call() {
    let router = echo_router();
    let cut = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par";
    let stream = content_stream(&["Checking.\n", &cut[..17], &cut[17..]], "length");
    for chunk in [1, 7, 4096] {
        let events = session_events(&router, stream.as_bytes(), chunk);
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, RouteEvent::Detect(DetectEvent::CallEnd { .. }))),
            "chunk {chunk}"
        );
        let outcome = TurnOutcome::from_events(Wire::OpenAiChat, &events);
        assert_eq!(outcome.text, format!("Checking.\n{cut}"), "chunk {chunk}");
        assert!(outcome.calls.is_empty());
        assert_eq!(outcome.stop, StopReason::MaxTokens);
        assert_eq!(outcome.partial_calls, [partial("get_weather", cut)]);
        assert_eq!(
            outcome.summary()["partial_calls"],
            json!([{"id": null, "name": "get_weather", "raw_arguments": cut, "reason": "cut_off"}])
        );
    }
}

#[test]
fn a_cut_call_is_not_a_completed_call_for_the_stop() {
    let router = echo_router();
    let done = "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>\n";
    let cut = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"ci";
    // A natural stop after one completed call and one cut call: tool use.
    let outcome = TurnOutcome::from_events(
        Wire::OpenAiChat,
        &session_events(&router, content_stream(&[done, cut], "stop").as_bytes(), 5),
    );
    assert_eq!(outcome.calls.len(), 1);
    assert_eq!(outcome.stop, StopReason::ToolUse);
    assert_eq!(outcome.partial_calls, [partial("get_weather", cut)]);
    // The newline after the first call is text again once the second fails.
    assert_eq!(outcome.text, format!("\n{cut}"));
    // Only a cut call: the natural stop stays `end_turn`.
    let outcome = TurnOutcome::from_events(
        Wire::OpenAiChat,
        &session_events(&router, content_stream(&[cut], "stop").as_bytes(), 5),
    );
    assert!(outcome.calls.is_empty());
    assert_eq!(outcome.stop, StopReason::EndTurn);
    assert_eq!(outcome.partial_calls, [partial("get_weather", cut)]);
}

#[test]
fn a_call_cut_before_its_name_is_a_partial_call_without_name() {
    let router = echo_router();
    for cut in [
        "<tool_call>{\"na",
        "<tool_call>{\"arguments\": {\"city\": \"Oslo",
    ] {
        let outcome = TurnOutcome::from_events(
            Wire::OpenAiChat,
            &session_events(
                &router,
                content_stream(&["Ok. ", cut], "length").as_bytes(),
                3,
            ),
        );
        assert_eq!(outcome.text, format!("Ok. {cut}"));
        assert_eq!(outcome.partial_calls, [partial("", cut)], "{cut}");
    }
}

#[test]
fn a_complete_call_or_plain_text_makes_no_partial_call() {
    let router = echo_router();
    for pieces in [
        &["<tool_call>{\"name\": \"get_time\", \"arguments\": {}}"][..],
        &["Just text with <tool_call> in it."][..],
    ] {
        let outcome = TurnOutcome::from_events(
            Wire::OpenAiChat,
            &session_events(&router, content_stream(pieces, "stop").as_bytes(), 4),
        );
        assert!(outcome.partial_calls.is_empty(), "{pieces:?}");
    }
}

#[tokio::test]
async fn the_router_never_runs_a_cut_text_call() {
    let router = echo_router();
    let done = "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>";
    let cut = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}";
    let bytes = content_stream(&[done, cut], "length").into_bytes();
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(11).map(|c| Ok(c.to_vec())).collect();
    let events: Vec<RouteEvent> = router
        .route(Wire::OpenAiChat, futures::stream::iter(pieces))
        .collect()
        .await;
    let ran: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            RouteEvent::ToolResult { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ran, ["get_time"]);
    let outcome = TurnOutcome::from_events(Wire::OpenAiChat, &events);
    assert_eq!(outcome.stop, StopReason::MaxTokens);
    assert_eq!(outcome.partial_calls, [partial("get_weather", cut)]);
}
