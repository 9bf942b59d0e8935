//! Unit tests of the detector: one `check` helper, hand-written expectations,
//! and property tests (split-invariance, conservation).

mod batch;
mod contract;
mod dialects;
mod formats;
mod props;
mod reasoning;
mod regress;
mod table;
mod values;

use std::sync::Arc;

use serde_json::{Value, json};

use crate::core::{DetectEvent, DiagnosticKind, JsonObject, ToolCatalog, WireFormat};

use super::{DetectConfig, EventBatch, StreamDetector};

/// The test tools.
pub(super) fn catalog() -> Arc<ToolCatalog> {
    let schemas: Vec<(&str, Value)> = vec![
        (
            "read_file",
            json!({"type":"object","properties":{"path":{"type":"string"}}}),
        ),
        (
            "write_to_file",
            json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"line_count":{"type":"integer"}}}),
        ),
        (
            "get_weather",
            json!({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}),
        ),
        (
            "search",
            json!({"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"ratio":{"type":"number"},"exact":{"type":"boolean"},"tags":{"type":"array"},"opts":{"type":"object"}}}),
        ),
        ("ls", json!({"type":"object"})),
        (
            "configure",
            json!({"type":"object","properties":{
                "verbose":{"type":"boolean"},
                "level":{"type":["integer","null"]},
                "label":{"type":["string","null"]},
                "mode":{"anyOf":[{"type":"string"},{"type":"null"}]},
                "limit":{"anyOf":[{"type":"integer"},{"type":"null"}]}
            }}),
        ),
    ];
    let objects: Vec<(&str, JsonObject)> = schemas
        .into_iter()
        .map(|(n, v)| (n, v.as_object().cloned().unwrap()))
        .collect();
    Arc::new(ToolCatalog::from_schemas(
        objects.iter().map(|(n, o)| (*n, o)),
    ))
}

/// What a stream amounted to.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Outcome {
    /// Concatenated visible text.
    pub(super) text: String,
    /// Concatenated reasoning text.
    pub(super) reasoning: String,
    /// Finished calls: (name, arguments, format); ids left out (some are generated).
    pub(super) calls: Vec<(String, Value, WireFormat)>,
    /// Concatenated argument deltas per started call, in start order.
    pub(super) deltas: Vec<String>,
    /// Diagnostic kinds, in order.
    pub(super) malformed: Vec<DiagnosticKind>,
    /// Call ids as reported at the end (for formats that carry ids).
    pub(super) ids: Vec<String>,
}

/// Folds events into an outcome, checking the event-order invariants on the way.
pub(super) fn outcome(events: &[DetectEvent]) -> Outcome {
    let mut out = Outcome {
        text: String::new(),
        reasoning: String::new(),
        calls: Vec::new(),
        deltas: Vec::new(),
        malformed: Vec::new(),
        ids: Vec::new(),
    };
    // (index, id, name) of every call started.
    let mut started: Vec<(usize, String, String)> = Vec::new();
    for event in events {
        match event {
            DetectEvent::Text { text } => out.text.push_str(text),
            DetectEvent::CallStart {
                index, id, name, ..
            } => {
                assert!(
                    started.iter().all(|(i, ..)| i != index),
                    "index {index} started twice"
                );
                started.push((*index, id.clone(), name.clone()));
                out.deltas.push(String::new());
            }
            DetectEvent::ArgsDelta { index, fragment } => {
                let pos = started
                    .iter()
                    .position(|(i, ..)| i == index)
                    .expect("delta after start");
                out.deltas[pos].push_str(fragment);
            }
            DetectEvent::CallEnd { index, call } => {
                let pos = started
                    .iter()
                    .position(|(i, ..)| i == index)
                    .expect("end after start");
                assert_eq!(started[pos].1, call.id, "start and end ids differ");
                assert_eq!(started[pos].2, call.name, "start and end names differ");
                let parsed: Value =
                    serde_json::from_str(&out.deltas[pos]).expect("deltas are json");
                assert_eq!(
                    parsed,
                    Value::Object(call.arguments.clone()),
                    "deltas == arguments"
                );
                out.calls.push((
                    call.name.clone(),
                    Value::Object(call.arguments.clone()),
                    call.format,
                ));
                out.ids.push(call.id.clone());
            }
            DetectEvent::Malformed { diagnostic } => {
                out.malformed.push(diagnostic.kind);
            }
            DetectEvent::Reasoning { text } => out.reasoning.push_str(text),
        }
    }
    out
}

/// Runs `pieces` through a fresh detector.
pub(super) fn run_pieces(
    pieces: &[&str],
    config: DetectConfig,
) -> (Outcome, Vec<std::ops::Range<usize>>) {
    let mut detector = StreamDetector::new(catalog(), config.clone().with_regions());
    let mut events = Vec::new();
    for p in pieces {
        detector.feed(p, &mut events);
    }
    detector.finish(&mut events);
    let owned = without_call_ids(events.clone());
    for (how, what) in [
        (
            BatchUse::Cleared,
            "an EventBatch read and cleared after every delta",
        ),
        (BatchUse::Kept, "an EventBatch never cleared"),
        (BatchUse::Fresh, "a new EventBatch per delta"),
    ] {
        assert_eq!(
            batch_events(pieces, config.clone(), how),
            owned,
            "{what} received other events than a Vec"
        );
    }
    (outcome(&events), detector.call_regions().to_vec())
}

/// How a test consumer uses its [`EventBatch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BatchUse {
    /// One batch, read (`iter`) and cleared after every delta, as a streaming
    /// consumer would.
    Cleared,
    /// One batch, never cleared, read at the end.
    Kept,
    /// A new batch for every delta, emptied with `drain_into`.
    Fresh,
}

/// Runs `pieces` through a fresh detector into batches used as `how` says:
/// the events they held, owned, with generated call ids blanked.
pub(super) fn batch_events(
    pieces: &[&str],
    config: DetectConfig,
    how: BatchUse,
) -> Vec<DetectEvent> {
    let mut detector = StreamDetector::new(catalog(), config);
    let mut batch = EventBatch::new();
    let mut events = Vec::new();
    for p in pieces.iter().map(Some).chain([None]) {
        if how == BatchUse::Fresh {
            batch = EventBatch::new();
        }
        match p {
            Some(p) => detector.feed(p, &mut batch),
            None => detector.finish(&mut batch),
        }
        match how {
            BatchUse::Cleared => {
                events.extend(batch.iter().map(|e| e.to_event()));
                batch.clear();
            }
            BatchUse::Kept => {}
            BatchUse::Fresh => batch.drain_into(&mut events),
        }
    }
    if how == BatchUse::Kept {
        events.extend(batch.iter().map(|e| e.to_event()));
    }
    without_call_ids(events)
}

/// `events` with every generated call id (`call_…`) blanked, so that two
/// runs can be compared.
pub(super) fn without_call_ids(mut events: Vec<DetectEvent>) -> Vec<DetectEvent> {
    for event in &mut events {
        match event {
            DetectEvent::CallStart { id, .. } if id.starts_with("call_") => id.clear(),
            DetectEvent::CallEnd { call, .. } if call.id.starts_with("call_") => call.id.clear(),
            _ => {}
        }
    }
    events
}

/// Splits `input` into one-character pieces.
pub(super) fn chars(input: &str) -> Vec<&str> {
    input
        .char_indices()
        .map(|(i, c)| &input[i..i + c.len_utf8()])
        .collect()
}

/// Checks conservation: the text is the input with the regions removed.
pub(super) fn conserved(input: &str, text: &str, regions: &[std::ops::Range<usize>]) {
    let mut rest = String::new();
    let mut pos = 0;
    for r in regions {
        assert!(
            r.start >= pos && r.end <= input.len(),
            "regions ordered and in bounds: {regions:?}"
        );
        rest.push_str(&input[pos..r.start]);
        pos = r.end;
    }
    rest.push_str(&input[pos..]);
    assert_eq!(rest, text, "text == input minus call regions");
}

/// Checks that every split gives these concatenated argument deltas, per call.
pub(super) fn check_deltas(input: &str, deltas: &[&str]) {
    let want: Vec<String> = deltas.iter().map(|d| (*d).to_owned()).collect();
    assert_eq!(
        run_pieces(&[input], DetectConfig::default()).0.deltas,
        want,
        "whole"
    );
    assert_eq!(
        run_pieces(&chars(input), DetectConfig::default()).0.deltas,
        want,
        "by char"
    );
}

/// An expected outcome where every call's deltas are its compact arguments.
pub(super) fn expect(
    text: &str,
    calls: &[(&str, Value, WireFormat)],
    malformed: &[DiagnosticKind],
) -> Outcome {
    Outcome {
        text: text.to_owned(),
        reasoning: String::new(),
        calls: calls
            .iter()
            .map(|(n, a, f)| ((*n).to_owned(), a.clone(), *f))
            .collect(),
        deltas: Vec::new(),
        malformed: malformed.to_vec(),
        ids: Vec::new(),
    }
}

/// Compares ignoring deltas and ids (checked separately where they matter).
pub(super) fn check_calls(input: &str, want: Outcome) {
    check_calls_with(input, DetectConfig::default(), want)
}

pub(super) fn check_calls_with(input: &str, config: DetectConfig, want: Outcome) {
    let (whole, _) = run_pieces(&[input], config.clone());
    let expected = Outcome {
        deltas: whole.deltas.clone(),
        ids: whole.ids.clone(),
        ..want
    };
    // Deltas and generated ids are compared across splits, not by hand.
    let mut stable = expected.clone();
    stable.ids.clear();
    let strip = |mut o: Outcome| {
        o.ids.clear();
        o
    };
    assert_eq!(strip(whole.clone()), stable, "whole input");
    let (single, regions) = run_pieces(&chars(input), config.clone());
    assert_eq!(strip(single.clone()), stable, "one character per delta");
    conserved(input, &single.text, &regions);
    let (_, regions) = run_pieces(&[input], config.clone());
    conserved(input, &whole.text, &regions);
    for cut in 1..input.len() {
        if input.is_char_boundary(cut) {
            let (two, _) = run_pieces(&[&input[..cut], &input[cut..]], config.clone());
            assert_eq!(strip(two), stable, "cut at {cut}");
        }
    }
}

/// Cuts `input` at `cuts` (positions past the end or inside a character are dropped).
pub(super) fn split_at(input: &str, mut cuts: Vec<usize>) -> Vec<&str> {
    cuts.retain(|&c| c <= input.len() && input.is_char_boundary(c));
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces = Vec::new();
    let mut pos = 0;
    for c in cuts {
        pieces.push(&input[pos..c]);
        pos = c;
    }
    pieces.push(&input[pos..]);
    pieces
}

/// The outcome without call ids (generated ids differ between runs).
pub(super) fn without_ids(mut o: Outcome) -> Outcome {
    o.ids.clear();
    o
}

/// The property of every split test: `input` whole, cut at `cuts` and one
/// character per delta under `config` give the same outcome, and the text plus
/// the call regions reproduce the input.
pub(super) fn agree_under_splits(
    input: &str,
    cuts: Vec<usize>,
    config: DetectConfig,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let (whole, regions) = run_pieces(&[input], config.clone());
    conserved(input, &whole.text, &regions);
    let (split, regions) = run_pieces(&split_at(input, cuts), config.clone());
    conserved(input, &split.text, &regions);
    proptest::prop_assert_eq!(without_ids(split), without_ids(whole.clone()));
    let (single, regions) = run_pieces(&chars(input), config);
    conserved(input, &single.text, &regions);
    proptest::prop_assert_eq!(without_ids(single), without_ids(whole));
    Ok(())
}
