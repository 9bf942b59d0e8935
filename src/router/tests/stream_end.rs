//! Where a routed turn ends: at the wire's end marker (an upstream may keep
//! its connection open after it); a dropped frame is the turn's stream error.

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
fn issue_37_the_end_marker_finishes_the_session_and_later_bytes_are_ignored() {
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
async fn issue_37_route_to_end_returns_at_the_end_marker_of_a_stream_that_never_ends() {
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
async fn issue_37_a_dropped_frame_is_a_stream_error_of_the_outcome() {
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
