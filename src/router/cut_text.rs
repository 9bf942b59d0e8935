//! `CutTextCalls`: the calls the model wrote into its text that the stream
//! cut off (a Hermes block ended by `max_tokens`), as the turn's partial calls.
//!
//! The detector gives an unfinished call's markup back as visible text, with a
//! `Malformed` diagnostic of kind `Unfinished` holding that markup; a call
//! whose name was known had its `CallStart` before. Each such diagnostic
//! becomes one [`PartialCall`], the shape of a structured call cut off: no
//! id (text calls carry no provider id), the name of the call the markup
//! started (empty when the stream ended before a registered name was read),
//! and the unfinished markup as `raw_arguments`. It is never run, and it is
//! not a completed call for the turn's stop.

use std::collections::VecDeque;

use toolrouter_providers::PartialCall;

use crate::core::{DetectEvent, DiagnosticKind};

/// The text calls of a turn that were cut off.
#[derive(Debug, Default)]
pub(super) struct CutTextCalls {
    /// Text calls started and not ended: index and name. Calls end in the
    /// order they started, one at a time or, in a region that holds its
    /// ends (a fenced envelope of many calls), all at its end: the one
    /// ending is the first.
    open: VecDeque<(usize, String)>,
    /// The calls cut off, in stream order.
    cut: Vec<PartialCall>,
}

impl CutTextCalls {
    /// Follows one event of the detector.
    #[inline]
    pub(super) fn observe(&mut self, event: &DetectEvent) {
        match event {
            DetectEvent::CallStart { index, name, .. } => {
                self.open.push_back((*index, name.clone()));
            }
            DetectEvent::CallEnd { index, .. } => match self.open.front() {
                Some((first, _)) if first == index => {
                    self.open.pop_front();
                }
                _ => self.open.retain(|(i, _)| i != index),
            },
            DetectEvent::Malformed { diagnostic } => match diagnostic.kind {
                DiagnosticKind::Unfinished => {
                    // The call started in this markup: the latest open one
                    // its text names (an open call of a region given back
                    // earlier does not appear in it).
                    let name = self
                        .open
                        .iter()
                        .rev()
                        .map(|(_, name)| name)
                        .find(|name| diagnostic.raw.contains(name.as_str()))
                        .or(diagnostic.name.as_ref())
                        .cloned()
                        .unwrap_or_default();
                    self.open.clear();
                    self.cut.push(PartialCall {
                        id: None,
                        name,
                        raw_arguments: diagnostic.raw.clone(),
                    });
                }
                // A region given back whole: its started calls are over. An
                // unknown tool's element may come before the end of a region
                // whose last call is still open.
                DiagnosticKind::UnknownTool => {}
                _ => self.open.clear(),
            },
            _ => {}
        }
    }

    /// The calls cut off, in stream order.
    pub(super) fn partial_calls(&self) -> impl Iterator<Item = PartialCall> + '_ {
        self.cut.iter().cloned()
    }
}
