//! Echoed calls: LFM2 sometimes writes its calls a second time right after
//! `<|tool_call_end|>`, as text in another dialect (`[get_weather(city="Paris")]`,
//! a pythonic list). Run as calls, they would run twice.
//!
//! The rule, kept narrow so that no real call is lost: a region that follows
//! an LFM2 call region with nothing but whitespace between, in another
//! dialect, whose calls are exactly the LFM2 region's calls (the same names
//! and the same arguments, in the same order, and nothing else) is an echo.
//! Its events are held while it is parsed (only such a region's: it is the
//! one that could be an echo); an echo is then a kept region (removed from
//! the text, no events, its call indexes given back), anything else releases
//! the held events as they were. Two blocks of the same dialect in a row are
//! parallel calls, never an echo.

use crate::core::{DetectEvent, ToolCall, WireFormat};

use super::super::batch::EventBatch;
use super::super::config::DetectConfig;
use super::super::event_ref::EventRef;
use super::super::sink::RegionRecord;
use super::{Mode, StreamDetector, detect_all};

/// The dialect whose calls are echoed.
const ECHOED: WireFormat = WireFormat::Lfm2;

/// What the detector keeps to recognise an echo.
#[derive(Debug, Default)]
pub(super) struct Echo {
    /// The text of the last LFM2 region that made calls, while nothing but
    /// whitespace followed it (its calls are read again from it, should an
    /// echo candidate follow: keeping them would copy every LFM2 call's
    /// arguments for a rare case).
    source: String,
    /// The events of the region after it, held until it ends.
    held: Option<Box<EventBatch>>,
    /// The first call index the held region could take.
    first_index: usize,
}

impl Echo {
    /// The batch the open region's events go to, if they are held.
    #[inline]
    pub(super) fn held_mut(&mut self) -> Option<&mut EventBatch> {
        self.held.as_deref_mut()
    }
}

impl StreamDetector {
    /// A region of `format` begins; `after_region`: nothing but whitespace
    /// since the last region. Holds its events when it could echo the LFM2
    /// calls before it.
    #[inline]
    pub(super) fn echo_begin(&mut self, format: WireFormat, after_region: bool) {
        if self.echo.source.is_empty() {
            return;
        }
        if after_region && format != ECHOED && format != WireFormat::Think {
            self.echo.held = Some(Box::default());
            self.echo.first_index = self.next_index;
        } else {
            self.echo.source.clear();
        }
    }

    /// A region of `format` was accepted with `region` as its text; `calls`:
    /// it made calls and gave nothing back. Such an LFM2 region becomes the
    /// source of a possible echo.
    #[inline]
    pub(super) fn echo_source(&mut self, format: WireFormat, region: String, calls: bool) {
        if format == ECHOED && calls {
            self.echo.source = region;
        }
    }

    /// The held region was accepted: whether it echoes the source, in which
    /// case it is removed as a kept region of `len` bytes. Otherwise its
    /// events are released into `out`.
    pub(super) fn echo_accept(
        &mut self,
        record: &RegionRecord,
        len: usize,
        out: &mut EventBatch,
    ) -> bool {
        let Some(mut held) = self.echo.held.take() else {
            return false;
        };
        if !self.repeats_source(&held, record) {
            self.echo.source.clear();
            release(&mut held, out);
            return false;
        }
        if self.next_index == self.echo.first_index + record.completed {
            self.next_index = self.echo.first_index;
        }
        self.add_region(self.region_at..self.region_at + len);
        self.mode = Mode::Text;
        self.boundary = true;
        self.held_ws = 0;
        self.line_start = false;
        true
    }

    /// The held region did not end as calls: its events go out as they were.
    #[inline]
    pub(super) fn echo_release(&mut self, out: &mut EventBatch) {
        if let Some(mut held) = self.echo.held.take() {
            self.echo.source.clear();
            release(&mut held, out);
        }
    }

    /// Whether the held calls are the source's calls, and nothing else.
    fn repeats_source(&self, held: &EventBatch, record: &RegionRecord) -> bool {
        if record.completed == 0 || !record.text_spans.is_empty() {
            return false;
        }
        let echoed = calls_in(held.iter());
        if echoed.len() != record.completed {
            return false;
        }
        let source = detect_all(
            &self.echo.source,
            self.catalog.clone(),
            DetectConfig::only(ECHOED).with_max_call_bytes(self.config.max_call_bytes),
        );
        let made: Vec<&ToolCall> = source
            .iter()
            .filter_map(|e| match e {
                DetectEvent::CallEnd { call, .. } => Some(&**call),
                _ => None,
            })
            .collect();
        made.len() == echoed.len()
            && made
                .iter()
                .zip(&echoed)
                .all(|(a, b)| a.name == b.name && a.arguments == b.arguments)
    }
}

/// The finished calls among `events`.
fn calls_in<'a>(events: impl Iterator<Item = EventRef<'a>>) -> Vec<&'a ToolCall> {
    events
        .filter_map(|e| match e {
            EventRef::CallEnd { call, .. } => Some(call),
            _ => None,
        })
        .collect()
}

/// Moves the held events onto the end of `out`, in order.
fn release(held: &mut EventBatch, out: &mut EventBatch) {
    let mut events = Vec::with_capacity(held.len());
    held.drain_into(&mut events);
    for event in events {
        out.push(event);
    }
}
