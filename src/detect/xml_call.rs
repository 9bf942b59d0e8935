//! The call parser shared by the XML-style dialects: a block of entries (calls),
//! each a list of parameters whose values stream as JSON-escaped fragments.
//!
//! The dialects differ only in their syntax, given by [`XmlSpec`]: how a block is
//! wrapped, how an entry opens and closes, how a parameter opens and closes.
//! Values follow the contract: at most one leading and one trailing newline are
//! stripped, nothing is decoded, and a closing tag ends a value only when the
//! next structural tag (or end of stream) follows it.

use serde_json::Value;

use crate::core::{DiagnosticKind, JsonObject, ParamType, WireFormat};
use crate::detect::scan::{leading_ws, push_short};

use super::config::MAX_TAG_GAP;
use super::format::{CallParser, Parsed};
use super::sink::{CallSink, finished_call};

/// How an entry (one call) opens.
#[derive(Debug, Clone)]
pub(crate) enum EntrySyntax {
    /// The probe already read the open tag `<NAME>` (Cline style); one entry.
    Named {
        /// The tool name.
        name: String,
    },
    /// `<function=NAME>` (Qwen3-Coder).
    FunctionEq,
    /// `<invoke name="NAME">` (Anthropic legacy).
    InvokeName,
    /// `<｜DSML｜invoke name="NAME">` … `</｜DSML｜invoke>` (DeepSeek V3.2/V4).
    DsmlInvoke,
    /// `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">` …
    /// `</steptml:invoke><｜tool_call_end｜>` (Step-3): the call's own tokens
    /// belong to the entry, so an unknown call's text is its whole element.
    StepInvoke,
    /// The probe already read the block opener and the tool name (GLM
    /// `<tool_call>NAME`); one entry, ended by `close`.
    Headed {
        /// The tool name.
        name: String,
        /// The tag that ends the entry (and the block).
        close: &'static str,
    },
}

/// How a parameter opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParamSyntax {
    /// `<P>value</P>`.
    TagPerParam,
    /// `<parameter=P>value</parameter>`.
    ParameterEq,
    /// `<parameter name="P">value</parameter>`.
    ParameterName,
    /// `<｜DSML｜parameter name="P" string="true|false">value</｜DSML｜parameter>`:
    /// the flag types the value (`true`: the raw text is the string; `false`:
    /// the text is JSON); the schema only when the flag is absent.
    DsmlParameter,
    /// `<steptml:parameter name="P">value</steptml:parameter>` (Step-3).
    StepParameter,
    /// `<arg_key>P</arg_key>` whitespace `<arg_value>value</arg_value>` (GLM).
    ArgKey,
}

/// The syntax of one XML dialect.
#[derive(Debug, Clone)]
pub(crate) struct XmlSpec {
    pub(crate) format: WireFormat,
    /// Bytes of the opening marker the probe confirmed (consumed first).
    pub(crate) open_len: usize,
    /// The block's closing tag, if it has a wrapper.
    pub(crate) block_close: Option<&'static str>,
    pub(crate) entry: EntrySyntax,
    pub(crate) param: ParamSyntax,
}

impl XmlSpec {
    fn entry_close(&self, name: &str) -> String {
        match self.entry {
            EntrySyntax::Named { .. } => format!("</{name}>"),
            EntrySyntax::FunctionEq => "</function>".to_owned(),
            EntrySyntax::InvokeName => "</invoke>".to_owned(),
            EntrySyntax::DsmlInvoke => DSML_INVOKE_CLOSE.to_owned(),
            EntrySyntax::StepInvoke => STEP_INVOKE_CLOSE.to_owned(),
            EntrySyntax::Headed { close, .. } => (*close).to_owned(),
        }
    }

    fn single(&self) -> bool {
        matches!(
            self.entry,
            EntrySyntax::Named { .. } | EntrySyntax::Headed { .. }
        )
    }
}

/// A prefix match over possibly incomplete input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Open {
    /// Matched: the name and the bytes of the whole tag.
    Match(String, usize),
    /// Input ended inside a possible match.
    NeedMore,
    /// Not this tag.
    NoMatch,
}

/// Whether `input` starts with `lit`: `Some(true)` yes, `None` input ends inside it.
pub(crate) fn starts(input: &[u8], lit: &[u8]) -> Option<bool> {
    let n = input.len().min(lit.len());
    if input[..n] != lit[..n] {
        return Some(false);
    }
    if n < lit.len() { None } else { Some(true) }
}

/// Matches `prefix NAME suffix` where NAME is up to `max` bytes accepted by `ok`.
pub(crate) fn match_open(
    input: &str,
    prefix: &str,
    suffix: &str,
    ok: fn(u8) -> bool,
    max: usize,
) -> Open {
    let bytes = input.as_bytes();
    match starts(bytes, prefix.as_bytes()) {
        Some(false) => return Open::NoMatch,
        None => return Open::NeedMore,
        Some(true) => {}
    }
    let rest = &bytes[prefix.len()..];
    let n = rest.iter().take(max + 1).take_while(|&&b| ok(b)).count();
    if n > max {
        return Open::NoMatch;
    }
    if n == rest.len() {
        return Open::NeedMore;
    }
    if n == 0 {
        return Open::NoMatch;
    }
    match starts(&rest[n..], suffix.as_bytes()) {
        Some(true) => Open::Match(
            input[prefix.len()..prefix.len() + n].to_owned(),
            prefix.len() + n + suffix.len(),
        ),
        None => Open::NeedMore,
        Some(false) => Open::NoMatch,
    }
}

/// A tag-name byte of Cline-style tags.
pub(crate) fn ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':')
}

fn name_byte(b: u8) -> bool {
    !matches!(b, b'>' | b'<' | b'\n' | b'"')
}

fn param_open(syntax: ParamSyntax, input: &str) -> Open {
    match syntax {
        ParamSyntax::TagPerParam => match input.as_bytes().get(1) {
            Some(b'/') => Open::NoMatch,
            _ => match_open(input, "<", ">", ident_byte, 128),
        },
        ParamSyntax::ParameterEq => match_open(input, "<parameter=", ">", name_byte, 256),
        ParamSyntax::ParameterName => {
            match_open(input, "<parameter name=\"", "\">", name_byte, 256)
        }
        ParamSyntax::DsmlParameter => dsml_param_open(input),
        ParamSyntax::StepParameter => {
            match_open(input, "<steptml:parameter name=\"", "\">", name_byte, 256)
        }
        ParamSyntax::ArgKey => arg_key_open(input),
    }
}

/// The end of a DeepSeek DSML invoke.
const DSML_INVOKE_CLOSE: &str = "</｜DSML｜invoke>";
/// The end of a Step-3 call: the invoke, then the call's end token.
const STEP_INVOKE_CLOSE: &str = "</steptml:invoke><｜tool_call_end｜>";
/// The `string` attribute of a DSML parameter, with its two values.
const DSML_FLAG: &str = "string=\"";

/// `<｜DSML｜parameter name="P">`, optionally with ` string="true"` or
/// ` string="false"` before the `>`.
fn dsml_param_open(input: &str) -> Open {
    let (name, len) = match match_open(input, "<｜DSML｜parameter name=\"", "\"", name_byte, 256)
    {
        Open::Match(name, len) => (name, len),
        other => return other,
    };
    let bytes = input.as_bytes();
    let mut i = len;
    let ws = |i: usize| {
        i + bytes[i..]
            .iter()
            .take(MAX_TAG_GAP + 1)
            .take_while(|b| b.is_ascii_whitespace())
            .count()
    };
    i = ws(i);
    if i < bytes.len() && bytes[i] != b'>' {
        match starts(&bytes[i..], DSML_FLAG.as_bytes()) {
            Some(true) => i += DSML_FLAG.len(),
            None => return Open::NeedMore,
            Some(false) => return Open::NoMatch,
        }
        let value = bytes[i..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphabetic())
            .count();
        match bytes.get(i + value) {
            None => return Open::NeedMore,
            Some(b'"') if matches!(&bytes[i..i + value], b"true" | b"false") => i += value + 1,
            Some(_) => return Open::NoMatch,
        }
        i = ws(i);
    }
    match bytes.get(i) {
        None => Open::NeedMore,
        Some(b'>') => Open::Match(name, i + 1),
        Some(_) => Open::NoMatch,
    }
}

/// The type a parameter tag itself declares (DSML's `string` flag), if any.
fn param_flag(syntax: ParamSyntax, tag: &str) -> Option<ParamType> {
    if syntax != ParamSyntax::DsmlParameter {
        return None;
    }
    let at = memchr::memmem::find(tag.as_bytes(), DSML_FLAG.as_bytes())?;
    match tag.as_bytes().get(at + DSML_FLAG.len()) {
        Some(b't') => Some(ParamType::String),
        Some(b'f') => Some(ParamType::Any),
        _ => None,
    }
}

/// Matches `<arg_key>P</arg_key>`, at most [`MAX_TAG_GAP`] bytes of
/// whitespace, then `<arg_value>`; the key is trimmed.
fn arg_key_open(input: &str) -> Open {
    const VALUE: &str = "<arg_value>";
    let (key, len) = match match_open(input, "<arg_key>", "</arg_key>", name_byte, 256) {
        Open::Match(key, len) => (key, len),
        other => return other,
    };
    let rest = &input.as_bytes()[len..];
    let ws = rest
        .iter()
        .take(MAX_TAG_GAP + 1)
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    if ws > MAX_TAG_GAP {
        return Open::NoMatch;
    }
    match starts(&rest[ws..], VALUE.as_bytes()) {
        Some(true) => Open::Match(key.trim().to_owned(), len + ws + VALUE.len()),
        None => Open::NeedMore,
        Some(false) => Open::NoMatch,
    }
}

fn entry_open(syntax: &EntrySyntax, input: &str) -> Open {
    match syntax {
        EntrySyntax::Named { .. } => Open::NoMatch,
        EntrySyntax::FunctionEq => match_open(input, "<function=", ">", name_byte, 256),
        EntrySyntax::InvokeName => match_open(input, "<invoke name=\"", "\">", name_byte, 256),
        EntrySyntax::DsmlInvoke => {
            match_open(input, "<｜DSML｜invoke name=\"", "\">", name_byte, 256)
        }
        EntrySyntax::StepInvoke => match_open(
            input,
            "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"",
            "\">",
            name_byte,
            256,
        ),
        EntrySyntax::Headed { .. } => Open::NoMatch,
    }
}

/// How JSON spells the control characters without a short escape.
const CONTROL_ESCAPES: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\u0008", "\\t", "\\n", "\\u000b", "\\u000c", "\\r", "\\u000e", "\\u000f", "\\u0010",
    "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018",
    "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// JSON-escapes `s` (without quotes) onto `out`.
pub(crate) fn escape_json_into(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = super::scan::find_json_escape(bytes, start) {
        push_short(out, &s[start..i]);
        match bytes[i] {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b => out.push_str(
                CONTROL_ESCAPES
                    .get(usize::from(b))
                    .copied()
                    .unwrap_or_default(),
            ),
        }
        start = i + 1;
    }
    push_short(out, &s[start..]);
}

/// Converts a finished value by its declared type; strings stay strings.
pub(crate) fn typed_value(raw: &str, ty: ParamType) -> Value {
    if ty == ParamType::String {
        return Value::String(raw.to_owned());
    }
    let parsed = serde_json::from_str::<Value>(raw.trim()).ok();
    match (ty, parsed) {
        (ParamType::Integer, Some(v)) if v.is_i64() || v.is_u64() => v,
        (ParamType::Number, Some(v)) if v.is_number() => v,
        (ParamType::Boolean, Some(v)) if v.is_boolean() => v,
        (ParamType::Array, Some(v)) if v.is_array() => v,
        (ParamType::Object, Some(v)) if v.is_object() => v,
        (ParamType::Any, Some(v)) => v,
        _ => Value::String(raw.to_owned()),
    }
}

/// Where a block parser is.
#[derive(Debug)]
enum BlockState {
    /// Consuming the probe-confirmed opener. -> Entry (named) or Between.
    Opening { left: usize },
    /// Between entries: whitespace, then an entry, the block close, or the end. -> Entry / done.
    Between,
    /// Inside an entry. -> Between / done.
    Entry(Box<Entry>),
}

/// Where an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryState {
    /// Between parameters. -> Value / entry end.
    Params,
    /// Inside a value; `fresh` until its first byte (leading newline strip). -> Params.
    Value { fresh: bool },
}

#[derive(Debug)]
struct Entry {
    start: usize,
    name: String,
    close: String,
    call: Option<(usize, String)>,
    state: EntryState,
    args: JsonObject,
    n_params: usize,
    param: String,
    param_close: String,
    /// The type the current parameter's tag declares (DSML), before the schema.
    flag: Option<ParamType>,
    ty: ParamType,
    /// Region offsets of the current value's text so far: it is read from the
    /// region when the value ends, not copied piece by piece.
    value: (usize, usize),
}

/// The parser of one XML-style call region.
#[derive(Debug)]
pub(crate) struct XmlCallParser {
    spec: XmlSpec,
    state: BlockState,
    entries: usize,
}

/// What an entry's step did; positions are offsets in the block's input.
enum EntryStep {
    NeedMore(usize),
    Ended(usize),
    Invalid(usize, String),
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
        Box::new(Entry {
            start,
            close: self.spec.entry_close(&name),
            name,
            call,
            state: EntryState::Params,
            args: JsonObject::new(),
            n_params: 0,
            param: String::new(),
            param_close: String::new(),
            flag: None,
            ty: ParamType::String,
            value: (0, 0),
        })
    }
}

impl CallParser for XmlCallParser {
    fn parse(&mut self, input: &str, eof: bool, sink: &mut CallSink<'_>) -> Parsed {
        let bytes = input.as_bytes();
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
                        _ => return end_here(self.entries, i),
                    }
                }
                BlockState::Entry(entry) => {
                    let step = entry.parse(input, i, eof, sink, &self.spec);
                    match step {
                        EntryStep::NeedMore(n) => return Parsed::need_more(n),
                        EntryStep::Invalid(n, message) => {
                            return Parsed::abandon(n, DiagnosticKind::Invalid, message);
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
                                    sink.args(index, if entry.n_params == 0 { "{}" } else { "}" });
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
            }
        }
    }
}

impl Entry {
    fn emit(&mut self, sink: &mut CallSink<'_>, s: &str) {
        if let Some((index, _)) = &self.call {
            sink.args(*index, s);
        }
    }

    /// Parses `input` from `i` on; the positions it returns are `input`'s.
    fn parse(
        &mut self,
        input: &str,
        mut i: usize,
        eof: bool,
        sink: &mut CallSink<'_>,
        spec: &XmlSpec,
    ) -> EntryStep {
        let bytes = input.as_bytes();
        loop {
            match self.state {
                EntryState::Params => {
                    let j = i + leading_ws(&bytes[i..]);
                    if j == bytes.len() {
                        return EntryStep::NeedMore(j);
                    }
                    if bytes[j] != b'<' {
                        return EntryStep::Invalid(
                            j,
                            format!("unexpected text inside `{}`", self.name),
                        );
                    }
                    // Input that ends inside a tag needs more; at the end of the
                    // stream that makes the call unfinished, not invalid.
                    match starts(&bytes[j..], self.close.as_bytes()) {
                        Some(true) => return EntryStep::Ended(j + self.close.len()),
                        None => return EntryStep::NeedMore(j),
                        Some(false) => {}
                    }
                    match param_open(spec.param, &input[j..]) {
                        Open::Match(name, len) => {
                            self.flag = param_flag(spec.param, &input[j..j + len]);
                            self.begin_param(name, spec.param, sink);
                            self.state = EntryState::Value { fresh: true };
                            i = j + len;
                        }
                        Open::NeedMore => return EntryStep::NeedMore(j),
                        Open::NoMatch => {
                            return EntryStep::Invalid(
                                j,
                                format!("unexpected tag inside `{}`", self.name),
                            );
                        }
                    }
                }
                EntryState::Value { fresh } => {
                    if fresh {
                        if i == bytes.len() {
                            return EntryStep::NeedMore(i);
                        }
                        if bytes[i] == b'\n' {
                            i += 1;
                        }
                        self.value = (sink.base + i, sink.base + i);
                        self.state = EntryState::Value { fresh: false };
                    }
                    match self.scan_value(input, i, eof, sink, spec) {
                        (n, true) => {
                            if !self.end_param(sink) {
                                return EntryStep::Invalid(
                                    n,
                                    format!("the value of `{}` could not be read", self.param),
                                );
                            }
                            self.state = EntryState::Params;
                            i = n;
                        }
                        (n, false) => return EntryStep::NeedMore(n),
                    }
                }
            }
        }
    }

    fn begin_param(&mut self, name: String, syntax: ParamSyntax, sink: &mut CallSink<'_>) {
        self.ty = match self.flag.take() {
            Some(ty) => ty,
            None => sink
                .catalog
                .get(&self.name)
                .and_then(|shape| shape.param(&name))
                .unwrap_or(ParamType::String),
        };
        self.param_close = match syntax {
            ParamSyntax::TagPerParam => format!("</{name}>"),
            ParamSyntax::DsmlParameter => "</｜DSML｜parameter>".to_owned(),
            ParamSyntax::StepParameter => "</steptml:parameter>".to_owned(),
            ParamSyntax::ArgKey => "</arg_value>".to_owned(),
            _ => "</parameter>".to_owned(),
        };
        let mut head = String::with_capacity(name.len() + 6);
        head.push(if self.n_params == 0 { '{' } else { ',' });
        head.push('"');
        escape_json_into(&name, &mut head);
        head.push_str("\":");
        if self.ty == ParamType::String {
            head.push('"');
        }
        self.emit(sink, &head);
        self.n_params += 1;
        self.param = name;
    }

    /// Ends the current parameter with the value read from the region;
    /// `false` (nothing emitted) when the region does not hold it.
    fn end_param(&mut self, sink: &mut CallSink<'_>) -> bool {
        let Some(raw) = sink.region_text(self.value.0, self.value.1) else {
            return false;
        };
        let value = if self.ty == ParamType::String {
            self.emit(sink, "\"");
            Value::String(raw.into_owned())
        } else {
            let value = typed_value(&raw, self.ty);
            let text = value.to_string();
            self.emit(sink, &text);
            value
        };
        self.args.insert(std::mem::take(&mut self.param), value);
        true
    }

    /// The value goes on with `input[from..to]`, which directly follows its
    /// text so far in the region.
    fn push_value(&mut self, sink: &mut CallSink<'_>, input: &str, from: usize, to: usize) {
        if from == to {
            return;
        }
        self.value.1 = sink.base + to;
        let s = &input[from..to];
        if self.ty == ParamType::String
            && let Some((index, _)) = &self.call
        {
            // Escaped straight into the event: no copy of the delta in between.
            sink.args_escaped(*index, s);
        }
    }

    /// Scans value bytes from `i`. Returns (next position, value ended); on
    /// `false` the bytes from the position on are held back.
    fn scan_value(
        &mut self,
        input: &str,
        mut i: usize,
        eof: bool,
        sink: &mut CallSink<'_>,
        spec: &XmlSpec,
    ) -> (usize, bool) {
        let bytes = input.as_bytes();
        loop {
            // Only a `<` can end the value; one newline just before the closing
            // tag is not part of it, so a newline at the end of the input waits.
            let Some(rel) = super::scan::find1(b'<', &bytes[i..]) else {
                let end = if !eof && bytes.len() > i && bytes[bytes.len() - 1] == b'\n' {
                    bytes.len() - 1
                } else {
                    bytes.len()
                };
                self.push_value(sink, input, i, end);
                return (end, false);
            };
            let k = i + rel;
            let j = if k > i && bytes[k - 1] == b'\n' {
                k - 1
            } else {
                k
            };
            self.push_value(sink, input, i, j);
            match self.close_here(&bytes[k..], eof, spec) {
                None => return (j, false),
                Some(Some(len)) => return (k + len, true),
                Some(None) => {
                    // Not the end: the newline (if any) and `<` are content.
                    self.push_value(sink, input, j, k + 1);
                    i = k + 1;
                }
            }
        }
    }

    /// At a `<` in a value: `None` undecided, `Some(Some(len))` the closing tag
    /// (len bytes) ends the value, `Some(None)` it does not.
    fn close_here(&self, rest: &[u8], eof: bool, spec: &XmlSpec) -> Option<Option<usize>> {
        let close = self.param_close.as_bytes();
        match starts(rest, close) {
            Some(false) => return Some(None),
            None => return if eof { Some(None) } else { None },
            Some(true) => {}
        }
        let after = &rest[close.len()..];
        let ws = after
            .iter()
            .take(MAX_TAG_GAP + 1)
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        if ws > MAX_TAG_GAP {
            return Some(None);
        }
        if ws == after.len() {
            return if eof { Some(Some(close.len())) } else { None };
        }
        let next = &after[ws..];
        match starts(next, self.close.as_bytes()) {
            Some(true) => return Some(Some(close.len())),
            None if !eof => return None,
            _ => {}
        }
        let next_str = match std::str::from_utf8(next) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&next[..e.valid_up_to()]).unwrap_or(""),
        };
        match param_open(spec.param, next_str) {
            Open::Match(..) => Some(Some(close.len())),
            Open::NeedMore if !eof => None,
            _ => Some(None),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;

    use super::escape_json_into;

    fn escaped(s: &str) -> String {
        let mut out = String::new();
        escape_json_into(s, &mut out);
        out
    }

    #[test]
    fn escapes_quotes_backslashes_and_controls_at_every_position() {
        assert_eq!(escaped(""), "");
        assert_eq!(escaped("plain text, café 日本"), "plain text, café 日本");
        assert_eq!(escaped("a\"b\\c\nd\re\tf"), "a\\\"b\\\\c\\nd\\re\\tf");
        assert_eq!(escaped("\u{1}\u{1f}\u{7f}"), "\\u0001\\u001f\u{7f}");
        // Each special byte at each offset of an eight-byte word and its tail.
        for special in ["\"", "\\", "\n", "\u{0}"] {
            for at in 0..19 {
                let s = format!("{}{special}{}", "x".repeat(at), "y".repeat(19 - at));
                let want = format!(
                    "{}{}{}",
                    "x".repeat(at),
                    match special {
                        "\"" => "\\\"",
                        "\\" => "\\\\",
                        "\n" => "\\n",
                        _ => "\\u0000",
                    },
                    "y".repeat(19 - at)
                );
                assert_eq!(escaped(&s), want, "{s:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn escaped_text_reads_back_as_the_same_string(s in "(?s).{0,80}") {
            let json = format!("\"{}\"", escaped(&s));
            let back: String = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(back, s);
        }
    }
}
