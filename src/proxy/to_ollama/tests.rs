#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::chat_body;

fn body(chat: Value) -> Result<Map<String, Value>, crate::proxy::error::ApiError> {
    let Value::Object(chat) = chat else {
        panic!("not an object")
    };
    chat_body(&chat)
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}])
}

#[test]
fn a_conversation_with_a_call_and_its_result() {
    let out = body(json!({"model": "qwen3:8b", "messages": [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather?"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,BBBB"}}]},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "18 °C"}],
        "tools": tools(), "max_completion_tokens": 50, "stop": "END", "temperature": 0.1,
        "top_p": 0.8, "seed": 3, "logprobs": true, "parallel_tool_calls": false,
        "stream_options": {"include_usage": true}}))
    .unwrap();
    assert_eq!(
        Value::Object(out),
        json!({
            "model": "qwen3:8b",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather?", "images": ["BBBB"]},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"function": {"name": "w", "arguments": {"city": "Paris"}}}]},
                {"role": "tool", "content": "18 °C", "tool_name": "w"}],
            "tools": [{"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}],
            "stream": true,
            "options": {"num_predict": 50, "temperature": 0.1, "top_p": 0.8, "seed": 3,
                        "stop": ["END"]}
        })
    );
}

#[test]
fn tool_choice_none_sends_no_tools_and_the_others_leave_them() {
    let sent = |choice: Value| {
        body(json!({"messages": [], "tools": tools(), "tool_choice": choice}))
            .unwrap()
            .contains_key("tools")
    };
    assert!(!sent(json!("none")));
    assert!(sent(json!("auto")));
    assert!(sent(json!("required")));
    assert!(sent(json!({"type": "function", "function": {"name": "w"}})));
    let plain = body(json!({"model": "m", "messages": []})).unwrap();
    assert!(!plain.contains_key("options") && !plain.contains_key("tools"));
}

#[test]
fn a_result_without_a_known_call_has_no_tool_name_and_urls_are_refused() {
    let out = body(json!({"messages": [
        {"role": "tool", "tool_call_id": "x", "content": "ok"}]}))
    .unwrap();
    assert_eq!(out["messages"][0], json!({"role": "tool", "content": "ok"}));
    let error = body(json!({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]}))
    .unwrap_err();
    assert_eq!(error.error["param"], "messages[0].content[0]");
    let error = body(json!({"messages": [], "max_tokens": "x"})).unwrap_err();
    assert_eq!(error.error["param"], "max_tokens");
}
