//! Bytes/s through wire adapter + router (detection included, no execution) on
//! the recorded fixtures scaled up, against reading the same frames' JSON
//! payloads with `serde_json` alone, in the same run.

#![allow(clippy::unwrap_used, missing_docs)] // benches may unwrap; criterion macros make undocumented fns

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolrouter::DetectConfig;
use toolrouter::providers::{Wire, find_profile};
use toolrouter::{JsonObject, RouteSession, ToolCatalog};

/// Each wire's fixtures are repeated until the stream is at least this long.
const TARGET_BYTES: usize = 256 * 1024;
/// The network chunk size fed to the router.
const CHUNK: usize = 4096;

struct Corpus {
    wire: Wire,
    /// One response each: every one is routed as its own turn.
    turns: Vec<Vec<u8>>,
    payloads: Vec<Vec<u8>>,
    bytes: usize,
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/streams")
}

/// The JSON payloads of a text stream's frames (`data:` lines, NDJSON lines).
fn payloads(stream: &[u8]) -> Vec<Vec<u8>> {
    stream
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .map(|line| line.strip_prefix(b"data: ").unwrap_or(line))
        .filter(|json| json.first() == Some(&b'{'))
        .map(<[u8]>::to_vec)
        .collect()
}

fn corpora() -> Vec<(String, Corpus)> {
    let mut by_wire: BTreeMap<String, (Wire, Vec<Vec<u8>>)> = BTreeMap::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        // The binary event stream has no line framing to compare against.
        if name.ends_with(".expect.json") || name.ends_with(".md") || name.ends_with(".eventstream")
        {
            continue;
        }
        let prefix = name.split('.').next().unwrap().to_owned();
        let wire = find_profile(&prefix).unwrap().wire;
        let body = std::fs::read(fixtures().join(&name)).unwrap();
        by_wire
            .entry(wire.as_str().to_owned())
            .or_insert_with(|| (wire, Vec::new()))
            .1
            .push(body);
    }
    by_wire
        .into_iter()
        .map(|(label, (wire, bodies))| {
            let mut turns = Vec::new();
            let mut bytes = 0;
            while bytes < TARGET_BYTES {
                for body in &bodies {
                    bytes += body.len();
                    turns.push(body.clone());
                }
            }
            let payloads = turns.iter().flat_map(|t| payloads(t)).collect();
            (
                label,
                Corpus {
                    wire,
                    turns,
                    payloads,
                    bytes,
                },
            )
        })
        .collect()
}

fn catalog() -> Arc<ToolCatalog> {
    let schema: JsonObject = serde_json::from_str(r#"{"type":"object"}"#).unwrap();
    let names = [
        "get_weather",
        "get_time",
        "send_email",
        "search",
        "read_file",
    ];
    Arc::new(ToolCatalog::from_schemas(
        names.iter().map(|n| (*n, &schema)),
    ))
}

fn bench(c: &mut Criterion) {
    let catalog = catalog();
    let mut group = c.benchmark_group("route");
    for (label, corpus) in corpora() {
        group.throughput(Throughput::Bytes(corpus.bytes as u64));
        group.bench_function(BenchmarkId::new("serde_json", &label), |b| {
            b.iter(|| {
                for p in &corpus.payloads {
                    black_box(serde_json::from_slice::<serde_json::Value>(p).unwrap());
                }
            })
        });
        group.bench_function(BenchmarkId::new("router", &label), |b| {
            let mut events = Vec::new();
            b.iter(|| {
                for turn in &corpus.turns {
                    let mut session =
                        RouteSession::new(corpus.wire, catalog.clone(), DetectConfig::default());
                    for piece in turn.chunks(CHUNK) {
                        session.feed(piece, &mut events);
                    }
                    session.finish(&mut events);
                    black_box(&events);
                    events.clear();
                }
            })
        });
    }
    group.finish();
}

/// One OpenAI stream of `n` structured calls, each in one chunk with its own
/// id and index, then `tool_calls` and `[DONE]`.
fn many_calls(n: usize) -> Vec<u8> {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{i},\"id\":\"call_{i}\",\"type\":\"function\",\"function\":{{\"name\":\"get_weather\",\"arguments\":\"{{\\\"n\\\":{i}}}\"}}}}]}}}}]}}\n\n"
        ));
    }
    s.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n");
    s.into_bytes()
}

/// Many structured calls in one stream: the cost per call must not grow with
/// the calls before it (10,000 calls, against 1,000, in bytes per second).
fn bench_many_calls(c: &mut Criterion) {
    let catalog = catalog();
    let mut group = c.benchmark_group("route_many_calls");
    for n in [1_000, 10_000] {
        let stream = many_calls(n);
        group.throughput(Throughput::Bytes(stream.len() as u64));
        group.bench_function(BenchmarkId::new("openai-chat", n), |b| {
            let mut events = Vec::new();
            b.iter(|| {
                let mut session =
                    RouteSession::new(Wire::OpenAiChat, catalog.clone(), DetectConfig::default());
                for piece in stream.chunks(CHUNK) {
                    session.feed(piece, &mut events);
                    events.clear();
                }
                session.finish(&mut events);
                black_box(&events);
                events.clear();
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_many_calls);
criterion_main!(benches);
