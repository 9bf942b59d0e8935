//! The call parser shared by the special-token section dialects whose
//! arguments are one JSON object: DeepSeek V3/R1 and V3.1, Kimi K2.
//!
//! A section is `SECTION_BEGIN` (confirmed by the probe), then calls
//! `CALL_BEGIN header {arguments} CALL_END` separated by optional whitespace,
//! then `SECTION_END`. The dialects differ in their tokens and in the header
//! between `CALL_BEGIN` and the arguments ([`Header`]). The arguments object is
//! streamed raw as it arrives; end tokens inside its strings never end it.
//!
//! A call naming an unregistered tool is not a call: its own element, from
//! `CALL_BEGIN` to `CALL_END`, goes back as text with a diagnostic, while the
//! section's tokens stay in the region when another call in it is valid (a
//! section with no valid call goes back whole). A broken call (a header or
//! arguments that do not read, junk where its end token belongs) is the same:
//! its element is skipped to its `CALL_END` (or to the next `CALL_BEGIN` or
//! the `SECTION_END`, whichever comes first) and goes back as text with an
//! `invalid` diagnostic; a call it had started never ends. Arguments whose
//! brackets never balance break at the first `<` outside their strings
//! (JSON has none there: it is the call's end token, or markup after it), so
//! they do not run on over the next calls; end tokens inside strings are
//! content.

use crate::core::{DiagnosticKind, WireFormat};

use super::format::{CallParser, Parsed};
use super::json_call::{ArgsCapture, Verdict};
use super::json_tokenizer::{Directive, JsonEvent, JsonTokenizer, TokStatus, ValueKind};
use super::resync::{Broken, Resync, Skip};
use super::scan::{leading_ws, starts};
use super::sink::{CallSink, finished_call};

/// The longest header (between the call's begin token and its arguments).
const MAX_HEADER: usize = 512;

const TOO_LONG: &str = "the call's header is too long";

/// What stands between a call's begin token and its arguments object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Header {
    /// DeepSeek V3/R1: `function<｜tool▁sep｜>NAME\n```json\n`, and a closing
    /// fence after the arguments.
    DeepSeekV3,
    /// DeepSeek V3.1: `NAME<｜tool▁sep｜>`.
    DeepSeekV31,
    /// Kimi K2: `functions.NAME:IDX<|tool_call_argument_begin|>`; the
    /// `functions.NAME:IDX` text is the call id.
    Kimi,
}

/// DeepSeek's separator between the type (V3) or name (V3.1) and what follows.
pub(crate) const DEEPSEEK_SEP: &str = "<｜tool▁sep｜>";
/// V3's type before the separator.
pub(crate) const DEEPSEEK_FUNCTION: &str = "function";
const KIMI_ARGS: &str = "<|tool_call_argument_begin|>";
const FENCE: &str = "```";

/// The tokens of one section dialect.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SectionSpec {
    pub(crate) format: WireFormat,
    /// Bytes of the section's begin token (consumed first).
    pub(crate) open_len: usize,
    pub(crate) call_begin: &'static str,
    pub(crate) call_end: &'static str,
    pub(crate) section_end: &'static str,
    pub(crate) header: Header,
}

/// A header read in full.
#[derive(Debug, PartialEq, Eq)]
struct HeaderRead {
    name: String,
    id: Option<String>,
    /// Bytes of the header, up to the arguments' first byte (`{`).
    len: usize,
}

/// Where a section parser is.
#[derive(Debug)]
enum State {
    /// Consuming the begin token. -> Between.
    Opening { left: usize },
    /// Between calls: whitespace, then a call, the section end, or the end. -> Header / done.
    Between,
    /// After a call's begin token, until its arguments begin. -> Args.
    Header { start: usize },
    /// Inside the arguments object. -> Trailer.
    Args(Box<Call>),
    /// After the arguments: the closing fence (V3) and the call's end token. -> Between.
    Trailer { call: Box<Call>, fence_open: bool },
    /// A broken call, skipped to its end token, the next call or the
    /// section's end; its element goes back as text. -> Between.
    Skip(Box<Broken>),
}

/// One call in progress.
#[derive(Debug)]
struct Call {
    /// Region offset of the call's begin token.
    start: usize,
    name: String,
    /// The started call (`None`: an unknown tool).
    call: Option<(usize, String)>,
    tok: JsonTokenizer,
    args: ArgsCapture,
    /// The arguments began with something other than `{`.
    not_object: bool,
}

/// The parser of one section region.
#[derive(Debug)]
pub(crate) struct SectionParser {
    spec: SectionSpec,
    state: State,
    entries: usize,
}

impl SectionParser {
    pub(crate) fn new(spec: SectionSpec) -> Self {
        Self {
            state: State::Opening {
                left: spec.open_len,
            },
            spec,
            entries: 0,
        }
    }
}

/// A byte that may be part of a tool name in a header.
fn name_byte(b: u8) -> bool {
    !b.is_ascii_whitespace() && !matches!(b, b'<' | b'>' | b'{' | b'}' | b'"' | b'`')
}

/// Reads a header from `input` (just after the call's begin token).
/// `Ok(None)`: undecided, more input needed. `Err`: not a valid header.
fn read_header(header: Header, input: &str) -> Result<Option<HeaderRead>, String> {
    let bytes = input.as_bytes();
    // `Ok(None)`, undecided: more input is needed. The caller reports the call
    // as unfinished at end of stream, or as too long once what it holds of the
    // header passes the limit.
    // The name: name bytes up to `stop` (a byte the name cannot hold).
    let name_at = |from: usize| {
        let n = bytes[from..]
            .iter()
            .take(MAX_HEADER + 1)
            .take_while(|&&b| name_byte(b))
            .count();
        (from, from + n)
    };
    // Whitespace then `{`: the header's end.
    let args_at = |from: usize| -> Result<Option<usize>, String> {
        let j = from + leading_ws(&bytes[from..]);
        match bytes.get(j) {
            None => Ok(None),
            Some(b'{') => Ok(Some(j)),
            Some(_) => Err("the call's arguments are not a json object".to_owned()),
        }
    };
    match header {
        Header::DeepSeekV3 => {
            let mut i = 0;
            for lit in [DEEPSEEK_FUNCTION, DEEPSEEK_SEP] {
                match starts(&bytes[i..], lit.as_bytes()) {
                    Some(true) => i += lit.len(),
                    None => return Ok(None),
                    Some(false) => return Err("expected `function<｜tool▁sep｜>`".to_owned()),
                }
            }
            let (a, b) = name_at(i);
            if b == bytes.len() {
                return Ok(None);
            }
            if a == b {
                return Err("the call has no name".to_owned());
            }
            // Spaces then a newline end the name line; then the opening fence.
            let sp = bytes[b..]
                .iter()
                .take_while(|&&c| c == b' ' || c == b'\t' || c == b'\r')
                .count();
            let j = b + sp;
            match bytes.get(j) {
                None => return Ok(None),
                Some(b'\n') => {}
                Some(_) => return Err("expected a newline after the tool name".to_owned()),
            }
            let k = j + 1 + leading_ws(&bytes[j + 1..]);
            match starts(&bytes[k..], FENCE.as_bytes()) {
                Some(true) => {}
                None => return Ok(None),
                Some(false) => return Err("expected a ```json fence".to_owned()),
            }
            // The fence's info string (`json`) up to the end of its line.
            let info = k + FENCE.len();
            let Some(nl) = bytes[info..]
                .iter()
                .take(32)
                .position(|&c| c == b'\n' || c == b'{')
            else {
                return if bytes.len() - info > 32 {
                    Err("expected a ```json fence".to_owned())
                } else {
                    Ok(None)
                };
            };
            let label = input[info..info + nl].trim();
            if !(label.is_empty() || label.eq_ignore_ascii_case("json")) {
                return Err("expected a ```json fence".to_owned());
            }
            Ok(args_at(info + nl)?.map(|len| HeaderRead {
                name: input[a..b].to_owned(),
                id: None,
                len,
            }))
        }
        Header::DeepSeekV31 => {
            let (a, b) = name_at(0);
            if b == bytes.len() {
                return Ok(None);
            }
            if a == b {
                return Err("the call has no name".to_owned());
            }
            match starts(&bytes[b..], DEEPSEEK_SEP.as_bytes()) {
                Some(true) => {}
                None => return Ok(None),
                Some(false) => return Err("expected `<｜tool▁sep｜>` after the name".to_owned()),
            }
            Ok(args_at(b + DEEPSEEK_SEP.len())?.map(|len| HeaderRead {
                name: input[a..b].to_owned(),
                id: None,
                len,
            }))
        }
        Header::Kimi => {
            let (a, b) = name_at(leading_ws(bytes));
            if b == bytes.len() {
                return Ok(None);
            }
            if a == b {
                return Err("the call has no id".to_owned());
            }
            let j = b + leading_ws(&bytes[b..]);
            match starts(&bytes[j..], KIMI_ARGS.as_bytes()) {
                Some(true) => {}
                None => return Ok(None),
                Some(false) => {
                    return Err("expected `<|tool_call_argument_begin|>` after the id".to_owned());
                }
            }
            let id = &input[a..b];
            let name = kimi_name(id);
            if name.is_empty() {
                return Err("the call has no name".to_owned());
            }
            Ok(args_at(j + KIMI_ARGS.len())?.map(|len| HeaderRead {
                name: name.to_owned(),
                id: Some(id.to_owned()),
                len,
            }))
        }
    }
}

/// The tool name in a Kimi id: `functions.NAME:IDX` (or `NAME:IDX`, or `NAME`).
fn kimi_name(id: &str) -> &str {
    let id = id.strip_prefix("functions.").unwrap_or(id);
    match id.rsplit_once(':') {
        Some((name, idx)) if !idx.is_empty() && idx.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => id,
    }
}

impl SectionParser {
    /// The call in its header, arguments or trailer is broken (`why`): skip
    /// its element.
    #[cold]
    #[inline(never)]
    fn break_call(&mut self, why: String) {
        let (start, name, unknown) = match std::mem::replace(&mut self.state, State::Between) {
            State::Header { start } => {
                self.entries += 1;
                (start, None, false)
            }
            State::Args(call) | State::Trailer { call, .. } => {
                let unknown = call.call.is_none();
                (call.start, Some(call.name), unknown)
            }
            other => {
                self.state = other;
                return;
            }
        };
        let spec = self.spec;
        let resync = Resync {
            end: spec.call_end,
            next: [spec.call_begin, spec.section_end],
        };
        self.state = State::Skip(Broken::new(start, name, unknown, why, resync.into()));
    }

    /// The section ends at `at` (region-local input offset).
    fn end_here(&self, at: usize) -> Parsed {
        if self.entries > 0 {
            Parsed::done(at)
        } else {
            Parsed::abandon(at, DiagnosticKind::Invalid, "the section holds no call")
        }
    }
}

impl CallParser for SectionParser {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
        let spec = self.spec;
        let mut i = 0;
        loop {
            match &mut self.state {
                State::Opening { left } => {
                    let n = (*left).min(bytes.len() - i);
                    i += n;
                    *left -= n;
                    if *left > 0 {
                        return Parsed::need_more(i);
                    }
                    self.state = State::Between;
                }
                State::Between => {
                    let j = i + leading_ws(&bytes[i..]);
                    if j == bytes.len() {
                        if !eof {
                            return Parsed::need_more(i);
                        }
                        if self.entries > 0 {
                            return Parsed::done(i);
                        }
                        return Parsed::abandon(
                            j,
                            DiagnosticKind::Unfinished,
                            "the stream ended inside the section",
                        );
                    }
                    match starts(&bytes[j..], spec.section_end.as_bytes()) {
                        Some(true) => return self.end_here(j + spec.section_end.len()),
                        None if !eof => return Parsed::need_more(i),
                        _ => {}
                    }
                    match starts(&bytes[j..], spec.call_begin.as_bytes()) {
                        Some(true) => {
                            self.state = State::Header {
                                start: sink.base + j,
                            };
                            i = j + spec.call_begin.len();
                        }
                        None if !eof => return Parsed::need_more(i),
                        _ => return self.end_here(i),
                    }
                }
                State::Header { start } => {
                    let start = *start;
                    // The length limit depends on the header alone, not on where
                    // the deltas were cut: a header still open past the limit and
                    // a whole header longer than it are both too long.
                    // A broken header is skipped from its first byte on.
                    match read_header(spec.header, &input[i..]) {
                        Err(message) => self.break_call(message),
                        Ok(None) if input.len() - i > MAX_HEADER => {
                            self.break_call(TOO_LONG.to_owned())
                        }
                        Ok(Some(h)) if h.len > MAX_HEADER => self.break_call(TOO_LONG.to_owned()),
                        Ok(None) => return Parsed::need_more(i),
                        Ok(Some(h)) => {
                            self.entries += 1;
                            let call = sink
                                .is_tool(&h.name)
                                .then(|| sink.start(h.id.as_deref(), &h.name, spec.format));
                            self.state = State::Args(Box::new(Call {
                                start,
                                name: h.name,
                                call,
                                tok: JsonTokenizer::raw_value_before_tag(),
                                args: ArgsCapture::default(),
                                not_object: false,
                            }));
                            i += h.len;
                        }
                    }
                }
                State::Args(call) => {
                    let index = call.call.as_ref().map(|c| c.0);
                    let Call {
                        tok,
                        args,
                        not_object,
                        ..
                    } = &mut **call;
                    let status = tok.feed(&input[i..], &mut |ev| match ev {
                        JsonEvent::RawStart(kind, _) => {
                            if kind != ValueKind::Object {
                                *not_object = true;
                                return Directive::Stop;
                            }
                            args.start(kind);
                            Directive::Continue
                        }
                        JsonEvent::RawChunk(c) => {
                            args.push(c, index, sink);
                            Directive::Continue
                        }
                        _ => Directive::Continue,
                    });
                    match status {
                        TokStatus::NeedMore => return Parsed::need_more(bytes.len()),
                        TokStatus::Invalid(n) | TokStatus::Stopped(n) => {
                            self.break_call(
                                "the call's arguments are not a json object".to_owned(),
                            );
                            i += n;
                        }
                        TokStatus::Done(n) => {
                            i += n;
                            let State::Args(call) =
                                std::mem::replace(&mut self.state, State::Between)
                            else {
                                unreachable!("state was matched as arguments above")
                            };
                            self.state = State::Trailer {
                                call,
                                fence_open: spec.header == Header::DeepSeekV3,
                            };
                        }
                    }
                }
                State::Trailer { fence_open, .. } => {
                    let j = i + leading_ws(&bytes[i..]);
                    if *fence_open {
                        match starts(&bytes[j..], FENCE.as_bytes()) {
                            Some(true) => {
                                *fence_open = false;
                                i = j + FENCE.len();
                                continue;
                            }
                            None => return Parsed::need_more(i),
                            Some(false) => {
                                self.break_call(
                                    "expected the closing ``` after the arguments".to_owned(),
                                );
                                i = j;
                                continue;
                            }
                        }
                    }
                    match starts(&bytes[j..], spec.call_end.as_bytes()) {
                        Some(true) => {}
                        None => return Parsed::need_more(i),
                        Some(false) => {
                            self.break_call(
                                "expected the call's end token after the arguments".to_owned(),
                            );
                            i = j;
                            continue;
                        }
                    }
                    i = j + spec.call_end.len();
                    let end = sink.base + i;
                    let State::Trailer { call, .. } =
                        std::mem::replace(&mut self.state, State::Between)
                    else {
                        unreachable!("state was matched as a trailer above")
                    };
                    let mut call = *call;
                    match call.call.take() {
                        Some((index, id)) => {
                            let arguments = match call.args.finish(index, sink) {
                                Ok(arguments) => arguments,
                                Err(verdict) => {
                                    let message = match verdict {
                                        Verdict::Invalid(m) => m,
                                        Verdict::Reject => {
                                            "the call's arguments are not a json object".to_owned()
                                        }
                                    };
                                    let name = Some(call.name);
                                    sink.broken(call.start, end, name, spec.format, message);
                                    continue;
                                }
                            };
                            let done = finished_call(id, &call.name, arguments, spec.format);
                            sink.end(index, done, end);
                        }
                        None => sink.unknown(call.start, end, &call.name, spec.format),
                    }
                }
                State::Skip(broken) => {
                    let to = match broken.skip(&bytes[i..], eof) {
                        Skip::To(n) => i + n,
                        Skip::NeedMore(n) if !eof => return Parsed::need_more(i + n),
                        Skip::NeedMore(_) => bytes.len(),
                    };
                    // The state is the skip matched above.
                    if let State::Skip(broken) = std::mem::replace(&mut self.state, State::Between)
                    {
                        broken.give_back(sink.base + to, spec.format, sink);
                    }
                    i = to;
                }
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn kimi_names_come_from_the_id() {
        assert_eq!(kimi_name("functions.get_weather:0"), "get_weather");
        assert_eq!(kimi_name("functions.a:b:12"), "a:b");
        assert_eq!(kimi_name("get_weather:3"), "get_weather");
        assert_eq!(kimi_name("get_weather"), "get_weather");
        assert_eq!(kimi_name("functions.x:"), "x:");
    }

    #[test]
    fn headers_are_read_whole_or_not_at_all() {
        let v3 = "function<｜tool▁sep｜>get_weather\n```json\n{\"a\":1}";
        let read = read_header(Header::DeepSeekV3, v3).unwrap().unwrap();
        assert_eq!(read.name, "get_weather");
        assert_eq!(&v3[read.len..read.len + 1], "{");
        for cut in (0..v3.find('{').unwrap()).filter(|&c| v3.is_char_boundary(c)) {
            assert_eq!(read_header(Header::DeepSeekV3, &v3[..cut]), Ok(None));
        }
        let v31 = "get_time<｜tool▁sep｜> {}";
        let read = read_header(Header::DeepSeekV31, v31).unwrap().unwrap();
        assert_eq!((read.name.as_str(), read.len), ("get_time", v31.len() - 2));
        let kimi = " functions.ls:7 <|tool_call_argument_begin|>{}";
        let read = read_header(Header::Kimi, kimi).unwrap().unwrap();
        assert_eq!(read.name, "ls");
        assert_eq!(read.id.as_deref(), Some("functions.ls:7"));
        assert!(read_header(Header::DeepSeekV31, "get time<｜tool▁sep｜>{}").is_err());
        assert!(read_header(Header::DeepSeekV3, "function<｜tool▁sep｜>x\n```py\n{").is_err());
        assert!(read_header(Header::Kimi, "functions.ls:0<|tool_call_argument_begin|>[").is_err());
    }
}
