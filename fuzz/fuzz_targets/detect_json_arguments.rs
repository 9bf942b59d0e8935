//! Fuzz target: `toolrouter::parse_arguments`, which finishes every
//! JSON call, answers exactly as `serde_json::from_str` does: the same object,
//! or an error with the same message. The input is read as JSON text whole,
//! and also as the body of an arguments object and of one of its strings, so
//! that the string decoder sees escapes, surrogates and control characters
//! more often than whole documents would give them.
#![no_main]

use serde_json::{Map, Value};

fn same_as_serde(text: &str) {
    let ours = toolrouter::parse_arguments(text).map_err(|e| e.to_string());
    let theirs = serde_json::from_str::<Map<String, Value>>(text).map_err(|e| e.to_string());
    assert_eq!(ours, theirs, "{text:?}");
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    same_as_serde(&text);
    same_as_serde(&format!("{{\"a\":{text}}}"));
    same_as_serde(&format!("{{\"content\":\"{text}\"}}"));
});
