//! Shared check of the detector fuzz targets: the input, cut into deltas at
//! positions chosen by the fuzzer, must give the same outcome as one piece, and
//! text plus call regions must reproduce the input.

use std::ops::Range;
use std::sync::Arc;

use serde_json::{Value, json};
use toolrouter::{DetectConfig, EventBatch, StreamDetector};
use toolrouter::{DetectEvent, JsonObject, ToolCatalog, WireFormat};

fn catalog() -> Arc<ToolCatalog> {
    let tools = [
        (
            "read_file",
            json!({"properties": {"path": {"type": "string"}}}),
        ),
        ("ls", json!({})),
        // The tools the dialect vectors (tests/data/dialects) call.
        (
            "get_weather",
            json!({"properties": {"city": {"type": "string"}, "unit": {"type": "string"}, "days": {"type": "integer"}}}),
        ),
        (
            "get_time",
            json!({"properties": {"timezone": {"type": "string"}}}),
        ),
        (
            "search",
            json!({"properties": {"q": {"type": "string"}, "n": {"type": "integer"}, "o": {"type": "object"}}}),
        ),
    ];
    let schemas: Vec<(&str, JsonObject)> = tools
        .into_iter()
        .map(|(n, v)| (n, v.as_object().cloned().unwrap_or_default()))
        .collect();
    Arc::new(ToolCatalog::from_schemas(
        schemas.iter().map(|(n, s)| (*n, s)),
    ))
}

/// Text, calls (name, arguments, format), per-call concatenated deltas, diagnostic
/// kinds, reasoning.
type Outcome = (
    String,
    Vec<(String, Value, WireFormat)>,
    Vec<String>,
    Vec<String>,
    String,
);

fn run(pieces: &[&str], config: &DetectConfig) -> (Outcome, Vec<Range<usize>>) {
    let mut detector = StreamDetector::new(catalog(), config.clone());
    let mut events = Vec::new();
    for p in pieces {
        detector.feed(p, &mut events);
    }
    detector.finish(&mut events);
    let mut text = String::new();
    let mut calls = Vec::new();
    // (index, concatenated deltas, name at the start) of every call started.
    let mut deltas: Vec<(usize, String, String)> = Vec::new();
    let mut malformed = Vec::new();
    let mut reasoning = String::new();
    for e in events {
        match e {
            DetectEvent::Text { text: t } => text.push_str(&t),
            DetectEvent::CallStart { index, name, .. } => deltas.push((index, String::new(), name)),
            DetectEvent::ArgsDelta { index, fragment } => {
                let slot = deltas
                    .iter_mut()
                    .find(|(i, ..)| *i == index)
                    .expect("delta after start");
                slot.1.push_str(&fragment);
            }
            DetectEvent::CallEnd { index, call } => {
                let slot = deltas
                    .iter()
                    .find(|(i, ..)| *i == index)
                    .expect("end after start");
                assert_eq!(slot.2, call.name, "start and end names");
                let parsed: Value = serde_json::from_str(&slot.1).expect("deltas are json");
                assert_eq!(
                    parsed,
                    Value::Object(call.arguments.clone()),
                    "deltas == arguments"
                );
                calls.push((call.name, Value::Object(call.arguments), call.format));
            }
            DetectEvent::Malformed { diagnostic } => {
                malformed.push(format!("{:?}", diagnostic.kind))
            }
            DetectEvent::Reasoning { text: t } => reasoning.push_str(&t),
            _ => {}
        }
    }
    let deltas = deltas.into_iter().map(|(_, d, _)| d).collect();
    (
        (text, calls, deltas, malformed, reasoning),
        detector.call_regions().to_vec(),
    )
}

fn conserved(input: &str, text: &str, regions: &[Range<usize>]) {
    let mut rest = String::new();
    let mut pos = 0;
    for r in regions {
        assert!(r.start >= pos && r.end <= input.len(), "regions ordered");
        rest.push_str(&input[pos..r.start]);
        pos = r.end;
    }
    rest.push_str(&input[pos..]);
    assert_eq!(rest, text, "conservation");
}

/// The fuzz check. The first byte seeds the cut positions; the rest is the text.
pub fn check(format: Option<WireFormat>, data: &[u8]) {
    let config = match format {
        Some(f) => DetectConfig::only(f),
        None => DetectConfig::default(),
    };
    check_config(config, data);
}

/// The fuzz check over every dialect, the ones off by default included; bits 5
/// and 6 of the first byte turn on `start_in_reasoning` and `reasoning_anywhere`.
pub fn check_dialects(data: &[u8]) {
    let Some(&seed) = data.first() else { return };
    let mut config = DetectConfig::default().with_formats(toolrouter::text_formats());
    config.start_in_reasoning = seed & 0x20 != 0;
    config.reasoning_anywhere = seed & 0x40 != 0;
    check_config(config, data);
}

/// The check under `config`. The first byte seeds the cut positions; the rest is the text.
pub fn check_config(config: DetectConfig, data: &[u8]) {
    let Some((&seed, rest)) = data.split_first() else {
        return;
    };
    let input = String::from_utf8_lossy(rest);
    let config = config.with_regions();
    let (whole, regions) = run(&[&input], &config);
    conserved(&input, &whole.0, &regions);
    // Cuts every `step` bytes (moved to char boundaries), step from the seed.
    let step = usize::from(seed % 17) + 1;
    let mut pieces = Vec::new();
    let mut pos = 0;
    while pos < input.len() {
        let mut end = (pos + step).min(input.len());
        while !input.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&input[pos..end]);
        pos = end;
    }
    let (split, regions) = run(&pieces, &config);
    conserved(&input, &split.0, &regions);
    assert_eq!(split, whole, "split-invariance (step {step})");
    batch_agrees(&pieces, &config);
}

/// An `EventBatch`, read and cleared after every delta, receives exactly the
/// events a `Vec<DetectEvent>` does (generated call ids aside).
fn batch_agrees(pieces: &[&str], config: &DetectConfig) {
    let blank_ids = |events: &mut Vec<DetectEvent>| {
        for event in events {
            match event {
                DetectEvent::CallStart { id, .. } if id.starts_with("call_") => id.clear(),
                DetectEvent::CallEnd { call, .. } if call.id.starts_with("call_") => {
                    call.id.clear()
                }
                _ => {}
            }
        }
    };
    let mut detector = StreamDetector::new(catalog(), config.clone());
    let mut owned = Vec::new();
    for p in pieces {
        detector.feed(p, &mut owned);
    }
    detector.finish(&mut owned);
    let mut detector = StreamDetector::new(catalog(), config.clone());
    let mut batch = EventBatch::new();
    let mut from_batch = Vec::new();
    for p in pieces.iter().map(Some).chain([None]) {
        match p {
            Some(p) => detector.feed(p, &mut batch),
            None => detector.finish(&mut batch),
        }
        from_batch.extend(batch.iter().map(|e| e.to_event()));
        batch.clear();
    }
    blank_ids(&mut owned);
    blank_ids(&mut from_batch);
    assert_eq!(
        from_batch, owned,
        "EventBatch and Vec<DetectEvent> receive the same events"
    );
}

/// The check of the proxy door fuzz targets.
pub mod doors;
