//! gpt-oss harmony, text form: `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…<|return|>`.
//!
//! A harmony output is a sequence of messages, each a header
//! (`<|start|>ROLE`, `<|channel|>CHANNEL`, an optional `<|constrain|>TYPE`, then
//! `<|message|>`), content, and an end token (`<|end|>`, `<|return|>`,
//! `<|call|>`). The detector sees it as a sequence of small regions:
//!
//! - a message addressed `to=functions.NAME` (in the role or the channel
//!   section), or `to=NAME` naming a registered tool, is one call region:
//!   header, JSON arguments (streamed raw), and the `<|call|>` token if
//!   present, with a channel word the model may write after it when the next
//!   header follows (`<|call|>commentary<|start|>…`); an unknown NAME makes
//!   the whole message text again, as for every dialect;
//! - an `analysis` message, or one addressed to anything else (built-in
//!   tools such as `python`), is one reasoning region:
//!   its content comes out as `Reasoning`, never as text;
//! - the header of any other message (`final`, and `commentary` preambles
//!   meant for the user) is a kept region; its content is left to the scanner
//!   as ordinary visible text, and the end token after it is a kept region.
//!
//! Harmony changes what text means, so it is recognised only where a harmony
//! output can start: a header at the start of the message (nothing visible
//! before), and anywhere once the stream has shown a harmony region. The end
//! tokens are framing tokens too: never text, even where no header counts.

use memchr::memmem;

use crate::core::{DiagnosticKind, ToolCatalog, WireFormat};

use super::super::format::{CallParser, Parsed, Probe, ProbeContext, TextFormat};
use super::super::json_call::{ArgsCapture, Verdict};
use super::super::json_tokenizer::{BracketScan, ValueKind};
use super::super::reasoning::held_prefix;
use super::super::scan::{leading_ws, starts};
use super::super::sink::{CallSink, finished_call};

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const CONSTRAIN: &str = "<|constrain|>";
const MESSAGE: &str = "<|message|>";
const END: &str = "<|end|>";
const RETURN: &str = "<|return|>";
const CALL: &str = "<|call|>";
/// The tokens that end a message.
const END_TOKENS: [&str; 3] = [END, RETURN, CALL];
/// The end tokens, removed from the text wherever they are.
const FRAMING: &[&str] = &END_TOKENS;
/// The recipient prefix of function calls.
const FUNCTIONS: &str = "functions.";
/// The channel words.
const CHANNELS: [&str; 3] = ["analysis", "commentary", "final"];

/// The harmony dialect.
pub(crate) struct Harmony;

impl TextFormat for Harmony {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn framing(&self) -> &'static [&'static str] {
        FRAMING
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        let seen = cx.has_seen(WireFormat::Harmony);
        if !seen && !cx.at_start {
            return Probe::NoMatch;
        }
        let bytes = input.as_bytes();
        let mut undecided = false;
        if seen {
            for token in END_TOKENS {
                match starts(bytes, token.as_bytes()) {
                    Some(true) => return Probe::Match(Box::new(Kept { left: token.len() })),
                    None => undecided = true,
                    Some(false) => {}
                }
            }
        }
        match header(input) {
            HeaderProbe::Header(head) => Probe::Match(head.parser(cx.catalog)),
            HeaderProbe::NeedMore => cx.need_more(),
            HeaderProbe::NoMatch if undecided => cx.need_more(),
            HeaderProbe::NoMatch => Probe::NoMatch,
        }
    }
}

/// A message header read by the probe.
#[derive(Debug, PartialEq, Eq)]
struct Header<'a> {
    /// Bytes of the header, `<|message|>` included.
    len: usize,
    /// The channel name (`analysis`, `commentary`, `final`), if any.
    channel: Option<&'a str>,
    /// The recipient (`to=…`), in the role or the channel section.
    recipient: Option<&'a str>,
}

impl Header<'_> {
    /// The parser of the region this header opens.
    fn parser(&self, catalog: &ToolCatalog) -> Box<dyn CallParser> {
        match self.recipient {
            Some(to) if to.len() > FUNCTIONS.len() && to.starts_with(FUNCTIONS) => {
                Box::new(HarmonyCall::new(self.len, &to[FUNCTIONS.len()..]))
            }
            // A registered tool without the namespace is that tool; any other
            // recipient is a built-in (`python`, `browser.search`).
            Some(to) if catalog.contains(to) => Box::new(HarmonyCall::new(self.len, to)),
            Some(_) => Box::new(Hidden {
                head_left: self.len,
            }),
            None if self.channel == Some("analysis") => Box::new(Hidden {
                head_left: self.len,
            }),
            None => Box::new(Kept { left: self.len }),
        }
    }
}

/// What the header look-ahead decided.
#[derive(Debug, PartialEq, Eq)]
enum HeaderProbe<'a> {
    Header(Header<'a>),
    NeedMore,
    NoMatch,
}

/// Reads one header section's text (up to the next `<`) from `at`: the text
/// and where it ends, or `None` when the input ends first. Newlines and `>`
/// are not header text.
fn section(input: &str, at: usize) -> Result<(&str, usize), HeaderProbe<'_>> {
    let rest = &input.as_bytes()[at..];
    match rest.iter().position(|&b| matches!(b, b'<' | b'\n' | b'>')) {
        None => Err(HeaderProbe::NeedMore),
        Some(p) if rest[p] == b'<' => Ok((&input[at..at + p], at + p)),
        Some(_) => Err(HeaderProbe::NoMatch),
    }
}

/// Reads `<|start|>ROLE`? `<|channel|>CHANNEL`? `<|constrain|>TYPE`? `<|message|>`
/// at the start of `input` (beginning with one of the first two).
fn header(input: &str) -> HeaderProbe<'_> {
    let bytes = input.as_bytes();
    let lit = |i: usize, tok: &str| starts(&bytes[i..], tok.as_bytes());
    let mut i = 0;
    let mut role = "";
    let mut channel_text = "";
    match (lit(0, START), lit(0, CHANNEL)) {
        (Some(true), _) => match section(input, START.len()) {
            Ok((text, end)) => (role, i) = (text, end),
            Err(p) => return p,
        },
        (_, Some(true)) => {}
        (None, _) | (_, None) => return HeaderProbe::NeedMore,
        _ => return HeaderProbe::NoMatch,
    }
    match lit(i, CHANNEL) {
        Some(true) => match section(input, i + CHANNEL.len()) {
            Ok((text, end)) => (channel_text, i) = (text, end),
            Err(p) => return p,
        },
        None => return HeaderProbe::NeedMore,
        Some(false) => {}
    }
    match lit(i, CONSTRAIN) {
        Some(true) => match section(input, i + CONSTRAIN.len()) {
            Ok((_, end)) => i = end,
            Err(p) => return p,
        },
        None => return HeaderProbe::NeedMore,
        Some(false) => {}
    }
    match lit(i, MESSAGE) {
        Some(true) => i += MESSAGE.len(),
        None => return HeaderProbe::NeedMore,
        Some(false) => return HeaderProbe::NoMatch,
    }
    let recipient = role
        .split_ascii_whitespace()
        .chain(channel_text.split_ascii_whitespace())
        .find_map(|word| word.strip_prefix("to="));
    HeaderProbe::Header(Header {
        len: i,
        channel: channel_text.split_ascii_whitespace().next(),
        recipient,
    })
}

/// A region that is markup only: a header whose content is visible text, or an
/// end token. It is kept out of the text and holds no call.
#[derive(Debug)]
struct Kept {
    /// Bytes still to consume.
    left: usize,
}

impl CallParser for Kept {
    fn parse(&mut self, input: &str, _eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let n = self.left.min(input.len());
        self.left -= n;
        sink.keep(sink.base + n);
        if self.left > 0 {
            Parsed::need_more(n)
        } else {
            Parsed::done(n)
        }
    }
}

/// A message that is not for the user (`analysis`, built-in tools): header,
/// content streamed as `Reasoning`, end token. It ends at `<|end|>`,
/// `<|call|>` or `<|return|>` (consumed), or before a `<|start|>` that opens
/// the next message; at end of stream it is reasoning cut short.
#[derive(Debug)]
struct Hidden {
    /// Header bytes still to consume.
    head_left: usize,
}

/// The tokens that end hidden content: (token, consumed with the region).
const HIDDEN_ENDS: [(&str, bool); 4] = [(END, true), (CALL, true), (RETURN, true), (START, false)];

impl CallParser for Hidden {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let pos = self.head_left.min(bytes.len());
        self.head_left -= pos;
        if self.head_left > 0 {
            sink.keep(sink.base + pos);
            return Parsed::need_more(pos);
        }
        let mut from = pos;
        while let Some(rel) = memmem::find(&bytes[from..], b"<|") {
            let at = from + rel;
            let mut undecided = false;
            for (token, consumed) in HIDDEN_ENDS {
                match starts(&bytes[at..], token.as_bytes()) {
                    Some(true) => {
                        sink.reasoning(&input[pos..at]);
                        let end = if consumed { at + token.len() } else { at };
                        sink.keep(sink.base + end);
                        return Parsed::done(end);
                    }
                    None => undecided = true,
                    Some(false) => {}
                }
            }
            if undecided && !eof {
                sink.reasoning(&input[pos..at]);
                sink.keep(sink.base + at);
                return Parsed::need_more(at);
            }
            from = at + 1;
        }
        let upto = if eof {
            bytes.len()
        } else {
            bytes.len() - held_prefix(&bytes[pos..], b"<|")
        };
        sink.reasoning(&input[pos..upto]);
        sink.keep(sink.base + upto);
        if eof {
            Parsed::done(upto)
        } else {
            Parsed::need_more(upto)
        }
    }
}

/// Where a call message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallState {
    /// Consuming the header the probe read. -> Body.
    Head { left: usize },
    /// Before the arguments: whitespace, then `{` or `<|call|>`. -> Json / After.
    Body,
    /// Inside the arguments object (raw scan). -> After.
    Json,
    /// After the arguments: whitespace and an optional `<|call|>`. -> Stray / done.
    After,
    /// After `<|call|>`: a channel word the model wrote before the next
    /// header (`commentary<|start|>`) belongs to the call. -> done.
    Stray,
}

/// A message addressed `to=functions.NAME`: header, JSON arguments, `<|call|>`.
#[derive(Debug)]
struct HarmonyCall {
    state: CallState,
    name: String,
    /// Region offset of the header (known at the first `parse`).
    start: Option<usize>,
    call: Option<(usize, String)>,
    args: ArgsCapture,
    /// Where the arguments object ends.
    brackets: BracketScan,
}

impl HarmonyCall {
    fn new(head_len: usize, name: &str) -> Self {
        Self {
            state: CallState::Head { left: head_len },
            name: name.to_owned(),
            start: None,
            call: None,
            args: ArgsCapture::default(),
            brackets: BracketScan::default(),
        }
    }

    /// The arguments are complete at input offset `i`: ends the call (an
    /// unknown tool's message ends later, with its region). `Err` holds the
    /// step that abandons a call whose arguments are not an object.
    fn finish_args(&mut self, i: usize, sink: &mut CallSink<'_>) -> Result<(), Parsed> {
        let Some((index, id)) = self.call.clone() else {
            return Ok(());
        };
        match self.args.finish(index, sink) {
            Ok(arguments) => {
                let call = finished_call(id, &self.name, arguments, WireFormat::Harmony);
                sink.end(index, call, sink.base + i);
                Ok(())
            }
            Err(Verdict::Invalid(m)) => Err(Parsed::abandon(i, DiagnosticKind::Invalid, m)),
            Err(Verdict::Reject) => Err(Parsed::abandon(
                i,
                DiagnosticKind::Invalid,
                "the arguments are not a json object",
            )),
        }
    }

    /// The region ends at input offset `end`.
    fn done(&self, end: usize, sink: &mut CallSink<'_>) -> Parsed {
        if self.call.is_none() {
            let start = self.start.unwrap_or(0);
            sink.unknown(start, sink.base + end, &self.name, WireFormat::Harmony);
        }
        Parsed::done(end)
    }
}

impl CallParser for HarmonyCall {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let mut i = 0;
        loop {
            match self.state {
                CallState::Head { left } => {
                    self.start.get_or_insert(sink.base);
                    let n = left.min(bytes.len() - i);
                    i += n;
                    if left > n {
                        self.state = CallState::Head { left: left - n };
                        return Parsed::need_more(i);
                    }
                    if sink.is_tool(&self.name) {
                        self.call = Some(sink.start(None, &self.name, WireFormat::Harmony));
                    }
                    self.state = CallState::Body;
                }
                CallState::Body => {
                    let j = i + leading_ws(&bytes[i..]);
                    if j == bytes.len() {
                        return Parsed::need_more(i);
                    }
                    if bytes[j] == b'{' {
                        self.args.start(ValueKind::Object);
                        self.state = CallState::Json;
                        i = j;
                        continue;
                    }
                    match starts(&bytes[j..], CALL.as_bytes()) {
                        Some(true) => {
                            // No arguments: `{}`.
                            if let Err(p) = self.finish_args(i, sink) {
                                return p;
                            }
                            i = j + CALL.len();
                            self.state = CallState::Stray;
                        }
                        None if !eof => return Parsed::need_more(i),
                        _ => {
                            return Parsed::abandon(
                                j,
                                DiagnosticKind::Invalid,
                                "the call's content is not a json object",
                            );
                        }
                    }
                }
                CallState::Json => {
                    let (next, closed) = self.brackets.scan(bytes, i);
                    self.args
                        .push(&input[i..next], self.call.as_ref().map(|c| c.0), sink);
                    i = next;
                    if !closed {
                        return Parsed::need_more(i);
                    }
                    if let Err(p) = self.finish_args(i, sink) {
                        return p;
                    }
                    self.state = CallState::After;
                }
                CallState::After => {
                    let j = i + leading_ws(&bytes[i..]);
                    if j == bytes.len() {
                        return if eof {
                            self.done(i, sink)
                        } else {
                            Parsed::need_more(i)
                        };
                    }
                    match starts(&bytes[j..], CALL.as_bytes()) {
                        Some(true) => {
                            i = j + CALL.len();
                            self.state = CallState::Stray;
                        }
                        None if !eof => return Parsed::need_more(i),
                        _ => return self.done(i, sink),
                    }
                }
                CallState::Stray => {
                    return match stray_channel(&bytes[i..], eof) {
                        Some(n) => self.done(i + n, sink),
                        None => Parsed::need_more(i),
                    };
                }
            }
        }
    }
}

/// At the bytes after a call's `<|call|>`: the length of a channel word
/// directly followed by the next header (`<|start|>` or `<|channel|>`), `0`
/// when anything else follows, `None` when it cannot tell yet.
fn stray_channel(rest: &[u8], eof: bool) -> Option<usize> {
    for word in CHANNELS {
        let after = match starts(rest, word.as_bytes()) {
            Some(true) => &rest[word.len()..],
            None if !eof => return None,
            _ => continue,
        };
        for next in [START, CHANNEL] {
            match starts(after, next.as_bytes()) {
                Some(true) => return Some(word.len()),
                None if !eof => return None,
                _ => {}
            }
        }
        return Some(0);
    }
    Some(0)
}

#[cfg(test)]
mod tests {
    use super::{HeaderProbe, header, stray_channel};

    /// (length, channel, recipient) of a header that matched.
    fn parts(input: &str) -> Option<(usize, Option<&str>, Option<&str>)> {
        match header(input) {
            HeaderProbe::Header(h) => Some((h.len, h.channel, h.recipient)),
            _ => None,
        }
    }

    #[test]
    fn headers_name_channel_and_recipient_in_either_section() {
        let h = "<|channel|>analysis<|message|>";
        assert_eq!(parts(h), Some((h.len(), Some("analysis"), None)));
        let h = "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>";
        assert_eq!(
            parts(h),
            Some((h.len(), Some("commentary"), Some("functions.get_weather")))
        );
        let h = "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>";
        assert_eq!(
            parts(h),
            Some((h.len(), Some("commentary"), Some("functions.get_weather")))
        );
        let h = "<|start|>assistant to=python<|message|>";
        assert_eq!(parts(h), Some((h.len(), None, Some("python"))));
        assert_eq!(
            parts("<|channel|>final<|message|>Hi"),
            Some((27, Some("final"), None))
        );
    }

    #[test]
    fn a_channel_word_after_a_call_counts_only_before_the_next_header() {
        assert_eq!(
            stray_channel(b"commentary<|start|>assistant", false),
            Some(10)
        );
        assert_eq!(stray_channel(b"analysis<|channel|>", false), Some(8));
        assert_eq!(stray_channel(b"final<|st", false), None);
        assert_eq!(stray_channel(b"comm", false), None);
        assert_eq!(stray_channel(b"", false), None);
        assert_eq!(stray_channel(b"", true), Some(0));
        assert_eq!(stray_channel(b"commentary", true), Some(0));
        assert_eq!(stray_channel(b"commentary is next", false), Some(0));
        assert_eq!(stray_channel(b"final<|end|>", false), Some(0));
        assert_eq!(stray_channel(b"Done.", false), Some(0));
    }

    #[test]
    fn partial_headers_need_more_and_other_markup_does_not_match() {
        assert_eq!(header("<|chan"), HeaderProbe::NeedMore);
        assert_eq!(header("<|channel|>final"), HeaderProbe::NeedMore);
        assert_eq!(header("<|channel|>final<|mess"), HeaderProbe::NeedMore);
        assert_eq!(header("<|start|>assistant<|"), HeaderProbe::NeedMore);
        assert_eq!(
            header("<|channel|>final\n<|message|>"),
            HeaderProbe::NoMatch
        );
        assert_eq!(header("<|channel|>final<|end|>"), HeaderProbe::NoMatch);
        assert_eq!(header("<|tool_call|>"), HeaderProbe::NoMatch);
        assert_eq!(header("<div>"), HeaderProbe::NoMatch);
    }
}
