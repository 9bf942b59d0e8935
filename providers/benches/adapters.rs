//! Bytes/s through each wire adapter (+ `TurnCollector`) on the recorded fixtures

#![allow(clippy::unwrap_used, missing_docs)] // benches may unwrap; criterion macros make undocumented fns
//! scaled up, against `serde_json::from_slice` of the same frames' JSON payloads.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolrouter_providers::{TurnCollector, Wire, find_profile};

/// Streams are repeated until they are at least this long.
const TARGET_BYTES: usize = 256 * 1024;

/// A bench label and which fixture files belong to it.
type Group = (&'static str, fn(&str) -> bool);

struct Corpus {
    wire: Wire,
    label: &'static str,
    stream: Vec<u8>,
    payloads: Vec<Vec<u8>>,
}

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/streams")
}

/// The JSON payload of every frame, the way the baseline reads them.
fn payloads(stream: &[u8], binary: bool) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if binary {
        let mut at = 0;
        while at + 12 <= stream.len() {
            let total = u32::from_be_bytes(stream[at..at + 4].try_into().unwrap()) as usize;
            let headers = u32::from_be_bytes(stream[at + 4..at + 8].try_into().unwrap()) as usize;
            out.push(stream[at + 12 + headers..at + total - 4].to_vec());
            at += total;
        }
        return out;
    }
    for line in stream.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let json = line.strip_prefix(b"data: ").unwrap_or(line);
        if json.first() == Some(&b'{') {
            out.push(json.to_vec());
        }
    }
    out
}

fn corpora() -> Vec<Corpus> {
    let dir = fixtures_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".expect.json") && !n.ends_with(".md"))
        .collect();
    names.sort();
    let groups: [Group; 7] = [
        ("openai-chat", |n| {
            n.starts_with("openai-chat.")
                || n.starts_with("openai-compat.")
                || n.starts_with("mistral.")
        }),
        ("openai-responses", |n| n.starts_with("openai-responses.")),
        ("anthropic", |n| n.starts_with("anthropic.")),
        ("gemini", |n| {
            n.starts_with("gemini.") || n.starts_with("vertex.")
        }),
        ("ollama", |n| n.starts_with("ollama.")),
        ("bedrock-jsonl", |n| {
            n.starts_with("bedrock.") && n.ends_with(".jsonl")
        }),
        ("bedrock-eventstream", |n| {
            n.starts_with("bedrock.") && n.ends_with(".eventstream")
        }),
    ];
    groups
        .into_iter()
        .map(|(label, wanted)| {
            let mut one = Vec::new();
            let mut wire = None;
            for name in names.iter().filter(|n| wanted(n)) {
                let prefix = name.split('.').next().unwrap();
                wire = Some(find_profile(prefix).unwrap().wire);
                one.extend(std::fs::read(dir.join(name)).unwrap());
                if !one.ends_with(b"\n") && !name.ends_with(".eventstream") {
                    one.push(b'\n');
                }
            }
            let mut stream = Vec::new();
            while stream.len() < TARGET_BYTES {
                stream.extend_from_slice(&one);
            }
            let payloads = payloads(&stream, label == "bedrock-eventstream");
            Corpus {
                wire: wire.expect("fixtures for every wire"),
                label,
                stream,
                payloads,
            }
        })
        .collect()
}

fn run_adapter(wire: Wire, stream: &[u8], chunk: usize) -> usize {
    let mut adapter = wire.adapter();
    let mut collector = TurnCollector::new();
    let mut out = Vec::new();
    for piece in stream.chunks(chunk) {
        adapter.feed(piece, &mut out).unwrap();
        collector.extend(&out);
        out.clear();
    }
    adapter.finish(&mut out).unwrap();
    collector.extend(&out);
    collector.finish().calls.len()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("adapters");
    for corpus in corpora() {
        group.throughput(Throughput::Bytes(corpus.stream.len() as u64));
        group.bench_function(BenchmarkId::new("serde_json-baseline", corpus.label), |b| {
            b.iter(|| {
                for p in &corpus.payloads {
                    let v: serde_json::Value = serde_json::from_slice(p).unwrap();
                    black_box(v);
                }
            })
        });
        for chunk in [16usize, 256, 4096] {
            group.bench_function(
                BenchmarkId::new(format!("adapter+collector/chunk{chunk}"), corpus.label),
                |b| b.iter(|| black_box(run_adapter(corpus.wire, &corpus.stream, chunk))),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
