//! The syntax of the XML-style dialects ([`XmlSpec`]): how a block, an entry
//! (one call) and a parameter open and close, matched over possibly
//! incomplete input, and how a finished value is typed by its schema.

use std::borrow::Cow;

use serde_json::Value;

use crate::core::{MAX_XML_NAME, ParamType, WireFormat, is_xml_name_byte};

use super::config::MAX_TAG_GAP;
use super::scan::{starts, tag_gap};

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
    /// The `function<｜tool_sep｜>` header may be left out, or followed by the
    /// name written again ([`step_invoke_open`]).
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
    /// XML's predefined entities in values are decoded ([`decode_entities`]).
    pub(crate) entities: bool,
}

impl XmlSpec {
    pub(super) fn entry_close(&self, name: &str) -> String {
        match self.entry {
            EntrySyntax::Named { .. } => format!("</{name}>"),
            EntrySyntax::FunctionEq => "</function>".to_owned(),
            EntrySyntax::InvokeName => "</invoke>".to_owned(),
            EntrySyntax::DsmlInvoke => DSML_INVOKE_CLOSE.to_owned(),
            EntrySyntax::StepInvoke => STEP_INVOKE_CLOSE.to_owned(),
            EntrySyntax::Headed { close, .. } => (*close).to_owned(),
        }
    }

    /// Whether the block's closing tag also ends an entry that lacks its own
    /// (Qwen3-Coder: `</parameter></tool_call>` without `</function>`).
    pub(super) fn block_ends_entry(&self) -> bool {
        matches!(self.entry, EntrySyntax::FunctionEq)
    }

    /// A token that may stand between two entries and belongs to the block
    /// (Step-3: a stray `<｜tool_sep｜>` between calls).
    pub(super) fn entry_separator(&self) -> Option<&'static str> {
        match self.entry {
            EntrySyntax::StepInvoke => Some(STEP_SEP),
            _ => None,
        }
    }

    /// Whether a parameter's opening tag at the start of a line ends a value
    /// that lacks its closing tag (Qwen3-Coder: `<parameter=city>\nDallas\n<parameter=state>`).
    pub(super) fn opener_ends_value(&self) -> bool {
        self.param == ParamSyntax::ParameterEq
    }

    /// Whether an entry's body may be one JSON object instead of parameters
    /// (DSML V4: `<｜DSML｜invoke name="NAME">{"a": 1}</｜DSML｜invoke>`).
    pub(super) fn json_body(&self) -> bool {
        matches!(self.entry, EntrySyntax::DsmlInvoke)
    }

    pub(super) fn single(&self) -> bool {
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
    is_xml_name_byte(b)
}

pub(super) fn name_byte(b: u8) -> bool {
    !matches!(b, b'>' | b'<' | b'\n' | b'"')
}

pub(super) fn param_open(syntax: ParamSyntax, input: &str) -> Open {
    match syntax {
        ParamSyntax::TagPerParam => match input.as_bytes().get(1) {
            Some(b'/') => Open::NoMatch,
            _ => match_open(input, "<", ">", ident_byte, MAX_XML_NAME),
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
/// The start of a Step-3 call.
const STEP_CALL_BEGIN: &str = "<｜tool_call_begin｜>";
/// Step-3's call type and separator, before the invoke.
const STEP_HEADER: &str = "function<｜tool_sep｜>";
/// Step-3's separator, also found alone between calls.
const STEP_SEP: &str = "<｜tool_sep｜>";
/// The longest text between Step-3's header and its invoke: the name written
/// again, and whitespace.
const MAX_STEP_NAME_AGAIN: usize = 64 + MAX_TAG_GAP;
/// The `string` attribute of a DSML parameter, with its two values.
const DSML_FLAG: &str = "string=\"";

/// `<｜DSML｜parameter name="P">`, optionally with ` string="true"` or
/// ` string="false"` before the `>`.
pub(super) fn dsml_param_open(input: &str) -> Open {
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
pub(super) fn param_flag(syntax: ParamSyntax, tag: &str) -> Option<ParamType> {
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
pub(super) fn arg_key_open(input: &str) -> Open {
    const VALUE: &str = "<arg_value>";
    let (key, len) = match match_open(input, "<arg_key>", "</arg_key>", name_byte, 256) {
        Open::Match(key, len) => (key, len),
        other => return other,
    };
    let rest = &input.as_bytes()[len..];
    let Some(ws) = tag_gap(rest) else {
        return Open::NoMatch;
    };
    match starts(&rest[ws..], VALUE.as_bytes()) {
        Some(true) => Open::Match(key.trim().to_owned(), len + ws + VALUE.len()),
        None => Open::NeedMore,
        Some(false) => Open::NoMatch,
    }
}

pub(super) fn entry_open(syntax: &EntrySyntax, input: &str) -> Open {
    match syntax {
        EntrySyntax::Named { .. } => Open::NoMatch,
        EntrySyntax::FunctionEq => match_open(input, "<function=", ">", name_byte, 256),
        EntrySyntax::InvokeName => match_open(input, "<invoke name=\"", "\">", name_byte, 256),
        EntrySyntax::DsmlInvoke => {
            match_open(input, "<｜DSML｜invoke name=\"", "\">", name_byte, 256)
        }
        EntrySyntax::StepInvoke => step_invoke_open(input),
        EntrySyntax::Headed { .. } => Open::NoMatch,
    }
}

/// Matches a Step-3 call's opening: `<｜tool_call_begin｜>`, the optional
/// header `function<｜tool_sep｜>` (perhaps followed by the tool name written
/// again and whitespace), then `<steptml:invoke name="NAME">`. A name written
/// again that is not the invoke's is no match (the entry is broken).
pub(super) fn step_invoke_open(input: &str) -> Open {
    let bytes = input.as_bytes();
    match starts(bytes, STEP_CALL_BEGIN.as_bytes()) {
        Some(true) => {}
        None => return Open::NeedMore,
        Some(false) => return Open::NoMatch,
    }
    let mut i = STEP_CALL_BEGIN.len();
    let mut again = None;
    match starts(&bytes[i..], STEP_HEADER.as_bytes()) {
        None => return Open::NeedMore,
        Some(false) => {}
        Some(true) => {
            i += STEP_HEADER.len();
            let n = bytes[i..]
                .iter()
                .take(MAX_STEP_NAME_AGAIN + 1)
                .take_while(|&&b| b != b'<')
                .count();
            if n > MAX_STEP_NAME_AGAIN {
                return Open::NoMatch;
            }
            if i + n == bytes.len() {
                return Open::NeedMore;
            }
            again = Some(input[i..i + n].trim());
            i += n;
        }
    }
    match match_open(
        &input[i..],
        "<steptml:invoke name=\"",
        "\">",
        name_byte,
        256,
    ) {
        Open::Match(name, _) if again.is_some_and(|a| !a.is_empty() && a != name) => Open::NoMatch,
        Open::Match(name, len) => Open::Match(name, i + len),
        other => other,
    }
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

/// Converts a finished XML value by its schema type, reading the Python
/// spellings models write besides JSON's: `True`/`False` for a boolean, and
/// `None` (like `null`) for a parameter whose schema allows `null`. Anything
/// else is [`typed_value`].
pub(crate) fn xml_value(raw: &str, ty: ParamType, nullable: bool) -> Value {
    if nullable
        && is_null_word(if ty == ParamType::String {
            raw
        } else {
            raw.trim()
        })
    {
        return Value::Null;
    }
    if ty == ParamType::Boolean {
        match raw.trim() {
            "True" => return Value::Bool(true),
            "False" => return Value::Bool(false),
            _ => {}
        }
    }
    typed_value(raw, ty)
}

/// `null` or Python's `None`.
pub(crate) fn is_null_word(s: &str) -> bool {
    matches!(s, "null" | "None")
}

/// Whether a nullable string's text so far may still become `null` or `None`.
pub(crate) fn may_be_null_word(s: &str) -> bool {
    "null".starts_with(s) || "None".starts_with(s)
}

/// XML's five predefined entities and the characters they stand for.
const ENTITIES: [(&str, char); 5] = [
    ("&amp;", '&'),
    ("&lt;", '<'),
    ("&gt;", '>'),
    ("&quot;", '"'),
    ("&apos;", '\''),
];

/// `text` with XML's five predefined entities decoded; any other `&` (a bare
/// one, `&nbsp;`, `&#60;`) stays as written. Decoding an `&amp;` yields an `&`
/// that is not read again: `&amp;lt;` is `&lt;`.
pub(crate) fn decode_entities(text: &str) -> Cow<'_, str> {
    let Some(first) = memchr::memchr(b'&', text.as_bytes()) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..first]);
    let mut rest = &text[first..];
    // `rest` starts at an `&`.
    loop {
        match ENTITIES.iter().find(|(name, _)| rest.starts_with(name)) {
            Some((name, c)) => {
                out.push(*c);
                rest = &rest[name.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
        match memchr::memchr(b'&', rest.as_bytes()) {
            Some(at) => {
                out.push_str(&rest[..at]);
                rest = &rest[at..];
            }
            None => {
                out.push_str(rest);
                return Cow::Owned(out);
            }
        }
    }
}

/// How many bytes at the end of `bytes` may begin an entity that more input
/// completes (`&`, `&am`, `&quo`): they wait for it. 0 when none may.
pub(crate) fn entity_tail(bytes: &[u8]) -> usize {
    let from = bytes.len().saturating_sub(5);
    let Some(at) = memchr::memrchr(b'&', &bytes[from..]) else {
        return 0;
    };
    let tail = &bytes[from + at..];
    let unfinished = ENTITIES
        .iter()
        .any(|(name, _)| name.len() > tail.len() && name.as_bytes().starts_with(tail));
    if unfinished { tail.len() } else { 0 }
}
