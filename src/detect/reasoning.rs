//! `ReasoningParser`: the parser of a reasoning region (`<think>…</think>`,
//! `[THINK]…[/THINK]`, `<|START_THINKING|>…<|END_THINKING|>`, …).
//!
//! Its content is streamed as `Reasoning` events as it arrives, holding back
//! only a possible prefix of the closing marker, and is never given back as
//! text: a block still open at end of stream is reasoning cut short (the model
//! ran out of tokens while thinking), not markup to return. Nothing inside a
//! reasoning block is a call.

use memchr::memmem;

use super::format::{CallParser, Parsed};
use super::sink::CallSink;

/// A reasoning region: an opening marker of `open_len` bytes (already matched
/// by the probe), content, then `close`.
#[derive(Debug)]
pub(crate) struct ReasoningParser {
    /// Bytes of opening marker still to consume.
    open_left: usize,
    close: &'static str,
}

impl ReasoningParser {
    /// A block whose opening marker (`open_len` bytes) starts the input.
    pub(crate) fn new(open_len: usize, close: &'static str) -> Self {
        Self {
            open_left: open_len,
            close,
        }
    }

    /// A block the prompt opened: the input starts inside it.
    pub(crate) fn inside(close: &'static str) -> Self {
        Self::new(0, close)
    }
}

impl CallParser for ReasoningParser {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let mut pos = 0;
        if self.open_left > 0 {
            if input.len() < self.open_left {
                return if eof {
                    // The probe matched the whole marker, so this cannot happen;
                    // keep what there is rather than lose it.
                    sink.keep(sink.base + input.len());
                    Parsed::done(input.len())
                } else {
                    Parsed::need_more(0)
                };
            }
            pos = self.open_left;
            self.open_left = 0;
        }
        let content = &input[pos..];
        if let Some(at) = memmem::find(content.as_bytes(), self.close.as_bytes()) {
            sink.reasoning(&content[..at]);
            let end = pos + at + self.close.len();
            sink.keep(sink.base + end);
            return Parsed::done(end);
        }
        if eof {
            sink.reasoning(content);
            sink.keep(sink.base + input.len());
            return Parsed::done(input.len());
        }
        let hold = held_prefix(content.as_bytes(), self.close.as_bytes());
        let mut upto = content.len() - hold;
        while !content.is_char_boundary(upto) {
            upto -= 1;
        }
        sink.reasoning(&content[..upto]);
        let used = pos + upto;
        sink.keep(sink.base + used);
        Parsed::need_more(used)
    }
}

/// The length of the longest suffix of `hay` that is a proper prefix of `marker`.
pub(crate) fn held_prefix(hay: &[u8], marker: &[u8]) -> usize {
    let max = marker.len().saturating_sub(1).min(hay.len());
    (1..=max)
        .rev()
        .find(|&n| hay[hay.len() - n..] == marker[..n])
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::held_prefix;

    #[test]
    fn held_prefix_finds_the_longest_marker_start_at_the_end() {
        assert_eq!(held_prefix(b"abc</th", b"</think>"), 4);
        assert_eq!(held_prefix(b"abc<", b"</think>"), 1);
        assert_eq!(held_prefix(b"abc", b"</think>"), 0);
        assert_eq!(held_prefix(b"</think", b"</think>"), 7);
        assert_eq!(held_prefix(b"", b"</think>"), 0);
    }
}
