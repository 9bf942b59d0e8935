#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::responses_body;

fn body(chat: Value) -> Result<Map<String, Value>, crate::proxy::error::ApiError> {
    let Value::Object(chat) = chat else {
        panic!("not an object")
    };
    responses_body(&chat)
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "w", "description": "Weather.",
        "parameters": {"type": "object"}}}])
}

#[test]
fn a_conversation_with_calls_and_their_results() {
    let out = body(json!({"model": "gpt-5", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather?"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,BBBB"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]},
        {"role": "assistant", "content": "Looking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "w", "arguments": ""}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "18 °C"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "?"}]},
        {"role": "developer", "content": "Answer in French."}],
        "tools": tools(), "tool_choice": "required", "parallel_tool_calls": false,
        "max_completion_tokens": 50, "temperature": 0.1, "top_p": 0.8, "seed": 3,
        "stream_options": {"include_usage": true}}))
    .unwrap();
    assert_eq!(
        Value::Object(out),
        json!({
            "model": "gpt-5",
            "input": [
                {"type": "message", "role": "system", "content": "Be brief."},
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "Weather?"},
                    {"type": "input_image", "image_url": "data:image/jpeg;base64,BBBB"},
                    {"type": "input_image", "image_url": "https://example.com/a.png"}]},
                {"type": "message", "role": "assistant", "content": [
                    {"type": "output_text", "text": "Looking."}]},
                {"type": "function_call", "call_id": "c1", "name": "w",
                    "arguments": "{\"city\":\"Paris\"}"},
                {"type": "function_call", "call_id": "c2", "name": "w", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "18 °C"},
                {"type": "function_call_output", "call_id": "c2", "output": "?"},
                {"type": "message", "role": "developer", "content": "Answer in French."}],
            "tools": [{"type": "function", "name": "w", "description": "Weather.",
                "parameters": {"type": "object"}, "strict": false}],
            "tool_choice": "required",
            "parallel_tool_calls": false,
            "max_output_tokens": 50,
            "temperature": 0.1,
            "top_p": 0.8,
            "store": false,
            "stream": true
        })
    );
}

#[test]
fn each_tool_choice_in_responses_shape() {
    let choice = |choice: Value| {
        body(json!({"messages": [], "tools": tools(), "tool_choice": choice})).unwrap()
            ["tool_choice"]
            .clone()
    };
    assert_eq!(choice(json!("auto")), json!("auto"));
    assert_eq!(choice(json!("none")), json!("none"));
    assert_eq!(
        choice(json!({"type": "function", "function": {"name": "w"}})),
        json!({"type": "function", "name": "w"})
    );
    // Without tools, no tool fields.
    let plain = body(
        json!({"model": "m", "messages": [{"role": "user", "content": "Hi"}],
        "tool_choice": "auto", "parallel_tool_calls": true}),
    )
    .unwrap();
    assert_eq!(
        Value::Object(plain),
        json!({"model": "m", "input": [{"type": "message", "role": "user",
            "content": [{"type": "input_text", "text": "Hi"}]}], "store": false, "stream": true})
    );
}

#[test]
fn what_has_no_responses_equivalent_is_refused() {
    let refused = |chat: Value| {
        let error = body(chat).err().unwrap();
        (error.status.as_u16(), error.error["param"].clone())
    };
    assert_eq!(
        refused(json!({"messages": [], "stop": ["END"]})),
        (400, json!("stop"))
    );
    assert_eq!(
        refused(json!({"messages": [{"role": "function", "content": "x"}]})).0,
        400
    );
    assert_eq!(
        refused(json!({"messages": [{"role": "user", "content": [{"type": "input_audio"}]}]})).0,
        400
    );
    // `stop: null` is no stop.
    assert!(body(json!({"messages": [], "stop": null})).is_ok());
}
