//! One entry of an XML-dialect block: its parameters, each value streamed
//! as it comes and typed by the schema where it ends, or a JSON body (DSML).

use std::borrow::Cow;

use serde_json::Value;

use crate::core::{JsonObject, ParamType};

use super::super::json_call::ArgsCapture;
use super::super::json_tokenizer::{BracketScan, ValueKind};
use super::super::scan::{escape_json_into, find1, leading_ws, starts, tag_gap};
use super::super::sink::CallSink;
use super::super::xml_syntax::{
    Open, ParamSyntax, XmlSpec, decode_entities, entity_tail, is_null_word, may_be_null_word,
    param_flag, param_open, xml_value,
};

/// Where an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EntryState {
    /// Between parameters. -> Value / Json (first, where the dialect allows
    /// a JSON body) / entry end.
    Params,
    /// Inside a value; `fresh` until its first byte (leading newline strip). -> Params.
    Value { fresh: bool },
    /// Inside a JSON object that is the whole body (DSML). -> AfterJson.
    Json,
    /// After the JSON body: whitespace, then the entry's end. -> entry end.
    AfterJson,
}

/// An entry whose body is one JSON object instead of parameters (DSML):
/// where the object ends, and its text, streamed raw.
#[derive(Debug, Default)]
pub(super) struct JsonBody {
    brackets: BracketScan,
    args: ArgsCapture,
}

#[derive(Debug)]
pub(super) struct Entry {
    pub(super) start: usize,
    pub(super) name: String,
    close: String,
    pub(super) call: Option<(usize, String)>,
    pub(super) state: EntryState,
    pub(super) args: JsonObject,
    pub(super) n_params: usize,
    param: String,
    param_close: String,
    /// The type the current parameter's tag declares (DSML), before the schema.
    flag: Option<ParamType>,
    /// The type the current value is read as (`String`: streamed).
    ty: ParamType,
    /// The schema allows `null` for the current parameter: `null` and
    /// `None` read as null.
    nullable: bool,
    /// DSML `string="false"`: the value is JSON, and when it is not, it is
    /// read as this schema type.
    fallback: Option<ParamType>,
    /// A nullable string whose text so far may still be `null` or `None`:
    /// its opening quote (and that text) wait.
    maybe_null: bool,
    /// The body, when it is one JSON object (DSML).
    pub(super) json: Option<Box<JsonBody>>,
    /// Region offsets of the current value's text so far: it is read from the
    /// region when the value ends, not copied piece by piece.
    value: (usize, usize),
    /// Values have XML's predefined entities decoded ([`XmlSpec::entities`]);
    /// a value's text is then never cut inside an entity.
    pub(super) entities: bool,
}

/// What an entry's step did; positions are offsets in the block's input.
pub(super) enum EntryStep {
    NeedMore(usize),
    Ended(usize),
    Invalid(usize, String),
}

impl Entry {
    /// An entry of tool `name` starting at `start`, closed by `close`; `call`
    /// is its call when the tool is known.
    pub(super) fn new(
        start: usize,
        close: String,
        name: String,
        call: Option<(usize, String)>,
        entities: bool,
    ) -> Box<Self> {
        Box::new(Entry {
            start,
            close,
            name,
            call,
            state: EntryState::Params,
            args: JsonObject::new(),
            n_params: 0,
            param: String::new(),
            param_close: String::new(),
            flag: None,
            ty: ParamType::String,
            nullable: false,
            fallback: None,
            maybe_null: false,
            json: None,
            value: (0, 0),
            entities,
        })
    }

    fn emit(&mut self, sink: &mut CallSink<'_>, s: &str) {
        if let Some((index, _)) = &self.call {
            sink.args(*index, s);
        }
    }

    /// Parses `input` from `i` on; the positions it returns are `input`'s.
    pub(super) fn parse(
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
                    if bytes[j] == b'{' && self.n_params == 0 && spec.json_body() {
                        let mut body = Box::<JsonBody>::default();
                        body.args.start(ValueKind::Object);
                        self.json = Some(body);
                        self.state = EntryState::Json;
                        i = j;
                        continue;
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
                    // The block's end ends an entry that lacks its own: the
                    // block then ends at it.
                    if spec.block_ends_entry()
                        && let Some(block) = spec.block_close
                    {
                        match starts(&bytes[j..], block.as_bytes()) {
                            Some(true) => return EntryStep::Ended(j),
                            None => return EntryStep::NeedMore(j),
                            Some(false) => {}
                        }
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
                EntryState::Json => {
                    let Some(body) = self.json.as_mut() else {
                        return EntryStep::Invalid(i, "a json body without its state".to_owned());
                    };
                    let (next, closed) = body.brackets.scan(bytes, i);
                    let index = self.call.as_ref().map(|c| c.0);
                    body.args.push(&input[i..next], index, sink);
                    i = next;
                    if !closed {
                        return EntryStep::NeedMore(i);
                    }
                    if let Some(index) = index {
                        match body.args.finish(index, sink) {
                            Ok(args) => self.args = args,
                            Err(_) => {
                                return EntryStep::Invalid(
                                    i,
                                    format!("the body of `{}` is not a json object", self.name),
                                );
                            }
                        }
                    }
                    self.state = EntryState::AfterJson;
                }
                EntryState::AfterJson => {
                    let j = i + leading_ws(&bytes[i..]);
                    if j == bytes.len() {
                        return EntryStep::NeedMore(j);
                    }
                    return match starts(&bytes[j..], self.close.as_bytes()) {
                        Some(true) => EntryStep::Ended(j + self.close.len()),
                        None => EntryStep::NeedMore(j),
                        Some(false) => EntryStep::Invalid(
                            j,
                            format!("unexpected text after the json body of `{}`", self.name),
                        ),
                    };
                }
            }
        }
    }

    fn begin_param(&mut self, name: String, syntax: ParamSyntax, sink: &mut CallSink<'_>) {
        let catalog = sink.catalog;
        let schema = || {
            catalog
                .get(&self.name)
                .and_then(|shape| shape.typing(&name))
                .unwrap_or((ParamType::String, false))
        };
        (self.ty, self.nullable, self.fallback) = match self.flag {
            // `string="true"`: the raw text is the string, whatever the schema says.
            Some(ParamType::String) => (ParamType::String, false, None),
            // `string="false"`: JSON, else as the schema says.
            Some(flag) => {
                let (ty, nullable) = schema();
                (flag, nullable, Some(ty))
            }
            None => {
                let (ty, nullable) = schema();
                (ty, nullable, None)
            }
        };
        self.flag = None;
        self.maybe_null = self.ty == ParamType::String && self.nullable;
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
        if self.ty == ParamType::String && !self.maybe_null {
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
        let raw = if self.entities
            && let Cow::Owned(decoded) = decode_entities(&raw)
        {
            Cow::Owned(decoded)
        } else {
            raw
        };
        let value = if self.ty == ParamType::String {
            if std::mem::take(&mut self.maybe_null) {
                // Nothing of the value went out: it may be `null` or `None`.
                if is_null_word(&raw) {
                    self.emit(sink, "null");
                    return self.insert(Value::Null);
                }
                self.emit(sink, "\"");
                if let Some((index, _)) = &self.call {
                    sink.args_escaped(*index, &raw);
                }
            }
            self.emit(sink, "\"");
            Value::String(raw.into_owned())
        } else {
            let value = match self.fallback.take() {
                Some(schema) => serde_json::from_str(raw.trim())
                    .unwrap_or_else(|_| xml_value(&raw, schema, self.nullable)),
                None => xml_value(&raw, self.ty, self.nullable),
            };
            let text = value.to_string();
            self.emit(sink, &text);
            value
        };
        self.insert(value)
    }

    /// The current parameter's value is `value`.
    fn insert(&mut self, value: Value) -> bool {
        self.args.insert(std::mem::take(&mut self.param), value);
        true
    }

    /// The value goes on with `input[from..to]`, which directly follows its
    /// text so far in the region.
    #[inline(always)]
    pub(super) fn push_value(
        &mut self,
        sink: &mut CallSink<'_>,
        input: &str,
        from: usize,
        to: usize,
    ) {
        if from == to {
            return;
        }
        self.value.1 = sink.base + to;
        let s = &input[from..to];
        if self.ty == ParamType::String
            && let Some(&(index, _)) = self.call.as_ref()
        {
            if self.maybe_null && self.hold_maybe_null(sink, index, from) {
                return;
            }
            if self.entities {
                sink.args_escaped(index, &decode_entities(s));
                return;
            }
            // Escaped straight into the event: no copy of the delta in between.
            sink.args_escaped(index, s);
        }
    }

    /// A nullable string whose text so far may still be `null` or `None`:
    /// `true` while it is held (at most four bytes: more cannot be either);
    /// once it cannot be, its opening quote and the held text go out.
    #[cold]
    #[inline(never)]
    fn hold_maybe_null(&mut self, sink: &mut CallSink<'_>, index: usize, from: usize) -> bool {
        let held = self.value.1 - self.value.0 <= 4
            && sink
                .region_text(self.value.0, self.value.1)
                .is_some_and(|text| may_be_null_word(&text));
        if held {
            return true;
        }
        self.maybe_null = false;
        sink.args(index, "\"");
        if let Some(before) = sink.region_text(self.value.0, sink.base + from) {
            if self.entities {
                sink.args_escaped(index, &decode_entities(&before));
            } else {
                sink.args_escaped(index, &before);
            }
        }
        false
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
            // tag is not part of it, so a newline at the end of the input waits,
            // as does the start of an entity the next input may complete.
            let Some(rel) = find1(b'<', &bytes[i..]) else {
                let end = if !eof && bytes.len() > i && bytes[bytes.len() - 1] == b'\n' {
                    bytes.len() - 1
                } else if !eof && self.entities {
                    bytes.len() - entity_tail(&bytes[i..])
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
                    // Qwen3-Coder: a parameter's opening tag at the start of a
                    // line (or of the value) ends a value lacking its closing tag.
                    if spec.opener_ends_value() && (j < k || sink.base + k == self.value.0) {
                        match self.param_opens_here(&input[k..], eof, sink) {
                            None => return (j, false),
                            Some(true) => return (k, true),
                            Some(false) => {}
                        }
                    }
                    // Not the end: the newline (if any) and `<` are content.
                    self.push_value(sink, input, j, k + 1);
                    i = k + 1;
                }
            }
        }
    }

    /// At a `<` that starts a line of a value lacking its closing tag: whether
    /// `rest` opens another parameter of the tool, which ends the value
    /// (`None`: undecided). Only a parameter the tool's schema declares, other
    /// than the current one and those already given, counts: anything else
    /// is the value's text.
    #[cold]
    #[inline(never)]
    fn param_opens_here(&self, rest: &str, eof: bool, sink: &CallSink<'_>) -> Option<bool> {
        match param_open(ParamSyntax::ParameterEq, rest) {
            Open::Match(name, _) => Some(
                name != self.param
                    && !self.args.contains_key(&name)
                    && sink
                        .catalog
                        .get(&self.name)
                        .is_some_and(|shape| shape.typing(&name).is_some()),
            ),
            Open::NeedMore if !eof => None,
            _ => Some(false),
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
        let Some(ws) = tag_gap(after) else {
            return Some(None);
        };
        if ws == after.len() {
            return if eof { Some(Some(close.len())) } else { None };
        }
        let next = &after[ws..];
        match starts(next, self.close.as_bytes()) {
            Some(true) => return Some(Some(close.len())),
            None if !eof => return None,
            _ => {}
        }
        if spec.block_ends_entry()
            && let Some(block) = spec.block_close
        {
            match starts(next, block.as_bytes()) {
                Some(true) => return Some(Some(close.len())),
                None if !eof => return None,
                _ => {}
            }
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
