//! `StreamDetector`: the single-pass scanner that finds call regions in streamed
//! text, hands each to its format's parser, and turns the rest into text events.
//!
//! The scanner keeps one buffer of unconsumed input (`pending`) and a cursor.
//! Between calls it jumps from start byte to start byte (`memchr`), releasing
//! everything before as text; at a start byte the enabled formats probe a
//! bounded look-ahead. Inside a region the format's parser consumes the input.
//! Only undecided look-ahead is kept between deltas, so each byte is examined a
//! bounded number of times.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::core::{DetectEvent, Diagnostic, DiagnosticKind, JsonObject, ToolCatalog, WireFormat};
use crate::detect::scan::{leading_ws, push_short};

use super::batch::EventBatch;
use super::config::{DetectConfig, MAX_PROBE_BYTES};
use super::format::{CallParser, FormatSet, Probe, ProbeContext, Status, TextFormat};
use super::formats;
use super::output::EventOutput;
use super::output::sealed::SpareBatch;
use super::reasoning::ReasoningBlock;
use super::sink::{CallSink, RegionRecord, finished_call};
use super::table::FormatTable;

/// What the scanner is doing.
enum Mode {
    /// Visible text; looking for start bytes. -> Call (a probe matched), FenceOpen (``` at a line start).
    Text,
    /// A fence opener was seen; deciding whether its content is one call envelope.
    /// -> Call (envelope) or Fence (plain code).
    FenceOpen {
        /// Backticks in the opener.
        ticks: usize,
        /// Held separator whitespace before the opener (after a call).
        lead: usize,
    },
    /// Inside a plain code fence: text until a closing fence. -> Text.
    Fence {
        /// Backticks in the opener.
        ticks: usize,
    },
    /// Inside a call region, driven by its parser. -> Text (or Fence when a
    /// fenced envelope is given back as text).
    Call {
        parser: Box<dyn CallParser>,
        format: WireFormat,
        /// Backticks of the fence around the region, if fenced.
        fence: Option<usize>,
    },
}

/// A structured (provider-side) call in progress.
#[derive(Debug)]
struct StructuredCall {
    index: usize,
    id: String,
    name: String,
    format: WireFormat,
    args: String,
    over_limit: bool,
}

/// The streaming tool-call detector.
///
/// Feed it text deltas with [`feed`](Self::feed), then call
/// [`finish`](Self::finish) once at end of stream. Structured provider calls
/// enter the same event stream through [`structured_start`](Self::structured_start),
/// [`structured_args`](Self::structured_args) and
/// [`structured_end`](Self::structured_end).
///
/// ```
/// use std::sync::Arc;
/// use toolrouter::detect::{DetectConfig, StreamDetector};
/// use toolrouter::{DetectEvent, JsonObject, ToolCatalog};
///
/// let schema: JsonObject = serde_json::from_str(r#"{"type":"object","properties":{"path":{"type":"string"}}}"#).unwrap();
/// let catalog = Arc::new(ToolCatalog::from_schemas([("read_file", &schema)]));
/// let mut detector = StreamDetector::new(catalog, DetectConfig::default());
/// let mut events = Vec::new();
/// for delta in ["Reading.\n<read_", "file><path>src/a", ".rs</path></read_file>"] {
///     detector.feed(delta, &mut events);
/// }
/// detector.finish(&mut events);
/// let call = events.iter().find_map(|e| match e {
///     DetectEvent::CallEnd { call, .. } => Some(call.clone()),
///     _ => None,
/// }).unwrap();
/// assert_eq!(call.name, "read_file");
/// assert_eq!(call.arguments["path"], "src/a.rs");
/// ```
pub struct StreamDetector {
    catalog: Arc<ToolCatalog>,
    config: DetectConfig,
    /// Stop bytes and the formats each can start.
    table: FormatTable,
    pending: String,
    /// Absolute offset of `pending[0]`.
    pending_at: usize,
    mode: Mode,
    /// The open region's text as far as it was parsed (held separator
    /// whitespace included).
    region: String,
    region_at: usize,
    record: RegionRecord,
    /// The last thing before the cursor is the stream start or a call region.
    boundary: bool,
    /// Leading bytes of `pending` known to be held whitespace.
    held_ws: usize,
    /// Everything since the last newline is spaces or tabs.
    line_start: bool,
    next_index: usize,
    structured: HashMap<u64, StructuredCall>,
    regions: Vec<Range<usize>>,
    finished: bool,
    /// No visible text has been emitted yet.
    at_start: bool,
    /// Formats of the regions accepted so far.
    seen: FormatSet,
    /// Why the last step abandoned its region (see [`StepStatus`]).
    abandoned: Option<(DiagnosticKind, String)>,
    /// See [`spare_batch`](Self::spare_batch).
    spare: Option<Box<EventBatch>>,
}

/// What one run of a region's parser did.
struct CallStep {
    /// Input bytes the parser used.
    used: usize,
    status: StepStatus,
    /// End of stream as the parser saw it (not when the region hit its limit).
    eof: bool,
    format: WireFormat,
    fence: Option<usize>,
}

/// A parser step's [`Status`] without its payload. The step is read right
/// after the parser wrote it; copying the whole `Status` (32 bytes, written by
/// the parser as one tag) stalls on store forwarding once per delta, so only
/// the tag travels and an abandon's reason waits in
/// [`StreamDetector::abandoned`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepStatus {
    NeedMore,
    Done,
    Reject,
    Abandon,
}

/// A region's first allocation (when it opens with held text, or at its
/// parser's first step): one for a typical call, or for what the input
/// already holds of a longer one, instead of a doubling series.
#[cold]
#[inline(never)]
fn reserve_region(region: &mut String, input: usize) {
    region.reserve(REGION_START_CAPACITY.max(input));
}

/// Bytes reserved for a call region when it opens.
const REGION_START_CAPACITY: usize = 512;

impl std::fmt::Debug for StreamDetector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamDetector")
            .field("config", &self.config)
            .field("pending", &self.pending.len())
            .field("next_index", &self.next_index)
            .finish_non_exhaustive()
    }
}

/// The batch that owned output ([`EventOutput`] for `Vec<DetectEvent>`) is
/// filled through, kept so that it is allocated once per stream.
impl SpareBatch for StreamDetector {
    fn spare_batch(&mut self) -> &mut Option<Box<EventBatch>> {
        &mut self.spare
    }
}

impl StreamDetector {
    /// A detector for one stream.
    pub fn new(catalog: Arc<ToolCatalog>, config: DetectConfig) -> Self {
        let table = FormatTable::new(&config);
        let mode = if config.start_in_reasoning {
            Mode::Call {
                parser: Box::new(ReasoningBlock::inside(formats::think::CLOSE)),
                format: WireFormat::Think,
                fence: None,
            }
        } else {
            Mode::Text
        };
        Self {
            catalog,
            config,
            table,
            pending: String::new(),
            pending_at: 0,
            mode,
            region: String::new(),
            region_at: 0,
            record: RegionRecord::default(),
            boundary: true,
            held_ws: 0,
            line_start: true,
            next_index: 0,
            structured: HashMap::new(),
            regions: Vec::new(),
            finished: false,
            at_start: true,
            seen: FormatSet::default(),
            abandoned: None,
            spare: None,
        }
    }

    /// Feeds the next text delta; appends the events it decides to `out`
    /// (a `Vec<DetectEvent>`, or an [`EventBatch`]: the same events, stored
    /// flat, and faster to fill and read).
    pub fn feed(&mut self, delta: &str, out: &mut impl EventOutput) {
        out.run(self, |detector, batch| detector.feed_batch(delta, batch));
    }

    fn feed_batch(&mut self, delta: &str, out: &mut EventBatch) {
        if self.finished || delta.is_empty() {
            return;
        }
        let floor = out.written();
        if self.pending.is_empty() && matches!(self.mode, Mode::Call { .. }) {
            // Inside a call with nothing held back: the parser reads the delta
            // itself, and only what it leaves is copied into `pending`.
            let step = self.parse_call(delta, false, floor, out);
            // Look at the step in place: moving it out of the `Option` right
            // after the parser wrote it field by field stalls on store
            // forwarding (measured: 8-22 % at 16 KB in 4-byte deltas).
            let Some(used) = step.as_ref().map(|s| s.used) else {
                return;
            };
            self.pending_at += used;
            let rest = &delta[used..];
            if rest.is_empty()
                && step
                    .as_ref()
                    .is_some_and(|s| s.status == StepStatus::NeedMore)
            {
                return;
            }
            self.pending.push_str(rest);
            let Some(step) = step else {
                return;
            };
            if let Some(cur) = self.settle_call(0, step, floor, out) {
                self.run_from(cur, false, floor, out);
            }
            return;
        }
        self.pending.push_str(delta);
        self.run_from(0, false, floor, out);
    }

    /// Ends the stream: decides everything held back, gives unfinished markup
    /// back as text, and reports structured calls left open.
    pub fn finish(&mut self, out: &mut impl EventOutput) {
        out.run(self, Self::finish_batch);
    }

    fn finish_batch(&mut self, out: &mut EventBatch) {
        if self.finished {
            return;
        }
        self.run(true, out);
        self.finished = true;
        let mut open: Vec<StructuredCall> = self.structured.drain().map(|(_, c)| c).collect();
        open.sort_by_key(|c| c.index);
        for call in open {
            out.push(DetectEvent::Malformed {
                diagnostic: Diagnostic {
                    kind: DiagnosticKind::Unfinished,
                    format: call.format,
                    name: Some(call.name),
                    message: format!(
                        "structured call {} ended before its arguments were closed",
                        call.id
                    ),
                    raw: call.args,
                },
            });
        }
    }

    /// The byte ranges of the input that belong to call regions (calls and
    /// their separators), when [`DetectConfig::record_regions`] is set.
    pub fn call_regions(&self) -> &[Range<usize>] {
        &self.regions
    }

    /// The number of calls started so far (text and structured).
    pub fn calls_started(&self) -> usize {
        self.next_index
    }

    /// A structured provider call begins (`key` is the provider's own handle,
    /// e.g. the OpenAI `tool_calls` index or the Anthropic content block index).
    /// A key still open is ended first.
    pub fn structured_start(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: &str,
        format: WireFormat,
        out: &mut impl EventOutput,
    ) {
        out.run(self, |detector, batch| {
            detector.structured_start_batch(key, id, name, format, batch)
        });
    }

    fn structured_start_batch(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: &str,
        format: WireFormat,
        out: &mut EventBatch,
    ) {
        if self.structured.contains_key(&key) {
            self.structured_end_batch(key, out);
        }
        let index = self.next_index;
        self.next_index += 1;
        let id = super::sink::call_id(id);
        out.push_start(index, &id, name, format);
        self.structured.insert(
            key,
            StructuredCall {
                index,
                id,
                name: name.to_owned(),
                format,
                args: String::new(),
                over_limit: false,
            },
        );
    }

    /// More argument text of a structured call; unknown keys are ignored.
    pub fn structured_args(&mut self, key: u64, fragment: &str, out: &mut impl EventOutput) {
        out.run(self, |detector, batch| {
            detector.structured_args_batch(key, fragment, batch)
        });
    }

    fn structured_args_batch(&mut self, key: u64, fragment: &str, out: &mut EventBatch) {
        let max = self.config.max_call_bytes;
        let Some(call) = self.structured.get_mut(&key) else {
            tracing::debug!(key, "arguments for a structured call that is not open");
            return;
        };
        if call.over_limit || fragment.is_empty() {
            return;
        }
        if call.args.len() + fragment.len() > max {
            call.over_limit = true;
            return;
        }
        call.args.push_str(fragment);
        // Each provider piece is its own event (no merging: floor `MAX`).
        out.push_args(call.index, fragment, usize::MAX);
    }

    /// A structured call is complete. Empty or whitespace-only arguments mean
    /// `{}`; arguments that are not a JSON object give a `Malformed` diagnostic
    /// (no text is returned for structured calls).
    pub fn structured_end(&mut self, key: u64, out: &mut impl EventOutput) {
        out.run(self, |detector, batch| {
            detector.structured_end_batch(key, batch)
        });
    }

    fn structured_end_batch(&mut self, key: u64, out: &mut EventBatch) {
        let Some(call) = self.structured.remove(&key) else {
            return;
        };
        let malformed = |kind, message: String, call: StructuredCall| DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind,
                format: call.format,
                name: Some(call.name),
                message,
                raw: call.args,
            },
        };
        if call.over_limit {
            let message = format!(
                "structured arguments exceed {} bytes",
                self.config.max_call_bytes
            );
            out.push(malformed(DiagnosticKind::LimitExceeded, message, call));
            return;
        }
        let arguments = if super::json_call::is_json_whitespace(&call.args) {
            out.push_args(call.index, "{}", usize::MAX);
            JsonObject::new()
        } else {
            match super::json_value::parse_arguments(&call.args) {
                Ok(args) => args,
                Err(e) => {
                    let message = format!("arguments are not a json object: {e}");
                    out.push(malformed(DiagnosticKind::Invalid, message, call));
                    return;
                }
            }
        };
        out.push(DetectEvent::CallEnd {
            index: call.index,
            call: Box::new(finished_call(call.id, call.name, arguments, call.format)),
        });
    }

    /// Runs the scanner over `pending`.
    fn run(&mut self, eof: bool, out: &mut EventBatch) {
        let floor = out.written();
        self.run_from(0, eof, floor, out);
    }

    /// Runs the scanner over `pending` from `cur`; events of this delta start
    /// at `floor` in `out`.
    fn run_from(&mut self, mut cur: usize, eof: bool, floor: usize, out: &mut EventBatch) {
        loop {
            let progress = match self.mode {
                Mode::Text => self.scan_text(cur, eof, floor, out),
                Mode::FenceOpen { ticks, lead } => {
                    self.scan_fence_open(cur, ticks, lead, eof, floor, out)
                }
                Mode::Fence { ticks } => self.scan_fence(cur, ticks, eof, floor, out),
                Mode::Call { .. } => self.scan_call(cur, eof, floor, out),
            };
            match progress {
                Some(next) => cur = next,
                None => break,
            }
        }
    }

    /// Drops `pending[..cur]` (consumed) and keeps the look-ahead.
    fn keep_from(&mut self, cur: usize) {
        if cur >= self.pending.len() {
            // The common case (a delta wholly consumed): no `Drain` set-up.
            self.pending.clear();
        } else {
            self.pending.drain(..cur);
        }
        self.pending_at += cur;
    }

    /// Emits visible text, merging with the previous text event of this call.
    fn emit_text(&mut self, text: &str, floor: usize, out: &mut EventBatch) {
        if text.is_empty() {
            return;
        }
        self.at_start = false;
        self.note_line(text);
        out.push_text(text, floor);
    }

    /// Emits `pending[range]` as text without an intermediate copy.
    fn emit_pending(&mut self, range: Range<usize>, floor: usize, out: &mut EventBatch) {
        let text = &self.pending[range];
        if text.is_empty() {
            return;
        }
        self.at_start = false;
        self.line_start = line_start_after(self.line_start, text);
        out.push_text(text, floor);
    }

    fn note_line(&mut self, s: &str) {
        self.line_start = line_start_after(self.line_start, s);
    }

    fn add_region(&mut self, range: Range<usize>) {
        if !self.config.record_regions || range.is_empty() {
            return;
        }
        if let Some(last) = self.regions.last_mut()
            && last.end == range.start
        {
            last.end = range.end;
            return;
        }
        self.regions.push(range);
    }

    /// Text mode. Returns the next cursor, or `None` to wait for input.
    fn scan_text(
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

    fn find_stop(&self, from: usize) -> Option<usize> {
        let hay = &self.pending.as_bytes()[from..];
        // Up to three stop bytes per SIMD pass; each later pass only searches
        // before the best hit so far.
        let mut best: Option<usize> = None;
        for group in self.table.stops().chunks(3) {
            let window = &hay[..best.unwrap_or(hay.len())];
            let hit = match *group {
                [a] => super::scan::find1(a, window),
                [a, b] => super::scan::find2(a, b, window),
                [a, b, c] => super::scan::find3(a, b, c, window),
                _ => None,
            };
            if hit.is_some() {
                best = hit;
            }
        }
        best.map(|p| p + from)
    }

    /// Probes the enabled formats, in registration order, at `at`.
    fn probe(&self, at: usize, eof: bool) -> ProbeOutcome {
        self.probe_with(at, usize::MAX, eof, |_| true)
    }

    /// Probes at `at`, seeing at most up to `limit` (an outer look-ahead's end).
    fn probe_with(
        &self,
        at: usize,
        limit: usize,
        eof: bool,
        filter: impl Fn(&dyn TextFormat) -> bool,
    ) -> ProbeOutcome {
        let c = self.pending.as_bytes()[at];
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
        for recogniser in self.table.candidates(c) {
            if !filter(recogniser.text) {
                continue;
            }
            match recogniser.text.probe(&self.pending[at..end], &cx) {
                Probe::NoMatch => {}
                Probe::NeedMore => return ProbeOutcome::NeedMore,
                Probe::Match(parser) => return ProbeOutcome::Match(parser, recogniser.format),
            }
        }
        ProbeOutcome::NoMatch
    }

    /// Starts a region at `start` (held whitespace included); the parser begins at `marker`.
    fn begin_region(
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
        self.held_ws = 0;
        self.boundary = false;
        self.mode = Mode::Call {
            parser,
            format,
            fence,
        };
    }

    /// Just after a fence opener at a line start: decide between a fenced call
    /// envelope and plain code.
    fn scan_fence_open(
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
        let Some(nl) = window
            .get(ticks..)
            .and_then(|info| super::scan::find1(b'\n', info))
        else {
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
    fn scan_fence(
        &mut self,
        mut cur: usize,
        ticks: usize,
        eof: bool,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<usize> {
        loop {
            let bytes = self.pending.as_bytes();
            let Some(rel) = super::scan::find1(b'`', &bytes[cur..]) else {
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

    /// Inside a call region.
    fn scan_call(
        &mut self,
        cur: usize,
        eof: bool,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<usize> {
        let pending = std::mem::take(&mut self.pending);
        let step = self.parse_call(&pending[cur..], eof, floor, out);
        self.pending = pending;
        let step = step?;
        self.settle_call(cur + step.used, step, floor, out)
    }

    /// Runs the region's parser over `input` (the text after the cursor) and
    /// keeps what it used in the region.
    fn parse_call(
        &mut self,
        input: &str,
        eof: bool,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<CallStep> {
        let Mode::Call {
            parser,
            format,
            fence,
        } = &mut self.mode
        else {
            return None;
        };
        let (format, fence) = (*format, *fence);
        let room = self.config.max_call_bytes.saturating_sub(self.region.len());
        let end = floor_char_boundary(input, room);
        let capped = end < input.len();
        let input = &input[..end];
        let eof = eof && !capped;
        let mut sink = CallSink {
            catalog: &self.catalog,
            base: self.region.len(),
            events: out,
            record: &mut self.record,
            next_index: &mut self.next_index,
            floor,
            region: &self.region,
            input,
        };
        let parsed = parser.parse(input, eof, &mut sink);
        let used = parsed.used.min(input.len());
        if !matches!(parsed.status, Status::Done) || self.record.gives_back() {
            if self.region.capacity() == 0 {
                reserve_region(&mut self.region, input.len());
            }
            push_short(&mut self.region, &input[..used]);
        } else {
            // The region ends as calls and `accept` needs only its length:
            // a call whole in one delta is not copied at all.
            self.record.uncopied = used;
        }
        let status = match parsed.status {
            Status::NeedMore if capped => {
                self.abandoned = Some((
                    DiagnosticKind::LimitExceeded,
                    format!("call region exceeds {} bytes", self.config.max_call_bytes),
                ));
                StepStatus::Abandon
            }
            Status::NeedMore => StepStatus::NeedMore,
            Status::Done => StepStatus::Done,
            Status::Reject => StepStatus::Reject,
            Status::Abandon { kind, message } => {
                self.abandoned = Some((kind, message));
                StepStatus::Abandon
            }
        };
        Some(CallStep {
            used,
            status,
            eof,
            format,
            fence,
        })
    }

    /// Acts on a parser step; `next` is the `pending` offset after the used text.
    fn settle_call(
        &mut self,
        next: usize,
        step: CallStep,
        floor: usize,
        out: &mut EventBatch,
    ) -> Option<usize> {
        let CallStep {
            status,
            eof,
            format,
            fence,
            ..
        } = step;
        match status {
            StepStatus::NeedMore if !eof => {
                self.keep_from(next);
                None
            }
            StepStatus::NeedMore => {
                // The parser could not decide at end of stream: unfinished.
                let rest = self.pending[next..].to_owned();
                self.region.push_str(&rest);
                let len = self.pending.len();
                self.abandon(
                    format,
                    fence,
                    DiagnosticKind::Unfinished,
                    "the stream ended inside the call".into(),
                    floor,
                    out,
                );
                Some(len)
            }
            StepStatus::Done => {
                self.accept(format, floor, out);
                Some(next)
            }
            StepStatus::Reject => {
                // Not a call: the first byte of the marker is text, the rest is scanned again.
                let mut full = std::mem::take(&mut self.region);
                full.push_str(&self.pending[next..]);
                let marker_at = self.region_marker_offset(&full);
                let keep_text = (marker_at + 1).min(full.len());
                let text = full[..keep_text].to_owned();
                let again = full[keep_text..].to_owned();
                self.mode = if let Some(ticks) = fence {
                    Mode::Fence { ticks }
                } else {
                    Mode::Text
                };
                self.emit_text(&text, floor, out);
                self.pending = again;
                self.pending_at = self.region_at + keep_text;
                self.record = RegionRecord::default();
                Some(0)
            }
            StepStatus::Abandon => {
                let (kind, message) = self.abandoned.take().unwrap_or((
                    DiagnosticKind::Invalid,
                    "the call's markup was abandoned".to_owned(),
                ));
                self.abandon(format, fence, kind, message, floor, out);
                Some(next)
            }
        }
    }

    /// Offset of the marker in the region (after held separator whitespace).
    fn region_marker_offset(&self, region: &str) -> usize {
        leading_ws(region.as_bytes())
    }

    /// The region ended as parsed.
    fn accept(&mut self, format: WireFormat, floor: usize, out: &mut EventBatch) {
        let region = std::mem::take(&mut self.region);
        let record = std::mem::take(&mut self.record);
        let region_len = region.len() + record.uncopied;
        self.mode = Mode::Text;
        debug_assert!(
            !record.gives_back() || record.uncopied == 0,
            "a region to give back is whole"
        );
        if record.completed == 0 && !record.kept {
            // Markup of the dialect naming only unknown tools still shows the
            // stream speaks it (harmony's later headers count from then on).
            if !record.text_spans.is_empty() {
                self.seen.insert(format);
            }
            self.give_back_all(
                &region,
                format,
                &record,
                DiagnosticKind::Invalid,
                "the markup holds no call".into(),
                floor,
                out,
            );
            return;
        }
        self.seen.insert(format);
        for event in record.deferred {
            out.push(event);
        }
        let mut pos = 0;
        for span in &record.text_spans {
            self.add_region(self.region_at + pos..self.region_at + span.start);
            self.give_back_span(
                &region[span.start..span.end],
                span.format,
                Some(span.name.clone()),
                floor,
                out,
            );
            pos = span.end;
        }
        self.add_region(self.region_at + pos..self.region_at + region_len);
        self.boundary = record.text_spans.last().is_none_or(|s| s.end < region_len);
        self.line_start = false;
        if self.boundary {
            self.held_ws = 0;
        }
    }

    /// The region did not end as a call: give back what is not a finished call.
    #[allow(clippy::too_many_arguments)]
    fn abandon(
        &mut self,
        format: WireFormat,
        fence: Option<usize>,
        kind: DiagnosticKind,
        message: String,
        floor: usize,
        out: &mut EventBatch,
    ) {
        let region = std::mem::take(&mut self.region);
        let record = std::mem::take(&mut self.record);
        self.mode = match fence {
            Some(ticks) => Mode::Fence { ticks },
            None => Mode::Text,
        };
        self.boundary = false;
        if (record.completed == 0 && !record.kept) || fence.is_some() {
            self.give_back_all(&region, format, &record, kind, message, floor, out);
            if let Some(ticks) = fence {
                // The fence is plain code; it is closed already if the region saw it.
                let _ = ticks;
            }
            return;
        }
        for event in record.deferred {
            out.push(event);
        }
        let cut = record.committed_to.min(region.len());
        let mut pos = 0;
        for span in record.text_spans.iter().filter(|s| s.end <= cut) {
            self.add_region(self.region_at + pos..self.region_at + span.start);
            self.give_back_span(
                &region[span.start..span.end],
                span.format,
                Some(span.name.clone()),
                floor,
                out,
            );
            pos = span.end;
        }
        self.add_region(self.region_at + pos..self.region_at + cut);
        let rest = &region[cut..];
        out.push(DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind,
                format,
                name: None,
                message,
                raw: rest.to_owned(),
            },
        });
        self.line_start = false;
        self.emit_text(rest, floor, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn give_back_all(
        &mut self,
        region: &str,
        format: WireFormat,
        record: &RegionRecord,
        kind: DiagnosticKind,
        message: String,
        floor: usize,
        out: &mut EventBatch,
    ) {
        let (kind, name, message) = match record.text_spans.first() {
            Some(span)
                if kind != DiagnosticKind::Unfinished && kind != DiagnosticKind::LimitExceeded =>
            {
                (
                    DiagnosticKind::UnknownTool,
                    Some(span.name.clone()),
                    format!("`{}` is not a registered tool", span.name),
                )
            }
            _ => (kind, None, message),
        };
        // Held separator whitespace before the markup is plain text again.
        let ws = self.region_marker_offset(region);
        self.emit_text(&region[..ws], floor, out);
        out.push(DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind,
                format,
                name,
                message,
                raw: region[ws..].to_owned(),
            },
        });
        self.line_start = false;
        self.emit_text(&region[ws..], floor, out);
    }

    fn give_back_span(
        &mut self,
        raw: &str,
        format: WireFormat,
        name: Option<String>,
        floor: usize,
        out: &mut EventBatch,
    ) {
        let message = match &name {
            Some(n) => format!("`{n}` is not a registered tool"),
            None => "not a call".to_owned(),
        };
        out.push(DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind: DiagnosticKind::UnknownTool,
                format,
                name,
                message,
                raw: raw.to_owned(),
            },
        });
        self.emit_text(raw, floor, out);
    }
}

enum ProbeOutcome {
    NoMatch,
    NeedMore,
    Match(Box<dyn CallParser>, WireFormat),
}

/// Whether everything after the last newline of `s` is spaces or tabs (`before`:
/// the same for what came before `s`).
fn line_start_after(before: bool, s: &str) -> bool {
    let blank = |t: &str| t.bytes().all(|b| b == b' ' || b == b'\t');
    match memchr::memrchr(b'\n', s.as_bytes()) {
        Some(p) => blank(&s[p + 1..]),
        None => before && blank(s),
    }
}

/// The largest char boundary at or below `i`.
pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Parses a whole text at once: feed it, then finish.
pub fn detect_all(text: &str, catalog: Arc<ToolCatalog>, config: DetectConfig) -> Vec<DetectEvent> {
    let mut detector = StreamDetector::new(catalog, config);
    let mut out = Vec::new();
    detector.feed(text, &mut out);
    detector.finish(&mut out);
    out
}
