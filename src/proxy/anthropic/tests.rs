#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::request::MessagesRequest;
use super::stream::stop_reason;
use toolrouter_providers::StopReason;

fn upstream(body: Value) -> Value {
    let read = MessagesRequest::read(body.to_string().as_bytes()).unwrap();
    let sent = crate::proxy::tests::OPENAI.body(&read.body).unwrap();
    serde_json::from_slice(&sent).unwrap()
}

#[test]
fn a_request_with_system_tools_calls_and_results_translates_field_by_field() {
    let sent = upstream(json!({
        "model": "m", "max_tokens": 256, "stop_sequences": ["END"], "temperature": 0.5,
        "top_p": 0.9, "top_k": 40, "metadata": {"user_id": "u"}, "stream": true,
        "system": [{"type": "text", "text": "Be brief."}, {"type": "text", "text": " Use tools."}],
        "tools": [{"name": "get_weather", "description": "Weather",
                   "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        "tool_choice": {"type": "any", "disable_parallel_tool_use": true},
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "t", "signature": "s"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1",
                 "content": [{"type": "text", "text": "18 °C"}]},
                {"type": "text", "text": "And tomorrow?"}]},
        ],
    }));
    assert_eq!(
        sent,
        json!({
            "model": "m", "max_tokens": 256, "stop": ["END"], "temperature": 0.5, "top_p": 0.9,
            "stream": true, "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
                       "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
            "tool_choice": "required", "parallel_tool_calls": false,
            "messages": [
                {"role": "system", "content": "Be brief. Use tools."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "toolu_1",
                    "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
                {"role": "tool", "tool_call_id": "toolu_1", "content": "18 °C"},
                {"role": "user", "content": "And tomorrow?"},
            ],
        })
    );
}

#[test]
fn tool_choice_and_images_translate() {
    let choice = |c: Value| {
        upstream(json!({"model": "m", "messages": [], "tool_choice": c}))["tool_choice"].clone()
    };
    assert_eq!(choice(json!({"type": "auto"})), json!("auto"));
    assert_eq!(choice(json!({"type": "none"})), json!("none"));
    assert_eq!(
        choice(json!({"type": "tool", "name": "f"})),
        json!({"type": "function", "function": {"name": "f"}})
    );
    let sent = upstream(
        json!({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}},
        {"type": "text", "text": "What is it?"}]}]}),
    );
    assert_eq!(
        sent["messages"][0]["content"],
        json!([{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
               {"type": "text", "text": "What is it?"}])
    );
}

#[test]
fn what_cannot_be_forwarded_is_a_400() {
    for body in [
        json!([]),
        json!({"messages": []}),
        json!({"model": "m"}),
        json!({"model": "m", "messages": [{"role": "system", "content": "x"}]}),
        json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "document"}]}]}),
        json!({"model": "m", "messages": [], "tools": [{"type": "web_search_20250305", "name": "w"}]}),
        json!({"model": "m", "messages": [], "tool_choice": {"type": "sometimes"}}),
        json!({"model": "m", "messages": [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image"}]}]}]}),
    ] {
        let error = MessagesRequest::read(body.to_string().as_bytes()).unwrap_err();
        assert_eq!(error.status, 400, "{body}");
    }
}

#[test]
fn stop_reasons_follow_anthropic() {
    assert_eq!(stop_reason(StopReason::EndTurn, true), "tool_use");
    assert_eq!(stop_reason(StopReason::EndTurn, false), "end_turn");
    assert_eq!(stop_reason(StopReason::MaxTokens, true), "max_tokens");
    assert_eq!(
        stop_reason(StopReason::StopSequence, false),
        "stop_sequence"
    );
}

#[test]
fn the_messages_door_writes_many_calls_in_linear_work() {
    use super::stream::EventWriter;
    use crate::proxy::meta::ChunkMeta;
    use crate::proxy::turn::FrameWriter;
    // Many: each call's own work is small next to a scan of those before.
    const N: usize = 120_000;
    let meta = || ChunkMeta {
        id: "chatcmpl-1".to_owned(),
        model: "m".to_owned(),
        created: 7,
        system_fingerprint: None,
    };
    let mut writer = EventWriter::default();
    let (calls, end) =
        crate::proxy::shown::tests::write_many(N, r#""type":"tool_use""#, move |events, out| {
            writer.write(events, &meta, out)
        });
    assert_eq!(calls, N);
    // The last call's block (each call has a text block, then its own)
    // closes, then the message ends.
    let block = 2 * N - 1;
    assert_eq!(
        end,
        format!(
            "event: content_block_stop\ndata: {{\"type\":\"content_block_stop\",\"index\":{block}}}\n\n\
             event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"tool_use\",\"stop_sequence\":null}},\"usage\":{{\"output_tokens\":0}}}}\n\n\
             event: message_stop\ndata: {{\"type\":\"message_stop\"}}\n\n"
        )
    );
}
