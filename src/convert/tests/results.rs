//! `CallToolResult` -> each dialect's result message, for every content type
//! and the error flag.

use serde_json::json;

use super::*;
use crate::convert::{Dialect, anthropic, bedrock, ollama, openai_chat, openai_responses};

#[test]
fn openai_tool_message_is_text() {
    let c = read_call();
    check(
        &openai_chat::tool_message(&c, &text_result()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "line one"}),
    );
    check(
        &openai_chat::tool_message(&c, &mixed_result()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": MIXED_TEXT}),
    );
    check(
        &openai_chat::tool_message(&c, &structured_result()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\":21}"}),
    );
    check(
        &openai_chat::tool_message(&c, &structured_only_result()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"ok\":true}"}),
    );
    check(
        &openai_chat::tool_message(&c, &error_result()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "Error: disk full"}),
    );
    check(
        &openai_chat::tool_message(&c, &empty_result()),
        json!({"role": "tool", "tool_call_id": "call_1", "content": ""}),
    );
}

#[test]
fn an_error_text_that_already_says_error_is_not_prefixed_twice() {
    let result = CallToolResult::error(vec![ContentBlock::text("error: unknown tool `x`")]);
    check(
        &openai_chat::tool_message(&read_call(), &result),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "error: unknown tool `x`"}),
    );
}

#[test]
fn responses_output_is_a_string_or_a_list_of_input_parts() {
    let c = read_call();
    check(
        &openai_responses::function_call_output(&c, &text_result()),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "line one"}),
    );
    check(
        &openai_responses::function_call_output(&c, &error_result()),
        json!({"type": "function_call_output", "call_id": "call_1", "output": "Error: disk full"}),
    );
    check(
        &openai_responses::function_call_output(&c, &mixed_result()),
        json!({"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "Here:"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {"type": "input_text", "text": "[audio audio/wav, 4 bytes]"},
            {"type": "input_text", "text": "[resource file:///notes.txt]\nhello"},
            {"type": "input_file", "filename": "doc.pdf",
             "file_data": "data:application/pdf;base64,JVBERi0="},
            {"type": "input_text", "text": "[resource link file:///big.log: big.log (text/plain) - Full log]"}
        ]}),
    );
    check(
        &openai_responses::function_call_output(&c, &error_image_result()),
        json!({"type": "function_call_output", "call_id": "call_1", "output": [
            {"type": "input_text", "text": "Error:"},
            {"type": "input_text", "text": "bad"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="}
        ]}),
    );
}

#[test]
fn anthropic_tool_result_keeps_images_and_flags_errors() {
    let c = read_call();
    check(
        &anthropic::tool_result_block(&c, &text_result()),
        json!({"type": "tool_result", "tool_use_id": "call_1",
               "content": [{"type": "text", "text": "line one"}]}),
    );
    check(
        &anthropic::tool_result_block(&c, &mixed_result()),
        json!({"type": "tool_result", "tool_use_id": "call_1", "content": [
            {"type": "text", "text": "Here:"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            {"type": "text", "text": "[audio audio/wav, 4 bytes]"},
            {"type": "text", "text": "[resource file:///notes.txt]\nhello"},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": PDF}},
            {"type": "text", "text": "[resource link file:///big.log: big.log (text/plain) - Full log]"}
        ]}),
    );
    check(
        &anthropic::tool_result_block(&c, &error_result()),
        json!({"type": "tool_result", "tool_use_id": "call_1",
               "content": [{"type": "text", "text": "disk full"}], "is_error": true}),
    );
    check(
        &anthropic::tool_result_block(&c, &structured_only_result()),
        json!({"type": "tool_result", "tool_use_id": "call_1",
               "content": [{"type": "text", "text": "{\"ok\":true}"}]}),
    );
    check(
        &anthropic::tool_result_block(&c, &empty_result()),
        json!({"type": "tool_result", "tool_use_id": "call_1"}),
    );
    let tiff = CallToolResult::success(vec![ContentBlock::image("AAAA", "image/tiff")]);
    check(
        &anthropic::tool_result_block(&c, &tiff),
        json!({"type": "tool_result", "tool_use_id": "call_1",
               "content": [{"type": "text", "text": "[image image/tiff, 3 bytes]"}]}),
    );
}

#[test]
fn bedrock_tool_result_uses_json_blocks_and_status() {
    let c = read_call();
    check(
        &bedrock::tool_result_block(&c, &text_result()),
        json!({"toolResult": {"toolUseId": "call_1", "content": [{"text": "line one"}]}}),
    );
    check(
        &bedrock::tool_result_block(&c, &structured_result()),
        json!({"toolResult": {"toolUseId": "call_1", "content": [{"json": {"temp": 21}}]}}),
    );
    check(
        &bedrock::tool_result_block(&c, &error_result()),
        json!({"toolResult": {"toolUseId": "call_1", "content": [{"text": "disk full"}],
                              "status": "error"}}),
    );
    check(
        &bedrock::tool_result_block(&c, &empty_result()),
        json!({"toolResult": {"toolUseId": "call_1", "content": [{"text": "(no output)"}]}}),
    );
    check(
        &bedrock::tool_result_block(&c, &mixed_result()),
        json!({"toolResult": {"toolUseId": "call_1", "content": [
            {"text": "Here:"},
            {"image": {"format": "png", "source": {"bytes": PNG}}},
            {"text": "[audio audio/wav, 4 bytes]"},
            {"text": "[resource file:///notes.txt]\nhello"},
            {"text": "[resource file:///doc.pdf (application/pdf), 5 bytes]"},
            {"text": "[resource link file:///big.log: big.log (text/plain) - Full log]"}
        ]}}),
    );
}

#[test]
fn ollama_tool_message_names_the_tool_and_carries_images() {
    let c = read_call();
    check(
        &ollama::tool_message(&c, &text_result()),
        json!({"role": "tool", "tool_name": "read_file", "content": "line one"}),
    );
    check(
        &ollama::tool_message(&c, &mixed_result()),
        json!({"role": "tool", "tool_name": "read_file", "content": MIXED_TEXT, "images": [PNG]}),
    );
    check(
        &ollama::tool_message(&c, &error_result()),
        json!({"role": "tool", "tool_name": "read_file", "content": "Error: disk full"}),
    );
}

#[test]
fn result_messages_group_per_dialect() {
    let first = read_call();
    let second = call("call_2", "get_time", json!({}));
    let ok = text_result();
    let failed = error_result();
    let results = [(&first, &ok), (&second, &failed)];
    check(
        &Value::Array(Dialect::Anthropic.result_messages(&results)),
        json!([{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_1",
             "content": [{"type": "text", "text": "line one"}]},
            {"type": "tool_result", "tool_use_id": "call_2",
             "content": [{"type": "text", "text": "disk full"}], "is_error": true}
        ]}]),
    );
    check(
        &Value::Array(Dialect::Gemini.result_messages(&results)),
        json!([{"role": "user", "parts": [
            {"functionResponse": {"name": "read_file", "response": {"output": "line one"}}},
            {"functionResponse": {"name": "get_time", "response": {"error": "disk full"}}}
        ]}]),
    );
    check(
        &Value::Array(Dialect::Bedrock.result_messages(&results)),
        json!([{"role": "user", "content": [
            {"toolResult": {"toolUseId": "call_1", "content": [{"text": "line one"}]}},
            {"toolResult": {"toolUseId": "call_2", "content": [{"text": "disk full"}],
                            "status": "error"}}
        ]}]),
    );
    check(
        &Value::Array(Dialect::OpenAiChat.result_messages(&results)),
        json!([
            {"role": "tool", "tool_call_id": "call_1", "content": "line one"},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: disk full"}
        ]),
    );
    check(
        &Value::Array(Dialect::XmlText.result_messages(&results)),
        json!([{"role": "user", "content":
            "<tool_result name=\"read_file\">\nline one\n</tool_result>\n\n<tool_result name=\"get_time\" error=\"true\">\ndisk full\n</tool_result>"}]),
    );
    assert!(Dialect::Ollama.result_messages(&[]).is_empty());
}
