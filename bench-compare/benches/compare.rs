//! The same workloads through toolrouter's `StreamDetector` and through the
//! `tool-parser` crate (the SMG gateway's Rust port of SGLang's parsers), with
//! `serde_json::from_str` of the arguments as the baseline, in one run.
//!
//! For every dialect both implement: one `write_to_file` call whose `content`
//! argument is 1 KB, 16 KB or 256 KB of file text (quotes, backslashes,
//! newlines, non-ASCII), fed in 1-, 4- and 64-byte deltas. Each side is used the
//! way its streaming API is meant to be used: a fresh detector / parser per
//! stream, every delta fed, its output collected (visible text, call names and
//! argument fragments), then its end-of-stream flush.
//!
//! Before timing, every combination is run once untimed and its output checked
//! (exactly one `write_to_file` call with the expected arguments); the result
//! is printed (`check:` lines), and a toolrouter dialect without a detector yet
//! is skipped with a note. A combination whose single run is expected to take
//! longer than `BENCH_COMPARE_MAX_SECS` (default 30 s; the estimate assumes a
//! re-parsing parser, quadratic in the size) is skipped with a note.
//!
//! Run: `cd bench-compare && cargo bench -- --warm-up-time 1 --measurement-time 3 'hermes/'`
//! then `python3 report.py` for the ratio table.

#![allow(missing_docs)] // criterion_group! generates an undocumented function

use std::collections::HashMap;
use std::hint::black_box;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use openai_protocol::common::Tool;
use serde_json::{Value, json};
use tool_parser::ParserFactory;
use tool_parser::types::ToolCallItem;
use toolrouter::{DetectConfig, StreamDetector};
use toolrouter::{DetectEvent, JsonObject, ToolCatalog, WireFormat};

#[allow(dead_code)] // shared with benches/detect.rs, which uses all of it
#[path = "../../benches/workloads/mod.rs"]
mod workloads;

use workloads::{Dialect, content, deltas, expected_args};

/// Dialects both sides implement: workload name and `tool-parser`'s parser name
/// (`ParserFactory` registry). `tool-parser` 1.10 has no parser for the
/// remaining toolrouter dialects (XML tag-per-tool, the JSON envelopes,
/// Anthropic legacy, Mistral v11, LFM2, Olmo 3, harmony, InternLM2,
/// Jamba/Hunyuan, Granite, Phi-4-mini, LongCat).
const SHARED: &[(&str, &str)] = &[
    ("hermes", "qwen"),
    ("qwen3_coder", "qwen_coder"),
    ("mistral", "mistral"),
    ("llama3_json", "llama"),
    ("pythonic", "pythonic"),
    ("deepseek_v3", "deepseek"),
    ("deepseek_v31", "deepseek31"),
    ("deepseek_dsml", "deepseek32"),
    ("kimi_k2", "kimik2"),
    ("glm45", "glm45_moe"),
    ("glm47", "glm47_moe"),
    ("step3", "step3"),
    ("minimax_m2", "minimax_m2"),
    ("cohere", "cohere"),
    ("gemma4", "gemma4"),
];

const DELTAS: &[usize] = &[1, 4, 64];

fn schema() -> Value {
    json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]})
}

fn catalog() -> Arc<ToolCatalog> {
    let schema: JsonObject = schema().as_object().cloned().expect("object");
    Arc::new(ToolCatalog::from_schemas([
        (workloads::TOOL, &schema),
        ("read_file", &schema),
    ]))
}

fn tools() -> Vec<Tool> {
    [workloads::TOOL, "read_file"]
        .iter()
        .map(|name| {
            serde_json::from_value(json!({
                "type": "function",
                "function": {"name": name, "description": "a tool", "parameters": schema()}
            }))
            .expect("tool definition")
        })
        .collect()
}

/// What a consumer collected from one stream.
#[derive(Default)]
struct Collected {
    text: String,
    /// Name (from the first item that carried one) and argument text per call.
    calls: Vec<(Option<String>, String)>,
    errors: Vec<String>,
}

impl Collected {
    fn absorb(&mut self, item: ToolCallItem) {
        if self.calls.len() <= item.tool_index {
            self.calls
                .resize(item.tool_index + 1, (None, String::new()));
        }
        let call = &mut self.calls[item.tool_index];
        if call.0.is_none() {
            call.0 = item.name;
        }
        call.1.push_str(&item.parameters);
    }

    /// Why this is not exactly one `write_to_file` call with `expected`.
    fn verdict(&self, expected: &Value) -> Result<(), String> {
        let mut problems = Vec::new();
        match self.calls.as_slice() {
            [(name, args)] => {
                if name.as_deref() != Some(workloads::TOOL) {
                    problems.push(format!("call named {name:?}"));
                }
                match serde_json::from_str::<Value>(args) {
                    Ok(v) if v == *expected => {}
                    Ok(v) => problems.push(describe_args(&v, expected)),
                    Err(e) => problems.push(format!(
                        "arguments are not JSON ({e}; {} bytes streamed)",
                        args.len()
                    )),
                }
            }
            other => problems.push(format!("{} calls instead of 1", other.len())),
        }
        if !self.errors.is_empty() {
            problems.push(format!(
                "{} parse errors, first: {}",
                self.errors.len(),
                self.errors[0]
            ));
        }
        if !self.text.trim().is_empty() {
            problems.push(format!(
                "{} bytes of visible text (starts {:?})",
                self.text.len(),
                self.text.chars().take(40).collect::<String>()
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }
}

/// How parsed arguments differ from the expected ones.
fn describe_args(got: &Value, expected: &Value) -> String {
    let mut out = Vec::new();
    for key in ["path", "content"] {
        match (got.get(key), expected.get(key)) {
            (Some(Value::String(g)), Some(Value::String(e))) if g != e => {
                let at = g
                    .char_indices()
                    .zip(e.chars())
                    .find(|((_, a), b)| a != b)
                    .map(|((i, _), _)| i)
                    .unwrap_or(g.len().min(e.len()));
                out.push(format!(
                    "{key}: {} bytes instead of {}, first difference at byte {at} (got {:?}, want {:?})",
                    g.len(),
                    e.len(),
                    g.get(at..).unwrap_or("").chars().take(12).collect::<String>(),
                    e.get(at..).unwrap_or("").chars().take(12).collect::<String>()
                ));
            }
            (Some(g), Some(e)) if g != e => out.push(format!("{key}: {g} instead of a string")),
            (None, _) => out.push(format!("{key} missing")),
            _ => {}
        }
    }
    if out.is_empty() {
        format!("arguments differ: {}", truncate(&got.to_string()))
    } else {
        out.join(", ")
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(80).collect()
}

/// One stream through a fresh toolrouter detector.
fn toolrouter_stream(
    catalog: &Arc<ToolCatalog>,
    config: &DetectConfig,
    pieces: &[&str],
) -> Collected {
    let mut detector = StreamDetector::new(catalog.clone(), config.clone());
    let mut events = Vec::new();
    let mut out = Collected::default();
    let consume = |events: &mut Vec<DetectEvent>, out: &mut Collected| {
        for e in events.drain(..) {
            match e {
                DetectEvent::Text { text } => out.text.push_str(&text),
                DetectEvent::CallStart { index, name, .. } => {
                    if out.calls.len() <= index {
                        out.calls.resize(index + 1, (None, String::new()));
                    }
                    out.calls[index].0 = Some(name);
                }
                DetectEvent::ArgsDelta { index, fragment } => {
                    if let Some(call) = out.calls.get_mut(index) {
                        call.1.push_str(&fragment);
                    }
                }
                DetectEvent::Malformed { diagnostic } => {
                    out.errors.push(format!("{:?}", diagnostic.kind));
                }
                _ => {}
            }
        }
    };
    for p in pieces {
        detector.feed(p, &mut events);
        consume(&mut events, &mut out);
    }
    detector.finish(&mut events);
    consume(&mut events, &mut out);
    out
}

/// One stream through a fresh `tool-parser` parser: `parse_incremental` per
/// delta, then `get_unstreamed_tool_args` and `take_unstreamed_normal_text`,
/// as its README and the SMG gateway's streaming path use it.
fn tool_parser_stream(
    factory: &ParserFactory,
    parser: &str,
    tools: &[Tool],
    pieces: &[&str],
) -> Collected {
    let mut parser = factory
        .registry()
        .create_parser(parser)
        .expect("parser registered");
    futures::executor::block_on(async {
        let mut out = Collected::default();
        for p in pieces {
            match parser.parse_incremental(p, tools).await {
                Ok(result) => {
                    out.text.push_str(&result.normal_text);
                    for item in result.calls {
                        out.absorb(item);
                    }
                }
                Err(e) => out.errors.push(e.to_string()),
            }
        }
        for item in parser.get_unstreamed_tool_args().unwrap_or_default() {
            out.absorb(item);
        }
        out.text.push_str(&parser.take_unstreamed_normal_text());
        out
    })
}

/// The longest single run (one stream) worth timing, from the environment.
fn max_run() -> Duration {
    let secs = std::env::var("BENCH_COMPARE_MAX_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(30.0);
    Duration::from_secs_f64(secs)
}

/// Criterion's filter (its first free argument, a regex over full benchmark
/// ids), so that combinations not asked for are not run untimed either.
fn filter() -> Option<regex::Regex> {
    const WITH_VALUE: &[&str] = &[
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--nresamples",
        "--plotting-backend",
        "--output-format",
        "--color",
        "--profile-time",
        "-c",
        "-s",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if WITH_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return regex::Regex::new(&arg).ok();
        }
    }
    None
}

fn wanted(filter: &Option<regex::Regex>, ids: &[String]) -> bool {
    filter
        .as_ref()
        .is_none_or(|f| ids.iter().any(|id| f.is_match(id)))
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Toolrouter,
    ToolParser,
}

impl Side {
    fn as_str(self) -> &'static str {
        match self {
            Side::Toolrouter => "toolrouter",
            Side::ToolParser => "tool_parser",
        }
    }
}

fn compare(c: &mut Criterion) {
    let catalog = catalog();
    let tools = tools();
    let factory = ParserFactory::new();
    let implemented = toolrouter::text_formats();
    let limit = max_run();
    let filter = filter();
    // (dialect, side, delta) -> (size, seconds) of the last untimed run.
    let mut last: HashMap<(&str, Side, usize), (usize, f64)> = HashMap::new();

    for &(label, size) in workloads::SIZES {
        let body = content(size);
        let expected = expected_args(&body);
        let args_text = expected.to_string();
        if wanted(&filter, &[format!("serde_json/{label}/from_str")]) {
            let mut group = c.benchmark_group(format!("serde_json/{label}"));
            group.throughput(Throughput::Bytes(args_text.len() as u64));
            group.bench_function("from_str", |b| {
                b.iter(|| serde_json::from_str::<Value>(black_box(&args_text)).expect("json"))
            });
            group.finish();
        }

        for &(name, parser) in SHARED {
            let group_name = format!("{name}/{label}");
            let ids: Vec<String> = DELTAS
                .iter()
                .flat_map(|n| {
                    [Side::Toolrouter, Side::ToolParser]
                        .map(|side| format!("{group_name}/{}/{n}", side.as_str()))
                })
                .collect();
            if !wanted(&filter, &ids) {
                continue;
            }
            let dialect: &Dialect =
                workloads::dialect(name).expect("shared dialect has a workload");
            let format: WireFormat = dialect.format.parse().expect("workload names a format");
            let config = DetectConfig::default().with_formats([format]);
            let has_detector = implemented.contains(&format);
            let text = (dialect.text)(&body);
            // Diagnosis for the streamed checks below: the same text in one
            // delta, and tool-parser's non-streaming `parse_complete`.
            let whole = catch_unwind(AssertUnwindSafe(|| {
                tool_parser_stream(&factory, parser, &tools, &[&text]).verdict(&expected)
            }));
            let complete = catch_unwind(AssertUnwindSafe(|| {
                futures::executor::block_on(async {
                    let parser = factory
                        .registry()
                        .create_parser(parser)
                        .expect("registered");
                    let mut out = Collected::default();
                    match parser.parse_complete_with_tools(&text, &tools).await {
                        Ok((text, calls)) => {
                            out.text = text;
                            out.calls = calls
                                .into_iter()
                                .map(|c| (Some(c.function.name), c.function.arguments))
                                .collect();
                        }
                        Err(e) => out.errors.push(e.to_string()),
                    }
                    out.verdict(&expected)
                })
            }));
            for (what, v) in [("one delta", whole), ("parse_complete", complete)] {
                match v {
                    Ok(Ok(())) => eprintln!("check: {group_name}/tool_parser/{what}: ok"),
                    Ok(Err(why)) => {
                        eprintln!("check: {group_name}/tool_parser/{what}: MISMATCH: {why}")
                    }
                    Err(_) => {
                        eprintln!("check: {group_name}/tool_parser/{what}: MISMATCH: panicked")
                    }
                }
            }
            let mut group = c.benchmark_group(&group_name);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.sample_size(10);
            for &n in DELTAS {
                let pieces = deltas(&text, n);
                for side in [Side::Toolrouter, Side::ToolParser] {
                    let id = format!("{group_name}/{}/{n}", side.as_str());
                    if !wanted(&filter, std::slice::from_ref(&id)) {
                        continue;
                    }
                    if side == Side::Toolrouter && !has_detector {
                        eprintln!(
                            "note: {id} skipped: toolrouter has no {} detector yet",
                            dialect.format
                        );
                        continue;
                    }
                    if let Some(&(prev_size, prev_secs)) = last.get(&(name, side, n)) {
                        let ratio = size as f64 / prev_size as f64;
                        let estimate = prev_secs * ratio * ratio;
                        if estimate > limit.as_secs_f64() {
                            eprintln!(
                                "note: {id} skipped: one stream is estimated at {estimate:.0} s (quadratic from {prev_secs:.2} s at the previous size), over BENCH_COMPARE_MAX_SECS={:.0}",
                                limit.as_secs_f64()
                            );
                            continue;
                        }
                    }
                    let start = Instant::now();
                    let collected = catch_unwind(AssertUnwindSafe(|| match side {
                        Side::Toolrouter => toolrouter_stream(&catalog, &config, &pieces),
                        Side::ToolParser => tool_parser_stream(&factory, parser, &tools, &pieces),
                    }));
                    let secs = start.elapsed().as_secs_f64();
                    last.insert((name, side, n), (size, secs));
                    let Ok(collected) = collected else {
                        eprintln!("check: {id}: MISMATCH: panicked (message above); not timed");
                        continue;
                    };
                    match collected.verdict(&expected) {
                        Ok(()) => eprintln!("check: {id}: ok ({secs:.3} s untimed)"),
                        Err(why) => eprintln!("check: {id}: MISMATCH: {why}"),
                    }
                    if side == Side::Toolrouter && collected.verdict(&expected).is_err() {
                        eprintln!(
                            "note: {id} skipped: toolrouter's detector does not yet give the expected call"
                        );
                        continue;
                    }
                    if secs > limit.as_secs_f64() {
                        eprintln!(
                            "note: {id} skipped: one stream took {secs:.0} s, over BENCH_COMPARE_MAX_SECS"
                        );
                        continue;
                    }
                    group.sampling_mode(if secs > 0.05 {
                        SamplingMode::Flat
                    } else {
                        SamplingMode::Auto
                    });
                    group.bench_with_input(
                        BenchmarkId::new(side.as_str(), n),
                        &pieces,
                        |b, pieces| {
                            b.iter(|| match side {
                                Side::Toolrouter => {
                                    toolrouter_stream(&catalog, &config, black_box(pieces))
                                        .calls
                                        .len()
                                }
                                Side::ToolParser => {
                                    tool_parser_stream(&factory, parser, &tools, black_box(pieces))
                                        .calls
                                        .len()
                                }
                            })
                        },
                    );
                }
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = compare
}
criterion_main!(benches);
