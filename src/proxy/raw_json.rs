//! Reading a request body's JSON text where it lies, without building a
//! `serde_json::Value` tree of it: a tree costs 40 to 60 times the text it
//! holds (an `IndexMap` per object), so the doors read what they need
//! field by field, each value a slice of the body (`&str`, its JSON text),
//! and pass on what they do not inspect as the client wrote it.
//!
//! Every function here takes the text of one JSON value as serde_json
//! delimits it (no surrounding whitespace), so its first byte tells its
//! [`Kind`]. Objects are read with the semantics of `serde_json::Map`: a key
//! given twice keeps its last value.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer as _;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::error::ApiError;

/// What a JSON value is, read from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

/// The kind of the JSON value `text`.
pub(crate) fn kind(text: &str) -> Kind {
    match text.as_bytes().first() {
        Some(b'{') => Kind::Object,
        Some(b'[') => Kind::Array,
        Some(b'"') => Kind::String,
        Some(b't' | b'f') => Kind::Bool,
        Some(b'n') => Kind::Null,
        _ => Kind::Number,
    }
}

/// The `400` of a body that is not JSON (`e` says where).
pub(crate) fn not_json(e: impl fmt::Display) -> ApiError {
    ApiError::bad_request(format!("the request body is not valid JSON: {e}"), None)
}

/// `body` as text, once it is checked to be one JSON value (`None`: the
/// value is not an object; its top-level fields are then not read).
pub(crate) fn object_text(body: &[u8]) -> Result<Option<&str>, ApiError> {
    let text = std::str::from_utf8(body).map_err(not_json)?;
    let raw: &RawValue = serde_json::from_str(text).map_err(not_json)?;
    Ok((kind(raw.get()) == Kind::Object).then_some(raw.get()))
}

/// How many JSON values `text` holds, about (one more per empty array or
/// object), counted up to `limit`: a result over `limit` means "more". Each
/// value of a `serde_json::Value` tree costs about a hundred bytes, however
/// short its text, so this is what a tree of `text` would cost.
pub(crate) fn values(text: &str, limit: usize) -> usize {
    // A value is the text's first, or follows `{`, `[` or `,` outside a
    // string (an empty container counts one too many).
    let mut count = 1;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text.as_bytes() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' | b',' => {
                count += 1;
                if count > limit {
                    break;
                }
            }
            _ => {}
        }
    }
    count
}

/// A string's value, without its escapes: borrowed when it has none.
pub(crate) fn string(text: &str) -> Option<Cow<'_, str>> {
    if kind(text) != Kind::String {
        return None;
    }
    serde_json::Deserializer::from_str(text)
        .deserialize_str(StrVisitor)
        .ok()
}

/// A boolean's value.
pub(crate) fn boolean(text: &str) -> Option<bool> {
    match text {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Whether `text` is `null`.
pub(crate) fn is_null(text: &str) -> bool {
    text == "null"
}

/// A non-negative integer's value (as `Value::as_u64` reads it).
pub(crate) fn unsigned(text: &str) -> Option<u64> {
    if kind(text) != Kind::Number {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// Calls `f` with each element of the array `text` and its position, in
/// order, holding none of them; `false` when `text` is not an array.
pub(crate) fn each<'a>(
    text: &'a str,
    mut f: impl FnMut(usize, &'a str) -> Result<(), ApiError>,
) -> Result<bool, ApiError> {
    if kind(text) != Kind::Array {
        return Ok(false);
    }
    let mut failed = None;
    let visitor = Elements {
        f: &mut f,
        failed: &mut failed,
    };
    let read = serde_json::Deserializer::from_str(text).deserialize_seq(visitor);
    match (failed, read) {
        (Some(error), _) => Err(error),
        (None, Err(e)) => Err(not_json(e)),
        (None, Ok(())) => Ok(true),
    }
}

/// Calls `f` with each key (unescaped) and value of the object `text`, in
/// order, every occurrence of a key given twice included; `false` when
/// `text` is not an object.
pub(crate) fn fields<'a>(
    text: &'a str,
    mut f: impl FnMut(Cow<'a, str>, &'a str) -> Result<(), ApiError>,
) -> Result<bool, ApiError> {
    if kind(text) != Kind::Object {
        return Ok(false);
    }
    let mut failed = None;
    let visitor = Members {
        f: &mut f,
        failed: &mut failed,
    };
    let read = serde_json::Deserializer::from_str(text).deserialize_map(visitor);
    match (failed, read) {
        (Some(error), _) => Err(error),
        (None, Err(e)) => Err(not_json(e)),
        (None, Ok(())) => Ok(true),
    }
}

/// The values of `keys` in the object `text` (the last of a key given
/// twice), the others skipped unread; `None` when `text` is not an object.
pub(crate) fn pick<'a, const N: usize>(
    text: &'a str,
    keys: [&str; N],
) -> Result<Option<[Option<&'a str>; N]>, ApiError> {
    if kind(text) != Kind::Object {
        return Ok(None);
    }
    let mut found = [None; N];
    let visitor = Picker {
        keys: &keys,
        found: &mut found,
    };
    serde_json::Deserializer::from_str(text)
        .deserialize_map(visitor)
        .map_err(not_json)?;
    Ok(Some(found))
}

/// The field `key` of the object `text`: `None` when `text` is not an
/// object or has no such field.
pub(crate) fn get<'a>(text: &'a str, key: &str) -> Result<Option<&'a str>, ApiError> {
    Ok(pick(text, [key])?.and_then(|[value]| value))
}

/// Appends the JSON text `text` without the whitespace between its tokens
/// (an SSE `data:` line must hold no line break).
pub(crate) fn push_minified(out: &mut String, text: &str) {
    let mut in_string = false;
    let mut escaped = false;
    let mut start = 0;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            out.push_str(&text[start..i]);
            start = i + 1;
        }
    }
    out.push_str(&text[start..]);
}

/// `text` without the whitespace between its tokens.
pub(crate) fn minified(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_minified(&mut out, text);
    out
}

/// Appends `value` as a JSON string, escaped as serde_json escapes it.
pub(crate) fn push_str(out: &mut String, value: &str) {
    out.reserve(value.len() + 2);
    out.push('"');
    push_escaped(out, value);
    out.push('"');
}

/// Appends `value` escaped for a JSON string, without the quotes (a string
/// written in pieces).
pub(crate) fn push_escaped(out: &mut String, value: &str) {
    let mut start = 0;
    for (i, &b) in value.as_bytes().iter().enumerate() {
        let escape: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&value[start..i]);
        if escape.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0xf)]));
        } else {
            out.push_str(escape);
        }
        start = i + 1;
    }
    out.push_str(&value[start..]);
}

/// Appends `value` serialized (small values: each is written to a string
/// first).
pub(crate) fn push_json(out: &mut String, value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(text) => out.push_str(&text),
        Err(e) => {
            tracing::debug!(error = %e, "a value could not be written");
            out.push_str("null");
        }
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// A key, borrowed when it has no escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(StrVisitor)
    }
}

struct Elements<'f, F> {
    f: &'f mut F,
    failed: &'f mut Option<ApiError>,
}

impl<'de, F> Visitor<'de> for Elements<'_, F>
where
    F: FnMut(usize, &'de str) -> Result<(), ApiError>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut n = 0;
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            if let Err(error) = (self.f)(n, raw.get()) {
                *self.failed = Some(error);
                return Err(de::Error::custom("stopped"));
            }
            n += 1;
        }
        Ok(())
    }
}

struct Members<'f, F> {
    f: &'f mut F,
    failed: &'f mut Option<ApiError>,
}

impl<'de, F> Visitor<'de> for Members<'_, F>
where
    F: FnMut(Cow<'de, str>, &'de str) -> Result<(), ApiError>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(Key)? {
            let value: &'de RawValue = map.next_value()?;
            if let Err(error) = (self.f)(key, value.get()) {
                *self.failed = Some(error);
                return Err(de::Error::custom("stopped"));
            }
        }
        Ok(())
    }
}

struct Picker<'f, 'de, const N: usize> {
    keys: &'f [&'f str; N],
    found: &'f mut [Option<&'de str>; N],
}

impl<'de, const N: usize> Visitor<'de> for Picker<'_, 'de, N> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(Key)? {
            match self.keys.iter().position(|k| *k == key) {
                Some(at) => {
                    let value: &'de RawValue = map.next_value()?;
                    self.found[at] = Some(value.get());
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
