//! `StreamDetector`: the single-pass scanner that finds call regions in streamed
//! text, hands each to its format's parser, and turns the rest into text events.
//!
//! The scanner keeps one buffer of unconsumed input (`pending`) and a cursor.
//! Between calls it jumps from start byte to start byte (`memchr`), releasing
//! everything before as text; at a start byte the enabled formats probe a
//! bounded look-ahead. Inside a region the format's parser consumes the input.
//! Only undecided look-ahead is kept between deltas, so each byte is examined a
//! bounded number of times.

mod echo;
mod fence;
mod region;
mod scanner;

use std::ops::Range;
use std::sync::Arc;

use crate::core::{DetectEvent, DiagnosticKind, ToolCatalog, WireFormat};

use super::batch::EventBatch;
use super::config::DetectConfig;
use super::format::{CallParser, FormatSet, Status};
use super::formats;
use super::output::EventOutput;
use super::output::sealed::SpareBatch;
use super::reasoning::ReasoningParser;
use super::scan::push_short;
use super::sink::{CallSink, RegionRecord};
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

/// The streaming tool-call detector.
///
/// Feed it text deltas with [`feed`](Self::feed), then call
/// [`finish`](Self::finish) once at end of stream. The detector parses text
/// only; a consumer that adds calls of its own to the same index sequence
/// (the router's structured provider calls) takes their indexes from
/// [`reserve_call_index`](Self::reserve_call_index).
///
/// ```
/// use std::sync::Arc;
/// use toolrouter::{DetectConfig, StreamDetector};
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
    pub(super) config: DetectConfig,
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
    /// What recognises a call echoed after its markup (`echo.rs`).
    echo: echo::Echo,
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
                parser: Box::new(ReasoningParser::inside(formats::think::CLOSE)),
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
            regions: Vec::new(),
            finished: false,
            at_start: true,
            seen: FormatSet::default(),
            abandoned: None,
            spare: None,
            echo: echo::Echo::default(),
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

    /// Ends the stream: decides everything held back and gives unfinished
    /// markup back as text.
    pub fn finish(&mut self, out: &mut impl EventOutput) {
        out.run(self, Self::finish_batch);
    }

    fn finish_batch(&mut self, out: &mut EventBatch) {
        if self.finished {
            return;
        }
        self.run(true, out);
        self.finished = true;
    }

    /// The byte ranges of the input that belong to call regions (calls and
    /// their separators), when [`DetectConfig::record_regions`] is set.
    pub fn call_regions(&self) -> &[Range<usize>] {
        &self.regions
    }

    /// The number of call indexes given out so far (text calls and reserved ones).
    pub fn calls_started(&self) -> usize {
        self.next_index
    }

    /// Takes the next call index for a call found elsewhere (a provider's
    /// structured call), so that it shares one index sequence with text calls.
    pub fn reserve_call_index(&mut self) -> usize {
        let index = self.next_index;
        self.next_index += 1;
        index
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
        // A region that may echo the calls before it writes into its own
        // batch until it ends (`echo.rs`).
        let (events, floor) = match self.echo.held_mut() {
            Some(held) => (held, 0),
            None => (out, floor),
        };
        let mut sink = CallSink {
            catalog: &self.catalog,
            base: self.region.len(),
            events,
            record: &mut self.record,
            next_index: &mut self.next_index,
            floor,
            region: &self.region,
            input,
        };
        let parsed = parser.parse(input, eof, &mut sink);
        let used = parsed.used.min(input.len());
        // An LFM2 region is kept whole: its calls may be echoed (`echo.rs`).
        if !matches!(parsed.status, Status::Done)
            || self.record.gives_back()
            || format == WireFormat::Lfm2
        {
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
                self.echo_release(out);
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
