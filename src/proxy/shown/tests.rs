//! `ShownCalls`, and the calls the doors' writers are held to linear work
//! with (`write_many`, used by each door's tests).

use std::sync::mpsc;
use std::time::Duration;

use super::ShownCalls;
use crate::core::{DetectEvent, Diagnostic, DiagnosticKind, ToolCall, WireFormat};
use crate::router::RouteEvent;

#[test]
fn calls_are_found_by_router_index_and_the_first_open_one_by_dialect() {
    let mut shown = ShownCalls::default();
    assert_eq!(shown.add(4, WireFormat::Hermes), 0);
    assert_eq!(shown.add(7, WireFormat::OpenAiChat), 1);
    assert_eq!(shown.add(9, WireFormat::Hermes), 2);
    assert_eq!(shown.len(), 3);
    assert_eq!(
        [4, 7, 9, 5].map(|i| shown.position(i)),
        [Some(0), Some(1), Some(2), None]
    );
    assert_eq!(shown.first_open_of(WireFormat::Hermes), Some(0));
    assert_eq!(shown.first_open_of(WireFormat::OpenAiChat), Some(1));
    assert_eq!(shown.first_open_of(WireFormat::Mistral), None);
    assert!(!shown.any_ended());

    shown.end(0);
    shown.end(0);
    assert!(shown.is_ended(0) && !shown.is_ended(1) && shown.is_ended(3));
    assert!(shown.any_ended());
    assert_eq!(shown.first_open_of(WireFormat::Hermes), Some(2));
    assert_eq!(shown.open().collect::<Vec<_>>(), [1, 2]);

    // A router index shown again is found at its latest position.
    assert_eq!(shown.add(4, WireFormat::Hermes), 3);
    assert_eq!(shown.position(4), Some(3));
    shown.add(8, WireFormat::Hermes);
    assert_eq!(shown.position(4), Some(3));
}

/// The events of call `index`: text, a Hermes call (start, arguments, end),
/// then markup that is no call (a `Malformed` of the same dialect, with no
/// call open). The writers used to look through every call shown before
/// for some of them.
pub(crate) fn call_and_markup(index: usize) -> Vec<RouteEvent> {
    let id = format!("call_{index}");
    let call = ToolCall::new(
        id.clone(),
        "get_weather",
        Some(Default::default()),
        WireFormat::Hermes,
    );
    vec![
        DetectEvent::Text { text: "t".into() }.into(),
        DetectEvent::CallStart {
            index,
            id,
            name: "get_weather".to_owned(),
            format: WireFormat::Hermes,
        }
        .into(),
        DetectEvent::ArgsDelta {
            index,
            fragment: "{}".into(),
        }
        .into(),
        DetectEvent::CallEnd {
            index,
            call: Box::new(call),
        }
        .into(),
        DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind: DiagnosticKind::Invalid,
                format: WireFormat::Hermes,
                name: None,
                message: "not a call".to_owned(),
                raw: "<tool_call>x</tool_call>".to_owned(),
            },
        }
        .into(),
    ]
}

/// The turn's end after the calls.
pub(crate) fn tool_use() -> RouteEvent {
    RouteEvent::Finish {
        stop: toolrouter_providers::StopReason::ToolUse,
        error: None,
        partial_calls: Vec::new(),
    }
}

/// Writes `n` calls ([`call_and_markup`]) then the turn's end through
/// `write`, within a minute: how many times `pattern` was written, and the
/// bytes written for the turn's end. Each call's bytes are counted and let
/// go, so that many calls take little memory.
pub(crate) fn write_many(
    n: usize,
    pattern: &'static str,
    mut write: impl FnMut(&mut Vec<RouteEvent>, &mut Vec<u8>) + Send + 'static,
) -> (usize, String) {
    within_a_minute(move || {
        let mut out = Vec::new();
        let mut seen = 0;
        for index in 0..n {
            write(&mut call_and_markup(index), &mut out);
            seen += String::from_utf8_lossy(&out).matches(pattern).count();
            out.clear();
        }
        write(&mut vec![tool_use()], &mut out);
        (seen, String::from_utf8_lossy(&out).into_owned())
    })
}

/// Runs `work` on its own thread and waits at most 60 s for it: a writer
/// whose work grows with the square of the calls fails instead of hanging
/// (the limit is many times what linear work takes; nothing here measures
/// speed).
pub(crate) fn within_a_minute<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("the writer did not finish: its work grows faster than the calls")
}
