#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::teach;

fn weather_tool() -> Value {
    json!({"type": "function", "function": {
        "name": "get_weather", "description": "The weather in a city",
        "parameters": {"type": "object",
            "properties": {"city": {"type": "string", "description": "The city"}},
            "required": ["city"]}}})
}

fn taught(body: Value) -> Map<String, Value> {
    let Value::Object(mut body) = body else {
        panic!("not an object")
    };
    teach(&mut body).unwrap();
    body
}

#[test]
fn tools_move_from_the_declaration_into_the_system_prompt() {
    let body = taught(json!({
        "model": "m",
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "Weather in Paris?"}],
        "tools": [weather_tool()],
        "tool_choice": "auto",
        "parallel_tool_calls": true,
        "stream": true,
    }));
    for key in ["tools", "tool_choice", "parallel_tool_calls"] {
        assert!(!body.contains_key(key), "{key} still sent");
    }
    assert_eq!(body["stream"], true);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.starts_with("Be brief.\n\n# Tools\n"), "{system}");
    assert!(
        system.contains("\n### get_weather\nThe weather in a city\n"),
        "{system}"
    );
    assert!(
        system.contains("- city (string, required): The city\n"),
        "{system}"
    );
    assert!(
        system.contains("<get_weather>\n<city>text</city>\n</get_weather>"),
        "{system}"
    );
    assert!(!system.contains("You must call"), "{system}");
    assert_eq!(
        messages[1],
        json!({"role": "user", "content": "Weather in Paris?"})
    );
}

#[test]
fn without_a_system_message_one_is_put_first() {
    let body = taught(json!({
        "messages": [{"role": "user", "content": "hi"}],
        "functions": [{"name": "ping", "parameters": {"type": "object"}}],
        "function_call": "auto",
    }));
    assert!(!body.contains_key("functions") && !body.contains_key("function_call"));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap();
    assert!(system.starts_with("# Tools\n"), "{system}");
    assert!(
        system.contains("\n### ping\nParameters: none.\n"),
        "{system}"
    );
    assert_eq!(messages[1]["content"], "hi");
}

#[test]
fn tool_choice_becomes_a_rule_or_leaves_the_tools_out() {
    let with_choice = |choice: Value| {
        let body = taught(json!({
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [weather_tool()],
            "tool_choice": choice,
        }));
        body["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    assert!(
        with_choice(json!("required"))
            .ends_with("\nYou must call at least one tool in this answer.\n")
    );
    assert!(
        with_choice(json!({"type": "function", "function": {"name": "get_weather"}}))
            .ends_with("\nYou must call the tool `get_weather` in this answer.\n")
    );
    // `none`: nothing is taught, the user's message stays first.
    assert_eq!(with_choice(json!("none")), "hi");
}

#[test]
fn earlier_calls_and_results_go_upstream_as_text() {
    let body = taught(json!({
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {"role": "assistant", "content": "Let me check.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18 °C"},
            {"role": "tool", "tool_call_id": "call_2",
             "content": [{"type": "text", "text": "21 °C"}]},
            {"role": "assistant", "content": "Paris 18 °C, Rome 21 °C."},
        ],
        "tools": [weather_tool()],
    }));
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 5, "{messages:#?}");
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "content":
            "Let me check.\n<get_weather>\n<city>Paris</city>\n</get_weather>\n<get_weather>\n<city>Rome</city>\n</get_weather>"})
    );
    assert_eq!(
        messages[3],
        json!({"role": "user", "content":
            "<tool_result name=\"get_weather\">\n18 °C\n</tool_result>\n\n<tool_result name=\"get_weather\">\n21 °C\n</tool_result>"})
    );
    assert_eq!(
        messages[4],
        json!({"role": "assistant", "content": "Paris 18 °C, Rome 21 °C."})
    );
}

#[test]
fn a_result_for_no_earlier_call_is_refused() {
    let Value::Object(mut body) = json!({
        "messages": [{"role": "tool", "tool_call_id": "call_9", "content": "x"}],
    }) else {
        unreachable!()
    };
    let error = teach(&mut body).unwrap_err();
    assert_eq!(error.status, http::StatusCode::BAD_REQUEST);
    assert_eq!(error.error["param"], "messages[0].tool_call_id");
    // Arguments that are not an object are refused too.
    let Value::Object(mut body) = json!({
        "messages": [{"role": "assistant", "tool_calls": [
            {"id": "c", "function": {"name": "f", "arguments": "[1]"}}]}],
    }) else {
        unreachable!()
    };
    assert_eq!(
        teach(&mut body).unwrap_err().status,
        http::StatusCode::BAD_REQUEST
    );
}

#[test]
fn a_request_without_tools_is_left_as_it_is() {
    let original =
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true});
    assert_eq!(Value::Object(taught(original.clone())), original);
}
