//! Router tests: provider bytes with structured and text-embedded calls in,
//! one event model, executed results and follow-up messages out.

mod cut_text;
mod stream_end;
mod structured;

use std::sync::Arc;

use futures::StreamExt;
use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};
use toolrouter_providers::{StopReason, Wire};

use super::*;
use crate::convert::Dialect;
use crate::core::{DetectEvent, WireFormat};
use crate::exec::{Executor, ExecutorConfig};
use crate::registry::ToolRegistry;

/// A router over a registry of two echo tools (the router needs no hub).
fn echo_router() -> Router {
    let registry = Arc::new(ToolRegistry::new());
    let schema = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "n": {"type": "integer"}}
    });
    for name in ["get_weather", "get_time"] {
        let def = Tool::new(
            name,
            "test tool",
            Arc::new(schema.as_object().cloned().expect("object")),
        );
        registry
            .register_fn(def, move |args, _ctx| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "{name}:{}",
                    Value::Object(args)
                ))]))
            })
            .expect("register");
    }
    Router::new(Executor::new(registry, ExecutorConfig::default()))
}

/// An OpenAI Chat stream: text that carries a Hermes call, then a structured call.
fn openai_stream() -> String {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":delta,"finish_reason":finish}]})
        )
    };
    let mut s = String::new();
    s += &chunk(
        json!({"role":"assistant","content":"Checking. <tool_"}),
        Value::Null,
    );
    s += &chunk(
        json!({"content":"call>{\"name\":\"get_time\",\"arguments\":{\"city\":\"Oslo\"}}</tool_call>"}),
        Value::Null,
    );
    s += &chunk(json!({"content":" Done."}), Value::Null);
    s += &chunk(
        json!({"tool_calls":[{"index":0,"id":"call_A","type":"function","function":{"name":"get_weather","arguments":"{\"ci"}}]}),
        Value::Null,
    );
    s += &chunk(
        json!({"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}),
        Value::Null,
    );
    s += &chunk(json!({}), json!("tool_calls"));
    s += "data: [DONE]\n\n";
    s
}

fn session_events(router: &Router, bytes: &[u8], chunk: usize) -> Vec<RouteEvent> {
    let mut session = router.session(Wire::OpenAiChat);
    let mut events = Vec::new();
    for piece in bytes.chunks(chunk) {
        session.feed(piece, &mut events);
    }
    session.finish(&mut events);
    events
}

#[test]
fn text_and_structured_calls_share_one_event_model() {
    let router = echo_router();
    let events = session_events(&router, openai_stream().as_bytes(), 4096);
    let outcome = TurnOutcome::from_events(Wire::OpenAiChat, &events);
    // The spaces on either side of the call touch real text, so both stay text.
    assert_eq!(outcome.text, "Checking.  Done.");
    let calls = outcome.tool_calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].name, "get_time");
    assert_eq!(calls[0].format, WireFormat::Hermes);
    assert_eq!(calls[0].arguments["city"], "Oslo");
    assert_eq!(calls[1].name, "get_weather");
    assert_eq!(calls[1].id, "call_A");
    assert_eq!(calls[1].format, WireFormat::OpenAiChat);
    assert_eq!(calls[1].arguments["city"], "Paris");
    assert_eq!(outcome.stop, StopReason::ToolUse);
    // Indices follow the order calls were opened.
    let starts: Vec<(usize, String)> = events
        .iter()
        .filter_map(|e| match e {
            RouteEvent::Detect(DetectEvent::CallStart { index, name, .. }) => {
                Some((*index, name.clone()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [(0, "get_time".to_owned()), (1, "get_weather".to_owned())]
    );
}

#[test]
fn any_split_gives_the_same_turn() {
    let router = echo_router();
    let bytes = openai_stream();
    let whole = TurnOutcome::from_events(
        Wire::OpenAiChat,
        &session_events(&router, bytes.as_bytes(), usize::MAX),
    );
    for chunk in [1, 2, 3, 7, 64] {
        let split = TurnOutcome::from_events(
            Wire::OpenAiChat,
            &session_events(&router, bytes.as_bytes(), chunk),
        );
        assert_eq!(split.text, whole.text, "chunk {chunk}");
        assert_eq!(split.stop, whole.stop, "chunk {chunk}");
        let names = |o: &TurnOutcome| {
            o.calls
                .iter()
                .map(|c| (c.call.name.clone(), c.call.arguments.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&split), names(&whole), "chunk {chunk}");
    }
}

#[test]
fn a_natural_stop_after_a_text_call_is_tool_use() {
    let router = echo_router();
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"<tool_call>{\\\"name\\\":\\\"get_time\\\",\\\"arguments\\\":{}}</tool_call>\"},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let outcome = TurnOutcome::from_events(
        Wire::OpenAiChat,
        &session_events(&router, stream.as_bytes(), 5),
    );
    assert_eq!(outcome.calls.len(), 1);
    assert_eq!(outcome.stop, StopReason::ToolUse);
    assert_eq!(outcome.text, "");
}

#[tokio::test]
async fn the_router_runs_calls_and_collects_results_in_call_order() {
    let router = echo_router();
    let bytes = openai_stream().into_bytes();
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(9).map(|c| Ok(c.to_vec())).collect();
    let mut stream = router.route(Wire::OpenAiChat, futures::stream::iter(pieces));
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    // Every call's result comes after its CallEnd.
    for (pos, event) in events.iter().enumerate() {
        if let RouteEvent::ToolResult { id, .. } = event {
            let ended_before = events[..pos]
                .iter()
                .any(|e| matches!(e, RouteEvent::Detect(DetectEvent::CallEnd { call, .. }) if &call.id == id));
            assert!(ended_before, "result before its call: {id}");
        }
    }
    let outcome = TurnOutcome::from_events(Wire::OpenAiChat, &events);
    let texts: Vec<String> = outcome
        .calls
        .iter()
        .map(|c| {
            let result = c.result.as_ref().expect("every call ran");
            match &result.content[0] {
                ContentBlock::Text(t) => t.text.clone(),
                _ => String::new(),
            }
        })
        .collect();
    assert_eq!(
        texts,
        [
            r#"get_time:{"city":"Oslo"}"#,
            r#"get_weather:{"city":"Paris"}"#
        ]
    );
    let summary = outcome.summary();
    assert_eq!(summary["stop"], "tool_use");
    assert_eq!(summary["results"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn an_unknown_structured_call_gets_an_error_result() {
    let router = echo_router();
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_Z\",\"type\":\"function\",\"function\":{\"name\":\"get_wether\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n"
    );
    let pieces = vec![Ok::<_, std::io::Error>(stream.as_bytes().to_vec())];
    let outcome = router
        .route_to_end(Wire::OpenAiChat, futures::stream::iter(pieces))
        .await;
    let result = outcome.calls[0].result.as_ref().expect("ran");
    assert_eq!(result.is_error, Some(true));
    let text = match &result.content[0] {
        ContentBlock::Text(t) => t.text.clone(),
        _ => String::new(),
    };
    assert!(text.contains("get_wether"), "{text}");
    assert!(
        text.contains("get_weather"),
        "suggests the close name: {text}"
    );
}

#[tokio::test]
async fn follow_up_messages_carry_the_calls_and_results_in_the_dialect() {
    let router = echo_router();
    let pieces = vec![Ok::<_, std::io::Error>(openai_stream().into_bytes())];
    let outcome = router
        .route_to_end(Wire::OpenAiChat, futures::stream::iter(pieces))
        .await;
    let messages = outcome.follow_up();
    assert_eq!(messages, outcome.follow_up_in(Dialect::OpenAiChat));
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["role"], "assistant");
    assert_eq!(messages[0]["content"], "Checking.  Done.");
    assert_eq!(messages[0]["tool_calls"][1]["id"], "call_A");
    assert_eq!(
        messages[0]["tool_calls"][1]["function"]["arguments"],
        r#"{"city":"Paris"}"#
    );
    assert_eq!(messages[1]["role"], "tool");
    assert_eq!(messages[2]["tool_call_id"], "call_A");
    assert_eq!(messages[2]["content"], r#"get_weather:{"city":"Paris"}"#);
}

#[test]
fn markup_in_thinking_text_is_never_a_call() {
    let router = echo_router();
    let call = r#"<tool_call>{\"name\":\"get_time\",\"arguments\":{}}</tool_call>"#;
    let stream = format!(
        concat!(
            "event: content_block_start\n",
            "data: {{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{{\"type\":\"thinking\",\"thinking\":\"\"}}}}\n\n",
            "event: content_block_delta\n",
            "data: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"thinking_delta\",\"thinking\":\"maybe {call}\"}}}}\n\n",
            "event: content_block_stop\n",
            "data: {{\"type\":\"content_block_stop\",\"index\":0}}\n\n",
            "event: content_block_start\n",
            "data: {{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{{\"type\":\"text\",\"text\":\"\"}}}}\n\n",
            "event: content_block_delta\n",
            "data: {{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{{\"type\":\"text_delta\",\"text\":\"No call needed.\"}}}}\n\n",
            "event: content_block_stop\n",
            "data: {{\"type\":\"content_block_stop\",\"index\":1}}\n\n",
            "event: message_delta\n",
            "data: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\"}}}}\n\n",
        ),
        call = call
    );
    let mut session = router.session(Wire::Anthropic);
    let mut events = Vec::new();
    for piece in stream.as_bytes().chunks(11) {
        session.feed(piece, &mut events);
    }
    session.finish(&mut events);
    let outcome = TurnOutcome::from_events(Wire::Anthropic, &events);
    assert!(outcome.calls.is_empty(), "{:?}", outcome.calls);
    assert_eq!(outcome.text, "No call needed.");
    assert_eq!(
        outcome.reasoning,
        r#"maybe <tool_call>{"name":"get_time","arguments":{}}</tool_call>"#
    );
    assert_eq!(outcome.stop, StopReason::EndTurn);
}

#[test]
fn detect_events_serialise_as_the_detect_event_itself() {
    let start = RouteEvent::from(DetectEvent::CallStart {
        index: 0,
        id: "call_1".into(),
        name: "ls".into(),
        format: WireFormat::OpenAiChat,
    });
    assert_eq!(
        serde_json::to_string(&start).expect("json"),
        r#"{"type":"call_start","index":0,"id":"call_1","name":"ls","format":"openai-chat"}"#
    );
    let text = RouteEvent::from(DetectEvent::Text { text: "hi".into() });
    assert_eq!(
        serde_json::to_string(&text).expect("json"),
        r#"{"type":"text","text":"hi"}"#
    );
}

/// An adapter whose stream cannot be finished (as a binary event stream that
/// lost its frame sync).
struct LostAtFinish;

impl toolrouter_providers::WireAdapter for LostAtFinish {
    fn wire(&self) -> Wire {
        Wire::Bedrock
    }

    fn feed(
        &mut self,
        _chunk: &[u8],
        _out: &mut Vec<toolrouter_providers::ProviderDelta>,
    ) -> Result<(), toolrouter_providers::AdapterError> {
        Ok(())
    }

    fn finish(
        &mut self,
        _out: &mut Vec<toolrouter_providers::ProviderDelta>,
    ) -> Result<(), toolrouter_providers::AdapterError> {
        Err(toolrouter_providers::AdapterError::LostSync {
            reason: "prelude checksum mismatch".to_owned(),
        })
    }

    fn feed_frame(
        &mut self,
        _event: &str,
        _data: &[u8],
        _out: &mut Vec<toolrouter_providers::ProviderDelta>,
    ) {
    }
}

/// An adapter that cannot finish ends the turn with exactly
/// one `Finish`, carrying the error (it was two).
#[test]
fn a_failed_adapter_finish_is_one_finish_with_the_error() {
    let catalog = Arc::new(crate::core::ToolCatalog::new());
    let mut session = RouteSession::new(
        Wire::Bedrock,
        catalog,
        crate::detect::DetectConfig::default(),
    );
    session.set_adapter(Box::new(LostAtFinish));
    let mut events = Vec::new();
    session.feed(b"anything", &mut events);
    session.finish(&mut events);
    let finishes: Vec<&RouteEvent> = events
        .iter()
        .filter(|e| matches!(e, RouteEvent::Finish { .. }))
        .collect();
    assert_eq!(finishes.len(), 1, "{events:?}");
    let RouteEvent::Finish { stop, error, .. } = finishes[0] else {
        unreachable!("filtered")
    };
    assert_eq!(*stop, StopReason::Error);
    assert!(error.is_some(), "{events:?}");
}

/// A byte stream that breaks is the turn's error: its
/// `Finish` has stop `error` and the message.
#[test]
fn an_aborted_turn_finishes_with_its_error() {
    let catalog = Arc::new(crate::core::ToolCatalog::new());
    let mut session = RouteSession::new(
        Wire::OpenAiChat,
        catalog,
        crate::detect::DetectConfig::default(),
    );
    let mut events = Vec::new();
    session.feed(
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n",
        &mut events,
    );
    session.abort("the turn exceeds 10 bytes".to_owned(), &mut events);
    session.finish(&mut events);
    let finishes: Vec<&RouteEvent> = events
        .iter()
        .filter(|e| matches!(e, RouteEvent::Finish { .. }))
        .collect();
    assert_eq!(finishes.len(), 1, "{events:?}");
    let RouteEvent::Finish { error, .. } = finishes[0] else {
        unreachable!("filtered")
    };
    assert_eq!(error.as_deref(), Some("the turn exceeds 10 bytes"));
}
