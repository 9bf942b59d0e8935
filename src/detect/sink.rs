//! `CallSink`: how a call parser emits events and records what it found in its region.

use std::borrow::Cow;

use crate::core::{
    DetectEvent, DiagnosticKind, JsonObject, ToolCall, ToolCatalog, WireFormat, new_call_id,
};

use super::batch::EventBatch;

/// A stretch of a region that goes back as text: an entry naming an unknown
/// tool, or a broken entry of a block whose other entries may still be calls.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TextSpan {
    /// Region offset of the first byte.
    pub(crate) start: usize,
    /// Region offset after the last byte.
    pub(crate) end: usize,
    /// The tool name, when one was read.
    pub(crate) name: Option<String>,
    /// The entry's format.
    pub(crate) format: WireFormat,
    /// Why a broken entry is not a call; `None`: it names an unknown tool.
    pub(crate) broken: Option<String>,
}

impl TextSpan {
    /// The diagnostic's kind, tool name and message.
    pub(crate) fn diagnostic(&self) -> (DiagnosticKind, Option<String>, String) {
        match (&self.broken, &self.name) {
            (Some(why), name) => (DiagnosticKind::Invalid, name.clone(), why.clone()),
            (None, Some(name)) => (
                DiagnosticKind::UnknownTool,
                Some(name.clone()),
                format!("`{name}` is not a registered tool"),
            ),
            (None, None) => (DiagnosticKind::UnknownTool, None, "not a call".to_owned()),
        }
    }
}

/// What happened inside the current region, kept by the detector.
#[derive(Debug, Default)]
pub(crate) struct RegionRecord {
    /// Calls ended in this region.
    pub(crate) completed: usize,
    /// Region offset just after the last completed call.
    pub(crate) committed_to: usize,
    /// Entries that go back as text.
    pub(crate) text_spans: Vec<TextSpan>,
    /// Hold `CallEnd` events until the region is accepted (fenced envelopes).
    pub(crate) defer_end: bool,
    /// Held `CallEnd` events.
    pub(crate) deferred: Vec<DetectEvent>,
    /// The region is removed from the text even without a call (reasoning,
    /// wrappers of visible text, dialect headers), up to `committed_to`.
    pub(crate) kept: bool,
    /// Bytes of the region's last step not copied into the detector's
    /// region text: a region that ends as calls with nothing to give back
    /// is only measured.
    pub(crate) uncopied: usize,
}

impl RegionRecord {
    /// Whether accepting the region gives some of its text back (it holds
    /// no call and was not kept, or it has entries naming unknown tools):
    /// the detector then needs the region's text, not only its length.
    pub(crate) fn gives_back(&self) -> bool {
        (self.completed == 0 && !self.kept) || !self.text_spans.is_empty()
    }
}

/// The parser's handle for emitting events.
pub(crate) struct CallSink<'a> {
    /// The registered tools.
    pub(crate) catalog: &'a ToolCatalog,
    /// Region offset of the first byte of the input given to this `parse` call.
    pub(crate) base: usize,
    pub(crate) events: &'a mut EventBatch,
    pub(crate) record: &'a mut RegionRecord,
    pub(crate) next_index: &'a mut usize,
    /// Events before this index belong to earlier deltas and are never merged into.
    pub(crate) floor: usize,
    /// The region's text so far, before this step's input.
    pub(crate) region: &'a str,
    /// This step's input as the detector gave it (at region offset
    /// `region.len()`; a nested parser's `base` may lie further in).
    pub(crate) input: &'a str,
}

impl<'a> CallSink<'a> {
    /// The region's text from offset `start` to `end`: borrowed when it lies
    /// in the region so far or in this step's input, copied once when it
    /// spans both; `None` for offsets outside them.
    pub(crate) fn region_text(&self, start: usize, end: usize) -> Option<Cow<'a, str>> {
        let split = self.region.len();
        if start >= split {
            let input = self.input.get(start - split..end.checked_sub(split)?)?;
            return Some(Cow::Borrowed(input));
        }
        if end <= split {
            return self.region.get(start..end).map(Cow::Borrowed);
        }
        let (head, tail) = (self.region.get(start..)?, self.input.get(..end - split)?);
        let mut text = String::with_capacity(head.len() + tail.len());
        text.push_str(head);
        text.push_str(tail);
        Some(Cow::Owned(text))
    }

    /// Whether `name` is a registered tool.
    pub(crate) fn is_tool(&self, name: &str) -> bool {
        self.catalog.contains(name)
    }

    /// Emits `CallStart`; returns the call's index and id.
    pub(crate) fn start(
        &mut self,
        id: Option<&str>,
        name: &str,
        format: WireFormat,
    ) -> (usize, String) {
        let index = *self.next_index;
        *self.next_index += 1;
        let id = call_id(id);
        self.events.push_start(index, &id, name, format);
        (index, id)
    }

    /// Emits an `ArgsDelta` (nothing for an empty fragment).
    pub(crate) fn args(&mut self, index: usize, fragment: &str) {
        if fragment.is_empty() {
            return;
        }
        self.events.push_args(index, fragment, self.floor);
    }

    /// Emits `s` JSON-escaped (without quotes) as an `ArgsDelta`, escaped
    /// straight into the event (nothing for an empty `s`).
    pub(crate) fn args_escaped(&mut self, index: usize, s: &str) {
        self.events.push_args_escaped(index, s, self.floor);
    }

    /// Emits `CallEnd`; `end` is the region offset just after the call's markup.
    pub(crate) fn end(&mut self, index: usize, call: ToolCall, end: usize) {
        let event = DetectEvent::CallEnd {
            index,
            call: Box::new(call),
        };
        if self.record.defer_end {
            self.record.deferred.push(event);
        } else {
            self.events.push(event);
        }
        self.record.completed += 1;
        self.record.committed_to = end;
    }

    /// Emits reasoning text, merging with the previous reasoning event of this delta.
    pub(crate) fn reasoning(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.events.push_reasoning(text, self.floor);
    }

    /// Keeps the region up to region offset `end` out of the visible text even
    /// if it holds no call (reasoning, wrappers, headers). What is kept is never
    /// given back: call this only for markup that has been decided.
    pub(crate) fn keep(&mut self, end: usize) {
        self.record.kept = true;
        self.record.committed_to = self.record.committed_to.max(end);
    }

    /// Records an entry naming an unknown tool; its markup goes back as text.
    pub(crate) fn unknown(&mut self, start: usize, end: usize, name: &str, format: WireFormat) {
        self.record.text_spans.push(TextSpan {
            start,
            end,
            name: Some(name.to_owned()),
            format,
            broken: None,
        });
    }

    /// Records a broken entry of a block (its call, if started, never ends);
    /// its markup goes back as text with an `invalid` diagnostic while the
    /// block's other entries stay calls.
    #[cold]
    pub(crate) fn broken(
        &mut self,
        start: usize,
        end: usize,
        name: Option<String>,
        format: WireFormat,
        why: String,
    ) {
        self.record.text_spans.push(TextSpan {
            start,
            end,
            name,
            format,
            broken: Some(why),
        });
    }
}

/// The id a call starts with: the one it carries, else a generated one.
pub(crate) fn call_id(id: Option<&str>) -> String {
    match id {
        Some(id) if !id.is_empty() => id.to_owned(),
        _ => new_call_id(),
    }
}

/// Builds the finished call.
pub(crate) fn finished_call(
    id: String,
    name: impl Into<String>,
    arguments: JsonObject,
    format: WireFormat,
) -> ToolCall {
    ToolCall::new(id, name, Some(arguments), format)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `region_text` over a region "<tool_call>{" and an input "\"a\":1}</tool_call>".
    #[test]
    fn region_text_reads_the_region_the_input_or_both() {
        let catalog = ToolCatalog::default();
        let mut events = EventBatch::new();
        let mut record = RegionRecord::default();
        let mut next_index = 0;
        let sink = CallSink {
            catalog: &catalog,
            base: 12,
            events: &mut events,
            record: &mut record,
            next_index: &mut next_index,
            floor: 0,
            region: "<tool_call>{",
            input: "\"a\":1}</tool_call>",
        };
        let text = |start, end| sink.region_text(start, end);
        assert_eq!(text(11, 18).as_deref(), Some("{\"a\":1}"));
        assert!(matches!(text(11, 18), Some(Cow::Owned(_))));
        assert_eq!(text(12, 18).as_deref(), Some("\"a\":1}"));
        assert!(matches!(text(12, 18), Some(Cow::Borrowed(_))));
        assert_eq!(text(0, 11).as_deref(), Some("<tool_call>"));
        assert!(matches!(text(0, 11), Some(Cow::Borrowed(_))));
        assert_eq!(text(12, 12).as_deref(), Some(""));
        // Offsets past the input, or reversed, are not text.
        assert_eq!(text(11, 31), None);
        assert_eq!(text(18, 14), None);
        assert_eq!(text(31, 32), None);
    }
}
