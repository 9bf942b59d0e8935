//! Grammar build with a cold cache (`build_grammar` then GBNF output) for 10
//! tools and for a catalog of 60 tools with about 100 KB of schemas, in a
//! JSON-argument dialect (Hermes) and an XML one (Qwen3-Coder). Besides
//! criterion's figures, the p50 and p99 of 400 timed builds are printed.

#![allow(clippy::unwrap_used, missing_docs)] // benches may unwrap; criterion macros make undocumented fns

use std::hint::black_box;
use std::time::Instant;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use toolrouter::{GrammarOptions, GrammarTool, JsonObject, ToolChoice, WireFormat, build_grammar};

mod grammar_catalog;
use grammar_catalog::catalog;

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
