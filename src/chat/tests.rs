//! Unit tests of request bodies and endpoints, against hand-written JSON.

#![allow(clippy::unwrap_used)] // tests may unwrap

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::{Value, json};
use toolrouter_providers::Wire;

use super::{ChatError, Conversation, Endpoint, ToolMode, endpoint};
use crate::core::{DetectEvent, ToolCall, WireFormat};
use crate::router::{RouteEvent, TurnOutcome};

fn calculate() -> Tool {
    serde_json::from_value(json!({
        "name": "calculate",
        "description": "Evaluates.",
        "inputSchema": {
            "type": "object",
            "properties": {"expression": {"type": "string"}},
            "required": ["expression"]
        }
    }))
    .unwrap()
}

/// A turn that said "Let me compute.", called `calculate` on `6*7` and got 42
/// (text `42`, structured `{"result": 42}`, as the built-in answers).
fn turn_with_call() -> TurnOutcome {
    let arguments = json!({"expression": "6*7"}).as_object().cloned();
    let call = ToolCall::new("call_1", "calculate", arguments, WireFormat::OpenAiChat);
    let mut result = CallToolResult::success(vec![ContentBlock::text("42")]);
    result.structured_content = Some(json!({"result": 42}));
    TurnOutcome::from_events(
        Wire::OpenAiChat,
        &[
            RouteEvent::Detect(DetectEvent::Text {
                text: "Let me compute.".into(),
            }),
            RouteEvent::Detect(DetectEvent::CallEnd {
                index: 0,
                call: Box::new(call),
            }),
            RouteEvent::ToolResult {
                index: 0,
                id: "call_1".into(),
                name: "calculate".into(),
                result,
                elapsed_ms: 1,
            },
        ],
    )
}

fn chat(wire: Wire, mode: ToolMode) -> Conversation {
    let mut chat = Conversation::new(wire, "m1")
        .unwrap()
        .with_system("Be brief.")
        .with_tools(vec![calculate()], mode);
    chat.push_user("What is 6*7?");
    chat
}

fn check(wire: Wire, first: Value, second: Value) {
    let mut chat = chat(wire, ToolMode::Declared);
    assert_eq!(chat.request_body(), first, "first request, {wire:?}");
    chat.record_turn(&turn_with_call());
    assert_eq!(chat.request_body(), second, "second request, {wire:?}");
}

const SCHEMA: &str =
    r#"{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}"#;

fn schema() -> Value {
    serde_json::from_str(SCHEMA).unwrap()
}

#[test]
fn openai_chat_bodies() {
    let tools = json!([{"type": "function", "function": {
        "name": "calculate", "description": "Evaluates.", "parameters": schema()}}]);
    let system = json!({"role": "system", "content": "Be brief."});
    let user = json!({"role": "user", "content": "What is 6*7?"});
    check(
        Wire::OpenAiChat,
        json!({"model": "m1", "messages": [system, user], "tools": tools, "stream": true,
               "stream_options": {"include_usage": true}}),
        json!({"model": "m1", "messages": [system, user,
                {"role": "assistant", "content": "Let me compute.", "tool_calls": [{
                    "id": "call_1", "type": "function",
                    "function": {"name": "calculate", "arguments": "{\"expression\":\"6*7\"}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": "42"}],
               "tools": tools, "stream": true, "stream_options": {"include_usage": true}}),
    );
}

#[test]
fn openai_responses_bodies() {
    let tools = json!([{"type": "function", "name": "calculate", "description": "Evaluates.",
                        "parameters": schema(), "strict": false}]);
    let user = json!({"role": "user", "content": "What is 6*7?"});
    check(
        Wire::OpenAiResponses,
        json!({"model": "m1", "instructions": "Be brief.", "input": [user], "tools": tools,
               "stream": true}),
        json!({"model": "m1", "instructions": "Be brief.", "input": [user,
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Let me compute."}]},
                {"type": "function_call", "call_id": "call_1", "name": "calculate",
                 "arguments": "{\"expression\":\"6*7\"}"},
                {"type": "function_call_output", "call_id": "call_1", "output": "42"}],
               "tools": tools, "stream": true}),
    );
}

#[test]
fn anthropic_bodies() {
    let tools =
        json!([{"name": "calculate", "description": "Evaluates.", "input_schema": schema()}]);
    let user = json!({"role": "user", "content": "What is 6*7?"});
    check(
        Wire::Anthropic,
        json!({"model": "m1", "max_tokens": 4096, "system": "Be brief.", "messages": [user],
               "tools": tools, "stream": true}),
        json!({"model": "m1", "max_tokens": 4096, "system": "Be brief.", "messages": [user,
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me compute."},
                    {"type": "tool_use", "id": "call_1", "name": "calculate",
                     "input": {"expression": "6*7"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1",
                                              "content": [{"type": "text", "text": "42"}]}]}],
               "tools": tools, "stream": true}),
    );
}

#[test]
fn gemini_bodies() {
    let tools = json!([{"functionDeclarations": [{"name": "calculate", "description": "Evaluates.",
        "parameters": {"type": "OBJECT", "properties": {"expression": {"type": "STRING"}},
                       "required": ["expression"]}}]}]);
    let user = json!({"role": "user", "parts": [{"text": "What is 6*7?"}]});
    let system = json!({"parts": [{"text": "Be brief."}]});
    check(
        Wire::Gemini,
        json!({"contents": [user], "systemInstruction": system, "tools": tools}),
        json!({"contents": [user,
                {"role": "model", "parts": [{"text": "Let me compute."},
                    {"functionCall": {"name": "calculate", "args": {"expression": "6*7"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "calculate",
                    "response": {"output": {"result": 42}, "content": "42"}}}]}],
               "systemInstruction": system, "tools": tools}),
    );
}

#[test]
fn ollama_bodies() {
    let tools = json!([{"type": "function", "function": {
        "name": "calculate", "description": "Evaluates.", "parameters": schema()}}]);
    let system = json!({"role": "system", "content": "Be brief."});
    let user = json!({"role": "user", "content": "What is 6*7?"});
    check(
        Wire::Ollama,
        json!({"model": "m1", "messages": [system, user], "tools": tools, "stream": true}),
        json!({"model": "m1", "messages": [system, user,
                {"role": "assistant", "content": "Let me compute.", "tool_calls": [
                    {"function": {"name": "calculate", "arguments": {"expression": "6*7"}}}]},
                {"role": "tool", "tool_name": "calculate", "content": "42"}],
               "tools": tools, "stream": true}),
    );
}

#[test]
fn bedrock_is_refused() {
    let err = Conversation::new(Wire::Bedrock, "m").unwrap_err();
    assert!(matches!(
        err,
        ChatError::UnsupportedWire {
            wire: "bedrock",
            ..
        }
    ));
    assert!(err.to_string().contains("SigV4"), "{err}");
}

#[test]
fn no_tools_no_system_leaves_keys_out() {
    let mut chat = Conversation::new(Wire::Anthropic, "m1").unwrap();
    chat.push_user("hi");
    assert_eq!(
        chat.request_body(),
        json!({"model": "m1", "max_tokens": 4096,
               "messages": [{"role": "user", "content": "hi"}], "stream": true})
    );
    let mut chat = Conversation::new(Wire::OpenAiChat, "m1").unwrap();
    chat.push_user("hi");
    assert_eq!(
        chat.request_body(),
        json!({"model": "m1", "messages": [{"role": "user", "content": "hi"}], "stream": true,
               "stream_options": {"include_usage": true}})
    );
}

#[test]
fn a_turn_without_calls_is_kept_as_assistant_text() {
    let mut chat = Conversation::new(Wire::Gemini, "m1").unwrap();
    chat.push_user("hi");
    chat.record_turn(&TurnOutcome::from_events(
        Wire::Gemini,
        &[RouteEvent::Detect(DetectEvent::Text {
            text: "Hello.".into(),
        })],
    ));
    chat.record_turn(&TurnOutcome::new(Wire::Gemini));
    assert_eq!(
        chat.messages(),
        &[
            json!({"role": "user", "parts": [{"text": "hi"}]}),
            json!({"role": "model", "parts": [{"text": "Hello."}]}),
        ]
    );
}

#[test]
fn tools_in_text_go_into_the_system_prompt() {
    let mut chat = chat(Wire::Gemini, ToolMode::InText);
    let body = chat.request_body();
    assert!(body.get("tools").is_none(), "{body}");
    let system = body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(system.starts_with("Be brief.\n\n# Tools\n"), "{system}");
    assert!(system.contains("### calculate\n"), "{system}");

    chat.record_turn(&turn_with_call());
    let contents = chat.request_body()["contents"].clone();
    assert_eq!(contents[1]["role"], "model");
    let said = contents[1]["parts"][0]["text"].as_str().unwrap();
    assert!(said.starts_with("Let me compute."), "{said}");
    assert!(said.contains("<calculate>"), "{said}");
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [
            {"text": "<tool_result name=\"calculate\">\n42\n</tool_result>"}]})
    );
}

#[test]
fn tools_in_text_on_openai_chat() {
    let mut chat = chat(Wire::OpenAiChat, ToolMode::InText);
    chat.record_turn(&turn_with_call());
    let body = chat.request_body();
    assert!(body.get("tools").is_none(), "{body}");
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[2]["role"], "assistant");
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": "<tool_result name=\"calculate\">\n42\n</tool_result>"})
    );
}

fn headers(list: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    list.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
}

#[test]
fn endpoints() {
    let json = ("content-type", "application/json");
    let cases: Vec<(&str, Wire, &str, Option<&str>, Endpoint)> = vec![
        ("openai", Wire::OpenAiChat, "https://api.openai.com/v1/", Some("k"), Endpoint {
            url: "https://api.openai.com/v1/chat/completions".into(),
            headers: headers(&[json, ("authorization", "Bearer k")]),
        }),
        ("openai", Wire::OpenAiResponses, "http://127.0.0.1:9/v1", None, Endpoint {
            url: "http://127.0.0.1:9/v1/responses".into(),
            headers: headers(&[json]),
        }),
        ("azure-openai", Wire::OpenAiChat, "https://r.openai.azure.com/openai/v1", Some("k"), Endpoint {
            url: "https://r.openai.azure.com/openai/v1/chat/completions".into(),
            headers: headers(&[json, ("api-key", "k")]),
        }),
        ("anthropic", Wire::Anthropic, "https://api.anthropic.com", Some("k"), Endpoint {
            url: "https://api.anthropic.com/v1/messages".into(),
            headers: headers(&[json, ("anthropic-version", "2023-06-01"), ("x-api-key", "k")]),
        }),
        ("anthropic", Wire::Anthropic, "https://api.anthropic.com/v1", None, Endpoint {
            url: "https://api.anthropic.com/v1/messages".into(),
            headers: headers(&[json, ("anthropic-version", "2023-06-01")]),
        }),
        ("gemini", Wire::Gemini, "http://127.0.0.1:9", Some("k"), Endpoint {
            url: "http://127.0.0.1:9/v1beta/models/m1:streamGenerateContent?alt=sse".into(),
            headers: headers(&[json, ("x-goog-api-key", "k")]),
        }),
        ("gemini", Wire::Gemini, "https://generativelanguage.googleapis.com/v1beta", None, Endpoint {
            url: "https://generativelanguage.googleapis.com/v1beta/models/m1:streamGenerateContent?alt=sse".into(),
            headers: headers(&[json]),
        }),
        ("vertex", Wire::Gemini, "https://x/v1/projects/p/locations/l/publishers/google/models", None, Endpoint {
            url: "https://x/v1/projects/p/locations/l/publishers/google/models/m1:streamGenerateContent?alt=sse".into(),
            headers: headers(&[json]),
        }),
        ("ollama", Wire::Ollama, "http://localhost:11434", None, Endpoint {
            url: "http://localhost:11434/api/chat".into(),
            headers: headers(&[json]),
        }),
    ];
    for (profile, wire, base, key, expected) in cases {
        assert_eq!(
            endpoint(profile, wire, base, "m1", key).unwrap(),
            expected,
            "{profile} {base}"
        );
    }
}

#[test]
fn endpoint_errors() {
    assert!(matches!(
        endpoint(
            "vertex",
            Wire::Gemini,
            "https://{location}-aiplatform.googleapis.com",
            "m",
            None
        ),
        Err(ChatError::BaseUrlPlaceholder { .. })
    ));
    assert!(matches!(
        endpoint("openai", Wire::OpenAiChat, "api.openai.com/v1", "m", None),
        Err(ChatError::InvalidBaseUrl { .. })
    ));
    assert!(matches!(
        endpoint("gemini", Wire::Gemini, "http://h", "a/../b", None),
        Err(ChatError::InvalidModel { .. })
    ));
    assert!(matches!(
        endpoint("bedrock", Wire::Bedrock, "https://b.test", " ", None),
        Err(ChatError::InvalidModel { .. })
    ));
}

#[test]
fn bedrock_endpoint_takes_the_model_id_as_one_segment_and_a_bearer_key() {
    let found = endpoint(
        "bedrock",
        Wire::Bedrock,
        "https://bedrock-runtime.us-east-1.amazonaws.com/",
        "arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-v1:0",
        Some("k"),
    )
    .unwrap();
    assert_eq!(
        found.url,
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/arn:aws:bedrock:us-east-1:1:inference-profile%2Fus.anthropic.claude-v1:0/converse-stream"
    );
    assert_eq!(found.headers[1], ("authorization", "Bearer k".to_owned()));
}

#[test]
fn tool_choice_is_written_in_each_wires_field_and_only_with_declared_tools() {
    use crate::grammar::ToolChoice;
    let named = || ToolChoice::Named("calculate".to_owned());
    let cases = [
        (
            Wire::OpenAiChat,
            ToolChoice::Required,
            "tool_choice",
            json!("required"),
        ),
        (
            Wire::OpenAiChat,
            ToolChoice::None,
            "tool_choice",
            json!("none"),
        ),
        (
            Wire::OpenAiChat,
            named(),
            "tool_choice",
            json!({"type": "function", "function": {"name": "calculate"}}),
        ),
        (
            Wire::OpenAiResponses,
            named(),
            "tool_choice",
            json!({"type": "function", "name": "calculate"}),
        ),
        (
            Wire::Anthropic,
            ToolChoice::Required,
            "tool_choice",
            json!({"type": "any"}),
        ),
        (
            Wire::Anthropic,
            named(),
            "tool_choice",
            json!({"type": "tool", "name": "calculate"}),
        ),
        (
            Wire::Gemini,
            ToolChoice::Required,
            "toolConfig",
            json!({"functionCallingConfig": {"mode": "ANY"}}),
        ),
        (
            Wire::Gemini,
            named(),
            "toolConfig",
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["calculate"]}}),
        ),
    ];
    for (wire, choice, key, want) in cases {
        let mut chat = Conversation::new(wire, "m")
            .unwrap()
            .with_tools(vec![calculate()], ToolMode::Declared);
        chat.push_user("6*7?");
        chat.set_tool_choice(choice.clone());
        assert_eq!(chat.request_body()[key], want, "{wire:?} {choice:?}");
        // `Auto` sends nothing.
        chat.set_tool_choice(ToolChoice::Auto);
        assert!(chat.request_body().get(key).is_none(), "{wire:?}");
    }
    // Ollama's API has none; tools taught in text have no field for it.
    let mut ollama = Conversation::new(Wire::Ollama, "m")
        .unwrap()
        .with_tools(vec![calculate()], ToolMode::Declared);
    ollama.set_tool_choice(ToolChoice::Required);
    assert!(ollama.request_body().get("tool_choice").is_none());
    let mut taught = Conversation::new(Wire::OpenAiChat, "m")
        .unwrap()
        .with_tools(vec![calculate()], ToolMode::InText);
    taught.set_tool_choice(ToolChoice::Required);
    assert!(taught.request_body().get("tool_choice").is_none());
    // Extra fields go in as they are.
    let mut fields = serde_json::Map::new();
    fields.insert("grammar".to_owned(), json!("root ::= \"x\""));
    taught.set_extra_fields(fields);
    assert_eq!(taught.request_body()["grammar"], "root ::= \"x\"");
}

#[test]
fn a_token_limit_and_temperature_once_set_go_to_every_wire() {
    let body = |wire| {
        Conversation::new(wire, "m")
            .unwrap()
            .with_max_tokens(200)
            .with_temperature(0.5)
            .request_body()
    };
    let chat = body(Wire::OpenAiChat);
    assert_eq!(
        (&chat["max_tokens"], &chat["temperature"]),
        (&json!(200), &json!(0.5))
    );
    let responses = body(Wire::OpenAiResponses);
    assert_eq!(responses["max_output_tokens"], 200);
    assert_eq!(responses["temperature"], 0.5);
    let anthropic = body(Wire::Anthropic);
    assert_eq!(
        (&anthropic["max_tokens"], &anthropic["temperature"]),
        (&json!(200), &json!(0.5))
    );
    assert_eq!(
        body(Wire::Gemini)["generationConfig"],
        json!({"maxOutputTokens": 200, "temperature": 0.5})
    );
    assert_eq!(
        body(Wire::Ollama)["options"],
        json!({"num_predict": 200, "temperature": 0.5})
    );
    // Not set: only Anthropic's required limit.
    let plain = Conversation::new(Wire::OpenAiChat, "m")
        .unwrap()
        .request_body();
    assert!(plain.get("max_tokens").is_none() && plain.get("temperature").is_none());
}
