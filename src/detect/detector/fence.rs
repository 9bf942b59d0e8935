//! Code fences: a fence opener at a line start either holds one call envelope
//! (a fenced call) or is plain code, text up to its closing fence.

use super::super::batch::EventBatch;
use super::super::config::MAX_PROBE_BYTES;
use super::super::formats;
use super::super::scan::{find1, leading_ws};
use super::scanner::ProbeOutcome;
use super::{Mode, StreamDetector};

impl StreamDetector {
    /// Just after a fence opener at a line start: decide between a fenced call
    /// envelope and plain code.
    #[inline]
    pub(super) fn scan_fence_open(
        &mut self,
        start: usize,
        ticks: usize,
        lead: usize,
        eof: bool,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<usize> {
        let cur = start + lead;
        let bytes = self.pending.as_bytes();
        let window = &bytes[cur..bytes.len().min(cur + MAX_PROBE_BYTES)];
        let capped = bytes.len() > cur + MAX_PROBE_BYTES;
        let mut plain = |this: &mut Self| {
            this.mode = Mode::Fence { ticks };
            this.emit_pending(start..cur + ticks, floor, out);
            Some(cur + ticks)
        };
        // Info string: up to the end of the line.
        // (A run of backticks longer than the look-ahead is plain text.)
        let Some(nl) = window.get(ticks..).and_then(|info| find1(b'\n', info)) else {
            if eof || capped {
                return plain(self);
            }
            self.keep_from(start);
            return None;
        };
        let body = ticks + nl + 1;
        let ws = leading_ws(&window[body..]);
        let first = body + ws;
        if first == window.len() {
            if eof || capped {
                return plain(self);
            }
            self.keep_from(start);
            return None;
        }
        if window[first] != b'{' {
            return plain(self);
        }
        match self.probe_with(cur + first, cur + MAX_PROBE_BYTES, eof, |f| {
            f.fence_envelope()
        }) {
            ProbeOutcome::Match(parser, format) => {
                let parser = Box::new(formats::fenced::FencedCall::new(parser, ticks, first));
                self.begin_region(start, cur, parser, format, Some(ticks));
                Some(cur)
            }
            ProbeOutcome::NeedMore if !capped => {
                self.keep_from(start);
                None
            }
            _ => plain(self),
        }
    }

    /// Inside plain code: text up to and including a closing fence.
    #[inline]
    pub(super) fn scan_fence(
        &mut self,
        mut cur: usize,
        ticks: usize,
        eof: bool,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<usize> {
        loop {
            let bytes = self.pending.as_bytes();
            let Some(rel) = find1(b'`', &bytes[cur..]) else {
                self.emit_pending(cur..self.pending.len(), floor, out);
                let len = self.pending.len();
                self.keep_from(len);
                return None;
            };
            let at = cur + rel;
            if at > cur {
                self.emit_pending(cur..at, floor, out);
            }
            let bytes = self.pending.as_bytes();
            let run = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            let len = bytes.len();
            if self.line_start && at + run == len && !eof {
                self.keep_from(at);
                return None;
            }
            let closes = self.line_start && run >= ticks;
            self.emit_pending(at..at + run, floor, out);
            cur = at + run;
            if closes {
                self.mode = Mode::Text;
                return Some(cur);
            }
        }
    }
}
