//! The router's typed entry: every recorded stream routed as bytes, as the
//! frames a client decodes (`RouteSession::feed_frame`, `Frame`), and as the
//! neutral deltas the wire's adapter makes of it (`feed_deltas`,
//! `Router::route_items`), gives the same turn: text, reasoning, calls (id,
//! name, arguments), stop, partial calls and errors.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};
use toolrouter::providers::{ProviderDelta, Wire, find_profile};
use toolrouter::{DetectConfig, Frame, Hub, RouteEvent, RouteSession, ToolCatalog, TurnOutcome};

use crate::support::{repo_root, streams_dir};

/// Every recording with the wire it was written in: the shared fixtures and
/// the proxy's text-call recordings (Hermes, XML, Qwen3-Coder, harmony,
/// Mistral in the text).
fn recordings() -> Vec<(PathBuf, Wire)> {
    let mut out = Vec::new();
    for dir in [streams_dir(), repo_root().join("tests/data/proxy")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_owned();
            if name.ends_with(".json") || name.ends_with(".md") {
                continue;
            }
            let provider = name.split('.').next().unwrap();
            out.push((path.clone(), find_profile(provider).unwrap().profile.wire));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 70, "{}", out.len());
    out
}

fn new_session(wire: Wire) -> RouteSession {
    let catalog = ToolCatalog::from_schemas(
        [
            ("get_weather", json!({"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}})),
            ("get_time", json!({"type": "object", "properties": {"timezone": {"type": "string"}}})),
        ]
        .iter()
        .map(|(name, schema)| (*name, schema.as_object().unwrap())),
    );
    RouteSession::new(wire, Arc::new(catalog), DetectConfig::default())
}

/// The turn's summary, with its events' order (what a client sees); the ids
/// the detector makes up for calls in the text, which differ per run, masked.
fn turn(wire: Wire, events: &[RouteEvent]) -> (String, Vec<String>) {
    let made_up = regex::Regex::new("call_[A-Za-z0-9]{24}").unwrap();
    let mask = |s: String| made_up.replace_all(&s, "call_*").into_owned();
    let outcome = TurnOutcome::from_events(wire, events);
    let order = events.iter().map(|e| mask(format!("{e:?}"))).collect();
    (mask(outcome.summary().to_string()), order)
}

fn by_bytes(path: &Path, wire: Wire) -> (String, Vec<String>) {
    let bytes = std::fs::read(path).unwrap();
    let mut session = new_session(wire);
    let mut events = Vec::new();
    session.feed(&bytes, &mut events);
    session.finish(&mut events);
    turn(wire, &events)
}

/// The frames of an SSE or NDJSON recording, as a client decodes them.
fn frames(text: &str, ndjson: bool) -> Vec<Frame> {
    if ndjson {
        return text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(Frame::data)
            .collect();
    }
    let text = text.replace("\r\n", "\n");
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let mut frame = Frame::default();
        let mut data = Vec::new();
        for line in block.lines() {
            if let Some(name) = line.strip_prefix("event:") {
                frame.event = name.trim().to_owned();
            } else if let Some(d) = line.strip_prefix("data:") {
                data.push(d.strip_prefix(' ').unwrap_or(d));
            }
        }
        if !data.is_empty() {
            frame.data = data.join("\n");
            out.push(frame);
        }
    }
    out
}

fn is_ndjson(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e == "ndjson" || e == "jsonl")
}

#[test]
fn frames_and_deltas_route_as_the_bytes_do() {
    let mut checked = (0, 0);
    for (path, wire) in recordings() {
        let expected = by_bytes(&path, wire);
        let bytes = std::fs::read(&path).unwrap();

        // The wire's own deltas, a batch per frame, fed as a typed client
        // feeds the deltas of each of its items.
        let mut adapter = wire.adapter();
        let mut batches: Vec<Vec<ProviderDelta>> = match std::str::from_utf8(&bytes) {
            Ok(text) => frames(text, is_ndjson(&path))
                .iter()
                .map(|frame| {
                    let mut batch = Vec::new();
                    adapter.feed_frame(&frame.event, frame.data.as_bytes(), &mut batch);
                    batch
                })
                .collect(),
            Err(_) => vec![adapter.feed_vec(&bytes).unwrap_or_default()],
        };
        batches.push(adapter.finish_vec().unwrap_or_default());
        let mut session = new_session(wire);
        let mut events = Vec::new();
        for batch in batches {
            session.feed_deltas(batch, &mut events);
        }
        session.finish(&mut events);
        assert_eq!(
            turn(wire, &events),
            expected,
            "deltas of {}",
            path.display()
        );
        checked.0 += 1;

        // The frames, where the recording is text (a binary event stream is
        // decoded by the client's SDK into events, not text frames).
        let Ok(text) = std::str::from_utf8(&bytes) else {
            continue;
        };
        let ndjson = path
            .extension()
            .is_some_and(|e| e == "ndjson" || e == "jsonl");
        let mut session = new_session(wire);
        let mut events = Vec::new();
        for frame in frames(text, ndjson) {
            session.feed_frame(&frame.event, frame.data.as_bytes(), &mut events);
        }
        session.finish(&mut events);
        assert_eq!(
            turn(wire, &events),
            expected,
            "frames of {}",
            path.display()
        );
        checked.1 += 1;
    }
    assert!(checked.0 >= 70 && checked.1 >= 65, "{checked:?}");
}

#[test]
fn a_typed_stream_cut_before_its_finish_is_cut_as_bytes_are() {
    let wire = Wire::OpenAiChat;
    let mut session = new_session(wire);
    let mut events = Vec::new();
    session.feed_deltas(
        [ProviderDelta::Text("<get_weather>\n<city>Par".into())],
        &mut events,
    );
    session.finish(&mut events);
    let summary = TurnOutcome::from_events(wire, &events).summary();
    assert_eq!(summary["stop"], "error", "{summary}");
    assert_eq!(
        summary["error"]["message"], "stream ended before a finish reason",
        "{summary}"
    );
    // The call cut off is partial, never finished.
    assert_eq!(summary["calls"], json!([]), "{summary}");
    assert_eq!(
        summary["partial_calls"][0]["name"], "get_weather",
        "{summary}"
    );
}

#[tokio::test]
async fn route_items_drives_frames_as_route_drives_bytes() {
    let path = repo_root().join("tests/data/proxy/openai-compat.hermes-text.sse");
    let text = std::fs::read_to_string(&path).unwrap();
    let hub = Hub::new();
    let schema = Arc::new(json!({"type": "object"}).as_object().unwrap().clone());
    hub.registry()
        .register_fn(Tool::new("get_weather", "weather", schema), |_, _| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("sunny")]))
        })
        .unwrap();
    let router = hub.router();
    let items = futures::stream::iter(
        frames(&text, false)
            .into_iter()
            .map(Ok::<_, std::convert::Infallible>),
    );
    let outcome = router.route_items_to_end(Wire::OpenAiChat, items).await;
    let bytes = futures::stream::iter([Ok::<_, std::convert::Infallible>(text.into_bytes())]);
    let expected = router.route_to_end(Wire::OpenAiChat, bytes).await;
    let made_up = regex::Regex::new("call_[A-Za-z0-9]{24}").unwrap();
    let mask = |v: Value| made_up.replace_all(&v.to_string(), "call_*").into_owned();
    assert_eq!(mask(outcome.summary()), mask(expected.summary()));
    // The call was found in the text, and run.
    assert_eq!(outcome.tool_calls().len(), 1, "{}", outcome.summary());
    assert_eq!(
        outcome.summary()["results"][0]["content"][0]["text"],
        "sunny",
        "{}",
        outcome.summary()
    );
}
