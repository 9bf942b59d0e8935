//! How a call region ends: accepted as calls (with any unknown tool's element
//! given back as text), or abandoned, its unfinished part given back as text
//! with a `Malformed` diagnostic.

use crate::core::{DetectEvent, Diagnostic, DiagnosticKind, WireFormat};

use super::super::batch::EventBatch;
use super::super::scan::leading_ws;
use super::super::sink::{RegionRecord, TextSpan};
use super::{Mode, StreamDetector};

impl StreamDetector {
    /// Offset of the marker in the region (after held separator whitespace).
    #[inline]
    pub(super) fn region_marker_offset(&self, region: &str) -> usize {
        leading_ws(region.as_bytes())
    }

    /// The region ended as parsed.
    #[inline]
    pub(super) fn accept(&mut self, format: WireFormat, floor: usize, out: &mut EventBatch) {
        let region = std::mem::take(&mut self.region);
        let record = std::mem::take(&mut self.record);
        let region_len = region.len() + record.uncopied;
        if self.echo_accept(&record, region_len, out) {
            return;
        }
        self.mode = Mode::Text;
        debug_assert!(
            !record.gives_back() || record.uncopied == 0,
            "a region to give back is whole"
        );
        if record.completed == 0 && !record.kept {
            // Markup of the dialect naming only unknown tools still shows the
            // stream speaks it (harmony's later headers count from then on).
            if record.text_spans.iter().any(|s| s.broken.is_none()) {
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
        self.give_back_spans(&region, &record.text_spans, region_len, floor, out);
        self.boundary = record.text_spans.last().is_none_or(|s| s.end < region_len);
        self.line_start = false;
        if self.boundary {
            self.held_ws = 0;
        }
        self.echo_source(
            format,
            region,
            record.completed > 0 && record.text_spans.is_empty(),
        );
    }

    /// The region did not end as a call: give back what is not a finished call.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(super) fn abandon(
        &mut self,
        format: WireFormat,
        fence: Option<usize>,
        kind: DiagnosticKind,
        message: String,
        floor: usize,
        out: &mut EventBatch,
    ) {
        self.echo_release(out);
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
        // The calls and the elements given back on their own stand; the rest
        // goes back as one piece.
        let spans_end = record.text_spans.last().map_or(0, |s| s.end);
        let cut = record.committed_to.max(spans_end).min(region.len());
        self.give_back_spans(&region, &record.text_spans, cut, floor, out);
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
                span.diagnostic()
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

    /// Gives back the elements of unknown tools and broken calls (`spans`) that end by `end`,
    /// and records the rest of `region[..end]` as call regions.
    fn give_back_spans(
        &mut self,
        region: &str,
        spans: &[TextSpan],
        end: usize,
        floor: usize,
        out: &mut EventBatch,
    ) {
        let mut pos = 0;
        for span in spans.iter().filter(|s| s.end <= end) {
            self.add_region(self.region_at + pos..self.region_at + span.start);
            self.give_back_span(&region[span.start..span.end], span, floor, out);
            pos = span.end;
        }
        self.add_region(self.region_at + pos..self.region_at + end);
    }

    fn give_back_span(&mut self, raw: &str, span: &TextSpan, floor: usize, out: &mut EventBatch) {
        let (kind, name, message) = span.diagnostic();
        out.push(DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind,
                format: span.format,
                name,
                message,
                raw: raw.to_owned(),
            },
        });
        self.emit_text(raw, floor, out);
    }
}
