//! # bench-proxy: what `toolrouter proxy` adds to a stream
//!
//! ```sh
//! cargo build --release --bin toolrouter          # from the repository root
//! cd bench-proxy && cargo run --release           # add -- --litellm for the LiteLLM baseline
//! ```
//!
//! One run measures the same loopback upstream directly and through
//! `toolrouter proxy` (the release binary, run as a process of its own, as
//! users run it: its own allocator, its own runtime, its own RSS), and prints a
//! markdown table:
//!
//! - the upstream (this process, raw tokio) answers `POST /v1/chat/completions`
//!   with an OpenAI SSE stream of `--chunks` content deltas (200) written as
//!   fast as the socket takes them, one HTTP chunk per event, then
//!   `data: [DONE]`; workload `text` is prose, workload `tool call` ends with a
//!   Hermes `<tool_call>{"name": "get_weather", …}</tool_call>` in four-byte
//!   deltas, which the proxy turns into `tool_calls`; workload `text, 1 ms after
//!   the first chunk` pauses there, as a model's next token comes later, so its
//!   first byte is not held up by the proxy working through the burst behind it;
//! - latency: `--pairs` requests (2000) to each, alternating direct and
//!   proxied on one kept-alive connection each, so that machine noise hits both:
//!   time from writing the request to the first body byte and to the first SSE
//!   event, the gaps between consecutive events (0 when one read brings several)
//!   and each stream's time from first event to last over its gaps (the cost
//!   per chunk); added = proxied − direct at the same percentile; and the
//!   proxy's CPU time (`/proc/PID/stat`) per stream;
//! - streams per second with 1 and 64 concurrent clients (`--secs` each, two
//!   rounds, direct and proxied alternating);
//! - 256 concurrent clients through the proxy, 4 tool-call streams each: every
//!   stream must end in `[DONE]` with HTTP 200 (the bench exits 1 otherwise);
//! - the floors: the same latency pairs through a bare TCP relay (this
//!   binary with `--relay`, a process of its own, copying bytes without
//!   parsing them): what one more loopback hop costs on this machine; and
//!   through a bare HTTP proxy (`--relay-http`: hyper's HTTP/1 server in
//!   front of hyper's HTTP/1 client, one upstream connection per client
//!   connection, the answer's body passed through untouched): what reading
//!   and writing HTTP on both sides adds to the hop;
//! - memory per open stream: a fresh proxy's VmRSS with `--held` streams (256)
//!   paused after 100 chunks (half the answer if shorter) by the upstream,
//!   minus its idle VmRSS after 16 streams, over the streams held. Both are
//!   the lowest VmRSS seen over 11 s (past jemalloc's 10 s decay), so that
//!   pages a burst freed and the allocator has not yet returned do not count
//!   as held; the figure just after the burst is printed beside it;
//! - `--litellm`: the same latency pairs and streams per second against
//!   LiteLLM's proxy (`litellm --config`, one worker) configured as an
//!   OpenAI-compatible passthrough to the same upstream (with a master key,
//!   without which it refuses to start; the client sends it); `--litellm-bin PATH`
//!   (default: `litellm` on `PATH`). Skipped, with a message, when it is not
//!   installed: `python3 -m venv /tmp/litellm && /tmp/litellm/bin/pip install
//!   'litellm[proxy]'`.
//!
//! `--latency-only text|tool|paced` runs that workload's latency pairs and
//! its floor alone (a short run to watch with `perf`).
//!
//! `--bin PATH` names the toolrouter binary (default:
//! `$CARGO_TARGET_DIR/release/toolrouter`, else `../target/release/toolrouter`).
//! The client runs on this process's runtime, the upstream on a thread and
//! runtime of its own (as a model server is a process of its own); on a
//! small machine all three compete for the cores, equally for both paths. The
//! targets are marked met or not met under the table; the bench
//! exits 1 only when a stream fails (the 256 concurrent ones, the held ones).
//! A subprocess rather than `serve_proxy` in process: it is how users run the
//! proxy (jemalloc, its own runtime), and its RSS is the proxy's alone.

mod client;
mod procs;
mod run;
mod table;
mod upstream;

use std::path::PathBuf;

use procs::Floor;
use run::{burst, hold, latency_pairs, throughput};
use table::Report;
use upstream::{Upstream, Workload};

struct Args {
    bin: PathBuf,
    chunks: usize,
    pairs: usize,
    secs: f64,
    held: usize,
    litellm: bool,
    litellm_bin: Option<PathBuf>,
    /// `--latency-only paced`: that workload's latency rows alone (for `perf`).
    latency_only: Option<Workload>,
}

fn args() -> Result<Args, String> {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let mut a = Args {
        bin: target.join("release/toolrouter"),
        chunks: 200,
        pairs: 2000,
        secs: 2.0,
        held: 256,
        litellm: false,
        litellm_bin: None,
        latency_only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let num = |v: String| v.parse::<f64>().map_err(|e| format!("{v}: {e}"));
        match flag.as_str() {
            "--bin" => a.bin = value()?.into(),
            "--chunks" => a.chunks = num(value()?)? as usize,
            "--pairs" => a.pairs = num(value()?)? as usize,
            "--secs" => a.secs = num(value()?)?,
            "--held" => a.held = num(value()?)? as usize,
            "--litellm" => a.litellm = true,
            "--litellm-bin" => {
                a.litellm = true;
                a.litellm_bin = Some(value()?.into());
            }
            "--latency-only" => {
                a.latency_only = Some(match value()?.as_str() {
                    "text" => Workload::Text,
                    "tool" => Workload::Tool,
                    "paced" => Workload::Paced,
                    other => return Err(format!("--latency-only {other}: text, tool or paced")),
                })
            }
            "-h" | "--help" => {
                println!(
                    "bench-proxy [--bin PATH] [--chunks N] [--pairs N] [--secs S] [--held K] [--litellm] [--litellm-bin PATH] [--latency-only text|tool|paced]"
                );
                std::process::exit(0);
            }
            _ => return Err(format!("unknown flag {flag} (see --help)")),
        }
    }
    Ok(a)
}

fn main() {
    let mut argv = std::env::args().skip(1);
    if let Some(flag @ ("--relay" | "--relay-http")) = argv.next().as_deref() {
        let upstream = argv.next().unwrap_or_default();
        let outcome = match flag {
            "--relay" => procs::run_relay(&upstream),
            _ => procs::run_http_relay(&upstream),
        };
        if let Err(e) = outcome {
            eprintln!("bench-proxy {flag}: {e}");
            std::process::exit(1);
        }
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
    let outcome = match runtime {
        Ok(runtime) => runtime.block_on(bench()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = outcome {
        eprintln!("bench-proxy: {e}");
        std::process::exit(1);
    }
}

async fn bench() -> Result<(), String> {
    let args = args()?;
    let upstream = Upstream::start(args.chunks)
        .await
        .map_err(|e| e.to_string())?;
    upstream.set_released(true);
    let direct = upstream.addr;
    let proxy = procs::toolrouter(&args.bin, &upstream.base_url()).await?;
    eprintln!(
        "upstream {direct}, toolrouter proxy {} (pid {})",
        proxy.addr,
        proxy.pid()
    );
    let relay = procs::relay(direct, Floor::Tcp).await?;
    let http_relay = procs::relay(direct, Floor::Http).await?;
    let mut report = Report::new(args.chunks);

    let workloads = match args.latency_only {
        Some(w) => vec![w],
        None => vec![Workload::Text, Workload::Tool, Workload::Paced],
    };
    for workload in workloads {
        eprintln!("latency, {workload:?}: {} pairs", args.pairs);
        let warmup = (args.pairs / 10).max(20);
        let before = upstream.accepted();
        let cpu = proxy.cpu_secs();
        let (d, p) = latency_pairs(direct, proxy.addr, workload, args.pairs, warmup).await?;
        eprintln!(
            "  the upstream accepted {} connections for {} streams",
            upstream.accepted() - before,
            2 * (args.pairs + warmup)
        );
        if workload == Workload::Tool && p.tool_calls != p.first_byte.len() {
            return Err(format!(
                "only {} of {} proxied tool-call streams carried tool_calls",
                p.tool_calls,
                p.first_byte.len()
            ));
        }
        let cpu = (proxy.cpu_secs() - cpu) / (args.pairs + warmup) as f64;
        report.latency(workload, d, p, cpu);
        for (floor, relay) in [(Floor::Tcp, &relay), (Floor::Http, &http_relay)] {
            eprintln!(
                "latency through the {floor:?} floor, {workload:?}: {} pairs",
                args.pairs
            );
            let (d, r) = latency_pairs(direct, relay.addr, workload, args.pairs, warmup).await?;
            report.floor(workload, floor, d, r);
        }
    }
    relay.stop().await;
    http_relay.stop().await;
    if args.latency_only.is_some() {
        proxy.stop().await;
        println!("{}", report.render());
        return Ok(());
    }

    for concurrency in [1, 64] {
        eprintln!("streams per second, {concurrency} concurrent");
        let (mut d, mut p) = ((0.0, 0), (0.0, 0));
        for _ in 0..2 {
            let x = throughput(direct, Workload::Text, concurrency, args.secs).await?;
            let y = throughput(proxy.addr, Workload::Text, concurrency, args.secs).await?;
            d = (d.0 + x.0 / 2.0, d.1 + x.1);
            p = (p.0 + y.0 / 2.0, p.1 + y.1);
        }
        report.throughput(concurrency, d, p);
    }

    eprintln!("256 concurrent streams through the proxy");
    let b = burst(proxy.addr, 256, 4).await;
    let burst_failed = b.errors > 0 || b.tool_calls != b.streams;
    report.burst(&b);
    proxy.stop().await;

    eprintln!("memory: {} held streams through a fresh proxy", args.held);
    let fresh = procs::toolrouter(&args.bin, &upstream.base_url()).await?;
    let held = hold(&fresh, &upstream, args.held).await?;
    fresh.stop().await;
    report.memory(&held, upstream.hold_at, upstream.held_text_bytes);

    if args.litellm {
        upstream.set_released(true);
        litellm(&args, &upstream, &mut report).await;
    }
    println!("{}", report.render());
    if burst_failed || held.errors > 0 {
        return Err(format!(
            "streams failed: {} of {} concurrent ({} without tool_calls){}; {} of {} held",
            b.errors,
            b.streams,
            b.streams - b.errors - b.tool_calls,
            b.first_error
                .map(|e| format!(", first: {e}"))
                .unwrap_or_default(),
            held.errors,
            held.streams
        ));
    }
    Ok(())
}

/// The LiteLLM baseline; a failure is reported, not fatal.
async fn litellm(args: &Args, upstream: &Upstream, report: &mut Report) {
    let Some(bin) = args.litellm_bin.clone().or_else(|| procs::which("litellm")) else {
        report.litellm_skipped(
            "not installed (`litellm` not on PATH; install `litellm[proxy]` in a venv and pass --litellm-bin)",
        );
        return;
    };
    eprintln!("starting LiteLLM ({})", bin.display());
    let lite = match procs::litellm(&bin, &upstream.base_url()).await {
        Ok(p) => p,
        Err(e) => return report.litellm_skipped(&e),
    };
    let pairs = args.pairs.min(500);
    eprintln!("latency against LiteLLM: {pairs} pairs");
    let result = async {
        let (d, l) = latency_pairs(upstream.addr, lite.addr, Workload::Text, pairs, 20).await?;
        let mut rates = Vec::new();
        for concurrency in [1, 64] {
            eprintln!("LiteLLM streams per second, {concurrency} concurrent");
            let x = throughput(upstream.addr, Workload::Text, concurrency, args.secs).await?;
            let y = throughput(lite.addr, Workload::Text, concurrency, args.secs).await?;
            rates.push((concurrency, x, y));
        }
        Ok::<_, String>((d, l, rates))
    }
    .await;
    lite.stop().await;
    match result {
        Ok((d, l, rates)) => report.litellm(d, l, rates),
        Err(e) => report.litellm_skipped(&e),
    }
}
