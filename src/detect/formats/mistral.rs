//! Mistral, both forms (told apart by what follows the marker):
//!
//! - before tokenizer v11: `[TOOL_CALLS] [{"name": "NAME", "arguments": {...}, "id": "Xy7Kq2LmP"}, ...]`
//!   (the space is optional): one JSON array, several objects are parallel
//!   calls, `id` (written after the arguments) is kept as the call id, so a
//!   call starts once its id or the end of its object is seen;
//! - v11 and later: `[TOOL_CALLS]NAME[ARGS]{...}`, optionally
//!   `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}`, one marker per call, the JSON
//!   object ending the call; the `[CALL_ID]` value is the call id.
//!
//! Magistral's reasoning `[THINK]…[/THINK]` is recognised at the start of the
//! message (or anywhere with `reasoning_anywhere`), like `<think>`.
//!
//! The end-of-sequence token `</s>` is a framing token only where it ends the
//! stream (nothing but whitespace after it): elsewhere it is HTML's
//! strikethrough end tag, and stays text.

use crate::core::{DiagnosticKind, WireFormat};

use super::super::format::{CallParser, Parsed, Probe, ProbeContext, TextFormat};
use super::super::json_call::{ArgsCapture, Verdict};
use super::super::json_list::{Body, CallKeys, ListSpec, probe_list};
use super::super::json_tokenizer::{Directive, JsonEvent, JsonTokenizer, TokStatus};
use super::super::reasoning::ReasoningParser;
use super::super::scan::starts;
use super::super::sink::{CallSink, finished_call};
use super::framing::probe_final_token;

/// The end of sequence (a special token, and an HTML end tag).
const EOS: &str = "</s>";
const MARKER: &str = "[TOOL_CALLS]";
const ARGS: &str = "[ARGS]";
const CALL_ID: &str = "[CALL_ID]";
const THINK: &str = "[THINK]";
const THINK_END: &str = "[/THINK]";
/// The longest tool name or call id read by the probe.
const MAX_NAME: usize = 128;

static KEYS: CallKeys = CallKeys {
    name: &["name"],
    args: &["arguments", "parameters"],
    id: &["id"],
};

static SPEC: ListSpec = ListSpec {
    format: WireFormat::Mistral,
    keys: &KEYS,
    body: Body::Array,
    close: None,
};

/// The Mistral dialect.
pub(crate) struct Mistral;

impl TextFormat for Mistral {
    fn start_bytes(&self) -> &'static [u8] {
        b"<["
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        if input.starts_with('<') {
            return probe_final_token(input, EOS, cx);
        }
        let bytes = input.as_bytes();
        if cx.at_start || cx.config.reasoning_anywhere {
            match starts(bytes, THINK.as_bytes()) {
                Some(true) => {
                    return Probe::Match(Box::new(ReasoningParser::new(THINK.len(), THINK_END)));
                }
                None if !cx.eof => return Probe::NeedMore,
                _ => {}
            }
        }
        match starts(bytes, MARKER.as_bytes()) {
            Some(false) => return Probe::NoMatch,
            None => return cx.need_more(),
            Some(true) => {}
        }
        match bytes.get(MARKER.len()) {
            None => cx.need_more(),
            Some(&b) if is_name_byte(b) => probe_v11(input, cx),
            Some(_) => probe_list(input, MARKER, true, &SPEC, cx),
        }
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Reads `[TOOL_CALLS]NAME([CALL_ID]ID)?[ARGS]`.
fn probe_v11(input: &str, cx: &ProbeContext<'_>) -> Probe {
    let bytes = input.as_bytes();
    let name_at = MARKER.len();
    let name_len = bytes[name_at..]
        .iter()
        .take_while(|&&b| is_name_byte(b))
        .count();
    let after = name_at + name_len;
    if after == bytes.len() {
        return if name_len > MAX_NAME {
            Probe::NoMatch
        } else {
            cx.need_more()
        };
    }
    if name_len > MAX_NAME {
        return Probe::NoMatch;
    }
    let name = &input[name_at..after];
    let rest = &bytes[after..];
    match (
        starts(rest, ARGS.as_bytes()),
        starts(rest, CALL_ID.as_bytes()),
    ) {
        (Some(true), _) => Probe::Match(Box::new(V11Parser::new(after + ARGS.len(), name, None))),
        (_, Some(true)) => {
            let id_at = after + CALL_ID.len();
            let id_len = bytes[id_at..]
                .iter()
                .take_while(|&&b| is_name_byte(b))
                .count();
            let id_end = id_at + id_len;
            if id_len > MAX_NAME {
                return Probe::NoMatch;
            }
            match starts(&bytes[id_end..], ARGS.as_bytes()) {
                Some(true) if id_len > 0 => Probe::Match(Box::new(V11Parser::new(
                    id_end + ARGS.len(),
                    name,
                    Some(&input[id_at..id_end]),
                ))),
                None => cx.need_more(),
                _ => Probe::NoMatch,
            }
        }
        (None, _) | (_, None) => cx.need_more(),
        _ => Probe::NoMatch,
    }
}

/// One v11 call: the header (already read by the probe), then the arguments object.
struct V11Parser {
    header_left: usize,
    name: String,
    id: Option<String>,
    /// Region offset of the marker.
    start: Option<usize>,
    call: Option<(usize, String)>,
    tok: JsonTokenizer,
    args: ArgsCapture,
}

impl V11Parser {
    fn new(header_len: usize, name: &str, id: Option<&str>) -> Self {
        Self {
            header_left: header_len,
            name: name.to_owned(),
            id: id.map(str::to_owned),
            start: None,
            call: None,
            tok: JsonTokenizer::raw_value(),
            args: ArgsCapture::default(),
        }
    }
}

impl CallParser for V11Parser {
    fn parse(&mut self, input: &str, _eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let start = *self.start.get_or_insert(sink.base);
        let mut i = 0;
        if self.header_left > 0 {
            let n = self.header_left.min(input.len());
            self.header_left -= n;
            i = n;
            if self.header_left > 0 {
                return Parsed::need_more(i);
            }
            if sink.is_tool(&self.name) {
                self.call = Some(sink.start(self.id.as_deref(), &self.name, WireFormat::Mistral));
            }
        }
        let Self {
            tok, args, call, ..
        } = self;
        let index = call.as_ref().map(|c| c.0);
        let status = tok.feed(&input[i..], &mut |ev| {
            match ev {
                JsonEvent::RawStart(kind, _) => args.start(kind),
                JsonEvent::RawChunk(c) => {
                    args.push(c, index, sink);
                }
                _ => {}
            }
            Directive::Continue
        });
        match status {
            TokStatus::NeedMore => Parsed::need_more(input.len()),
            TokStatus::Done(n) => {
                let used = i + n;
                let end = sink.base + used;
                let Some((index, id)) = self.call.take() else {
                    sink.unknown(start, end, &self.name, WireFormat::Mistral);
                    return Parsed::done(used);
                };
                match self.args.finish(index, sink) {
                    Ok(arguments) => {
                        sink.end(
                            index,
                            finished_call(id, &self.name, arguments, WireFormat::Mistral),
                            end,
                        );
                        Parsed::done(used)
                    }
                    Err(Verdict::Invalid(m)) => Parsed::abandon(used, DiagnosticKind::Invalid, m),
                    Err(Verdict::Reject) => Parsed::reject(),
                }
            }
            TokStatus::Invalid(n) | TokStatus::Stopped(n) => {
                if self.call.is_some() {
                    Parsed::abandon(
                        i + n,
                        DiagnosticKind::Invalid,
                        "the arguments are not valid json",
                    )
                } else {
                    Parsed::reject()
                }
            }
        }
    }
}
