//! `KeptMarker`: a region that is only a marker, removed from the visible text
//! without being a call: wrappers of visible text such as Cohere's
//! `<|START_RESPONSE|>`/`<|END_RESPONSE|>` or Hunyuan's `<answer>`/`</answer>`.
//! The text between the wrappers is ordinary text, scanned as usual.

use super::super::format::{CallParser, Parsed};
use super::super::sink::CallSink;

/// Consumes a marker of a known length (already matched by the probe) and keeps it.
#[derive(Debug)]
pub(crate) struct KeptMarker {
    left: usize,
}

impl KeptMarker {
    /// A marker of `len` bytes at the start of the input.
    pub(crate) fn new(len: usize) -> Self {
        Self { left: len }
    }
}

impl CallParser for KeptMarker {
    fn parse(&mut self, input: &str, _eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        // The probe saw the whole marker, so it is all here; a short input is
        // handled anyway by keeping what there is.
        let n = self.left.min(input.len());
        self.left -= n;
        sink.keep(sink.base + n);
        Parsed::done(n)
    }
}
