//! The scanner's text mode: jump from stop byte to stop byte, release the text
//! before each, and ask the dialects that can start at a stop byte to probe a
//! bounded look-ahead; a match opens a call region.

use crate::core::WireFormat;

use super::super::batch::EventBatch;
use super::super::config::MAX_PROBE_BYTES;
use super::super::format::{CallParser, Probe, ProbeContext, TextFormat};
use super::super::formats::framing::probe_tokens;
use super::super::scan::{find1, find2, find3, leading_ws};
use super::super::sink::RegionRecord;
use super::super::table::framing_may_follow;
use super::{Mode, StreamDetector, floor_char_boundary, reserve_region};

/// What the dialects' probes decided at a stop byte.
pub(super) enum ProbeOutcome {
    NoMatch,
    NeedMore,
    Match(Box<dyn CallParser>, WireFormat),
}

impl StreamDetector {
    /// Text mode. Returns the next cursor, or `None` to wait for input.
    #[inline]
    pub(super) fn scan_text(
        &mut self,
        mut cur: usize,
        eof: bool,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<usize> {
        let bytes = self.pending.as_bytes();
        if self.boundary {
            // Whitespace after a call (or the stream start) is held until we know
            // whether a call or real text follows.
            let ws = leading_ws(&bytes[cur + self.held_ws..]);
            self.held_ws += ws;
            let first = cur + self.held_ws;
            let len = bytes.len();
            let first_byte = bytes.get(first).copied();
            if first == len {
                if eof {
                    let at = self.pending_at + cur;
                    self.add_region(at..at + self.held_ws);
                    self.held_ws = 0;
                    self.keep_from(len);
                    return None;
                }
                self.keep_from(cur);
                return None;
            }
            let first_byte = first_byte.unwrap_or(b' ');
            if first_byte == b'`' {
                // A fence after a call: its opener may start a fenced envelope, in
                // which case the whitespace before it is a separator.
                let bytes = self.pending.as_bytes();
                let ws = &bytes[cur..first];
                let at_line_start = match memchr::memrchr(b'\n', ws) {
                    Some(p) => ws[p + 1..].iter().all(|&b| b == b' ' || b == b'\t'),
                    None => self.line_start && ws.iter().all(|&b| b == b' ' || b == b'\t'),
                };
                let ticks = bytes[first..].iter().take_while(|&&b| b == b'`').count();
                if at_line_start && first + ticks == len && !eof {
                    self.keep_from(cur);
                    return None;
                }
                if at_line_start && ticks >= 3 {
                    self.boundary = false;
                    self.held_ws = 0;
                    self.mode = Mode::FenceOpen {
                        ticks,
                        lead: first - cur,
                    };
                    return Some(cur);
                }
            }
            if self.table.stops().contains(&first_byte) && first_byte != b'`' {
                match self.probe(first, eof) {
                    ProbeOutcome::Match(parser, format) => {
                        self.begin_region(cur, first, parser, format, None);
                        return Some(first);
                    }
                    ProbeOutcome::NeedMore => {
                        self.keep_from(cur);
                        return None;
                    }
                    ProbeOutcome::NoMatch => {}
                }
            }
            self.boundary = false;
            self.held_ws = 0;
        }
        loop {
            let next = self.find_stop(cur);
            let Some(at) = next else {
                self.emit_pending(cur..self.pending.len(), floor, out);
                let len = self.pending.len();
                self.keep_from(len);
                return None;
            };
            if at > cur {
                self.emit_pending(cur..at, floor, out);
                cur = at;
            }
            let bytes = self.pending.as_bytes();
            if bytes[at] == b'`' {
                if !self.line_start {
                    self.emit_text("`", floor, out);
                    cur = at + 1;
                    continue;
                }
                let ticks = bytes[at..].iter().take_while(|&&b| b == b'`').count();
                if at + ticks == bytes.len() && !eof {
                    self.keep_from(cur);
                    return None;
                }
                if ticks >= 3 {
                    self.mode = Mode::FenceOpen { ticks, lead: 0 };
                    return Some(cur);
                }
                self.emit_pending(at..at + ticks, floor, out);
                cur = at + ticks;
                continue;
            }
            match self.probe(at, eof) {
                ProbeOutcome::Match(parser, format) => {
                    self.begin_region(at, at, parser, format, None);
                    return Some(at);
                }
                ProbeOutcome::NeedMore => {
                    self.keep_from(cur);
                    return None;
                }
                ProbeOutcome::NoMatch => {
                    self.emit_pending(at..at + 1, floor, out);
                    cur = at + 1;
                }
            }
        }
    }

    #[inline]
    pub(super) fn find_stop(&self, from: usize) -> Option<usize> {
        let hay = &self.pending.as_bytes()[from..];
        // Up to three stop bytes per SIMD pass; each later pass only searches
        // before the best hit so far.
        let mut best: Option<usize> = None;
        for group in self.table.stops().chunks(3) {
            let window = &hay[..best.unwrap_or(hay.len())];
            let hit = match *group {
                [a] => find1(a, window),
                [a, b] => find2(a, b, window),
                [a, b, c] => find3(a, b, c, window),
                _ => None,
            };
            if hit.is_some() {
                best = hit;
            }
        }
        best.map(|p| p + from)
    }

    /// Probes the enabled formats, in registration order, at `at`; where none
    /// matches, their framing tokens.
    #[inline]
    pub(super) fn probe(&self, at: usize, eof: bool) -> ProbeOutcome {
        match self.probe_with(at, usize::MAX, eof, |_| true) {
            ProbeOutcome::NoMatch => self.probe_framing(at, eof),
            decided => decided,
        }
    }

    /// A framing token of an enabled dialect at `at` (`formats/framing.rs`):
    /// a kept region reported in the format of the first dialect listing it.
    #[inline]
    fn probe_framing(&self, at: usize, eof: bool) -> ProbeOutcome {
        let bytes = self.pending.as_bytes();
        if let Some(&second) = bytes.get(at + 1)
            && !framing_may_follow(second)
        {
            return ProbeOutcome::NoMatch;
        }
        self.probe_framing_tokens(at, eof)
    }

    /// The enabled dialects' framing tokens at `at`, in probing order.
    #[cold]
    fn probe_framing_tokens(&self, at: usize, eof: bool) -> ProbeOutcome {
        let (input, cx) = self.probe_window(at, usize::MAX, eof);
        let mut undecided = false;
        for recogniser in self.table.candidates(self.pending.as_bytes()[at]) {
            let tokens = recogniser.text.framing();
            if tokens.is_empty() {
                continue;
            }
            match probe_tokens(input, tokens, &cx) {
                Probe::NoMatch => {}
                Probe::NeedMore => undecided = true,
                Probe::Match(parser) => return ProbeOutcome::Match(parser, recogniser.format),
            }
        }
        if undecided {
            ProbeOutcome::NeedMore
        } else {
            ProbeOutcome::NoMatch
        }
    }

    /// The look-ahead at `at` (at most up to `limit`) and what a probe knows.
    #[inline]
    fn probe_window(&self, at: usize, limit: usize, eof: bool) -> (&str, ProbeContext<'_>) {
        let end = self.pending.len().min(at + MAX_PROBE_BYTES).min(limit);
        let end = floor_char_boundary(&self.pending, end);
        let capped = end < self.pending.len();
        let cx = ProbeContext {
            catalog: &self.catalog,
            eof: eof || capped,
            at_start: self.at_start,
            seen: self.seen,
            config: &self.config,
        };
        (&self.pending[at..end], cx)
    }

    /// Probes at `at`, seeing at most up to `limit` (an outer look-ahead's end).
    pub(super) fn probe_with(
        &self,
        at: usize,
        limit: usize,
        eof: bool,
        filter: impl Fn(&dyn TextFormat) -> bool,
    ) -> ProbeOutcome {
        let c = self.pending.as_bytes()[at];
        let (input, cx) = self.probe_window(at, limit, eof);
        for recogniser in self.table.candidates(c) {
            if !filter(recogniser.text) {
                continue;
            }
            match recogniser.text.probe(input, &cx) {
                Probe::NoMatch => {}
                Probe::NeedMore => return ProbeOutcome::NeedMore,
                Probe::Match(parser) => return ProbeOutcome::Match(parser, recogniser.format),
            }
        }
        ProbeOutcome::NoMatch
    }

    /// Starts a region at `start` (held whitespace included); the parser begins at `marker`.
    #[inline]
    pub(super) fn begin_region(
        &mut self,
        start: usize,
        marker: usize,
        parser: Box<dyn CallParser>,
        format: WireFormat,
        fence: Option<usize>,
    ) {
        self.region.clear();
        if marker > start {
            reserve_region(&mut self.region, self.pending.len() - start);
            self.region.push_str(&self.pending[start..marker]);
        }
        self.region_at = self.pending_at + start;
        self.record = RegionRecord {
            defer_end: fence.is_some(),
            ..RegionRecord::default()
        };
        // `boundary`: only whitespace since the last region.
        self.echo_begin(format, self.boundary && fence.is_none());
        self.held_ws = 0;
        self.boundary = false;
        self.mode = Mode::Call {
            parser,
            format,
            fence,
        };
    }
}
