//! Small readers shared by the adapters: call keys and tolerant JSON field access.

/// Hands out [`CallKey`](crate::CallKey)s in opening order.
#[derive(Debug, Default)]
pub(crate) struct KeyAlloc(u32);

impl KeyAlloc {
    pub(crate) fn next(&mut self) -> crate::CallKey {
        let key = crate::CallKey(self.0);
        self.0 = self.0.saturating_add(1);
        key
    }
}

/// Reads a string field, treating `null` and `""` as absent.
pub(crate) fn str_field<'a>(v: &'a serde_json::Value, name: &str) -> Option<&'a str> {
    v.get(name)?.as_str().filter(|s| !s.is_empty())
}

/// A call id may come as a string or, from some servers, a number.
pub(crate) fn id_field(v: &serde_json::Value, name: &str) -> Option<String> {
    match v.get(name)? {
        serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Arguments that came as a JSON value: objects and strings are handed on as JSON
/// text; `null` means none.
pub(crate) fn args_text(v: Option<&serde_json::Value>) -> String {
    match v {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The message of an `error` member: an object with `message`, or a plain string.
pub(crate) fn error_message(err: &serde_json::Value) -> String {
    match err {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(o) => {
            match o.get("message").and_then(serde_json::Value::as_str) {
                Some(m) => m.to_owned(),
                None => err.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// Moves a non-empty string out of a leaf.
pub(crate) fn take_str(v: Option<serde_json::Value>) -> Option<String> {
    match v? {
        serde_json::Value::String(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// The stop words Anthropic Messages and Bedrock Converse share; `None` for the
/// rest, which each wire maps on its own.
pub(crate) fn messages_stop_reason(reason: &str) -> Option<crate::delta::StopReason> {
    use crate::delta::StopReason;
    Some(match reason {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" | "model_context_window_exceeded" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        _ => return None,
    })
}
