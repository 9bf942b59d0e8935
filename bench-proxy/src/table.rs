//! The markdown report.

use crate::procs::Floor;
use crate::run::{Burst, Held, Samples};
use crate::upstream::Workload;

/// Streams per second and errors.
pub type Rate = (f64, usize);

/// A LiteLLM row: name, direct and LiteLLM samples, percentile, toolrouter's added.
type Series<'a> = (&'a str, &'a Vec<u64>, &'a Vec<u64>, f64, Option<i64>);

/// Rows gathered as the bench runs.
pub struct Report {
    chunks: usize,
    rows: Vec<String>,
    targets: Vec<(String, bool)>,
    /// toolrouter's added first byte (text workload) at p50 and p99, ns.
    added_first_byte: Option<(i64, i64)>,
    added_per_event: Option<i64>,
    litellm: Vec<String>,
}

/// The `p`-th percentile (nearest rank) of `v`, in ns.
pub fn pct(v: &[u64], p: f64) -> i64 {
    if v.is_empty() {
        return 0;
    }
    let mut s = v.to_vec();
    s.sort_unstable();
    let rank = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[rank.clamp(1, s.len()) - 1] as i64
}

fn us(ns: i64) -> String {
    format!("{:.1} µs", ns as f64 / 1000.0)
}

fn added(ns: i64) -> String {
    format!(
        "{}{:.1} µs",
        if ns >= 0 { "+" } else { "−" },
        ns.abs() as f64 / 1000.0
    )
}

fn yes(met: bool) -> &'static str {
    if met { "**met**" } else { "**not met**" }
}

impl Report {
    /// An empty report for answers of `chunks` chunks.
    pub fn new(chunks: usize) -> Self {
        Self {
            chunks,
            rows: Vec::new(),
            targets: Vec::new(),
            added_first_byte: None,
            added_per_event: None,
            litellm: Vec::new(),
        }
    }

    fn row(&mut self, cells: [&str; 6]) {
        self.rows.push(format!("| {} |", cells.join(" | ")));
    }

    /// The first byte directly and through a floor.
    pub fn floor(&mut self, workload: Workload, floor: Floor, d: Samples, r: Samples) {
        let name = match workload {
            Workload::Tool => "tool call",
            Workload::Paced => "text, 1 ms after the first chunk",
            _ => "text",
        };
        let (dv, rv) = (&d.first_byte, &r.first_byte);
        let (x50, y50, x99, y99) = (pct(dv, 50.0), pct(rv, 50.0), pct(dv, 99.0), pct(rv, 99.0));
        self.row([
            &format!(
                "{name}: first body byte through {}",
                match floor {
                    Floor::Tcp => "a bare TCP relay (the floor)",
                    Floor::Http => "a bare hyper HTTP proxy (the HTTP floor)",
                }
            ),
            &format!("{} / {}", us(x50), us(x99)),
            &format!("{} / {}", us(y50), us(y99)),
            &format!("{} / {}", added(y50 - x50), added(y99 - x99)),
            "",
            "",
        ]);
    }

    /// The latency rows of one workload, p50 / p99 in each cell.
    pub fn latency(&mut self, workload: Workload, d: Samples, p: Samples, cpu: f64) {
        let name = match workload {
            Workload::Tool => "tool call",
            Workload::Paced => "text, 1 ms after the first chunk",
            _ => "text",
        };
        let series: [(&str, &Vec<u64>, &Vec<u64>); 4] = [
            ("first body byte", &d.first_byte, &p.first_byte),
            ("first SSE event", &d.first_event, &p.first_event),
            ("gap between events", &d.gaps, &p.gaps),
            ("stream time per event", &d.per_event, &p.per_event),
        ];
        // The paced workload is there for its first byte only.
        let shown = if workload == Workload::Paced { 1 } else { 4 };
        for &(what, dv, pv) in &series[..shown] {
            let (x50, y50, x99, y99) = (pct(dv, 50.0), pct(pv, 50.0), pct(dv, 99.0), pct(pv, 99.0));
            let (a50, a99) = (y50 - x50, y99 - x99);
            let (target, met) = match what {
                "first body byte" => ("p99 < 100 µs added", Some(a99 < 100_000)),
                "gap between events" | "stream time per event" => {
                    ("p50 < 20 µs added", Some(a50 < 20_000))
                }
                _ => ("", None),
            };
            if workload == Workload::Text && what == "first body byte" {
                self.added_first_byte = Some((a50, a99));
            }
            if workload == Workload::Text && what == "stream time per event" {
                self.added_per_event = Some(a50);
            }
            if let Some(m) = met {
                let shown = if what == "first body byte" { a99 } else { a50 };
                self.targets.push((
                    format!("{name}: {what}: {} added ({target})", added(shown)),
                    m,
                ));
            }
            let label = if what == "first body byte" {
                format!(
                    "{name}: {what} ({} / {} events per stream)",
                    d.events, p.events
                )
            } else {
                format!("{name}: {what}")
            };
            self.row([
                &label,
                &format!("{} / {}", us(x50), us(x99)),
                &format!("{} / {}", us(y50), us(y99)),
                &format!("{} / {}", added(a50), added(a99)),
                target,
                met.map(yes).unwrap_or(""),
            ]);
        }
        self.row([
            &format!("{name}: proxy CPU per stream (user + system)"),
            "",
            &format!("{:.0} µs", cpu * 1e6),
            "",
            "",
            "",
        ]);
    }

    /// Streams per second at one concurrency: (rate, errors) direct and proxied.
    pub fn throughput(&mut self, concurrency: usize, d: (f64, usize), p: (f64, usize)) {
        let errors = |e: usize| {
            if e > 0 {
                format!(" ({e} errors)")
            } else {
                String::new()
            }
        };
        self.row([
            &format!("text: streams per second, {concurrency} concurrent"),
            &format!("{:.0}{}", d.0, errors(d.1)),
            &format!("{:.0}{}", p.0, errors(p.1)),
            &format!("{:.0} % of direct", 100.0 * p.0 / d.0),
            "",
            "",
        ]);
    }

    /// The concurrent streams' outcome.
    pub fn burst(&mut self, b: &Burst) {
        let met = b.errors == 0 && b.tool_calls == b.streams;
        let mut outcome = format!("{} errors in {} streams", b.errors, b.streams);
        if let Some(e) = &b.first_error {
            outcome.push_str(&format!(" (first: {e})"));
        }
        if b.tool_calls != b.streams - b.errors {
            outcome.push_str(&format!(", {} with tool_calls", b.tool_calls));
        }
        self.targets
            .push((format!("256 concurrent streams: {outcome}"), met));
        self.row([
            "tool call: 256 concurrent clients, 4 streams each",
            "",
            &outcome,
            "",
            "no error",
            yes(met),
        ]);
    }

    /// Memory per held stream.
    pub fn memory(&mut self, h: &Held, hold_at: usize, text_bytes: usize) {
        let per = h.per_stream();
        let met = per <= 64.0 * 1024.0 && h.errors == 0;
        let mib = |k: u64| format!("{:.1} MiB", k as f64 / 1024.0);
        self.targets.push((
            format!("memory per open stream: {:.1} KiB (≤ 64 KiB)", per / 1024.0),
            met,
        ));
        self.row([
            &format!(
                "memory per open stream ({} held after {hold_at} chunks, {text_bytes} B of text)",
                h.streams
            ),
            "",
            &format!(
                "{:.1} KiB settled, {:.1} KiB just after the burst (RSS {} idle, {} held{})",
                per / 1024.0,
                h.per_stream_burst() / 1024.0,
                mib(h.idle_kib),
                mib(h.held_kib),
                if h.errors > 0 {
                    format!(", {} errors", h.errors)
                } else {
                    String::new()
                }
            ),
            "",
            "≤ 64 KiB",
            yes(met),
        ]);
    }

    /// Why the LiteLLM baseline did not run.
    pub fn litellm_skipped(&mut self, why: &str) {
        eprintln!("LiteLLM skipped: {why}");
        self.litellm = vec![format!("LiteLLM baseline skipped: {why}")];
    }

    /// The LiteLLM rows: latency pairs (direct, LiteLLM) and rates.
    pub fn litellm(&mut self, d: Samples, l: Samples, rates: Vec<(usize, Rate, Rate)>) {
        let mut rows = vec![
            format!(
                "LiteLLM (text workload, {} pairs, alternating direct and LiteLLM):",
                d.first_byte.len()
            ),
            String::new(),
            "| measure | direct | LiteLLM | added | toolrouter added | LiteLLM ÷ toolrouter |"
                .to_owned(),
            "|---|---|---|---|---|---|".to_owned(),
        ];
        let ratio = |lite: i64, tr: Option<i64>| match tr {
            Some(t) if t > 0 => format!("{:.0}×", lite as f64 / t as f64),
            _ => "n/a".to_owned(),
        };
        let (fb50, fb99) = self.added_first_byte.unzip();
        let series: [Series<'_>; 4] = [
            (
                "first body byte, p50",
                &d.first_byte,
                &l.first_byte,
                50.0,
                fb50,
            ),
            (
                "first body byte, p99",
                &d.first_byte,
                &l.first_byte,
                99.0,
                fb99,
            ),
            ("gap between events, p50", &d.gaps, &l.gaps, 50.0, None),
            (
                "stream time per event, p50",
                &d.per_event,
                &l.per_event,
                50.0,
                self.added_per_event,
            ),
        ];
        for (what, dv, lv, q, tr) in series {
            let (x, y) = (pct(dv, q), pct(lv, q));
            rows.push(format!(
                "| {what} | {} | {} | {} | {} | {} |",
                us(x),
                us(y),
                added(y - x),
                tr.map(added).unwrap_or_default(),
                ratio(y - x, tr)
            ));
            if what.starts_with("first body byte") {
                let met = tr.is_some_and(|t| t * 10 <= y - x);
                self.targets.push((
                    format!(
                        "{what}: toolrouter adds {}, LiteLLM {} (≥ 10× lower)",
                        tr.map(added).unwrap_or_default(),
                        added(y - x)
                    ),
                    met,
                ));
            }
        }
        for (c, x, y) in rates {
            rows.push(format!(
                "| streams per second, {c} concurrent | {:.0} | {:.0}{} | {:.1} % of direct | | |",
                x.0,
                y.0,
                if y.1 > 0 {
                    format!(" ({} errors)", y.1)
                } else {
                    String::new()
                },
                100.0 * y.0 / x.0
            ));
        }
        rows.push(format!(
            "| SSE events per stream | {} | {} | | | |",
            d.events, l.events
        ));
        self.litellm = rows;
    }

    /// The whole report.
    pub fn render(&self) -> String {
        let mut out = format!(
            "Upstream answers of {} content chunks, loopback; toolrouter proxy as a process of its own.\n\n",
            self.chunks
        );
        out.push_str(
            "| measure (latency: p50 / p99) | direct | toolrouter proxy | added | target | |\n",
        );
        out.push_str("|---|---|---|---|---|---|\n");
        for r in &self.rows {
            out.push_str(r);
            out.push('\n');
        }
        if !self.litellm.is_empty() {
            out.push('\n');
            for r in &self.litellm {
                out.push_str(r);
                out.push('\n');
            }
        }
        out.push_str("\nTargets:\n\n");
        for (what, met) in &self.targets {
            out.push_str(&format!("- {}: {what}\n", yes(*met)));
        }
        out
    }
}
