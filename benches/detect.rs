//! Streaming detection benchmarks: one call per core format with 1 KB, 16 KB and
//! 256 KB of file content as arguments, fed in 1-, 4- and 64-byte deltas (and
//! 4 KB chunks), 1 MB of prose with 50 calls, every open-model dialect's 16 KB
//! call (`dialects/<name>/16K`), the fixed cost of a stream and of one small call
//! (`per_stream/`), and `serde_json::from_str` of the same arguments
//! as the baseline. The workloads are in `workloads/` (shared with
//! `bench-compare/`). Filter with e.g. `cargo bench --bench detect -- hermes/16K`.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolrouter::{
    DetectConfig, EventBatch, EventOutput, EventRef, StreamDetector, parse_arguments,
};
use toolrouter::{DetectEvent, JsonObject, ToolCatalog, WireFormat};

mod workloads;

use workloads::{DIALECTS, Dialect, content, deltas, expected_args};

fn catalog() -> Arc<ToolCatalog> {
    let schema = json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}});
    let schema: JsonObject = schema.as_object().cloned().expect("object");
    Arc::new(ToolCatalog::from_schemas([
        ("write_to_file", &schema),
        ("read_file", &schema),
    ]))
}

/// One stream through a fresh detector into `out`, which `read` reads and
/// clears after every delta, returning the calls it saw: the number of
/// finished calls.
fn run_into<O: EventOutput>(
    catalog: &Arc<ToolCatalog>,
    config: &DetectConfig,
    pieces: &[&str],
    mut out: O,
    read: impl Fn(&mut O) -> usize,
) -> usize {
    let mut detector = StreamDetector::new(catalog.clone(), config.clone());
    let mut calls = 0;
    for p in pieces {
        detector.feed(p, &mut out);
        calls += read(&mut out);
    }
    detector.finish(&mut out);
    calls + read(&mut out)
}

/// As a streaming consumer reads it: events in an [`EventBatch`].
fn run(catalog: &Arc<ToolCatalog>, config: &DetectConfig, pieces: &[&str]) -> usize {
    run_into(catalog, config, pieces, EventBatch::new(), |events| {
        let calls = events
            .iter()
            .filter(|e| matches!(e, EventRef::CallEnd { .. }))
            .count();
        events.clear();
        calls
    })
}

/// [`run`] with owned events: a `Vec<DetectEvent>`, one string per event.
fn run_owned(catalog: &Arc<ToolCatalog>, config: &DetectConfig, pieces: &[&str]) -> usize {
    run_into(catalog, config, pieces, Vec::new(), |events| {
        let calls = events
            .iter()
            .filter(|e| matches!(e, DetectEvent::CallEnd { .. }))
            .count();
        events.clear();
        calls
    })
}

/// Why the detector's output for `pieces` is not exactly one `write_to_file`
/// call with the expected arguments, if it is not.
fn check(
    catalog: &Arc<ToolCatalog>,
    config: &DetectConfig,
    pieces: &[&str],
    expected: &Value,
) -> Result<(), String> {
    let mut detector = StreamDetector::new(catalog.clone(), config.clone());
    let mut events = Vec::new();
    for p in pieces {
        detector.feed(p, &mut events);
    }
    detector.finish(&mut events);
    let calls: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            DetectEvent::CallEnd { call, .. } => Some(call),
            _ => None,
        })
        .collect();
    match calls.as_slice() {
        [call] if call.name == workloads::TOOL => {
            if Value::Object(call.arguments.clone()) == *expected {
                Ok(())
            } else {
                Err("the call's arguments differ from the expected ones".to_owned())
            }
        }
        [call] => Err(format!("one call, named {:?}", call.name)),
        other => Err(format!("{} calls instead of 1", other.len())),
    }
}

/// The configuration a dialect's stream is detected with: the defaults, plus
/// the dialect itself where it is off by default (Phi-4-mini).
fn config_for(dialect: &Dialect) -> Option<DetectConfig> {
    let format: WireFormat = dialect.format.parse().ok()?;
    Some(DetectConfig::default().with_formats([format]))
}

/// The six core text formats (the first entries of `DIALECTS`).
const FORMATS: &[&str] = &[
    "xml",
    "json_tool_use",
    "open_ai_function",
    "hermes",
    "qwen3_coder",
    "anthropic_invoke",
];

/// With `DETECT_BENCH_PIECES` set, prints each workload's number of deltas
/// (pieces are cut at character boundaries, so there can be fewer than
/// bytes / n): the ns-per-delta column of docs/performance.md divides by it.
fn report_pieces(id: &str, pieces: usize) {
    if std::env::var_os("DETECT_BENCH_PIECES").is_some() {
        eprintln!("pieces {id} {pieces}");
    }
}

fn per_format(c: &mut Criterion) {
    let catalog = catalog();
    let config = DetectConfig::default();
    for &(label, size) in workloads::SIZES {
        let body = content(size);
        let expected = expected_args(&body);
        let args_text = expected.to_string();
        let mut group = c.benchmark_group(format!("serde_json/{label}"));
        group.throughput(Throughput::Bytes(args_text.len() as u64));
        group.bench_function("from_str", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&args_text)).expect("json"))
        });
        // What open_ai_function's arguments take with serde_json alone: the
        // string that holds them decoded, then parsed (reference, not baseline).
        let args_string = Value::String(args_text.clone()).to_string();
        group.bench_function("string_then_object", |b| {
            b.iter(|| {
                let inner: String = serde_json::from_str(black_box(&args_string)).expect("json");
                serde_json::from_str::<Value>(&inner).expect("json")
            })
        });
        // The detector's own parse of finished arguments (same answer as
        // `from_str`, which stays the baseline).
        group.bench_function("parse_arguments", |b| {
            b.iter(|| parse_arguments(black_box(&args_text)).expect("json"))
        });
        group.finish();
        for format in FORMATS {
            let dialect = workloads::dialect(format).expect("core format has a workload");
            let text = (dialect.text)(&body);
            if let Err(why) = check(&catalog, &config, &[&text], &expected) {
                panic!("{format}/{label}: {why}");
            }
            let mut group = c.benchmark_group(format!("{format}/{label}"));
            group.throughput(Throughput::Bytes(text.len() as u64));
            for n in [1usize, 4, 64, 4096] {
                let pieces = deltas(&text, n);
                report_pieces(&format!("{format}/{label}/delta/{n}"), pieces.len());
                group.bench_with_input(BenchmarkId::new("delta", n), &pieces, |b, pieces| {
                    b.iter(|| run(&catalog, &config, black_box(pieces)))
                });
                if n == 4 {
                    group.bench_with_input(
                        BenchmarkId::new("owned_delta", n),
                        &pieces,
                        |b, pieces| b.iter(|| run_owned(&catalog, &config, black_box(pieces))),
                    );
                }
            }
            group.finish();
        }
    }
}

/// Every dialect that is not a core format: its 16 KB call in 4- and 64-byte
/// deltas. A dialect whose detector does not (yet) produce exactly
/// one call with the expected arguments is skipped with a note.
fn dialects(c: &mut Criterion) {
    let catalog = catalog();
    let implemented = toolrouter::text_formats();
    let body = content(16 * 1024);
    let expected = expected_args(&body);
    for dialect in DIALECTS.iter().filter(|d| !FORMATS.contains(&d.name)) {
        let Some(config) = config_for(dialect) else {
            eprintln!(
                "note: dialects/{}: unknown format name {:?}, skipped",
                dialect.name, dialect.format
            );
            continue;
        };
        let format = dialect.format.parse::<WireFormat>().ok();
        if !format.is_some_and(|f| implemented.contains(&f)) {
            eprintln!(
                "note: dialects/{}/16K skipped: no {} detector yet",
                dialect.name, dialect.format
            );
            continue;
        }
        let text = (dialect.text)(&body);
        let mut cases = Vec::new();
        for n in [4usize, 64] {
            let pieces = deltas(&text, n);
            report_pieces(
                &format!("dialects/{}/16K/delta/{n}", dialect.name),
                pieces.len(),
            );
            match check(&catalog, &config, &pieces, &expected) {
                Ok(()) => cases.push((n, pieces)),
                Err(why) => eprintln!(
                    "note: dialects/{}/16K/delta/{n} skipped: the {} detector gives {why}",
                    dialect.name, dialect.format
                ),
            }
        }
        if cases.is_empty() {
            continue;
        }
        let mut group = c.benchmark_group(format!("dialects/{}/16K", dialect.name));
        group.throughput(Throughput::Bytes(text.len() as u64));
        for (n, pieces) in &cases {
            group.bench_with_input(BenchmarkId::new("delta", n), pieces, |b, pieces| {
                b.iter(|| run(&catalog, &config, black_box(pieces)))
            });
        }
        group.finish();
    }
}

/// About 1 MB of markdown prose with 50 calls of mixed formats.
fn mixed_stream() -> (String, String) {
    let para = "The parser reads **streamed** text, one delta at a time; it keeps a cursor \
                so no byte is read twice. Some prose mentions <div> tags, a {brace}, or \
                `inline code`, none of which is a call.\n\n";
    let mut text = String::new();
    let mut args_all = String::from("[");
    let small = content(600);
    let mut i = 0;
    while text.len() < 1024 * 1024 {
        for _ in 0..6 {
            text.push_str(para);
        }
        if i < 50 {
            let format = FORMATS[i % FORMATS.len()];
            let dialect = workloads::dialect(format).expect("core format has a workload");
            text.push_str(&(dialect.text)(&small));
            text.push('\n');
            if i > 0 {
                args_all.push(',');
            }
            args_all.push_str(&expected_args(&small).to_string());
            i += 1;
        }
    }
    args_all.push(']');
    (text, args_all)
}

fn mixed(c: &mut Criterion) {
    let catalog = catalog();
    let config = DetectConfig::default();
    let (text, args_all) = mixed_stream();
    assert_eq!(run(&catalog, &config, &[&text]), 50, "50 calls");
    let mut group = c.benchmark_group("mixed/1M");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    for n in [4usize, 64, 4096] {
        let pieces = deltas(&text, n);
        report_pieces(&format!("mixed/1M/delta/{n}"), pieces.len());
        group.bench_with_input(BenchmarkId::new("delta", n), &pieces, |b, pieces| {
            b.iter(|| run(&catalog, &config, black_box(pieces)))
        });
    }
    group.bench_function("serde_json_args", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&args_all)).expect("json"))
    });
    group.finish();
}

/// The fixed costs a workload's time includes: a detector that sees nothing,
/// one that sees a line of text, and one small Hermes call whole (set-up,
/// probing, the call's allocations and events, the final parse), beside
/// `serde_json` parsing that call's arguments.
fn per_stream(c: &mut Criterion) {
    let catalog = catalog();
    let config = DetectConfig::default();
    let call = r#"<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>"#;
    let mut group = c.benchmark_group("per_stream");
    group.bench_function("empty", |b| {
        b.iter(|| run(&catalog, &config, black_box(&[])))
    });
    group.bench_function("text", |b| {
        b.iter(|| run(&catalog, &config, black_box(&["hello world"])))
    });
    group.bench_function("small_call", |b| {
        b.iter(|| run(&catalog, &config, black_box(&[call])))
    });
    group.bench_function("small_call_serde_json_args", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(r#"{"path":"a"}"#)).expect("json"))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = per_format, dialects, mixed, per_stream
}
criterion_main!(benches);
