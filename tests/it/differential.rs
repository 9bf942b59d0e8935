//! The router against the providers-only path: every recorded stream (the shared
//! fixtures and `tests/data/chat/`) goes through `RouteSession` and through
//! `TurnSummary::from_bytes` (`TurnCollector`), and both must agree on the
//! structured calls (id where the provider gave one, name, arguments), the
//! partial calls, the stop and the error. Text-call detection is off for the
//! comparison where a stream has calls written in its text; where it has none,
//! the router is compared under default detection too. Hand-written streams pin
//! the two bugs of the time when each path assembled calls its own way.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};
use toolrouter::DetectConfig;
use toolrouter::providers::{
    ArgumentsRule, PartialCall, StopReason, TurnCollector, TurnSummary, Wire, find_profile,
};
use toolrouter::{
    DetectEvent, DiagnosticKind, Dialect, RouteEvent, RouteSession, ToolCatalog, TurnOutcome,
    WireFormat,
};

use crate::support::{repo_root, streams_dir};

/// Every stream beside an expectation in the shared fixtures, and every
/// recorded stream of `tests/data/chat/`.
fn streams() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let fixtures = streams_dir();
    for entry in std::fs::read_dir(&fixtures).expect("fixtures folder") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(stream) = name.strip_suffix(".expect.json") {
            out.push(fixtures.join(stream));
        }
    }
    let chat = repo_root().join("tests").join("data").join("chat");
    for entry in std::fs::read_dir(&chat).expect("chat data folder") {
        let path = entry.expect("entry").path();
        if path
            .extension()
            .is_some_and(|e| e == "sse" || e == "ndjson")
        {
            out.push(path);
        }
    }
    out.sort();
    assert!(
        out.len() >= 70,
        "expected the recorded streams, found {}",
        out.len()
    );
    out
}

fn wire_of(stream: &Path) -> Wire {
    let name = stream.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let prefix = name.split('.').next().unwrap_or("");
    find_profile(prefix)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .wire
}

/// What both paths report about a turn's structured calls.
#[derive(Debug)]
struct Turn {
    /// (id the provider gave, or `None`; name; arguments).
    calls: Vec<(Option<String>, String, Value)>,
    partial_calls: Vec<PartialCall>,
    stop: StopReason,
    error: Option<String>,
}

/// The router's turn, fed in `chunk`-byte pieces, and whether it found calls
/// written in the text.
fn routed(wire: Wire, bytes: &[u8], detect: DetectConfig, chunk: usize) -> (Turn, bool) {
    let mut session = RouteSession::new(wire, Arc::new(ToolCatalog::new()), detect);
    let mut events = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        session.feed(piece, &mut events);
    }
    session.finish(&mut events);
    let structured = Dialect::format_for_wire(wire);
    let text_calls = events.iter().any(|e| match e {
        RouteEvent::Detect(DetectEvent::CallStart { format, .. }) => *format != structured,
        RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => {
            diagnostic.format != structured
        }
        _ => false,
    });
    (
        routed_turn(TurnOutcome::from_events(wire, &events)),
        text_calls,
    )
}

/// The router's turn, from its collected events.
fn routed_turn(outcome: TurnOutcome) -> Turn {
    let calls = outcome
        .calls
        .iter()
        .map(|c| {
            (
                Some(c.call.id.clone()),
                c.call.name.clone(),
                Value::Object(c.call.arguments.clone()),
            )
        })
        .collect();
    Turn {
        calls,
        partial_calls: outcome.partial_calls,
        stop: outcome.stop,
        error: outcome.error,
    }
}

/// The providers-only turn.
fn collected(summary: TurnSummary) -> Turn {
    Turn {
        calls: summary
            .calls
            .into_iter()
            .map(|c| (c.id, c.name, Value::Object(c.arguments)))
            .collect(),
        partial_calls: summary.partial_calls,
        stop: summary.stop,
        error: summary.error.map(|e| e.message),
    }
}

fn no_text_calls() -> DetectConfig {
    let mut config = DetectConfig::default();
    config.formats.clear();
    config
}

/// Where the two turns differ; ids only where the provider gave one (the router
/// makes one up otherwise, and must).
fn differences(router: &Turn, providers: &Turn) -> Vec<String> {
    let mut out = Vec::new();
    if router.calls.len() != providers.calls.len() {
        out.push(format!(
            "calls: router {:?}, providers {:?}",
            router.calls, providers.calls
        ));
    } else {
        for (r, p) in router.calls.iter().zip(&providers.calls) {
            let id_agrees = match &p.0 {
                Some(id) if !id.is_empty() => r.0.as_ref() == Some(id),
                _ => r.0.as_ref().is_some_and(|id| !id.is_empty()),
            };
            if !id_agrees || r.1 != p.1 || r.2 != p.2 {
                out.push(format!("call: router {r:?}, providers {p:?}"));
            }
        }
    }
    if router.partial_calls != providers.partial_calls {
        out.push(format!(
            "partial_calls: router {:?}, providers {:?}",
            router.partial_calls, providers.partial_calls
        ));
    }
    if router.stop != providers.stop {
        out.push(format!(
            "stop: router {}, providers {}",
            router.stop, providers.stop
        ));
    }
    if router.error != providers.error {
        out.push(format!(
            "error: router {:?}, providers {:?}",
            router.error, providers.error
        ));
    }
    out
}

#[test]
fn the_router_and_the_providers_path_agree_on_every_recorded_stream() {
    let mut failures = Vec::new();
    let mut n_default = 0;
    for stream in streams() {
        let wire = wire_of(&stream);
        let bytes = std::fs::read(&stream).expect("read stream");
        let summary = TurnSummary::from_bytes(&mut *wire.adapter(), &bytes)
            .unwrap_or_else(|e| panic!("{}: {e}", stream.display()));
        let providers = collected(summary);
        for chunk in [usize::MAX, 1] {
            let (router, _) = routed(wire, &bytes, no_text_calls(), chunk);
            for d in differences(&router, &providers) {
                failures.push(format!(
                    "{} (no text calls, chunk {chunk}): {d}",
                    stream.display()
                ));
            }
        }
        let (router, text_calls) = routed(wire, &bytes, DetectConfig::default(), usize::MAX);
        if !text_calls {
            n_default += 1;
            for d in differences(&router, &providers) {
                failures.push(format!("{} (default detection): {d}", stream.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        n_default > 0,
        "no stream was compared under default detection"
    );
}

/// An OpenAI Chat stream with one structured call whose arguments string is
/// `arguments`, ending with a natural stop.
fn openai_call_stream(arguments: &str) -> Vec<u8> {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":delta,"finish_reason":finish}]})
        )
    };
    let mut s = chunk(json!({"role":"assistant","content":"Here."}), Value::Null);
    s += &chunk(
        json!({"tool_calls":[{"index":0,"id":"call_X","type":"function","function":{"name":"ls","arguments":arguments}}]}),
        Value::Null,
    );
    s += &chunk(json!({}), json!("stop"));
    s += "data: [DONE]\n\n";
    s.into_bytes()
}

/// Both paths under a bound of `max` bytes; the router's events too.
fn both(bytes: &[u8], max: usize) -> (Turn, Turn, Vec<RouteEvent>) {
    let mut session = RouteSession::new(
        Wire::OpenAiChat,
        Arc::new(ToolCatalog::new()),
        DetectConfig::default().with_max_call_bytes(max),
    );
    let mut events = Vec::new();
    session.feed(bytes, &mut events);
    session.finish(&mut events);
    let router = routed_turn(TurnOutcome::from_events(Wire::OpenAiChat, &events));
    let mut adapter = Wire::OpenAiChat.adapter();
    let mut deltas = Vec::new();
    adapter.feed(bytes, &mut deltas).expect("feed");
    adapter.finish(&mut deltas).expect("finish");
    let mut collector = TurnCollector::with_rule(ArgumentsRule::with_max_bytes(max));
    collector.extend(&deltas);
    (router, collected(collector.finish()), events)
}

fn malformed_kinds(events: &[RouteEvent]) -> Vec<(DiagnosticKind, WireFormat)> {
    events
        .iter()
        .filter_map(|e| match e {
            RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => {
                Some((diagnostic.kind, diagnostic.format))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn over_limit_structured_arguments_are_partial_in_both_paths() {
    let bytes = openai_call_stream(r#"{"path":"a long enough path"}"#);
    let (router, providers, events) = both(&bytes, 16);
    assert_eq!(differences(&router, &providers), Vec::<String>::new());
    assert!(router.calls.is_empty());
    assert_eq!(router.partial_calls.len(), 1);
    assert_eq!(router.partial_calls[0].id.as_deref(), Some("call_X"));
    assert_eq!(router.stop, StopReason::EndTurn, "not tool_use");
    assert_eq!(
        malformed_kinds(&events),
        [(DiagnosticKind::LimitExceeded, WireFormat::OpenAiChat)]
    );
}

#[test]
fn u2028_only_structured_arguments_are_partial_in_both_paths() {
    let bytes = openai_call_stream("\u{2028}");
    let (router, providers, events) = both(&bytes, 1 << 20);
    assert_eq!(differences(&router, &providers), Vec::<String>::new());
    assert!(router.calls.is_empty());
    assert_eq!(router.partial_calls.len(), 1);
    assert_eq!(router.partial_calls[0].raw_arguments, "\u{2028}");
    assert_eq!(router.stop, StopReason::EndTurn, "not tool_use");
    assert_eq!(
        malformed_kinds(&events),
        [(DiagnosticKind::Invalid, WireFormat::OpenAiChat)]
    );
    // JSON whitespace alone is `{}` in both.
    let (router, providers, _) = both(&openai_call_stream(" \r\n\t"), 1 << 20);
    assert_eq!(differences(&router, &providers), Vec::<String>::new());
    assert_eq!(router.calls.len(), 1);
    assert_eq!(router.stop, StopReason::ToolUse);
}
