//! The benches' workloads a fixed number of times, for an instruction count
//! that repeats on a noisy machine (`valgrind --tool=callgrind`), where
//! criterion's times vary too much between runs to hold the 3 % rule:
//!
//! ```text
//! cargo build --release --example bench_instructions
//! ONLY=16K/4 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/bench_instructions detect
//! ONLY=openai-chat valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/bench_instructions route tests/data/streams
//! ```
//!
//! `detect`: the `xml` rows of `benches/detect.rs` (each size at 4-byte and
//! 4 KiB deltas, about 4 MiB of text each; `ONLY=SIZE/N` picks one).
//! `route DIR`: each `openai-chat*` and `anthropic*` SSE recording of DIR
//! routed 200 times in 64-byte pieces (`ONLY=PREFIX` picks one wire).
//! `grammar`: the catalogs of `benches/grammar.rs` built and written as GBNF
//! (`required`), 10 tools 200 times and 60 tools 40 times, in Hermes and
//! Qwen3-Coder (`ONLY=10`, `ONLY=60`, `ONLY=60/hermes` pick some).
#![allow(missing_docs, clippy::unwrap_used, dead_code)]
use serde_json::json;
use std::sync::Arc;
use toolrouter::providers::Wire;
use toolrouter::{DetectConfig, EventBatch, JsonObject, RouteSession, StreamDetector, ToolCatalog};

#[path = "../benches/workloads/mod.rs"]
mod workloads;

#[path = "../benches/grammar_catalog/mod.rs"]
mod grammar_catalog;

fn main() {
    let what = std::env::args().nth(1).unwrap();
    let schema = json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}});
    let schema: JsonObject = schema.as_object().cloned().unwrap();
    let catalog = Arc::new(ToolCatalog::from_schemas([
        ("write_to_file", &schema),
        ("read_file", &schema),
    ]));
    if what == "grammar" {
        use toolrouter::{GrammarOptions, GrammarTool, ToolChoice, WireFormat, build_grammar};
        let only = std::env::var("ONLY").unwrap_or_default();
        let options = GrammarOptions::new(ToolChoice::Required);
        for (label, n, props, words, reps) in [("10", 10, 6, 12, 200), ("60", 60, 10, 14, 40)] {
            let (tools, _) = grammar_catalog::catalog(n, props, words);
            let specs: Vec<GrammarTool<'_>> =
                tools.iter().map(|(n, s)| GrammarTool::new(n, s)).collect();
            for (name, dialect) in [
                ("hermes", WireFormat::Hermes),
                ("qwen3_coder", WireFormat::Qwen3Coder),
            ] {
                let key = format!("{label}/{name}");
                if !only.is_empty() && !key.starts_with(&only) {
                    continue;
                }
                for _ in 0..reps {
                    let g = build_grammar(&specs, dialect, &options).unwrap();
                    std::hint::black_box(g.gbnf().len());
                }
            }
        }
    } else if what == "detect" {
        let config = DetectConfig::default();
        let only = std::env::var("ONLY").unwrap_or_default();
        for &(label, size) in workloads::SIZES {
            let body = workloads::content(size);
            let dialect = workloads::dialect("xml").unwrap();
            let text = (dialect.text)(&body);
            for n in [4usize, 4096] {
                if !only.is_empty() && only != format!("{label}/{n}") {
                    continue;
                }
                let pieces = workloads::deltas(&text, n);
                let reps = (1 << 22) / text.len().max(1) + 1;
                for _ in 0..reps {
                    let mut d = StreamDetector::new(catalog.clone(), config.clone());
                    let mut out = EventBatch::new();
                    for p in &pieces {
                        d.feed(p, &mut out);
                        out.clear();
                    }
                    d.finish(&mut out);
                }
            }
        }
    } else {
        let dir = std::env::args().nth(2).unwrap();
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for name in names {
            let only = std::env::var("ONLY").unwrap_or_default();
            if !only.is_empty() && !name.starts_with(&only) {
                continue;
            }
            let wire = if name.starts_with("openai-chat") {
                Wire::OpenAiChat
            } else if name.starts_with("anthropic") {
                Wire::Anthropic
            } else {
                continue;
            };
            if !name.ends_with(".sse") {
                continue;
            }
            let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
            for _ in 0..200 {
                let mut s = RouteSession::new(wire, catalog.clone(), DetectConfig::default());
                let mut ev = Vec::new();
                for c in bytes.chunks(64) {
                    s.feed(c, &mut ev);
                    ev.clear();
                }
                s.finish(&mut ev);
            }
        }
    }
}
