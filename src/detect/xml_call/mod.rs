//! The call parser shared by the XML-style dialects: a block of entries (calls),
//! each a list of parameters whose values stream as JSON-escaped fragments.
//!
//! The dialects differ only in their syntax, given by [`XmlSpec`]
//! (`xml_syntax.rs`): how a block is wrapped, how an entry opens and closes,
//! how a parameter opens and closes. Values follow the contract: at most one
//! leading and one trailing newline are stripped, nothing is decoded (but
//! XML's predefined entities where the spec says so, [`XmlSpec::entities`]:
//! the XML tag dialect under `DetectConfig::xml_entities`), and a
//! closing tag ends a value only when the next structural tag (or end of
//! stream) follows it; in Qwen3-Coder, a line that opens another parameter
//! the schema declares ends a value lacking its closing tag
//! ([`XmlSpec::opener_ends_value`]). A value is typed by its schema where it ends
//! ([`xml_value`]: Python's `True`/`False`/`None` read where the schema says
//! boolean or allows null); a string streams as it comes, except that a
//! string which may be null waits while it could still be `null` or `None`.
//!
//! In a block of several entries, a broken entry (text or a stray tag where
//! its parameters belong, an opener that does not read) does not take the
//! others down: it is skipped to its end tag (or to the next entry or the
//! block's end, whichever comes first) and goes back as text with an
//! `invalid` diagnostic, like an unknown tool's entry; a call it had started
//! never ends.

mod entry;

use crate::core::DiagnosticKind;

use super::format::{CallParser, Parsed};
use super::resync::{Broken, Resync, Skip};
use super::scan::{find1, leading_ws, starts};
use super::sink::{CallSink, finished_call};
use super::xml_syntax::{EntrySyntax, Open, XmlSpec, entry_open};
use entry::{Entry, EntryState, EntryStep};

/// Where a block parser is.
#[derive(Debug)]
enum BlockState {
    /// Consuming the probe-confirmed opener. -> Entry (named) or Between.
    Opening { left: usize },
    /// Between entries: whitespace, then an entry, the block close, or the end. -> Entry / done.
    Between,
    /// Inside an entry. -> Between / done.
    Entry(Box<Entry>),
    /// A broken entry of a block, skipped to its end tag, the next entry
    /// or the block's close. -> Between.
    Skip(Box<Broken>),
}

/// The parser of one XML-style call region.
#[derive(Debug)]
pub(crate) struct XmlCallParser {
    spec: XmlSpec,
    state: BlockState,
    entries: usize,
}

impl XmlCallParser {
    pub(crate) fn new(spec: XmlSpec) -> Self {
        let left = spec.open_len;
        Self {
            spec,
            state: BlockState::Opening { left },
            entries: 0,
        }
    }

    fn new_entry(&mut self, name: String, start: usize, sink: &mut CallSink<'_>) -> Box<Entry> {
        self.entries += 1;
        let call = sink
            .is_tool(&name)
            .then(|| sink.start(None, &name, self.spec.format));
        Entry::new(
            start,
            self.spec.entry_close(&name),
            name,
            call,
            self.spec.entities,
        )
    }
}

impl CallParser for XmlCallParser {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        // The common step of a streamed value: a delta inside it with no `<`
        // (which could end it) and no trailing newline (which could precede
        // its closing tag) is all value. The same as the state machine's path
        // below, without its dispatch; a delta with a `<` takes that path,
        // which looks for the `<` again (at most twice over its prefix), as
        // does every delta of a value whose entities are decoded.
        if let BlockState::Entry(entry) = &mut self.state
            && entry.state == (EntryState::Value { fresh: false })
            && !entry.entities
            && !eof
            && bytes.last().is_some_and(|&b| b != b'\n')
            && find1(b'<', bytes).is_none()
        {
            entry.push_value(sink, input, 0, bytes.len());
            return Parsed::need_more(bytes.len());
        }
        let mut i = 0;
        loop {
            match &mut self.state {
                BlockState::Opening { left } => {
                    let n = (*left).min(bytes.len() - i);
                    i += n;
                    *left -= n;
                    if *left > 0 {
                        return Parsed::need_more(i);
                    }
                    self.state = match self.spec.entry.clone() {
                        EntrySyntax::Named { name } => {
                            BlockState::Entry(self.new_entry(name, 0, sink))
                        }
                        EntrySyntax::Headed { name, .. } => {
                            BlockState::Entry(self.new_entry(name, 0, sink))
                        }
                        _ => BlockState::Between,
                    };
                }
                BlockState::Between => {
                    let ws = leading_ws(&bytes[i..]);
                    let j = i + ws;
                    let end_here = |entries: usize, i: usize| {
                        if entries > 0 {
                            Parsed::done(i)
                        } else {
                            Parsed::abandon(i, DiagnosticKind::Invalid, "the block holds no call")
                        }
                    };
                    if j == bytes.len() {
                        if eof {
                            if self.entries > 0 {
                                return Parsed::done(i);
                            }
                            return Parsed::abandon(
                                j,
                                DiagnosticKind::Unfinished,
                                "the stream ended inside the block",
                            );
                        }
                        return Parsed::need_more(i);
                    }
                    if let Some(close) = self.spec.block_close {
                        match starts(&bytes[j..], close.as_bytes()) {
                            Some(true) => return end_here(self.entries, j + close.len()),
                            None if !eof => return Parsed::need_more(i),
                            _ => {}
                        }
                    }
                    match entry_open(&self.spec.entry, &input[j..]) {
                        Open::Match(name, len) => {
                            let entry = self.new_entry(name, sink.base + j, sink);
                            self.state = BlockState::Entry(entry);
                            i = j + len;
                        }
                        Open::NeedMore if !eof => return Parsed::need_more(i),
                        // A separator token between entries (Step-3's stray
                        // `<｜tool_sep｜>`) belongs to the block.
                        _ if self.spec.entry_separator().is_some_and(|sep| {
                            starts(&bytes[j..], sep.as_bytes()) != Some(false)
                        }) =>
                        {
                            let sep = self.spec.entry_separator().unwrap_or_default();
                            if j + sep.len() > bytes.len() {
                                if eof {
                                    return end_here(self.entries, i);
                                }
                                return Parsed::need_more(i);
                            }
                            i = j + sep.len();
                        }
                        _ => match resync(&self.spec) {
                            // An entry's opener that does not read: a broken entry.
                            Some(resync)
                                if starts(&bytes[j..], resync.next[0].as_bytes()) == Some(true) =>
                            {
                                self.entries += 1;
                                let why = "the entry's opening tag does not read".to_owned();
                                let broken =
                                    Broken::new(sink.base + j, None, false, why, resync.into());
                                self.state = BlockState::Skip(broken);
                                i = j + resync.next[0].len();
                            }
                            _ => return end_here(self.entries, i),
                        },
                    }
                }
                BlockState::Entry(entry) => {
                    let step = entry.parse(input, i, eof, sink, &self.spec);
                    match step {
                        EntryStep::NeedMore(n) => return Parsed::need_more(n),
                        EntryStep::Invalid(n, message) => {
                            let Some(resync) = resync(&self.spec) else {
                                return Parsed::abandon(n, DiagnosticKind::Invalid, message);
                            };
                            self.break_entry(message, resync);
                            i = n;
                        }
                        EntryStep::Ended(n) => {
                            i = n;
                            let end = sink.base + i;
                            let BlockState::Entry(entry) =
                                std::mem::replace(&mut self.state, BlockState::Between)
                            else {
                                unreachable!("state was matched as an entry above")
                            };
                            let entry = *entry;
                            match entry.call {
                                Some((index, id)) => {
                                    if entry.json.is_none() {
                                        let close = if entry.n_params == 0 { "{}" } else { "}" };
                                        sink.args(index, close);
                                    }
                                    let call =
                                        finished_call(id, entry.name, entry.args, self.spec.format);
                                    sink.end(index, call, end);
                                }
                                None => {
                                    sink.unknown(entry.start, end, &entry.name, self.spec.format)
                                }
                            }
                            if self.spec.single() {
                                return Parsed::done(i);
                            }
                        }
                    }
                }
                BlockState::Skip(broken) => {
                    let to = match broken.skip(&bytes[i..], eof) {
                        Skip::To(n) => i + n,
                        Skip::NeedMore(n) if !eof => return Parsed::need_more(i + n),
                        Skip::NeedMore(_) => bytes.len(),
                    };
                    // The state is the skip matched above.
                    if let BlockState::Skip(broken) =
                        std::mem::replace(&mut self.state, BlockState::Between)
                    {
                        broken.give_back(sink.base + to, self.spec.format, sink);
                    }
                    i = to;
                }
            }
        }
    }
}

impl XmlCallParser {
    /// The entry being read is broken (`why`): skip it.
    #[cold]
    #[inline(never)]
    fn break_entry(&mut self, why: String, resync: Resync) {
        let state = std::mem::replace(&mut self.state, BlockState::Between);
        let BlockState::Entry(e) = state else {
            self.state = state;
            return;
        };
        let unknown = e.call.is_none();
        let broken = Broken::new(e.start, Some(e.name), unknown, why, resync.into());
        self.state = BlockState::Skip(broken);
    }
}

/// Where the skip of a broken entry stops, for blocks of several entries:
/// the entry's end tag, the start of the next entry (`next[0]`), the block's
/// close. `None` for one-entry regions, which go back whole when broken.
fn resync(spec: &XmlSpec) -> Option<Resync> {
    let (end, entry) = match spec.entry {
        EntrySyntax::FunctionEq => ("</function>", "<function="),
        EntrySyntax::InvokeName => ("</invoke>", "<invoke"),
        EntrySyntax::DsmlInvoke => ("</｜DSML｜invoke>", "<｜DSML｜invoke"),
        // The call's own end token ends the entry, with or without `</steptml:invoke>`.
        EntrySyntax::StepInvoke => ("<｜tool_call_end｜>", "<｜tool_call_begin｜>"),
        EntrySyntax::Named { .. } | EntrySyntax::Headed { .. } => return None,
    };
    Some(Resync {
        end,
        next: [entry, spec.block_close.unwrap_or(entry)],
    })
}
