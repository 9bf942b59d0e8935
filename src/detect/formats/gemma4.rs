//! Gemma 4: `<|tool_call>call:NAME{key:<|"|>value<|"|>,n:3}<tool_call|>`, and its
//! thought channel `<|channel>thought\n…<channel|>` (reasoning).
//!
//! Keys are bare, strings are delimited by the special token `<|"|>` (no
//! escapes: the content is kept byte-exact), numbers and `true`/`false` are
//! bare, lists `[…]` and objects `{k:v}` nest. One call per block; blocks back
//! to back are parallel calls. `<|tool_call>` shares its first bytes with
//! Granite's `<|tool_call|>`; the byte after `call` tells them apart. The end
//! of a turn (Gemma 4's `<turn|>`, Gemma 2 and 3's `<end_of_turn>`) is a
//! framing token (removed from the text).

use crate::core::{DiagnosticKind, JsonObject, WireFormat};

use super::super::format::{CallParser, Parsed, Probe, ProbeContext, TextFormat, body_end};
use super::super::py_literal::{ArgsConv, Step, Syntax};
use super::super::reasoning::ReasoningParser;
use super::super::scan::starts;
use super::super::sink::{CallSink, finished_call};
use super::super::xml_syntax::{Open, match_open};

const OPEN: &str = "<|tool_call>call:";
const CLOSE: &str = "<tool_call|>";
const THOUGHT: &str = "<|channel>thought";
const THOUGHT_CLOSE: &str = "<channel|>";
/// The end of a turn: Gemma 4's, then Gemma 2 and 3's.
const FRAMING: &[&str] = &["<turn|>", "<end_of_turn>"];

/// The Gemma 4 dialect.
pub(crate) struct Gemma4;

impl TextFormat for Gemma4 {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let bytes = input.as_bytes();
        match starts(bytes, THOUGHT.as_bytes()) {
            Some(true) => {
                // The channel name is followed by a newline, then the thought.
                return match bytes.get(THOUGHT.len()) {
                    None => cx.need_more(),
                    Some(b'\n') => Probe::Match(Box::new(ReasoningParser::new(
                        THOUGHT.len() + 1,
                        THOUGHT_CLOSE,
                    ))),
                    Some(b'<') => {
                        Probe::Match(Box::new(ReasoningParser::new(THOUGHT.len(), THOUGHT_CLOSE)))
                    }
                    Some(_) => Probe::NoMatch,
                };
            }
            None if !cx.eof => return Probe::NeedMore,
            _ => {}
        }
        match match_open(input, OPEN, "{", name_byte, 256) {
            Open::Match(name, len) => Probe::Match(Box::new(GemmaCall {
                state: GState::Opening { left: len },
                name,
                start: None,
                call: None,
                arguments: None,
            })),
            Open::NeedMore => cx.need_more(),
            Open::NoMatch => Probe::NoMatch,
        }
    }
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

enum GState {
    /// Consuming `<|tool_call>call:NAME{`. -> Args.
    Opening { left: usize },
    /// Inside the arguments. -> Close.
    Args(Box<ArgsConv>),
    /// After the closing `}`: the end token. -> done.
    Close,
}

/// One Gemma 4 call block.
struct GemmaCall {
    state: GState,
    name: String,
    /// Region offset of the marker.
    start: Option<usize>,
    call: Option<(usize, String)>,
    arguments: Option<JsonObject>,
}

impl GemmaCall {
    /// The block ended at region offset `end`.
    fn finish(&mut self, used: usize, sink: &mut CallSink<'_>) -> Parsed {
        let end = sink.base + used;
        match (self.call.take(), self.arguments.take()) {
            (Some((index, id)), Some(arguments)) => sink.end(
                index,
                finished_call(id, &self.name, arguments, WireFormat::Gemma4),
                end,
            ),
            _ => sink.unknown(self.start.unwrap_or(0), end, &self.name, WireFormat::Gemma4),
        }
        Parsed::done(used)
    }
}

impl CallParser for GemmaCall {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let mut i = 0;
        self.start.get_or_insert(sink.base);
        loop {
            match &mut self.state {
                GState::Opening { left } => {
                    let n = (*left).min(bytes.len());
                    i += n;
                    *left -= n;
                    if *left > 0 {
                        return Parsed::need_more(i);
                    }
                    self.call = sink
                        .is_tool(&self.name)
                        .then(|| sink.start(None, &self.name, WireFormat::Gemma4));
                    self.state = GState::Args(Box::new(ArgsConv::new(Syntax::Gemma)));
                }
                GState::Args(conv) => {
                    let index = self.call.as_ref().map(|c| c.0);
                    match conv.feed_streaming(&input[i..], eof, &self.name, index, sink) {
                        Step::NeedMore(n) => return Parsed::need_more(i + n),
                        Step::Invalid(n, message) => {
                            return Parsed::abandon(i + n, DiagnosticKind::Invalid, message);
                        }
                        Step::Done(n) => {
                            i += n;
                            if self.call.is_some() {
                                match conv.arguments() {
                                    Ok(a) => self.arguments = Some(a),
                                    Err(message) => {
                                        return Parsed::abandon(
                                            i,
                                            DiagnosticKind::Invalid,
                                            message,
                                        );
                                    }
                                }
                            }
                            self.state = GState::Close;
                        }
                    }
                }
                GState::Close => {
                    // The body is complete; only the end token may be missing.
                    return match body_end(bytes, i, Some(CLOSE), eof) {
                        Some(end) => self.finish(end, sink),
                        None => Parsed::need_more(i),
                    };
                }
            }
        }
    }
}
