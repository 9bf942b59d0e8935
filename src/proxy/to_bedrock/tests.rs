#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::converse_body;

fn body(chat: Value) -> Result<Map<String, Value>, crate::proxy::error::ApiError> {
    let Value::Object(chat) = chat else {
        panic!("not an object")
    };
    converse_body(&chat)
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "w", "description": "Weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])
}

#[test]
fn a_conversation_with_calls_and_results() {
    let out = body(json!({"model": "anthropic.claude-v1:0", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "t1", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "t2", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Rome\"}"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "{\"c\": 18}"},
        {"role": "tool", "tool_call_id": "t2", "content": "21 °C"},
        {"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/webp;base64,CCCC"}}]}],
        "tools": tools(), "tool_choice": {"type": "function", "function": {"name": "w"}},
        "max_tokens": 200, "stop": ["END", "STOP"], "temperature": 0, "top_p": 1,
        "seed": 1, "parallel_tool_calls": true}))
    .unwrap();
    assert_eq!(
        Value::Object(out),
        json!({
            "messages": [
                {"role": "user", "content": [{"text": "Weather in Paris and Rome?"}]},
                {"role": "assistant", "content": [
                    {"toolUse": {"toolUseId": "t1", "name": "w", "input": {"city": "Paris"}}},
                    {"toolUse": {"toolUseId": "t2", "name": "w", "input": {"city": "Rome"}}}]},
                {"role": "user", "content": [
                    {"toolResult": {"toolUseId": "t1", "content": [{"json": {"c": 18}}]}},
                    {"toolResult": {"toolUseId": "t2", "content": [{"text": "21 °C"}]}},
                    {"image": {"format": "webp", "source": {"bytes": "CCCC"}}}]}],
            "system": [{"text": "Be brief."}],
            "toolConfig": {
                "tools": [{"toolSpec": {"name": "w", "description": "Weather",
                    "inputSchema": {"json": {"type": "object",
                        "properties": {"city": {"type": "string"}}}}}}],
                "toolChoice": {"tool": {"name": "w"}}},
            "inferenceConfig": {"maxTokens": 200, "temperature": 0, "topP": 1,
                                "stopSequences": ["END", "STOP"]}
        })
    );
}

#[test]
fn tool_choice_maps_and_none_keeps_tools_only_for_a_history_with_calls() {
    let config = |choice: Value, messages: Value| {
        body(json!({"messages": messages, "tools": tools(), "tool_choice": choice}))
            .unwrap()
            .get("toolConfig")
            .map(|c| c.get("toolChoice").cloned())
    };
    assert_eq!(
        config(json!("auto"), json!([])),
        Some(Some(json!({"auto": {}})))
    );
    assert_eq!(
        config(json!("required"), json!([])),
        Some(Some(json!({"any": {}})))
    );
    assert_eq!(config(Value::Null, json!([])), Some(None));
    assert_eq!(config(json!("none"), json!([])), None);
    let history = json!([{"role": "tool", "tool_call_id": "t", "content": ""}]);
    assert_eq!(config(json!("none"), history), Some(None));
}

#[test]
fn empty_results_blank_text_and_unknown_images() {
    let out = body(json!({"messages": [
        {"role": "assistant", "content": "  ", "tool_calls": [
            {"id": "t", "function": {"name": "w", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "t", "content": ""}]}))
    .unwrap();
    assert_eq!(
        out["messages"],
        json!([
            {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "t", "name": "w", "input": {}}}]},
            {"role": "user", "content": [
                {"toolResult": {"toolUseId": "t", "content": [{"text": "(no output)"}]}}]}])
    );
    let error = body(json!({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "data:image/tiff;base64,AA"}}]}]}))
    .unwrap_err();
    assert_eq!(error.error["param"], "messages[0].content[0]");
}
