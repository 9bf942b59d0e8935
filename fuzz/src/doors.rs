//! Shared check of the proxy door fuzz targets (`proxy_chat_request`,
//! `proxy_messages_request`, `proxy_responses_request`): a door's request
//! reader on arbitrary bytes as the body.
//!
//! Checked: no panic; reading is deterministic; a refusal is a 400 or a 413;
//! a body that is read gives a Chat Completions body for the upstream that
//! is one JSON object with `stream: true` and a `messages` array, bounded by
//! a small multiple of the body (no tree, no blow-up); and, on the Chat
//! door, every field of a body that serde_json reads as an object, but
//! `stream` and `stream_options`, goes upstream with the same value.

use serde_json::{Map, Value};

/// Which door's reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// `POST /v1/chat/completions`.
    Chat,
    /// `POST /v1/messages`.
    Messages,
    /// `POST /v1/responses`.
    Responses,
}

/// Reads `body` through `door` and checks what comes out.
pub fn check(door: Door, body: &[u8]) {
    use toolrouter::proxy_fuzzing::{read_chat, read_messages, read_responses};
    let read = match door {
        Door::Chat => read_chat,
        Door::Messages => read_messages,
        Door::Responses => read_responses,
    };
    let first = read(body);
    assert_eq!(first, read(body), "reading is deterministic");
    let sent = match first {
        Ok(sent) => sent,
        Err(status) => {
            assert!(status == 400 || status == 413, "refused with {status}");
            return;
        }
    };
    assert!(
        sent.len() <= 4 * body.len() + 4096,
        "{} bytes sent for a body of {}",
        sent.len(),
        body.len()
    );
    let upstream: Map<String, Value> = serde_json::from_slice(&sent).unwrap_or_else(|e| {
        panic!(
            "the upstream body is not a JSON object ({e}): {}",
            String::from_utf8_lossy(&sent)
        )
    });
    assert_eq!(upstream.get("stream"), Some(&Value::Bool(true)));
    assert!(
        upstream.get("messages").is_some_and(Value::is_array),
        "messages: {:?}",
        upstream.get("messages")
    );
    if door != Door::Chat {
        return;
    }
    let Ok(given) = serde_json::from_slice::<Map<String, Value>>(body) else {
        return;
    };
    for (key, value) in &given {
        if key == "stream" || key == "stream_options" {
            continue;
        }
        assert_eq!(
            upstream.get(key),
            Some(value),
            "field `{key}` went upstream changed"
        );
    }
    assert_eq!(
        given.len()
            + usize::from(!given.contains_key("stream"))
            + usize::from(
                !given.contains_key("stream_options") && upstream.contains_key("stream_options")
            ),
        upstream.len(),
        "fields added or lost"
    );
}
