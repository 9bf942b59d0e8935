#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::generate_body;

fn body(chat: Value) -> Result<Map<String, Value>, crate::proxy::error::ApiError> {
    let Value::Object(chat) = chat else {
        panic!("not an object")
    };
    generate_body(&chat)
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "w", "description": "Weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}])
}

#[test]
fn a_conversation_with_a_call_and_its_result() {
    let out = body(json!({"model": "gemini-2.5-flash", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{\"city\":\"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "18 °C"},
        {"role": "user", "content": [{"type": "text", "text": "And"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}],
        "tools": tools(), "tool_choice": "required", "max_tokens": 100, "stop": ["END"],
        "temperature": 0.5, "top_p": 0.9, "seed": 7, "n": 1, "logprobs": true,
        "parallel_tool_calls": false, "stream": true}))
    .unwrap();
    assert_eq!(
        Value::Object(out),
        json!({
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {"role": "model", "parts": [
                    {"text": "Checking."},
                    {"functionCall": {"name": "w", "args": {"city": "Paris"}},
                     "thoughtSignature": "skip_thought_signature_validator"}]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "w", "response": {"output": "18 °C"}}},
                    {"text": "And"},
                    {"inlineData": {"mimeType": "image/png", "data": "AAAA"}}]}],
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "tools": [{"functionDeclarations": [{"name": "w", "description": "Weather",
                "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}},
                               "required": ["city"]}}]}],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
            "generationConfig": {"maxOutputTokens": 100, "temperature": 0.5, "topP": 0.9,
                                 "stopSequences": ["END"]}
        })
    );
}

#[test]
fn tool_choice_maps_to_function_calling_modes() {
    let mode = |choice: Value| {
        body(json!({"messages": [], "tools": tools(), "tool_choice": choice}))
            .unwrap()
            .get("toolConfig")
            .cloned()
    };
    assert_eq!(
        mode(json!("auto")),
        Some(json!({"functionCallingConfig": {"mode": "AUTO"}}))
    );
    assert_eq!(
        mode(json!("none")),
        Some(json!({"functionCallingConfig": {"mode": "NONE"}}))
    );
    assert_eq!(
        mode(json!({"type": "function", "function": {"name": "w"}})),
        Some(json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["w"]}}))
    );
    assert_eq!(mode(Value::Null), None);
    let plain = body(json!({"messages": [{"role": "user", "content": "hi"}]})).unwrap();
    for key in [
        "tools",
        "toolConfig",
        "generationConfig",
        "systemInstruction",
        "model",
    ] {
        assert!(!plain.contains_key(key), "{key}");
    }
}

#[test]
fn a_result_names_its_function_from_the_call_or_is_refused() {
    let out = body(json!({"messages": [
        {"role": "tool", "tool_call_id": "x", "name": "legacy", "content": "{}"}]}))
    .unwrap();
    assert_eq!(
        out["contents"][0]["parts"][0]["functionResponse"]["name"],
        "legacy"
    );
    let error = body(json!({"messages": [
        {"role": "tool", "tool_call_id": "unknown", "content": "x"}]}))
    .unwrap_err();
    assert_eq!(error.error["param"], "messages[0].tool_call_id");
    let error = body(json!({"messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]}))
    .unwrap_err();
    assert_eq!(error.error["param"], "messages[0].content[0]");
    let error = body(json!({"messages": [{"role": "function", "content": "x"}]})).unwrap_err();
    assert_eq!(error.error["param"], "messages[0].role");
}

/// An assistant message with `calls` (`(id, name, extra_content)`).
fn assistant(calls: &[(&str, &str, Option<Value>)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, extra)| {
            let mut call = json!({"id": id, "type": "function",
                "function": {"name": name, "arguments": "{}"}});
            if let Some(extra) = extra {
                call["extra_content"] = extra.clone();
            }
            call
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

fn google(signature: Value) -> Option<Value> {
    Some(json!({"google": {"thought_signature": signature}}))
}

fn tool(id: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": "ok"})
}

#[test]
fn the_signature_a_client_gives_back_goes_on_its_call_and_the_first_call_is_always_signed() {
    let out = body(json!({"messages": [
        {"role": "user", "content": "Go"},
        // Gemini signed the first of two parallel calls.
        assistant(&[("a", "w", google(json!("SIG-A"))), ("b", "t", None)]),
        tool("a"), tool("b"),
        // A client that gives no signature back: the sentinel, on the first only.
        assistant(&[("c", "w", None), ("d", "t", None)]),
        tool("c"), tool("d"),
        // A signature on a later call only: kept there, the first still signed.
        assistant(&[("e", "w", None), ("f", "t", google(json!("SIG-F")))]),
        tool("e"), tool("f")]}))
    .unwrap();
    let response =
        |name: &str| json!({"functionResponse": {"name": name, "response": {"output": "ok"}}});
    assert_eq!(
        out["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Go"}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "w", "args": {}}, "thoughtSignature": "SIG-A"},
                {"functionCall": {"name": "t", "args": {}}}]},
            {"role": "user", "parts": [response("w"), response("t")]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "w", "args": {}},
                 "thoughtSignature": "skip_thought_signature_validator"},
                {"functionCall": {"name": "t", "args": {}}}]},
            {"role": "user", "parts": [response("w"), response("t")]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "w", "args": {}},
                 "thoughtSignature": "skip_thought_signature_validator"},
                {"functionCall": {"name": "t", "args": {}}, "thoughtSignature": "SIG-F"}]},
            {"role": "user", "parts": [response("w"), response("t")]}
        ])
    );
}

#[test]
fn a_signature_that_is_not_a_string_is_not_one_and_text_turns_get_none() {
    let out = body(json!({"messages": [
        {"role": "user", "content": "Go"},
        {"role": "assistant", "content": "Just text."},
        {"role": "user", "content": "Again"},
        {"role": "assistant", "content": "Calling.", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "w", "arguments": "{}"},
             "extra_content": {"google": {"thought_signature": 7}}},
            {"id": "b", "type": "function", "function": {"name": "w", "arguments": "{}"},
             "extra_content": {"google": {"thought_signature": ""}}}]},
        tool("a"), tool("b"),
        // Two assistant messages in a row are one model content: one first call.
        assistant(&[("c", "w", None)]),
        assistant(&[("d", "t", google(json!("SIG-D")))]),
        {"role": "tool", "tool_call_id": "c", "content": "ok"}]}))
    .unwrap();
    assert_eq!(
        out["contents"],
        json!([
            {"role": "user", "parts": [{"text": "Go"}]},
            {"role": "model", "parts": [{"text": "Just text."}]},
            {"role": "user", "parts": [{"text": "Again"}]},
            {"role": "model", "parts": [
                {"text": "Calling."},
                {"functionCall": {"name": "w", "args": {}},
                 "thoughtSignature": "skip_thought_signature_validator"},
                {"functionCall": {"name": "w", "args": {}}}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "w", "response": {"output": "ok"}}},
                {"functionResponse": {"name": "w", "response": {"output": "ok"}}}]},
            {"role": "model", "parts": [
                {"functionCall": {"name": "w", "args": {}},
                 "thoughtSignature": "skip_thought_signature_validator"},
                {"functionCall": {"name": "t", "args": {}}, "thoughtSignature": "SIG-D"}]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "w", "response": {"output": "ok"}}}]}
        ])
    );
}
