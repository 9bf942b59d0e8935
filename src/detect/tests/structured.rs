//! Structured provider calls entering the same event model.

use serde_json::json;

use super::*;

#[test]
fn interleaved_structured_calls_map_keys_to_indexes() {
    let mut d = StreamDetector::new(catalog(), DetectConfig::default());
    let mut ev = Vec::new();
    d.feed("Hi ", &mut ev);
    d.structured_start(
        0,
        Some("call_a"),
        "get_weather",
        WireFormat::OpenAiChat,
        &mut ev,
    );
    d.structured_start(1, Some("call_b"), "ls", WireFormat::OpenAiChat, &mut ev);
    d.structured_args(1, "", &mut ev);
    d.structured_args(0, "{\"city\":", &mut ev);
    d.structured_args(0, "\"Paris\"}", &mut ev);
    d.structured_end(1, &mut ev);
    d.structured_end(0, &mut ev);
    d.structured_start(2, Some("call_c"), "ls", WireFormat::OpenAiChat, &mut ev);
    d.structured_args(2, "{\"a\":", &mut ev);
    d.structured_end(2, &mut ev);
    d.structured_start(3, Some("call_d"), "ls", WireFormat::Anthropic, &mut ev);
    d.finish(&mut ev);
    let o = outcome(&ev);
    assert_eq!(o.text, "Hi ");
    assert_eq!(
        o.calls,
        vec![
            ("ls".to_owned(), json!({}), WireFormat::OpenAiChat),
            (
                "get_weather".to_owned(),
                json!({"city": "Paris"}),
                WireFormat::OpenAiChat
            ),
        ]
    );
    assert_eq!(o.ids, vec!["call_b".to_owned(), "call_a".to_owned()]);
    assert_eq!(
        o.malformed,
        vec![DiagnosticKind::Invalid, DiagnosticKind::Unfinished]
    );
    let starts: Vec<usize> = ev
        .iter()
        .filter_map(|e| match e {
            DetectEvent::CallStart { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(starts, vec![0, 1, 2, 3]);
}
