//! `ChatJson`: a Chat Completions request body kept as JSON text, the one
//! form every door's request takes on its way upstream. Its top-level fields
//! are spans of that text, in order; each value stays the client's text
//! (the OpenAI door's) or the text a door wrote (the other doors'), until the
//! proxy sets a field (`stream`) or appends to an array (`messages`, `tools`
//! in a server-side round). It costs its text and 16 bytes a field, where a
//! `serde_json::Value` of the same body costs 40 to 60 times its text.
//!
//! A key given twice keeps its first place and its last value, as
//! `serde_json::Map` does. The wires that take another request than Chat
//! Completions, and `--text-tools`, read it as a tree ([`ChatJson::to_tree`]).

use serde_json::{Map, Value};

use super::error::ApiError;
use super::raw_json::{self, Kind, not_json};

/// The bytes of request each JSON value of a tree ([`ChatJson::to_tree`]) is
/// allowed: a request of `--max-request-bytes` may hold that many bytes over
/// this many values, so that its tree costs a few times the limit at most.
pub(crate) const BYTES_PER_VALUE: usize = 64;

/// A Chat Completions body as JSON text.
#[derive(Debug, Clone, Default)]
pub(crate) struct ChatJson {
    /// The body, never grown (a body read to its exact length is not copied
    /// into a larger buffer when the proxy sets a field).
    source: String,
    /// What the proxy added (values it set, appended array items, unescaped
    /// keys): its spans start at `source.len()`. A key there (unescaped) is
    /// escaped again when written; a key of the body is written as it came.
    added: String,
    fields: Vec<Field>,
    /// The items appended to an array field: its position in `fields` and
    /// the text that follows its items (`,ITEM,ITEM]`).
    tails: Vec<(usize, Span)>,
}

/// A top-level field: its key (unescaped) and its value's JSON text.
#[derive(Debug, Clone, Copy)]
struct Field {
    key: Span,
    value: Span,
}

/// A range of a `ChatJson`'s text: its body, then what was added (a body
/// and its additions have at most `u32::MAX` bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The refusal of a text over `u32::MAX` bytes.
fn too_large() -> ApiError {
    ApiError::new(
        http::StatusCode::PAYLOAD_TOO_LARGE,
        "the request is over the proxy's limit of 4 GiB",
        super::error::INVALID_REQUEST,
        Some("request_too_large"),
    )
}

fn offset(n: usize) -> Result<u32, ApiError> {
    u32::try_from(n).map_err(|_| too_large())
}

impl ChatJson {
    /// Reads a body: `Ok(None)` when it is JSON but not an object.
    pub(crate) fn parse(text: String) -> Result<Option<Self>, ApiError> {
        offset(text.len())?;
        let base = text.as_ptr() as usize;
        let mut fields = Vec::new();
        let mut escaped_keys = Vec::new();
        {
            let Some(object) = raw_json::object_text(text.as_bytes())? else {
                return Ok(None);
            };
            let span_of = |part: &str| -> Result<Span, ApiError> {
                let start = (part.as_ptr() as usize).wrapping_sub(base);
                let end = start.wrapping_add(part.len());
                if text
                    .get(start..end)
                    .is_none_or(|s| s.as_ptr() != part.as_ptr())
                {
                    return Err(not_json("a value outside the body"));
                }
                Ok(Span {
                    start: offset(start)?,
                    end: offset(end)?,
                })
            };
            raw_json::fields(object, |key, value| {
                let key = match key {
                    std::borrow::Cow::Borrowed(key) => span_of(key)?,
                    std::borrow::Cow::Owned(key) => {
                        escaped_keys.push((fields.len(), key));
                        Span { start: 0, end: 0 }
                    }
                };
                fields.push(Field {
                    key,
                    value: span_of(value)?,
                });
                Ok(())
            })?;
        }
        let mut body = Self {
            source: text,
            added: String::new(),
            fields,
            tails: Vec::new(),
        };
        for (at, key) in escaped_keys {
            let span = body.append(&key)?;
            if let Some(field) = body.fields.get_mut(at) {
                field.key = span;
            }
        }
        body.merge_repeated_keys();
        Ok(Some(body))
    }

    /// A body written by a door: `text` is a JSON object whose fields are
    /// `fields` (key and value spans, no key twice).
    fn written(text: String, fields: Vec<Field>) -> Self {
        Self {
            source: text,
            added: String::new(),
            fields,
            tails: Vec::new(),
        }
    }

    /// The bytes of the text (the body and what the proxy added).
    pub(crate) fn text_len(&self) -> usize {
        self.source.len() + self.added.len()
    }

    /// The JSON text of field `key`'s value as it came or was set (items
    /// appended to it by [`extend_array`](Self::extend_array) not included).
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        let field = self.fields.iter().find(|f| self.str(f.key) == key)?;
        Some(self.str(field.value))
    }

    /// The string field `key`, if it is one.
    pub(crate) fn get_str(&self, key: &str) -> Option<std::borrow::Cow<'_, str>> {
        raw_json::string(self.get(key)?)
    }

    /// Sets field `key` to the JSON text `value` (valid JSON: the caller
    /// wrote it), in its place, or last when the body has no such field.
    pub(crate) fn set(&mut self, key: &str, value: &str) -> Result<(), ApiError> {
        let value = self.append(value)?;
        match self.position(key) {
            Some(at) => {
                self.fields[at].value = value;
                self.tails.retain(|(of, _)| *of != at);
            }
            None => {
                let key = self.append(key)?;
                self.fields.push(Field { key, value });
            }
        }
        Ok(())
    }

    /// Appends `items` to the array field `key`; a field that is missing or
    /// not an array becomes one of `items`.
    pub(crate) fn extend_array<'v>(
        &mut self,
        key: &str,
        items: impl IntoIterator<Item = &'v Value>,
    ) -> Result<(), ApiError> {
        let items: Vec<&Value> = items.into_iter().collect();
        let at = self
            .position(key)
            .filter(|at| raw_json::kind(self.str(self.fields[*at].value)) == Kind::Array);
        let Some(at) = at else {
            let mut list = String::from("[");
            for (n, item) in items.into_iter().enumerate() {
                if n > 0 {
                    list.push(',');
                }
                raw_json::push_json(&mut list, item);
            }
            list.push(']');
            return self.set(key, &list);
        };
        if items.is_empty() {
            return Ok(());
        }
        let tail = self.tails.iter().position(|(of, _)| *of == at);
        // Whether an item comes before the first appended one.
        let mut more = match tail {
            Some(n) => {
                let span = self.tails[n].1;
                if span.end as usize == self.text_len() {
                    // The tail ends the text: it grows in place.
                    self.added.pop();
                } else {
                    let old = self.str(span).to_owned();
                    let start = self.text_len();
                    self.added.push_str(old.strip_suffix(']').unwrap_or(&old));
                    self.tails[n].1.start = offset(start)?;
                }
                true
            }
            None => {
                let value = self.str(self.fields[at].value);
                !value[1..value.len().saturating_sub(1)].trim().is_empty()
            }
        };
        let start = self.text_len();
        for item in items {
            if more {
                self.added.push(',');
            }
            more = true;
            raw_json::push_json(&mut self.added, item);
        }
        self.added.push(']');
        let end = offset(self.text_len())?;
        match tail {
            Some(n) => self.tails[n].1.end = end,
            None => self.tails.push((
                at,
                Span {
                    start: offset(start)?,
                    end,
                },
            )),
        }
        Ok(())
    }

    /// The body as it goes upstream: `{"key":value,…}`.
    pub(crate) fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text_len() + 4 * self.fields.len() + 2);
        out.push(b'{');
        for (n, field) in self.fields.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            let key = self.str(field.key);
            if (field.key.end as usize) <= self.source.len() {
                // A key as the body wrote it, which had no escapes.
                out.push(b'"');
                out.extend_from_slice(key.as_bytes());
                out.push(b'"');
            } else {
                let mut escaped = String::with_capacity(key.len() + 2);
                raw_json::push_str(&mut escaped, key);
                out.extend_from_slice(escaped.as_bytes());
            }
            out.push(b':');
            self.write_value(n, field.value, &mut out);
        }
        out.push(b'}');
        out
    }

    /// The body as a tree, for the wires whose requests are translated from
    /// it and for `--text-tools`, when it holds at most `max_values` JSON
    /// values ([`raw_json::values`]): a tree costs about a hundred bytes a
    /// value, so a body of many small values is refused (`413`) before its
    /// tree is built.
    pub(crate) fn to_tree(&self, max_values: usize) -> Result<Map<String, Value>, ApiError> {
        let mut count = 0usize;
        for field in &self.fields {
            count = count.saturating_add(raw_json::values(self.str(field.value), max_values));
        }
        for (_, tail) in &self.tails {
            count = count.saturating_add(raw_json::values(self.str(*tail), max_values));
        }
        if count > max_values {
            return Err(ApiError::new(
                http::StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request holds more than {max_values} JSON values, the most a request \
                     translated for this upstream or rewritten by --text-tools may hold \
                     (--max-request-bytes / {BYTES_PER_VALUE})"
                ),
                super::error::INVALID_REQUEST,
                Some("request_too_large"),
            ));
        }
        let mut tree = Map::new();
        let mut buf = Vec::new();
        for (n, field) in self.fields.iter().enumerate() {
            buf.clear();
            self.write_value(n, field.value, &mut buf);
            let value: Value = serde_json::from_slice(&buf).map_err(not_json)?;
            tree.insert(self.str(field.key).to_owned(), value);
        }
        Ok(tree)
    }

    /// A field's value, with the items appended to it.
    fn write_value(&self, n: usize, value: Span, out: &mut Vec<u8>) {
        let text = self.str(value);
        match self.tails.iter().find(|(of, _)| *of == n) {
            Some((_, tail)) => {
                out.extend_from_slice(text.strip_suffix(']').unwrap_or(text).as_bytes());
                out.extend_from_slice(self.str(*tail).as_bytes());
            }
            None => out.extend_from_slice(text.as_bytes()),
        }
    }

    fn str(&self, span: Span) -> &str {
        let range = span.range();
        let text = match range.start.checked_sub(self.source.len()) {
            Some(start) => self.added.get(start..range.end - self.source.len()),
            None => self.source.get(range),
        };
        text.unwrap_or_default()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.fields.iter().position(|f| self.str(f.key) == key)
    }

    /// Adds `part` to the text: its span.
    fn append(&mut self, part: &str) -> Result<Span, ApiError> {
        let start = offset(self.text_len())?;
        self.added.push_str(part);
        let end = offset(self.text_len())?;
        Ok(Span { start, end })
    }

    /// A key given twice keeps its first place and its last value.
    fn merge_repeated_keys(&mut self) {
        if self.fields.len() < 2 {
            return;
        }
        let mut order: Vec<u32> = (0..self.fields.len() as u32).collect();
        // Each repeated key's first and last field, and the fields dropped.
        let (mut merges, mut dropped) = (Vec::new(), Vec::new());
        {
            let key = |n: u32| self.str(self.fields[n as usize].key);
            order.sort_unstable_by(|a, b| key(*a).cmp(key(*b)).then(a.cmp(b)));
            for run in order.chunk_by(|a, b| key(*a) == key(*b)) {
                if let [first, .., last] = run {
                    merges.push((*first as usize, *last as usize));
                    dropped.extend_from_slice(&run[1..]);
                }
            }
        }
        if dropped.is_empty() {
            return;
        }
        for (first, last) in merges {
            self.fields[first].value = self.fields[last].value;
        }
        for n in dropped {
            self.fields[n as usize].key.start = u32::MAX;
        }
        self.fields.retain(|f| f.key.start != u32::MAX);
    }
}

/// Writes a [`ChatJson`] field by field: a door's translated request.
#[derive(Debug, Default)]
pub(crate) struct ChatJsonWriter {
    text: String,
    fields: Vec<Field>,
}

impl ChatJsonWriter {
    /// Writes field `key` (written once: the caller never repeats a key);
    /// `write` appends its value's JSON text.
    pub(crate) fn field(
        &mut self,
        key: &str,
        write: impl FnOnce(&mut String) -> Result<(), ApiError>,
    ) -> Result<(), ApiError> {
        self.text
            .push(if self.fields.is_empty() { '{' } else { ',' });
        self.text.push('"');
        let key_start = offset(self.text.len())?;
        self.text.push_str(key);
        let key_end = offset(self.text.len())?;
        self.text.push_str("\":");
        let start = offset(self.text.len())?;
        write(&mut self.text)?;
        let end = offset(self.text.len())?;
        self.fields.push(Field {
            key: Span {
                start: key_start,
                end: key_end,
            },
            value: Span { start, end },
        });
        Ok(())
    }

    /// Field `key` with the JSON text `value`.
    pub(crate) fn raw(&mut self, key: &str, value: &str) -> Result<(), ApiError> {
        self.field(key, |out| {
            out.push_str(value);
            Ok(())
        })
    }

    /// The body.
    pub(crate) fn finish(mut self) -> ChatJson {
        if self.fields.is_empty() {
            self.text.push('{');
        }
        self.text.push('}');
        ChatJson::written(self.text, self.fields)
    }
}

#[cfg(test)]
mod tests;
