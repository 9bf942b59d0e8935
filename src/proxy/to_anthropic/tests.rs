#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::messages_body;

fn body(chat: Value) -> Result<Map<String, Value>, crate::proxy::error::ApiError> {
    let Value::Object(chat) = chat else {
        panic!("not an object")
    };
    messages_body(&chat)
}

#[test]
fn system_and_developer_messages_join_into_system() {
    let out = body(json!({"model": "claude", "messages": [
        {"role": "system", "content": "One."},
        {"role": "developer", "content": [{"type": "text", "text": "Two."}]},
        {"role": "user", "content": "hi"}]}))
    .unwrap();
    assert_eq!(out["system"], "One.\n\nTwo.");
    assert_eq!(
        out["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    );
    assert_eq!(out["max_tokens"], 4096);
    assert!(!out.contains_key("tools") && !out.contains_key("tool_choice"));
}

#[test]
fn results_and_the_next_user_words_make_one_user_turn() {
    let out = body(json!({"messages": [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "t2", "type": "function", "function": {"name": "w", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "18 °C"},
        {"role": "tool", "tool_call_id": "t2", "content": [{"type": "text", "text": "21 °C"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]}))
    .unwrap();
    assert_eq!(
        out["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Rome?"}]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "w", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "t2", "name": "w", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "18 °C"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "21 °C"},
                {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}]}
        ])
    );
}

#[test]
fn tool_choice_maps_and_parallel_calls_can_be_turned_off() {
    let tools =
        json!([{"type": "function", "function": {"name": "w", "parameters": {"type": "object"}}}]);
    let choice = |choice: Value, parallel: Value| {
        let out = body(
            json!({"messages": [], "tools": tools, "tool_choice": choice,
            "parallel_tool_calls": parallel}),
        )
        .unwrap();
        out.get("tool_choice").cloned()
    };
    assert_eq!(
        choice(json!("auto"), Value::Null),
        Some(json!({"type": "auto"}))
    );
    assert_eq!(
        choice(json!("required"), Value::Null),
        Some(json!({"type": "any"}))
    );
    assert_eq!(
        choice(json!("none"), json!(false)),
        Some(json!({"type": "none"}))
    );
    assert_eq!(choice(Value::Null, Value::Null), None);
    assert_eq!(
        choice(Value::Null, json!(false)),
        Some(json!({"type": "auto", "disable_parallel_tool_use": true}))
    );
    let out = body(json!({"messages": [], "tools": tools})).unwrap();
    assert_eq!(
        out["tools"],
        json!([{"name": "w", "input_schema": {"type": "object"}}])
    );
}

#[test]
fn what_has_no_equivalent_is_refused_with_its_place() {
    let param = |chat: Value| {
        body(chat).unwrap_err().error["param"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(
        param(json!({"messages": [{"role": "function", "name": "f", "content": "x"}]})),
        "messages[0].role"
    );
    assert_eq!(
        param(json!({"messages": [{"role": "assistant", "tool_calls": [
            {"id": "t", "function": {"name": "w", "arguments": "[1]"}}]}]})),
        "messages[0].tool_calls[0]"
    );
    assert_eq!(
        param(json!({"messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png,raw"}}]}]})),
        "messages[0].content[0]"
    );
    assert_eq!(
        param(json!({"messages": [], "max_tokens": "many"})),
        "max_tokens"
    );
}
