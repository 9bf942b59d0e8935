//! Test glue: feeding bytes in chosen pieces and summarising.

use std::path::PathBuf;

use serde_json::Value;
use toolrouter_providers::{ProviderDelta, TurnCollector, TurnSummary, Wire};

/// The workspace's recorded streams (`tests/data/streams`), or the folder
/// `TOOLROUTER_STREAMS_DIR` names.
pub(crate) fn fixtures_dir() -> PathBuf {
    match std::env::var_os("TOOLROUTER_STREAMS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/streams"),
    }
}

/// Feeds `bytes` cut at `cuts` (sorted offsets) and returns every delta.
pub(crate) fn deltas_split(wire: Wire, bytes: &[u8], cuts: &[usize]) -> Vec<ProviderDelta> {
    let mut adapter = wire.adapter();
    let mut out = Vec::new();
    let mut from = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        let cut = cut.clamp(from, bytes.len());
        adapter.feed(&bytes[from..cut], &mut out).unwrap();
        from = cut;
    }
    adapter.finish(&mut out).unwrap();
    out
}

/// Feeds the whole input at once.
pub(crate) fn deltas(wire: Wire, bytes: &[u8]) -> Vec<ProviderDelta> {
    deltas_split(wire, bytes, &[])
}

/// Summarises deltas.
pub(crate) fn summarise(deltas: &[ProviderDelta]) -> TurnSummary {
    let mut c = TurnCollector::new();
    c.extend(deltas);
    c.finish()
}

/// Summary of the whole input as JSON.
pub(crate) fn summary_json(wire: Wire, bytes: &[u8]) -> Value {
    summarise(&deltas(wire, bytes)).to_json()
}

/// A small deterministic generator (xorshift64*), so failures replay.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1) as u64) as usize
    }

    /// Random sorted cut points, pieces of 1..=max_piece bytes.
    pub(crate) fn cuts(&mut self, len: usize, max_piece: usize) -> Vec<usize> {
        let mut cuts = Vec::new();
        let mut at = 0;
        while at < len {
            at += 1 + self.below(max_piece);
            cuts.push(at.min(len));
        }
        cuts
    }
}

/// The provider errors among the deltas.
pub(crate) fn errors(deltas: &[ProviderDelta]) -> Vec<(toolrouter_providers::ErrorKind, String)> {
    deltas
        .iter()
        .filter_map(|d| match d {
            ProviderDelta::Error { kind, message } => Some((*kind, message.clone())),
            _ => None,
        })
        .collect()
}
