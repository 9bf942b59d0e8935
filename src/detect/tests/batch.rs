//! `EventBatch`: the flat output gives the events a `Vec<DetectEvent>` gets.
//! (Every `run_pieces` of the other suites also compares the two.)

use compact_str::CompactString;
use serde_json::json;

use super::*;
use crate::core::{Diagnostic, ToolCall};
use crate::detect::EventRef;

fn text(s: &str) -> DetectEvent {
    DetectEvent::Text {
        text: CompactString::new(s),
    }
}

fn args(index: usize, s: &str) -> DetectEvent {
    DetectEvent::ArgsDelta {
        index,
        fragment: CompactString::new(s),
    }
}

fn owned(batch: &EventBatch) -> Vec<DetectEvent> {
    batch.iter().map(|e| e.to_event()).collect()
}

#[test]
fn a_delta_merges_its_own_pieces_but_never_into_an_earlier_delta() {
    // One call whose value spans three deltas; the batch is not cleared in
    // between, so each delta's events start after the previous ones.
    let mut d = StreamDetector::new(catalog(), DetectConfig::default());
    let mut batch = EventBatch::new();
    d.feed("Hi <read_file><path>a\"b", &mut batch);
    d.feed("cd", &mut batch);
    d.feed("e</path></read_file> bye", &mut batch);
    d.finish(&mut batch);
    let events = owned(&batch);
    assert_eq!(events.len(), 7, "{events:?}");
    assert_eq!(events[0], text("Hi "));
    assert!(
        matches!(&events[1], DetectEvent::CallStart { index: 0, name, .. } if name == "read_file")
    );
    // `{"path":"` and the escaped `a\"b` are one event: one delta wrote both;
    // so are `e` and the closing `"}`.
    assert_eq!(events[2], args(0, r#"{"path":"a\"b"#));
    assert_eq!(events[3], args(0, "cd"));
    assert_eq!(events[4], args(0, "e\"}"));
    assert!(matches!(&events[5], DetectEvent::CallEnd { index: 0, .. }));
    assert_eq!(events[6], text(" bye"));
    assert_eq!(batch.len(), 7);
    assert_eq!(batch.get(6), Some(EventRef::Text { text: " bye" }));
    assert_eq!(batch.get(7), None);
    assert_eq!(
        batch.iter().rev().map(|e| e.to_event()).collect::<Vec<_>>(),
        events.iter().rev().cloned().collect::<Vec<_>>()
    );
}

#[test]
fn drain_into_moves_the_events_and_empties_the_batch() {
    let input = "Note: <ls></ls>\n<read_file><path>x\ty</path></read_file> done";
    let mut d = StreamDetector::new(catalog(), DetectConfig::default());
    let mut batch = EventBatch::new();
    d.feed(input, &mut batch);
    d.finish(&mut batch);
    let viewed = owned(&batch);
    let mut drained = vec![text("kept")];
    batch.drain_into(&mut drained);
    assert!(batch.is_empty());
    assert_eq!(batch.iter().next(), None);
    assert_eq!(drained[0], text("kept"));
    assert_eq!(drained[1..], viewed[..]);
    let o = outcome(&drained[1..]);
    assert_eq!(o.text, "Note:  done");
    assert_eq!(o.calls.len(), 2);
    assert_eq!(o.calls[1].1, json!({"path": "x\ty"}));
    // The escaped tab is in the streamed text.
    assert!(drained.contains(&args(1, r#"{"path":"x\ty"}"#)));
}

#[test]
fn every_event_survives_a_trip_through_its_view() {
    let call = ToolCall::new(
        "id1".to_owned(),
        "ls",
        Some(json!({"a": [1]}).as_object().cloned().unwrap()),
        WireFormat::Hermes,
    );
    let events = [
        text("t"),
        DetectEvent::Reasoning {
            text: CompactString::new("r"),
        },
        DetectEvent::CallStart {
            index: 3,
            id: "id1".to_owned(),
            name: "ls".to_owned(),
            format: WireFormat::Hermes,
        },
        args(3, "{}"),
        DetectEvent::CallEnd {
            index: 3,
            call: Box::new(call),
        },
        DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind: DiagnosticKind::Invalid,
                format: WireFormat::Xml,
                name: None,
                message: "m".to_owned(),
                raw: "<x>".to_owned(),
            },
        },
    ];
    for event in &events {
        assert_eq!(&EventRef::from(event).to_event(), event);
    }
    // Stored in a batch (a `CallStart`'s id and name as ranges of its text,
    // beside text and fragments that touch them), read back through
    // `get`, `iter` and `drain_into`.
    let mut batch = EventBatch::new();
    for event in &events {
        batch.push(event.clone());
    }
    let empty_start = DetectEvent::CallStart {
        index: 4,
        id: String::new(),
        name: "x".to_owned(),
        format: WireFormat::Xml,
    };
    batch.push(empty_start.clone());
    batch.push_args(4, "{\"k\":", usize::MAX);
    let mut want = events.to_vec();
    want.push(empty_start);
    want.push(args(4, "{\"k\":"));
    assert_eq!(owned(&batch), want);
    for (i, event) in want.iter().enumerate() {
        assert_eq!(batch.get(i).map(|e| e.to_event()).as_ref(), Some(event));
    }
    let mut drained = Vec::new();
    batch.drain_into(&mut drained);
    assert_eq!(drained, want);
    assert!(batch.is_empty());
}

#[test]
fn a_cleared_batch_is_reused_and_holds_only_new_events() {
    let mut d = StreamDetector::new(catalog(), DetectConfig::default());
    let mut batch = EventBatch::new();
    d.feed("one ", &mut batch);
    assert_eq!(owned(&batch), vec![text("one ")]);
    batch.clear();
    d.feed("two", &mut batch);
    d.finish(&mut batch);
    assert_eq!(owned(&batch), vec![text("two")]);
}
