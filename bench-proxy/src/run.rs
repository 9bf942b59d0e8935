//! The measurements: interleaved latency pairs, streams per second, many
//! concurrent streams, memory per held stream.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::client::{Conn, Progress, Stream, request};
use crate::procs::Proxy;
use crate::upstream::{Upstream, Workload};

/// Latency samples of one target, in nanoseconds.
#[derive(Default)]
pub struct Samples {
    /// Request written to first body byte.
    pub first_byte: Vec<u64>,
    /// Request written to first complete SSE event.
    pub first_event: Vec<u64>,
    /// Every gap between consecutive SSE events of every stream.
    pub gaps: Vec<u64>,
    /// Per stream: first event to last, divided by the gaps between them.
    pub per_event: Vec<u64>,
    /// SSE events per stream (of the last stream).
    pub events: usize,
    /// Streams that carried `tool_calls`.
    pub tool_calls: usize,
}

impl Samples {
    fn add(&mut self, s: &Stream) {
        self.first_byte.push(s.first_byte.as_nanos() as u64);
        self.first_event.push(s.first_event.as_nanos() as u64);
        self.gaps.extend(s.gaps());
        if let (Some(first), Some(last)) = (s.events.first(), s.events.last())
            && s.events.len() > 1
        {
            self.per_event
                .push((*last - *first).as_nanos() as u64 / (s.events.len() as u64 - 1));
        }
        self.events = s.events.len();
        self.tool_calls += usize::from(s.tool_calls);
    }
}

/// `pairs` requests to each of `a` and `b`, alternating (a b, b a, a b, …)
/// on one kept-alive connection each, after `warmup` unrecorded pairs.
pub async fn latency_pairs(
    a: SocketAddr,
    b: SocketAddr,
    workload: Workload,
    pairs: usize,
    warmup: usize,
) -> Result<(Samples, Samples), String> {
    let (req_a, req_b) = (request(a, workload), request(b, workload));
    let (mut conn_a, mut conn_b) = (Conn::open(a).await?, Conn::open(b).await?);
    let (mut sa, mut sb) = (Samples::default(), Samples::default());
    for i in 0..warmup + pairs {
        let (first_a, first_b) = if i % 2 == 0 {
            let x = conn_a.stream(&req_a, None).await;
            (x, conn_b.stream(&req_b, None).await)
        } else {
            let y = conn_b.stream(&req_b, None).await;
            (conn_a.stream(&req_a, None).await, y)
        };
        let (x, y) = (first_a?, first_b?);
        if i >= warmup {
            sa.add(&x);
            sb.add(&y);
        }
    }
    Ok((sa, sb))
}

/// Completed streams per second with `concurrency` clients, each on its own
/// kept-alive connection, for `secs`; and the errors met.
pub async fn throughput(
    addr: SocketAddr,
    workload: Workload,
    concurrency: usize,
    secs: f64,
) -> Result<(f64, usize), String> {
    let req = Arc::new(request(addr, workload));
    let mut conns = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        conns.push(Conn::open(addr).await?);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(secs);
    let tasks: Vec<_> = conns
        .into_iter()
        .map(|mut conn| {
            let req = req.clone();
            tokio::spawn(async move {
                let (mut ok, mut err) = (0usize, 0usize);
                while Instant::now() < deadline {
                    match conn.stream(&req, None).await {
                        Ok(_) => ok += 1,
                        Err(_) => err += 1,
                    }
                }
                (ok, err)
            })
        })
        .collect();
    let (mut ok, mut err) = (0, 0);
    for t in tasks {
        let (o, e) = t.await.map_err(|e| e.to_string())?;
        ok += o;
        err += e;
    }
    Ok((ok as f64 / start.elapsed().as_secs_f64(), err))
}

/// The outcome of many concurrent streams.
pub struct Burst {
    /// Streams run.
    pub streams: usize,
    /// Streams that failed (with the first error).
    pub errors: usize,
    /// The first error, if any.
    pub first_error: Option<String>,
    /// Streams that carried `tool_calls`.
    pub tool_calls: usize,
}

/// `concurrency` clients, each on its own connection, start together and run
/// `each` tool-call streams.
pub async fn burst(addr: SocketAddr, concurrency: usize, each: usize) -> Burst {
    let req = Arc::new(request(addr, Workload::Tool));
    let gate = Arc::new(tokio::sync::Barrier::new(concurrency));
    let tasks: Vec<_> = (0..concurrency)
        .map(|_| {
            let (req, gate) = (req.clone(), gate.clone());
            tokio::spawn(async move {
                let mut conn = Conn::open(addr).await;
                gate.wait().await;
                let mut out = Vec::with_capacity(each);
                for _ in 0..each {
                    out.push(match &mut conn {
                        Ok(c) => c.stream(&req, None).await.map(|s| s.tool_calls),
                        Err(e) => Err(e.clone()),
                    });
                }
                out
            })
        })
        .collect();
    let mut burst = Burst {
        streams: concurrency * each,
        errors: 0,
        first_error: None,
        tool_calls: 0,
    };
    for t in tasks {
        let results = t.await.unwrap_or_else(|e| vec![Err(e.to_string()); each]);
        for r in results {
            match r {
                Ok(calls) => burst.tool_calls += usize::from(calls),
                Err(e) => {
                    burst.errors += 1;
                    burst.first_error.get_or_insert(e);
                }
            }
        }
    }
    burst
}

/// Resident memory of a proxy with streams held open.
pub struct Held {
    /// Streams held.
    pub streams: usize,
    /// RSS after a short warm-up, no stream open, settled, in KiB.
    pub idle_kib: u64,
    /// RSS with every stream open and paused, settled, in KiB.
    pub held_kib: u64,
    /// RSS just after the held streams' burst, before the allocator has
    /// returned the burst's freed pages, in KiB.
    pub burst_kib: u64,
    /// Streams that failed once released.
    pub errors: usize,
}

impl Held {
    /// Bytes per held stream, settled.
    pub fn per_stream(&self) -> f64 {
        (self.held_kib as f64 - self.idle_kib as f64) * 1024.0 / self.streams as f64
    }

    /// Bytes per held stream just after the burst.
    pub fn per_stream_burst(&self) -> f64 {
        (self.burst_kib as f64 - self.idle_kib as f64) * 1024.0 / self.streams as f64
    }
}

/// How long RSS is watched for its settled value: past jemalloc's default
/// 10 s decay, after which the pages freed by a burst have gone back.
const SETTLE: Duration = Duration::from_secs(11);

/// The lowest RSS over [`SETTLE`]: what the live allocations hold once the
/// allocator has returned the pages that earlier work freed.
async fn settled_rss(proxy: &Proxy) -> u64 {
    let start = Instant::now();
    let mut low = proxy.rss_kib();
    while start.elapsed() < SETTLE {
        tokio::time::sleep(Duration::from_millis(250)).await;
        low = low.min(proxy.rss_kib());
    }
    low
}

/// Opens `streams` streams through `proxy` whose upstream pauses after
/// [`Upstream::hold_at`] chunks; measures the proxy's RSS before and while they are held.
pub async fn hold(proxy: &Proxy, upstream: &Upstream, streams: usize) -> Result<Held, String> {
    let addr = proxy.addr;
    upstream.set_released(true);
    // Warm-up: the runtime's threads, the upstream pool, the allocator.
    let warm = request(addr, Workload::Text);
    let mut conn = Conn::open(addr).await?;
    for _ in 0..16 {
        conn.stream(&warm, None).await?;
    }
    drop(conn);
    let idle_kib = settled_rss(proxy).await;
    upstream.set_released(false);
    let req = Arc::new(request(addr, Workload::Hold));
    // A stream counts as open once half the chunks before the pause reached the client.
    let progress = Arc::new(Progress {
        at: (upstream.hold_at / 2).max(1),
        reached: Default::default(),
    });
    let tasks: Vec<_> = (0..streams)
        .map(|_| {
            let (req, progress) = (req.clone(), progress.clone());
            tokio::spawn(async move {
                let mut conn = Conn::open(addr).await?;
                conn.stream(&req, Some(&progress)).await.map(|_| ())
            })
        })
        .collect();
    let wait = Instant::now();
    while progress.reached.load(Ordering::Relaxed) < streams {
        if wait.elapsed() > Duration::from_secs(30) {
            upstream.set_released(true);
            return Err(format!(
                "only {} of {streams} held streams started in 30 s",
                progress.reached.load(Ordering::Relaxed)
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Let the rest of the chunks before the pause arrive and the proxy settle.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let burst_kib = (0..3)
        .map(|_| {
            std::thread::sleep(Duration::from_millis(50));
            proxy.rss_kib()
        })
        .max()
        .unwrap_or(0);
    let held_kib = settled_rss(proxy).await;
    upstream.set_released(true);
    let mut errors = 0;
    for t in tasks {
        if !matches!(t.await, Ok(Ok(()))) {
            errors += 1;
        }
    }
    Ok(Held {
        streams,
        idle_kib,
        held_kib,
        burst_kib,
        errors,
    })
}
