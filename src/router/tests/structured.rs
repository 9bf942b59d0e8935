//! Structured provider calls, assembled by the router beside the detector's
//! text calls: one index sequence, one arguments rule, and `partial_calls` made
//! of the same decisions as the events.

use toolrouter_providers::{ArgumentsRule, CallKey, PartialCall};

use super::super::structured::StructuredCalls;
use super::*;
use crate::core::DiagnosticKind;
use crate::detect::{DetectConfig, StreamDetector};

/// One step of a provider's structured calls.
enum Step {
    Text(&'static str),
    Start(u32, &'static str, &'static str),
    Args(u32, &'static str),
    End(u32),
}

/// What the steps came to: the events, the partial calls, the completed count.
fn run(max_bytes: usize, steps: &[Step]) -> (Vec<DetectEvent>, Vec<PartialCall>, usize) {
    let mut detector = StreamDetector::new(
        Arc::new(crate::core::ToolCatalog::new()),
        DetectConfig::default(),
    );
    let mut calls = StructuredCalls::new(
        ArgumentsRule::with_max_bytes(max_bytes),
        WireFormat::OpenAiChat,
    );
    let mut detected = Vec::new();
    let mut out = Vec::new();
    for step in steps {
        match *step {
            Step::Text(text) => detector.feed(text, &mut detected),
            Step::Start(key, id, name) => calls.start(
                CallKey(key),
                Some(id.to_owned()),
                name.to_owned(),
                None,
                || detector.reserve_call_index(),
                &mut out,
            ),
            Step::Args(key, fragment) => calls.args(CallKey(key), fragment.to_owned(), &mut out),
            Step::End(key) => calls.end(CallKey(key), &mut out),
        }
        out.extend(detected.drain(..).map(RouteEvent::from));
    }
    detector.finish(&mut detected);
    out.extend(detected.drain(..).map(RouteEvent::from));
    calls.finish(&mut out);
    let events = out
        .into_iter()
        .filter_map(|e| match e {
            RouteEvent::Detect(e) => Some(e),
            _ => None,
        })
        .collect();
    (events, calls.partial_calls(), calls.n_completed())
}

fn ended(events: &[DetectEvent]) -> Vec<(String, String, Value)> {
    events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::CallEnd { call, .. } => Some((
                call.id.clone(),
                call.name.clone(),
                Value::Object(call.arguments.clone()),
            )),
            _ => None,
        })
        .collect()
}

fn malformed(events: &[DetectEvent]) -> Vec<(DiagnosticKind, String)> {
    events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::Malformed { diagnostic } => {
                Some((diagnostic.kind, diagnostic.message.clone()))
            }
            _ => None,
        })
        .collect()
}

fn fragments(events: &[DetectEvent], of: usize) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::ArgsDelta { index, fragment } if *index == of => Some(fragment.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn interleaved_structured_calls_map_keys_to_indexes() {
    use Step::*;
    let (events, partial, n_completed) = run(
        1 << 20,
        &[
            Text("Hi "),
            Start(0, "call_a", "get_weather"),
            Start(1, "call_b", "ls"),
            Args(1, ""),
            Args(0, "{\"city\":"),
            Args(0, "\"Paris\"}"),
            End(1),
            End(0),
            Start(2, "call_c", "ls"),
            Args(2, "{\"a\":"),
            End(2),
            Start(3, "call_d", "ls"),
        ],
    );
    assert_eq!(
        ended(&events),
        [
            ("call_b".into(), "ls".into(), json!({})),
            (
                "call_a".into(),
                "get_weather".into(),
                json!({"city": "Paris"})
            ),
        ]
    );
    assert_eq!(n_completed, 2);
    let kinds: Vec<DiagnosticKind> = malformed(&events).into_iter().map(|m| m.0).collect();
    assert_eq!(kinds, [DiagnosticKind::Invalid, DiagnosticKind::Unfinished]);
    let starts: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::CallStart { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(starts, [0, 1, 2, 3]);
    // Blank arguments stream a `{}`.
    assert_eq!(fragments(&events, 1), "{}");
    let partial: Vec<(Option<String>, String)> = partial
        .into_iter()
        .map(|p| (p.id, p.raw_arguments))
        .collect();
    assert_eq!(
        partial,
        [
            (Some("call_c".into()), "{\"a\":".into()),
            (Some("call_d".into()), String::new())
        ]
    );
}

#[test]
fn structured_arguments_of_non_json_whitespace_are_invalid() {
    use Step::*;
    for blank in ["\u{b}", "\u{2028}", "\u{a0}"] {
        let (events, partial, n_completed) =
            run(1 << 20, &[Start(0, "call_1", "ls"), Args(0, blank), End(0)]);
        assert!(ended(&events).is_empty(), "{blank:?}");
        assert_eq!(n_completed, 0);
        let m = malformed(&events);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].0, DiagnosticKind::Invalid);
        assert!(
            m[0].1.starts_with("arguments are not a json object: "),
            "{}",
            m[0].1
        );
        assert_eq!(partial.len(), 1);
        assert_eq!(partial[0].raw_arguments, blank);
    }
    let (events, partial, _) = run(1 << 20, &[Start(1, "call_2", "ls"), Args(1, " \n"), End(1)]);
    assert_eq!(
        ended(&events).len(),
        1,
        "JSON whitespace means no arguments"
    );
    assert_eq!(fragments(&events, 0), " \n{}");
    assert!(partial.is_empty());
}

#[test]
fn over_limit_arguments_are_malformed_and_partial() {
    use Step::*;
    let (events, partial, n_completed) = run(
        8,
        &[
            Start(0, "call_1", "ls"),
            Args(0, "{\"a\":"),
            Args(0, "\"long\"}"),
            Args(0, " "),
            End(0),
        ],
    );
    assert!(ended(&events).is_empty());
    assert_eq!(n_completed, 0);
    assert_eq!(
        malformed(&events),
        [(
            DiagnosticKind::LimitExceeded,
            "structured arguments exceed 8 bytes".to_owned()
        )]
    );
    // Only what fitted streamed, and nothing after the fragment that did not.
    assert_eq!(fragments(&events, 0), "{\"a\":");
    assert_eq!(partial.len(), 1);
    assert_eq!(partial[0].raw_arguments, "{\"a\":");
}

#[test]
fn a_start_under_an_open_key_ends_the_open_call_first() {
    use Step::*;
    let (events, partial, n_completed) = run(
        1 << 20,
        &[
            Start(0, "call_1", "ls"),
            Args(0, "{}"),
            Start(0, "call_2", "ls"),
            End(0),
            End(0),
        ],
    );
    let ids: Vec<String> = ended(&events).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, ["call_1", "call_2"]);
    assert_eq!(n_completed, 2);
    assert!(partial.is_empty());
}

/// Gemini signs the first of parallel calls (`thoughtSignature` beside its
/// `functionCall`): the signature goes out just before that call's `CallStart`,
/// with its index; the unsigned call gets none.
#[test]
fn a_call_signature_comes_just_before_the_start_of_its_call() {
    let mut session = crate::router::RouteSession::new(
        toolrouter_providers::Wire::Gemini,
        Arc::new(crate::core::ToolCatalog::new()),
        DetectConfig::default(),
    );
    let bytes = concat!(
        r#"data: {"candidates": [{"content": {"parts": [{"text": "On it."}, "#,
        r#"{"functionCall": {"name": "a", "args": {}}, "thoughtSignature": "SIG"}, "#,
        r#"{"functionCall": {"name": "b", "args": {"x": 1}}}], "role": "model"}}]}"#,
        "\n\n",
        r#"data: {"candidates": [{"content": {"parts": [{"text": ""}]}, "finishReason": "STOP"}]}"#,
        "\n\n"
    );
    let mut out = Vec::new();
    session.feed(bytes.as_bytes(), &mut out);
    session.finish(&mut out);
    let steps: Vec<String> = out
        .iter()
        .filter_map(|e| match e {
            RouteEvent::CallSignature { index, signature } => {
                Some(format!("signature {index} {signature}"))
            }
            RouteEvent::Detect(DetectEvent::CallStart { index, name, .. }) => {
                Some(format!("start {index} {name}"))
            }
            RouteEvent::Detect(DetectEvent::CallEnd { index, .. }) => Some(format!("end {index}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        steps,
        [
            "signature 0 SIG",
            "start 0 a",
            "end 0",
            "start 1 b",
            "end 1"
        ]
    );
}
