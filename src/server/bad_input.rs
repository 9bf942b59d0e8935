//! The JSON-RPC answers to input the server cannot use, so that no request
//! goes unanswered: a line or body that is not JSON (-32700, id null), a
//! message over the size limit (-32600, with the id read from its prefix when
//! it can be), and a known method whose params do not fit (-32602).
//!
//! rmcp drops an unparsable stdio line without a reply, answers an unparsable
//! HTTP body with a plain-text 415, and sends a known method with params of
//! the wrong shape (`tools/call` with array arguments) to the custom-request
//! handler, whose default answer is -32601 (method not found). The stdio
//! reader (`line.rs`), the HTTP front (`http.rs`) and `McpServer`'s
//! `on_custom_request` answer those cases with what follows.

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, ErrorCode};
use serde_json::{Value, json};

use crate::core::{echo, echo_display};

/// How much of an oversize message's start is searched for its `"id"`.
pub(crate) const ID_SCAN_BYTES: usize = 4096;

/// The methods a client may send this server: a request for one of them that
/// rmcp could not read had params of the wrong shape, not an unknown method.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
    "subscriptions/listen",
];

/// Methods protocol 2026-07-28 removed: a request of that revision naming one
/// is an unknown method (-32601, HTTP 404), whatever its params.
const REMOVED_IN_2026_07_28: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Whether `body` is one JSON text that serde reads (UTF-8, no stray bytes,
/// numbers within range, at most 128 levels deep, no lone surrogate escapes):
/// what rmcp's parse reads as JSON. What it holds is not looked at.
///
/// rmcp drops a line whose parse fails with a syntax error without a word, and
/// serde calls those limits syntax errors too (`1e400`, 129 nested arrays,
/// `"\ud800"`), though a skim of the text (`IgnoredAny`) passes them.
pub(crate) fn is_json(body: &[u8]) -> bool {
    std::str::from_utf8(body).is_ok_and(|text| serde_json::from_str::<Readable>(text).is_ok())
}

/// The JSON-RPC error for a line or body that is not JSON (`why` says how it
/// failed: `not valid UTF-8`, or serde's reason).
pub(crate) fn parse_error(body: &[u8]) -> Value {
    let why = match std::str::from_utf8(body) {
        Err(e) => format!("not valid UTF-8 ({e})"),
        Ok(text) => match serde_json::from_str::<Readable>(text) {
            Err(e) => echo_display(&e),
            Ok(_) => "not one JSON value".to_owned(),
        },
    };
    error_message(
        Value::Null,
        ErrorCode::PARSE_ERROR,
        format!("Parse error: {why}"),
    )
}

/// The JSON-RPC error for a message of `size` bytes or more, over `limit`,
/// answered with the id found in its first bytes (`prefix`), else null.
pub(crate) fn oversize_error(prefix: &[u8], limit: usize) -> Value {
    let mut limit_text = String::new();
    let _ = crate::core::write_byte_count(&mut limit_text, limit);
    error_message(
        id_in_prefix(prefix).unwrap_or(Value::Null),
        ErrorCode::INVALID_REQUEST,
        format!("Invalid request: the message exceeds the {limit_text}-byte limit"),
    )
}

/// The JSON-RPC error for JSON that is not a message rmcp can read, with the
/// message's `"id"` when it has a number or string one.
pub(crate) fn invalid_message(body: &[u8]) -> Value {
    let id = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(mut message)) => match message.remove("id") {
            Some(id @ (Value::Number(_) | Value::String(_))) => id,
            _ => Value::Null,
        },
        _ => Value::Null,
    };
    error_message(
        id,
        ErrorCode::INVALID_REQUEST,
        "Invalid request: not a JSON-RPC message this server reads".to_owned(),
    )
}

/// The error for a request rmcp read as a custom request: -32602 when the
/// method is one this server knows (its params did not fit), else -32601.
/// `stateless`: the request speaks protocol 2026-07-28 or later, where the
/// methods it removed are unknown.
pub(crate) fn custom_request_error(
    method: &str,
    params: Option<&Value>,
    stateless: bool,
) -> McpError {
    if !KNOWN_METHODS.contains(&method) || (stateless && REMOVED_IN_2026_07_28.contains(&method)) {
        return McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method not found: `{}`", echo(method)),
            None,
        );
    }
    let why = match (method, params) {
        ("tools/call", Some(params)) => {
            match serde_json::from_value::<CallToolRequestParams>(params.clone()) {
                Err(e) => echo_display(&e),
                Ok(_) => "params of the wrong shape".to_owned(),
            }
        }
        (_, None) => "params are missing".to_owned(),
        _ => "params of the wrong shape".to_owned(),
    };
    McpError::invalid_params(format!("invalid params for `{method}`: {why}"), None)
}

/// The top-level `"id"` of a JSON-RPC message from its first
/// [`ID_SCAN_BYTES`] bytes: a number or a string without escapes, else `None`.
/// Keys inside nested objects (`params.arguments.id`) are not the id.
pub(crate) fn id_in_prefix(message: &[u8]) -> Option<Value> {
    let scan = &message[..message.len().min(ID_SCAN_BYTES)];
    let mut depth = 0usize;
    let mut at = 0;
    while at < scan.len() {
        match scan[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(scan, at + 1)?;
                if depth == 1 && &scan[at + 1..end] == b"id" {
                    let colon = skip_space(scan, end + 1);
                    if scan.get(colon) == Some(&b':') {
                        return id_value(scan, skip_space(scan, colon + 1));
                    }
                }
                at = end;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// Any JSON value, read the way a `serde_json::Value` is (numbers converted,
/// strings unescaped, nesting counted) and kept nowhere.
struct Readable;

impl<'de> serde::Deserialize<'de> for Readable {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ReadableVisitor)
    }
}

struct ReadableVisitor;

impl<'de> serde::de::Visitor<'de> for ReadableVisitor {
    type Value = Readable;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_str<E>(self, _: &str) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_unit<E>(self) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Readable, A::Error> {
        while seq.next_element::<Readable>()?.is_some() {}
        Ok(Readable)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Readable, A::Error> {
        while map.next_entry::<Readable, Readable>()?.is_some() {}
        Ok(Readable)
    }
}

/// A JSON-RPC error response as JSON, ready to encode.
fn error_message(id: Value, code: ErrorCode, message: String) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code.0, "message": message },
    })
}

/// The index of the quote that closes the string whose content starts at `from`.
fn string_end(scan: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at < scan.len() {
        match scan[at] {
            b'\\' => at += 2,
            b'"' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

fn skip_space(scan: &[u8], from: usize) -> usize {
    from + scan
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .count()
}

/// A number or an escape-free string at `from`, ended before the scan ends.
fn id_value(scan: &[u8], from: usize) -> Option<Value> {
    let rest = scan.get(from..)?;
    let token_len = match rest.first()? {
        b'"' => {
            let close = memchr::memchr(b'"', &rest[1..])? + 1;
            if rest[1..close].contains(&b'\\') {
                return None;
            }
            close + 1
        }
        b'-' | b'0'..=b'9' => {
            let len = 1 + rest[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            // The number must end inside the scan, or it may be cut short.
            if len == rest.len() {
                return None;
            }
            len
        }
        _ => return None,
    };
    match serde_json::from_slice(&rest[..token_len]).ok()? {
        id @ (Value::Number(_) | Value::String(_)) => Some(id),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
