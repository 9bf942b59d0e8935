//! A code fence whose whole content is one JSON call envelope: the fence belongs
//! to the call's region. Anything else in the fence makes it plain code (text).

use crate::core::DiagnosticKind;

use super::super::format::{CallParser, Parsed, Status, Tail, closing_tag};
use super::super::sink::CallSink;

/// Where a fenced call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FenceState {
    /// Consuming the opener, info string and whitespace. -> Inner.
    Opener { left: usize },
    /// Inside the envelope. -> Closing.
    Inner,
    /// After the envelope: whitespace, then the closing fence. -> done.
    Closing,
}

/// Wraps an envelope parser in a fence.
pub(crate) struct FencedCall {
    inner: Box<dyn CallParser>,
    ticks: usize,
    state: FenceState,
}

impl FencedCall {
    /// `opener` bytes (backticks, info string, whitespace) precede the envelope.
    pub(crate) fn new(inner: Box<dyn CallParser>, ticks: usize, opener: usize) -> Self {
        Self {
            inner,
            ticks,
            state: FenceState::Opener { left: opener },
        }
    }
}

impl CallParser for FencedCall {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.state {
                FenceState::Opener { left } => {
                    let n = left.min(bytes.len() - i);
                    i += n;
                    if left > n {
                        self.state = FenceState::Opener { left: left - n };
                        return Parsed::need_more(i);
                    }
                    self.state = FenceState::Inner;
                }
                FenceState::Inner => {
                    let mut inner_sink = CallSink {
                        catalog: sink.catalog,
                        base: sink.base + i,
                        events: &mut *sink.events,
                        record: &mut *sink.record,
                        next_index: &mut *sink.next_index,
                        floor: sink.floor,
                        region: sink.region,
                        input: sink.input,
                    };
                    let parsed = self.inner.parse(&input[i..], eof, &mut inner_sink);
                    i += parsed.used;
                    match parsed.status {
                        Status::Done => self.state = FenceState::Closing,
                        Status::NeedMore => return Parsed::need_more(i),
                        Status::Reject => return Parsed::reject(),
                        Status::Abandon { kind, message } => {
                            return Parsed::abandon(i, kind, message);
                        }
                    }
                }
                FenceState::Closing => {
                    let fence = "`".repeat(self.ticks);
                    return match closing_tag(bytes, i, fence.as_bytes(), eof, usize::MAX) {
                        Tail::Closed(end) => Parsed::done(end),
                        Tail::Ended => Parsed::done(i),
                        Tail::NeedMore => Parsed::need_more(i),
                        Tail::Absent => Parsed::abandon(
                            i,
                            DiagnosticKind::Invalid,
                            "the code fence holds more than one call envelope",
                        ),
                    };
                }
            }
        }
    }
}
