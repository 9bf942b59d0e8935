//! Grammar build with a cold cache (`build_grammar` then GBNF output) for 10
//! tools and for a catalog of 60 tools with about 100 KB of schemas, in a
//! JSON-argument dialect (Hermes) and an XML one (Qwen3-Coder). Besides
//! criterion's figures, the p50 and p99 of 400 timed builds are printed.

#![allow(clippy::unwrap_used, missing_docs)] // benches may unwrap; criterion macros make undocumented fns

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolrouter::{GrammarOptions, GrammarTool, JsonObject, ToolChoice, WireFormat, build_grammar};

/// A description of about `words` words (schemas carry prose).
fn prose(seed: usize, words: usize) -> String {
    const WORDS: &[&str] = &[
        "the",
        "file",
        "path",
        "relative",
        "to",
        "workspace",
        "root",
        "returns",
        "lines",
        "matching",
        "query",
        "optional",
        "defaults",
        "when",
        "absent",
        "number",
        "of",
        "results",
        "search",
        "case",
    ];
    (0..words)
        .map(|i| WORDS[(seed * 7 + i * 13) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A realistic input schema: typed properties with descriptions, enums,
/// bounds, arrays, a nested object, sometimes a `$defs` entry.
fn schema(i: usize, props: usize, desc_words: usize) -> JsonObject {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for p in 0..props {
        let name = format!("param_{p}");
        let description = prose(i + p, desc_words);
        let prop = match (i + p) % 7 {
            0 => json!({"type": "string", "description": description}),
            1 => {
                json!({"type": "integer", "minimum": 0, "maximum": 10_000, "description": description})
            }
            2 => {
                json!({"type": "string", "enum": ["fast", "thorough", "balanced", "off"], "description": description})
            }
            3 => {
                json!({"type": "array", "items": {"type": "string", "maxLength": 64}, "maxItems": 8, "description": description})
            }
            4 => json!({"type": "boolean", "description": description}),
            5 => json!({"type": "object", "description": description, "properties": {
                "start": {"type": "integer", "minimum": 1},
                "end": {"type": "integer", "minimum": 1},
                "label": {"type": ["string", "null"]}
            }, "required": ["start"], "additionalProperties": false}),
            _ => json!({"type": "number", "minimum": -1, "maximum": 1, "description": description}),
        };
        if p.is_multiple_of(3) {
            required.push(Value::String(name.clone()));
        }
        properties.insert(name, prop);
    }
    let mut schema = json!({
        "type": "object",
        "description": prose(i, desc_words * 2),
        "properties": properties,
        "required": required,
    });
    if i.is_multiple_of(4) {
        schema["$defs"] = json!({"range": {"type": "object", "properties": {
            "from": {"type": "string", "format": "date"}, "to": {"type": "string", "format": "date"}},
            "required": ["from"]}});
        schema["properties"]["period"] = json!({"type": "object", "$ref": "#/$defs/range"});
    }
    schema.as_object().cloned().unwrap()
}

fn catalog(n: usize, props: usize, desc_words: usize) -> (Vec<(String, JsonObject)>, usize) {
    let tools: Vec<(String, JsonObject)> = (0..n)
        .map(|i| (format!("tool_{i}"), schema(i, props, desc_words)))
        .collect();
    let bytes = tools
        .iter()
        .map(|(_, s)| Value::Object(s.clone()).to_string().len())
        .sum();
    (tools, bytes)
}

fn build(tools: &[(String, JsonObject)], dialect: WireFormat) -> usize {
    let specs: Vec<GrammarTool<'_>> = tools.iter().map(|(n, s)| GrammarTool::new(n, s)).collect();
    let grammar =
        build_grammar(&specs, dialect, &GrammarOptions::new(ToolChoice::Required)).unwrap();
    grammar.gbnf().len()
}

fn percentiles(tools: &[(String, JsonObject)], dialect: WireFormat) -> (f64, f64) {
    let mut times: Vec<f64> = (0..400)
        .map(|_| {
            let t = Instant::now();
            black_box(build(tools, dialect));
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

fn bench(c: &mut Criterion) {
    let sets = [
        ("10_tools", catalog(10, 6, 12)),
        ("60_tools", catalog(60, 10, 14)),
    ];
    let mut group = c.benchmark_group("grammar_build_gbnf");
    for (label, (tools, bytes)) in &sets {
        for dialect in [WireFormat::Hermes, WireFormat::Qwen3Coder] {
            let (p50, p99) = percentiles(tools, dialect);
            let gbnf = build(tools, dialect);
            println!(
                "{label} {dialect}: {bytes} bytes of schemas, {gbnf} bytes of GBNF; p50 {p50:.3} ms, p99 {p99:.3} ms"
            );
            group.throughput(Throughput::Bytes(*bytes as u64));
            group.bench_with_input(BenchmarkId::new(*label, dialect), tools, |b, tools| {
                b.iter(|| black_box(build(tools, dialect)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
