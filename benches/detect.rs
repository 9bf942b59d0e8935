//! Streaming detection benchmarks: one call per format with 1 KB, 16 KB and
//! 256 KB of file content as arguments, fed in 1-, 4- and 64-byte deltas (and
//! 4 KB chunks), 1 MB of prose with 50 calls, and `serde_json::from_str` of the
//! same arguments as the baseline. Filter with e.g. `cargo bench --bench detect -- hermes/16K`.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolrouter::detect::{DetectConfig, StreamDetector};
use toolrouter::{DetectEvent, JsonObject, ToolCatalog};

fn catalog() -> Arc<ToolCatalog> {
    let schema = json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}});
    let schema: JsonObject = schema.as_object().cloned().expect("object");
    Arc::new(ToolCatalog::from_schemas([
        ("write_to_file", &schema),
        ("read_file", &schema),
    ]))
}

/// File content with quotes, backslashes, newlines and non-ASCII, `size` bytes or a little less.
fn content(size: usize) -> String {
    let line = "    let s = \"quote \\\"x\\\" path C:\\\\dir\"; // café 日本 🚀 {a: [1, 2]}\n";
    let mut out = String::with_capacity(size);
    while out.len() + line.len() <= size {
        out.push_str(line);
    }
    out
}

fn call_text(format: &str, content: &str) -> String {
    let args = json!({"path": "src/big.rs", "content": content});
    let args_text = args.to_string();
    match format {
        "xml" => format!(
            "<write_to_file><path>src/big.rs</path><content>{content}</content></write_to_file>"
        ),
        "json_tool_use" => format!(
            r#"{{"type":"tool_use","id":"toolu_1","name":"write_to_file","input":{args_text}}}"#
        ),
        "open_ai_function" => format!(
            r#"{{"tool_calls":[{{"id":"call_1","type":"function","function":{{"name":"write_to_file","arguments":{}}}}}]}}"#,
            Value::String(args_text.clone())
        ),
        "hermes" => {
            format!(r#"<tool_call>{{"name":"write_to_file","arguments":{args_text}}}</tool_call>"#)
        }
        "qwen3_coder" => format!(
            "<tool_call>\n<function=write_to_file>\n<parameter=path>\nsrc/big.rs\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
        ),
        "anthropic_invoke" => format!(
            "<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">src/big.rs</parameter>\n<parameter name=\"content\">{content}</parameter>\n</invoke>\n</function_calls>"
        ),
        "mistral" => format!(r#"[TOOL_CALLS]write_to_file[CALL_ID]a1B2c3D4e[ARGS]{args_text}"#),
        "mistral_pre_v11" => {
            format!(r#"[TOOL_CALLS] [{{"name": "write_to_file", "arguments": {args_text}}}]"#)
        }
        "llama3_json" => {
            format!(r#"<|python_tag|>{{"name": "write_to_file", "parameters": {args_text}}}"#)
        }
        "granite" => {
            format!(r#"<|tool_call|>[{{"name": "write_to_file", "arguments": {args_text}}}]"#)
        }
        "jamba_hunyuan" => format!(
            r#"<tool_calls>[{{"name": "write_to_file", "arguments": {args_text}}}]</tool_calls>"#
        ),
        "internlm2" => format!(
            "<|action_start|><|plugin|>\n{{\"name\": \"write_to_file\", \"parameters\": {args_text}}}<|action_end|>"
        ),
        "longcat" => format!(
            "<longcat_tool_call>\n{{\"name\": \"write_to_file\", \"arguments\": {args_text}}}\n</longcat_tool_call>"
        ),
        "cohere" => format!(
            r#"<|START_ACTION|>[{{"tool_call_id": "0", "tool_name": "write_to_file", "parameters": {args_text}}}]<|END_ACTION|>"#
        ),
        _ => unreachable!("known format"),
    }
}

/// Cuts `s` into deltas of `n` bytes (shorter at multi-byte characters).
fn deltas(s: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(s.len() / n + 1);
    let mut pos = 0;
    while pos < s.len() {
        let mut end = (pos + n).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        out.push(&s[pos..end]);
        pos = end;
    }
    out
}

fn run(catalog: &Arc<ToolCatalog>, pieces: &[&str]) -> usize {
    let mut detector = StreamDetector::new(catalog.clone(), DetectConfig::default());
    let mut events = Vec::new();
    let mut calls = 0;
    for p in pieces {
        detector.feed(p, &mut events);
        calls += events
            .iter()
            .filter(|e| matches!(e, DetectEvent::CallEnd { .. }))
            .count();
        events.clear();
    }
    detector.finish(&mut events);
    calls
        + events
            .iter()
            .filter(|e| matches!(e, DetectEvent::CallEnd { .. }))
            .count()
}

const FORMATS: &[&str] = &[
    "xml",
    "json_tool_use",
    "open_ai_function",
    "hermes",
    "qwen3_coder",
    "anthropic_invoke",
    "mistral",
    "mistral_pre_v11",
    "llama3_json",
    "granite",
    "jamba_hunyuan",
    "internlm2",
    "longcat",
    "cohere",
];

fn per_format(c: &mut Criterion) {
    let catalog = catalog();
    for (label, size) in [("1K", 1024), ("16K", 16 * 1024), ("256K", 256 * 1024)] {
        let body = content(size);
        let args_text = json!({"path": "src/big.rs", "content": body}).to_string();
        let mut group = c.benchmark_group(format!("serde_json/{label}"));
        group.throughput(Throughput::Bytes(args_text.len() as u64));
        group.bench_function("from_str", |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(&args_text)).expect("json"))
        });
        group.finish();
        for format in FORMATS {
            let text = call_text(format, &body);
            assert_eq!(run(&catalog, &[&text]), 1, "{format} parses");
            let mut group = c.benchmark_group(format!("{format}/{label}"));
            group.throughput(Throughput::Bytes(text.len() as u64));
            for n in [1usize, 4, 64, 4096] {
                let pieces = deltas(&text, n);
                group.bench_with_input(BenchmarkId::new("delta", n), &pieces, |b, pieces| {
                    b.iter(|| run(&catalog, black_box(pieces)))
                });
            }
            group.finish();
        }
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
            text.push_str(&call_text(format, &small));
            text.push('\n');
            if i > 0 {
                args_all.push(',');
            }
            args_all.push_str(&json!({"path": "src/big.rs", "content": small}).to_string());
            i += 1;
        }
    }
    args_all.push(']');
    (text, args_all)
}

fn mixed(c: &mut Criterion) {
    let catalog = catalog();
    let (text, args_all) = mixed_stream();
    assert_eq!(run(&catalog, &[&text]), 50, "50 calls");
    let mut group = c.benchmark_group("mixed/1M");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    for n in [4usize, 64, 4096] {
        let pieces = deltas(&text, n);
        group.bench_with_input(BenchmarkId::new("delta", n), &pieces, |b, pieces| {
            b.iter(|| run(&catalog, black_box(pieces)))
        });
    }
    group.bench_function("serde_json_args", |b| {
        b.iter(|| serde_json::from_str::<Value>(black_box(&args_all)).expect("json"))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = per_format, mixed
}
criterion_main!(benches);
