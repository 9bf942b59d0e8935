//! Where a routed turn ends, and what it costs: the wire's end marker ends
//! it (an upstream may keep its connection open after it); a dropped frame
//! is the turn's stream error; many calls in one stream cost linear work.

use std::sync::mpsc;
use std::time::Duration;

use toolrouter_providers::{AdapterConfig, ErrorKind};

use super::*;

/// `openai_stream()` (it ends with `data: [DONE]`), then a frame with text
/// that must not be read.
fn stream_then_more() -> (String, String) {
    let more = format!(
        "data: {}\n\n",
        json!({"choices":[{"index":0,"delta":{"content":" after the end"}}]})
    );
    (openai_stream(), more)
}

#[test]
fn the_end_marker_finishes_the_session_and_later_bytes_are_ignored() {
    let router = echo_router();
    let (answer, more) = stream_then_more();
    let mut session = router.session(Wire::OpenAiChat);
    let mut events = Vec::new();
    // Up to the last byte of `[DONE]`'s frame: not finished yet.
    session.feed(&answer.as_bytes()[..answer.len() - 1], &mut events);
    assert!(!session.is_finished());
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, RouteEvent::Finish { .. }))
    );
    session.feed(&answer.as_bytes()[answer.len() - 1..], &mut events);
    assert!(session.is_finished());
    assert!(
        matches!(
            events.last(),
            Some(RouteEvent::Finish {
                stop: StopReason::ToolUse,
                error: None,
                ..
            })
        ),
        "{events:?}"
    );
    let n = events.len();
    session.feed(more.as_bytes(), &mut events);
    session.finish(&mut events);
    assert_eq!(events.len(), n, "nothing after the end: {:?}", &events[n..]);
    let outcome = TurnOutcome::from_events(Wire::OpenAiChat, &events);
    assert_eq!(outcome.text, "Checking.  Done.");
    assert_eq!(outcome.tool_calls().len(), 2);
}

#[tokio::test]
async fn route_to_end_returns_at_the_end_marker_of_a_stream_that_never_ends() {
    let router = echo_router();
    let (answer, more) = stream_then_more();
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        vec![Ok(answer.into_bytes()), Ok(more.into_bytes())];
    // Bytes that never end, as a connection the upstream keeps open.
    let bytes = futures::stream::iter(pieces).chain(futures::stream::pending());
    let outcome = tokio::time::timeout(
        Duration::from_secs(10),
        router.route_to_end(Wire::OpenAiChat, bytes),
    )
    .await
    .expect("the turn ends at `data: [DONE]`");
    assert!(outcome.finished);
    assert_eq!(outcome.stop, StopReason::ToolUse);
    assert_eq!(outcome.text, "Checking.  Done.");
    assert_eq!(outcome.calls.len(), 2);
    assert!(outcome.calls.iter().all(|c| c.result.is_some()));
}

#[tokio::test]
async fn the_rest_of_a_routed_stream_is_read_to_its_end_in_the_background() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let router = echo_router();
    let (answer, more) = stream_then_more();
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        vec![Ok(answer.into_bytes()), Ok(more.into_bytes())];
    // Set when the stream is asked past its last piece: read to its end,
    // as an HTTP client needs to keep the connection.
    let ended = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&ended);
    let end = futures::stream::poll_fn(move |_| {
        seen.store(true, std::sync::atomic::Ordering::SeqCst);
        std::task::Poll::Ready(None)
    });
    let outcome = router
        .route_to_end(Wire::OpenAiChat, futures::stream::iter(pieces).chain(end))
        .await;
    assert_eq!(outcome.text, "Checking.  Done.");
    let read_to_end = async {
        while !ended.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read_to_end)
        .await
        .expect("the stream was read to its end");
}

#[tokio::test]
async fn a_stream_that_ended_is_not_asked_again() {
    // `unfold` panics when asked past its end; a stream with no end marker
    // ends the turn by ending.
    let answer = openai_stream().replace("data: [DONE]\n\n", "");
    let bytes = futures::stream::unfold(Some(answer), |answer| async move {
        answer.map(|a| (Ok::<_, std::io::Error>(a.into_bytes()), None))
    });
    let outcome = echo_router()
        .route_to_end(Wire::OpenAiChat, Box::pin(bytes))
        .await;
    assert!(outcome.finished);
    assert_eq!(outcome.stop, StopReason::ToolUse);
    assert_eq!(outcome.calls.len(), 2);
}

#[tokio::test]
async fn a_dropped_frame_is_a_stream_error_of_the_outcome() {
    let router = echo_router().adapter_config(AdapterConfig {
        max_frame_bytes: 256,
    });
    let mut bytes = Vec::new();
    bytes.extend_from_slice(
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\xffb\"}}]}\n\n",
    );
    bytes.extend_from_slice(format!("data: {}\n\n", "x".repeat(300)).as_bytes());
    bytes.extend_from_slice(
        b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
    );
    let pieces = vec![Ok::<_, std::io::Error>(bytes)];
    let outcome = router
        .route_to_end(Wire::OpenAiChat, futures::stream::iter(pieces))
        .await;
    // `{"choices":[{"index":0,"delta":{"content":"a` is 44 bytes.
    let invalid = "frame with invalid UTF-8 at byte 44 dropped";
    assert_eq!(
        outcome.stream_errors,
        vec![
            (ErrorKind::Malformed, invalid.to_owned()),
            (
                ErrorKind::TooLarge,
                "frame longer than 256 bytes dropped".to_owned()
            ),
        ]
    );
    assert_eq!(outcome.error.as_deref(), Some(invalid));
    assert!(outcome.ended_in_error());
    assert_eq!(outcome.text, "ok");
}

/// `n` structured calls in one OpenAI stream, each in one chunk with its
/// own id and index, then `tool_calls` and `[DONE]`.
fn many_calls(n: usize) -> String {
    let mut s = String::with_capacity(n * 170);
    for i in 0..n {
        s.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"{{\\\"n\\\":{i}}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    s.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    s
}

/// Runs `work` on its own thread and waits at most `limit` for it: a test
/// that would take quadratic time fails instead of hanging (the limit is
/// many times what linear work takes; nothing here measures speed).
fn within<T: Send + 'static>(limit: Duration, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(limit)
        .expect("the work did not finish: it grows faster than the calls")
}

#[test]
fn a_hundred_thousand_structured_calls_in_one_stream_are_routed() {
    const N: usize = 100_000;
    let router = echo_router();
    let bytes = many_calls(N);
    let (ended, last) = within(Duration::from_secs(60), move || {
        let mut session = router.session(Wire::OpenAiChat);
        let mut events = Vec::new();
        let mut ended = 0;
        let mut last = None;
        for piece in bytes.as_bytes().chunks(4096) {
            session.feed(piece, &mut events);
            for event in events.drain(..) {
                if let RouteEvent::Detect(DetectEvent::CallEnd { index, call }) = event {
                    ended += 1;
                    last = Some((index, call.id, Value::Object(call.arguments)));
                }
            }
        }
        (ended, last)
    });
    assert_eq!(ended, N);
    let n = N - 1;
    assert_eq!(last, Some((n, format!("call_{n}"), json!({"n": n}))));
}

#[test]
fn an_outcome_takes_three_hundred_thousand_results() {
    const N: usize = 300_000;
    let outcome = within(Duration::from_secs(60), || {
        let mut outcome = TurnOutcome::new(Wire::OpenAiChat);
        for index in 0..N {
            let id = format!("call_{index}");
            let call = crate::core::ToolCall::new(
                id.clone(),
                "get_weather",
                Some(Default::default()),
                WireFormat::OpenAiChat,
            );
            outcome.push(&RouteEvent::Detect(DetectEvent::CallEnd {
                index,
                call: Box::new(call),
            }));
            outcome.push(&RouteEvent::ToolResult {
                index,
                id,
                name: "get_weather".to_owned(),
                result: CallToolResult::success(vec![ContentBlock::text(index.to_string())]),
                elapsed_ms: 1,
            });
        }
        outcome
    });
    assert_eq!(outcome.calls.len(), N);
    let text = |c: &CallResult| match &c.result.as_ref().expect("a result").content[0] {
        ContentBlock::Text(t) => t.text.clone(),
        _ => String::new(),
    };
    assert!(
        outcome
            .calls
            .iter()
            .enumerate()
            .all(|(index, c)| c.index == index && text(c) == index.to_string())
    );
}

/// An OpenAI stream whose text is one fenced `tool_calls` envelope of `n`
/// calls, in content chunks of a few hundred bytes.
fn fenced_envelope(n: usize) -> String {
    let mut text = String::from("```json\n{\"tool_calls\": [");
    for i in 0..n {
        if i > 0 {
            text.push_str(", ");
        }
        text.push_str(&format!(
            "{{\"id\": \"c{i}\", \"type\": \"function\", \"function\": {{\"name\": \"get_weather\", \"arguments\": {{\"n\": {i}}}}}}}"
        ));
    }
    text.push_str("]}\n```\n");
    let mut s = String::new();
    let mut rest = text.as_str();
    while !rest.is_empty() {
        let (piece, after) = rest.split_at(rest.len().min(400));
        s.push_str(&format!(
            "data: {}\n\n",
            json!({"choices":[{"index":0,"delta":{"content":piece}}]})
        ));
        rest = after;
    }
    s.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    s
}

#[test]
fn a_fenced_envelope_of_many_calls_is_routed() {
    // The envelope's calls all end at its closing fence.
    const N: usize = 100_000;
    let router = echo_router();
    let bytes = fenced_envelope(N);
    let ends = within(Duration::from_secs(60), move || {
        let mut session = router.session(Wire::OpenAiChat);
        let mut events = Vec::new();
        let mut ends = Vec::new();
        for piece in bytes.as_bytes().chunks(4096) {
            session.feed(piece, &mut events);
            for event in events.drain(..) {
                if let RouteEvent::Detect(DetectEvent::CallEnd { index, call }) = event {
                    ends.push((index, call.arguments["n"].clone()));
                }
            }
        }
        ends
    });
    assert_eq!(ends.len(), N);
    assert!(
        ends.iter()
            .enumerate()
            .all(|(i, (index, n))| *index == i && *n == i)
    );
}
