//! `FormatTable`: a detector's enabled dialects indexed by the bytes their calls
//! can start with (the scanner's stop bytes).
//!
//! The index of every recognised dialect is built once (a private `OnceLock`:
//! it depends on nothing but the recognisers); a detector's table is that index
//! narrowed to its configuration's dialects, built without an allocation when
//! the detector is made, so a new detector per stream stays cheap.

use std::sync::OnceLock;

use crate::core::WireFormat;

use super::config::DetectConfig;
use super::recognisers::{RECOGNISERS, Recogniser};

/// The most distinct stop bytes (the fence backtick included; a test checks
/// that every start byte fits).
const MAX_STOPS: usize = 8;

/// Stop bytes, sorted, each with the recognisers that can start at it
/// (bit `i` is `RECOGNISERS[i]`, so candidates come in probing order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FormatTable {
    stops: [u8; MAX_STOPS],
    candidates: [u64; MAX_STOPS],
    n_stops: u8,
}

impl FormatTable {
    /// The table of the dialects `config` enables.
    pub(crate) fn new(config: &DetectConfig) -> Self {
        let index = index();
        let enabled = config
            .formats
            .iter()
            .fold(0, |mask, &format| mask | index.bit_of(format));
        let every = &index.every;
        let mut table = Self::empty();
        for i in 0..usize::from(every.n_stops) {
            let stop = every.stops[i];
            let candidates = every.candidates[i] & enabled;
            if candidates != 0 || stop == b'`' {
                table.push(stop, candidates);
            }
        }
        table
    }

    /// Every byte that may start a call region, and the fence backtick; sorted.
    #[inline]
    pub(crate) fn stops(&self) -> &[u8] {
        &self.stops[..usize::from(self.n_stops)]
    }

    /// The enabled dialects that can start at `byte`, in probing order.
    #[inline]
    pub(crate) fn candidates(&self, byte: u8) -> Candidates {
        let mask = self
            .stops()
            .iter()
            .position(|&b| b == byte)
            .map_or(0, |i| self.candidates[i]);
        Candidates(mask)
    }

    fn empty() -> Self {
        Self {
            stops: [0; MAX_STOPS],
            candidates: [0; MAX_STOPS],
            n_stops: 0,
        }
    }

    /// Adds `stop` (in sorted order: callers go through sorted bytes).
    fn push(&mut self, stop: u8, candidates: u64) {
        let n = usize::from(self.n_stops);
        if n < MAX_STOPS {
            self.stops[n] = stop;
            self.candidates[n] = candidates;
            self.n_stops += 1;
        }
    }
}

/// Recognisers, one bit each, lowest (earliest in probing order) first.
pub(crate) struct Candidates(u64);

impl Iterator for Candidates {
    type Item = &'static Recogniser;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        RECOGNISERS.get(i)
    }
}

/// Every recogniser's table, and each format's recogniser bit.
struct Index {
    every: FormatTable,
    /// By `WireFormat` discriminant: the bit of the format's recogniser (none
    /// for a structured format).
    bits: [u64; 64],
    /// By byte: whether it is the second byte of some dialect's framing token.
    framing_second: [bool; 256],
}

/// Whether `second`, the byte after a start byte, can continue a framing token
/// of any dialect (`formats/framing.rs`): the test that spares the other
/// start bytes asking the dialects for their tokens.
#[inline]
pub(crate) fn framing_may_follow(second: u8) -> bool {
    index().framing_second[usize::from(second)]
}

impl Index {
    fn bit_of(&self, format: WireFormat) -> u64 {
        self.bits.get(format as usize).copied().unwrap_or(0)
    }
}

/// The index of every recogniser, built once.
fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let recognisers = || RECOGNISERS.iter().take(64).enumerate();
        let mut bytes: Vec<u8> = RECOGNISERS
            .iter()
            .flat_map(|r| r.text.start_bytes().iter().copied())
            .collect();
        bytes.push(b'`');
        bytes.sort_unstable();
        bytes.dedup();
        let mut every = FormatTable::empty();
        for b in bytes {
            let candidates = recognisers()
                .filter(|(_, r)| r.text.start_bytes().contains(&b))
                .fold(0, |mask, (i, _)| mask | 1 << i);
            every.push(b, candidates);
        }
        let mut bits = [0; 64];
        for (i, r) in recognisers() {
            if let Some(bit) = bits.get_mut(r.format as usize) {
                *bit |= 1 << i;
            }
        }
        let mut framing_second = [false; 256];
        for token in RECOGNISERS.iter().flat_map(|r| r.text.framing()) {
            if let Some(&b) = token.as_bytes().get(1) {
                framing_second[usize::from(b)] = true;
            }
        }
        Index {
            every,
            bits,
            framing_second,
        }
    })
}
