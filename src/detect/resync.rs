//! Skipping a broken element of a shared block (a section of calls, an XML
//! block of invokes) to where the block can go on, so that one broken call
//! does not take its neighbours down: the element goes back as text with a
//! diagnostic (`CallSink::broken`) and the next element is read as usual.
//!
//! Two rules say where a skip stops: tokens (the element's end tag, the next
//! element's start, the block's end; [`Resync`]), or, in a Python call list,
//! the call's brackets and strings ([`CallSkip`], `resync/brackets.rs`).
//!
//! Only the failure path comes here; a valid call never does.

mod brackets;

pub(crate) use brackets::CallSkip;

use super::scan::{find1, starts};
use super::sink::CallSink;
use crate::core::WireFormat;

/// The tokens a skip stops at. Every token begins with `<`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Resync {
    /// The element's own end (it belongs to the element).
    pub(crate) end: &'static str,
    /// What may follow an element: the next one's start, the block's end
    /// (they do not belong to the element).
    pub(crate) next: [&'static str; 2],
}

/// Where the skip of a broken element stops.
#[derive(Debug)]
pub(crate) enum Rule {
    /// At a token.
    Tokens(Resync),
    /// Where a Python call's brackets and strings say.
    Call(CallSkip),
}

impl From<Resync> for Rule {
    fn from(resync: Resync) -> Self {
        Self::Tokens(resync)
    }
}

/// A broken element being skipped.
#[derive(Debug)]
pub(crate) struct Broken {
    /// Region offset of the element's first byte.
    pub(crate) start: usize,
    /// The tool name, when the element's header was read.
    pub(crate) name: Option<String>,
    /// The name is not a registered tool: the element goes back as an
    /// unknown tool's, whatever else is wrong with it.
    pub(crate) unknown: bool,
    /// Why the element is broken.
    pub(crate) why: String,
    /// Where the skip stops.
    pub(crate) rule: Rule,
}

impl Broken {
    /// A broken element from region offset `start`.
    #[cold]
    pub(crate) fn new(
        start: usize,
        name: Option<String>,
        unknown: bool,
        why: String,
        rule: Rule,
    ) -> Box<Self> {
        Box::new(Self {
            start,
            name,
            unknown,
            why,
            rule,
        })
    }

    /// Looks for the element's end in `rest` (see [`skip_to`] and [`CallSkip`]).
    pub(crate) fn skip(&mut self, rest: &[u8], eof: bool) -> Skip {
        match &mut self.rule {
            Rule::Tokens(resync) => skip_to(rest, &[resync.end], &resync.next, eof),
            Rule::Call(call) => call.skip(rest, eof),
        }
    }

    /// Records the element, ending at region offset `end`, as text.
    #[cold]
    pub(crate) fn give_back(self, end: usize, format: WireFormat, sink: &mut CallSink<'_>) {
        match self.name {
            Some(name) if self.unknown => sink.unknown(self.start, end, &name, format),
            name => sink.broken(self.start, end, name, format, self.why),
        }
    }
}

/// Where a skip stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skip {
    /// The broken element ends at this offset: after one of `ends`, or
    /// before one of `next`.
    To(usize),
    /// None found: the bytes before the offset are the element's; from it
    /// on they may begin a token (more input decides).
    NeedMore(usize),
}

/// Looks in `rest` for the first token that ends a broken element: one of
/// `ends` (the element's own end, which belongs to it) or of `next` (what
/// follows an element: the next one's start, the block's end; not the
/// element's). Every token begins with `<`. At `eof` a token cut short is
/// not one.
fn skip_to(rest: &[u8], ends: &[&str], next: &[&str], eof: bool) -> Skip {
    let mut i = 0;
    while let Some(rel) = find1(b'<', &rest[i..]) {
        let at = i + rel;
        let mut cut_short = false;
        for (k, token) in ends.iter().chain(next).enumerate() {
            debug_assert!(token.starts_with('<'), "a resync token begins with `<`");
            match starts(&rest[at..], token.as_bytes()) {
                Some(true) if k < ends.len() => return Skip::To(at + token.len()),
                Some(true) => return Skip::To(at),
                None => cut_short = true,
                Some(false) => {}
            }
        }
        if cut_short && !eof {
            return Skip::NeedMore(at);
        }
        i = at + 1;
    }
    Skip::NeedMore(rest.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_stops_after_an_end_or_before_what_comes_next() {
        let ends = ["</invoke>"];
        let next = ["<invoke", "</block>"];
        let skip = |s: &str, eof| skip_to(s.as_bytes(), &ends, &next, eof);
        assert_eq!(skip("junk < x </invoke> more", false), Skip::To(18));
        assert_eq!(skip("junk <invoke name=", false), Skip::To(5));
        assert_eq!(skip("junk</block>", false), Skip::To(4));
        assert_eq!(skip("junk </inv", false), Skip::NeedMore(5));
        assert_eq!(skip("junk </inv", true), Skip::NeedMore(10));
        assert_eq!(skip("no tag", false), Skip::NeedMore(6));
    }
}
