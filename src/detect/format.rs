//! The trait every text dialect implements, and what a parser reports.
//!
//! A dialect is two things: a [`TextFormat`] that recognises the start of a call
//! at a start byte (a bounded look-ahead: [`Probe`]), and the [`CallParser`] it
//! returns, a state machine that consumes the call region incrementally and
//! emits events through a [`CallSink`]. Adding a dialect is one module with
//! these two types plus one row in the dialect table (`core::for_each_format!`).

use crate::core::{DiagnosticKind, ToolCatalog, WireFormat};

use super::config::DetectConfig;

use super::sink::CallSink;

/// What a format's look-ahead decided about the bytes at a start byte.
pub(crate) enum Probe {
    /// Not a call of this format: the start byte is text.
    NoMatch,
    /// Cannot decide yet: hold the bytes back.
    NeedMore,
    /// A call region begins here; the parser consumes it from its first byte.
    Match(Box<dyn CallParser>),
}

/// A set of formats, one bit each (a stream's formats so far: a `Vec`
/// would be an allocation per stream for a byte or two).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FormatSet(u64);

impl FormatSet {
    /// The format's bit; formats past the 64th share the last one (never
    /// true today: a test checks that every format has its own).
    fn bit(format: WireFormat) -> u64 {
        1u64 << (format as u32).min(63)
    }

    /// Whether `format` is in the set.
    pub(crate) fn contains(self, format: WireFormat) -> bool {
        self.0 & Self::bit(format) != 0
    }

    /// Adds `format`.
    pub(crate) fn insert(&mut self, format: WireFormat) {
        self.0 |= Self::bit(format);
    }
}

/// What a probe may know besides the bytes.
pub(crate) struct ProbeContext<'a> {
    /// The registered tools.
    pub(crate) catalog: &'a ToolCatalog,
    /// The input ends after the given bytes.
    pub(crate) eof: bool,
    /// No visible text came before the start byte (only whitespace, or regions
    /// such as reasoning or calls): the start of the message.
    pub(crate) at_start: bool,
    /// The formats of regions this stream accepted so far (for dialects whose
    /// later markers only count once the stream has shown the dialect).
    pub(crate) seen: FormatSet,
    /// The detector's configuration.
    pub(crate) config: &'a DetectConfig,
}

impl ProbeContext<'_> {
    /// Whether this stream already had a region of `format`.
    pub(crate) fn has_seen(&self, format: WireFormat) -> bool {
        self.seen.contains(format)
    }

    /// `NeedMore` unless the input is known to end here (then `NoMatch`).
    pub(crate) fn need_more(&self) -> Probe {
        if self.eof {
            Probe::NoMatch
        } else {
            Probe::NeedMore
        }
    }
}

/// A text dialect's recogniser.
pub(crate) trait TextFormat: Send + Sync {
    /// The bytes a call of this format can begin with (the scanner's stop set).
    fn start_bytes(&self) -> &'static [u8];
    /// Decides whether `input` (starting at a start byte) opens a call. Must be
    /// decided within [`super::config::MAX_PROBE_BYTES`] bytes: beyond, the
    /// detector treats `NeedMore` as `NoMatch`.
    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe;
    /// Whether this format is a JSON envelope that may fill a code fence alone.
    fn fence_envelope(&self) -> bool {
        false
    }
    /// The dialect's framing tokens (`formats/framing.rs`): special tokens
    /// around its output that are removed from the text wherever they are.
    /// Each begins with one of [`start_bytes`](Self::start_bytes).
    fn framing(&self) -> &'static [&'static str] {
        &[]
    }
}

/// The result of one [`CallParser::parse`] step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Parsed {
    /// Bytes of the input that belong to the region (consumed).
    pub(crate) used: usize,
    /// What happened.
    pub(crate) status: Status,
}

/// Where a call parser stands after a step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Status {
    /// More input is needed; everything but a bounded look-ahead was consumed.
    NeedMore,
    /// The region ends after `used` bytes.
    Done,
    /// Not a call after all, decided early: the region's first byte is text and
    /// the rest is scanned again.
    Reject,
    /// Markup that did not become a call: the unfinished part goes back as text
    /// with a diagnostic.
    Abandon {
        /// Why.
        kind: DiagnosticKind,
        /// A lowercase explanation.
        message: String,
    },
}

impl Parsed {
    pub(crate) fn need_more(used: usize) -> Self {
        Parsed {
            used,
            status: Status::NeedMore,
        }
    }

    pub(crate) fn done(used: usize) -> Self {
        Parsed {
            used,
            status: Status::Done,
        }
    }

    pub(crate) fn reject() -> Self {
        Parsed {
            used: 0,
            status: Status::Reject,
        }
    }

    pub(crate) fn abandon(used: usize, kind: DiagnosticKind, message: impl Into<String>) -> Self {
        Parsed {
            used,
            status: Status::Abandon {
                kind,
                message: message.into(),
            },
        }
    }
}

/// A call region's incremental parser.
///
/// `parse` gets the unconsumed input (what it left last time followed by the
/// new delta) and returns how much it consumed. It must consume all but a
/// bounded look-ahead, so no byte is examined more than a bounded number of
/// times. With `eof` set it must decide: `Done` (the body is complete),
/// `Abandon`, or `Reject`.
pub(crate) trait CallParser: Send {
    /// Consumes as much of `input` as can be decided.
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed;
}

/// What follows a complete call body: whitespace, then its closing marker or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tail {
    /// The marker follows (after whitespace); the region ends at this offset.
    Closed(usize),
    /// Something else follows, or more whitespace than allowed: the region
    /// ends where the body did.
    Absent,
    /// The stream ended after whitespace.
    Ended,
    /// Cannot tell yet.
    NeedMore,
}

/// Looks for `close` after at most `max_gap` bytes of whitespace at
/// `bytes[i..]`, the body before `i` being complete. Dialects whose closing
/// tag is optional allow [`MAX_TAG_GAP`]; a fence or a required tag any.
///
/// [`MAX_TAG_GAP`]: super::config::MAX_TAG_GAP
pub(crate) fn closing_tag(bytes: &[u8], i: usize, close: &[u8], eof: bool, max_gap: usize) -> Tail {
    let ws = bytes[i..]
        .iter()
        .take(max_gap.saturating_add(1))
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    if ws > max_gap {
        return Tail::Absent;
    }
    let j = i + ws;
    if j == bytes.len() {
        return if eof { Tail::Ended } else { Tail::NeedMore };
    }
    match super::scan::starts(&bytes[j..], close) {
        Some(true) => Tail::Closed(j + close.len()),
        None if !eof => Tail::NeedMore,
        _ => Tail::Absent,
    }
}

/// Where a region whose body is complete ends: after its optional closing
/// tag `close` (at most [`MAX_TAG_GAP`] bytes of whitespace before it), else
/// where the body did. `None`: cannot tell yet.
///
/// [`MAX_TAG_GAP`]: super::config::MAX_TAG_GAP
pub(crate) fn body_end(bytes: &[u8], i: usize, close: Option<&str>, eof: bool) -> Option<usize> {
    let Some(close) = close else {
        return Some(i);
    };
    match closing_tag(bytes, i, close.as_bytes(), eof, super::config::MAX_TAG_GAP) {
        Tail::Closed(end) => Some(end),
        Tail::Absent | Tail::Ended => Some(i),
        Tail::NeedMore => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_its_own_bit_in_a_format_set() {
        for (i, &a) in WireFormat::ALL.iter().enumerate() {
            let mut set = FormatSet::default();
            set.insert(a);
            for (j, &b) in WireFormat::ALL.iter().enumerate() {
                assert_eq!(set.contains(b), i == j, "{a:?} then {b:?}");
            }
        }
    }
}
