//! The assistant turn that carries the calls, in each dialect; and the MCP request.

use rmcp::model::{ClientJsonRpcMessage, NumberOrString};
use serde_json::json;

use super::*;
use crate::convert::{Dialect, anthropic, bedrock, gemini, ollama, openai_chat, openai_responses};

fn calls() -> Vec<ToolCall> {
    vec![read_call(), call("call_2", "get_time", json!({}))]
}

#[test]
fn openai_chat_arguments_are_json_strings() {
    check(
        &openai_chat::assistant_message("Let me look.", &calls()),
        json!({"role": "assistant", "content": "Let me look.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}},
            {"id": "call_2", "type": "function",
             "function": {"name": "get_time", "arguments": "{}"}}
        ]}),
    );
    check(
        &openai_chat::assistant_message("", &calls()[..1]),
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}}
        ]}),
    );
}

#[test]
fn responses_items_are_a_message_then_function_calls() {
    check(
        &Value::Array(openai_responses::assistant_items("Let me look.", &calls())),
        json!([
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Let me look."}]},
            {"type": "function_call", "call_id": "call_1", "name": "read_file",
             "arguments": "{\"path\":\"a.txt\"}"},
            {"type": "function_call", "call_id": "call_2", "name": "get_time", "arguments": "{}"}
        ]),
    );
}

#[test]
fn anthropic_text_then_tool_use_blocks() {
    check(
        &anthropic::assistant_message("Let me look.", &calls()),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "a.txt"}},
            {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}}
        ]}),
    );
}

#[test]
fn gemini_model_content_with_function_calls() {
    check(
        &gemini::model_content("", &calls()),
        json!({"role": "model", "parts": [
            {"functionCall": {"name": "read_file", "args": {"path": "a.txt"}}},
            {"functionCall": {"name": "get_time", "args": {}}}
        ]}),
    );
}

#[test]
fn bedrock_tool_use_blocks() {
    check(
        &bedrock::assistant_message("Let me look.", &calls()[..1]),
        json!({"role": "assistant", "content": [
            {"text": "Let me look."},
            {"toolUse": {"toolUseId": "call_1", "name": "read_file", "input": {"path": "a.txt"}}}
        ]}),
    );
}

#[test]
fn ollama_arguments_are_objects() {
    check(
        &ollama::assistant_message("", &calls()),
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "read_file", "arguments": {"path": "a.txt"}}},
            {"function": {"name": "get_time", "arguments": {}}}
        ]}),
    );
}

#[test]
fn xml_text_writes_calls_as_tags() {
    let turn = Dialect::XmlText.assistant_turn("Let me look.", &calls());
    check(
        &Value::Array(turn),
        json!([{"role": "assistant", "content":
            "Let me look.\n<read_file>\n<path>a.txt</path>\n</read_file>\n<get_time>\n</get_time>"}]),
    );
    let typed = call(
        "c",
        "search",
        json!({"q": "a b", "limit": 5, "tags": ["x"]}),
    );
    assert_eq!(
        crate::convert::xml_text::assistant_text("", &[typed]),
        "<search>\n<q>a b</q>\n<limit>5</limit>\n<tags>[\"x\"]</tags>\n</search>"
    );
}

#[test]
fn mcp_request_carries_name_and_arguments() {
    let c = read_call();
    let params = c.to_mcp_params();
    assert_eq!(params.name, "read_file");
    check(
        &Value::Object(params.arguments.unwrap()),
        json!({"path": "a.txt"}),
    );
    let request = c.to_mcp_request(NumberOrString::Number(7));
    check(
        &request,
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "read_file", "arguments": {"path": "a.txt"}}}),
    );
    // The official SDK reads it back as a `tools/call` request.
    let parsed: ClientJsonRpcMessage = serde_json::from_value(request).unwrap();
    let text = serde_json::to_string(&parsed).unwrap();
    assert!(text.contains("\"tools/call\""), "{text}");
}
