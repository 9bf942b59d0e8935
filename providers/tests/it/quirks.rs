//! One test per provider quirk, on small hand-written streams; expectations by hand.

use serde_json::json;
use toolrouter_providers::{ErrorKind, ProviderDelta, Wire};

use crate::support::{Rng, deltas, deltas_split, errors, summarise, summary_json};

/// An SSE stream of `data:` frames.
fn sse(frames: &[&str]) -> Vec<u8> {
    frames
        .iter()
        .map(|f| format!("data: {f}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// A Chat Completions chunk whose first choice has `delta` and `finish_reason`.
fn chunk(delta: &str, finish: &str) -> String {
    format!(
        r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{delta},"finish_reason":{finish}}}]}}"#
    )
}

fn chat(frames: &[String]) -> serde_json::Value {
    let refs: Vec<&str> = frames.iter().map(String::as_str).collect();
    summary_json(Wire::OpenAiChat, &sse(&refs))
}

#[test]
fn openai_whole_arguments_in_one_chunk() {
    let got = chat(&[
        chunk(
            r#"{"tool_calls":[{"index":0,"id":"c_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}"#,
            "null",
        ),
        chunk("{}", r#""tool_calls""#),
        "[DONE]".into(),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[{"id":"c_1","name":"f","arguments":{"a":1}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_id_and_name_repeated_on_every_chunk() {
    let frag = |args: &str| {
        chunk(
            &format!(
                r#"{{"tool_calls":[{{"index":0,"id":"77","type":"function","function":{{"name":"f","arguments":"{args}"}}}}]}}"#
            ),
            "null",
        )
    };
    let got = chat(&[
        frag(r#"{\"a\""#),
        frag(r#":\"x\"}"#),
        chunk("{}", r#""tool_calls""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[{"id":"77","name":"f","arguments":{"a":"x"}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_missing_index_tells_calls_apart_by_id() {
    let got = chat(&[chunk(
        r#"{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}},{"id":"b","function":{"name":"g","arguments":"{\"x\":2}"}}]}"#,
        r#""tool_calls""#,
    )]);
    assert_eq!(
        got,
        json!({"text":"","calls":[
        {"id":"a","name":"f","arguments":{}},
        {"id":"b","name":"g","arguments":{"x":2}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_missing_index_and_id_continues_the_open_call() {
    let got = chat(&[
        chunk(
            r#"{"tool_calls":[{"function":{"name":"f","arguments":"{\"k\":"}}]}"#,
            "null",
        ),
        chunk(
            r#"{"tool_calls":[{"function":{"arguments":"true}"}}]}"#,
            "null",
        ),
        chunk("{}", r#""tool_calls""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[{"id":null,"name":"f","arguments":{"k":true}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_index_reused_with_a_new_id_starts_a_new_call() {
    let d = deltas(
        Wire::OpenAiChat,
        &sse(&[
            &chunk(
                r#"{"tool_calls":[{"index":0,"id":"one","function":{"name":"f","arguments":"{}"}}]}"#,
                "null",
            ),
            &chunk(
                r#"{"tool_calls":[{"index":0,"id":"two","function":{"name":"g","arguments":""}}]}"#,
                "null",
            ),
            &chunk(
                r#"{"tool_calls":[{"index":0,"function":{"arguments":"{\"z\":0}"}}]}"#,
                "null",
            ),
            &chunk("{}", r#""tool_calls""#),
        ]),
    );
    // The first call is finished as soon as its index is reused, before the finish.
    let first_end = d
        .iter()
        .position(|x| matches!(x, ProviderDelta::ToolCallEnd { key } if key.0 == 0))
        .unwrap();
    let second_start = d
        .iter()
        .position(|x| matches!(x, ProviderDelta::ToolCallStart { key, .. } if key.0 == 1))
        .unwrap();
    assert!(first_end < second_start);
    assert_eq!(
        summarise(&d).to_json(),
        json!({"text":"","calls":[
        {"id":"one","name":"f","arguments":{}},
        {"id":"two","name":"g","arguments":{"z":0}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_empty_string_arguments_are_an_empty_object() {
    let got = chat(&[
        chunk(
            r#"{"tool_calls":[{"index":0,"id":"e","type":"function","function":{"name":"list","arguments":""}}]}"#,
            "null",
        ),
        chunk(
            r#"{"tool_calls":[{"index":0,"function":{"arguments":"  "}}]}"#,
            "null",
        ),
        chunk("{}", r#""tool_calls""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[{"id":"e","name":"list","arguments":{}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_type_missing_and_empty_name_on_continuations() {
    let got = chat(&[
        chunk(
            r#"{"tool_calls":[{"index":0,"id":"v","function":{"name":"get","arguments":""}}]}"#,
            "null",
        ),
        chunk(
            r#"{"tool_calls":[{"index":0,"type":"function","function":{"name":"","arguments":"{\"q\":"}}]}"#,
            "null",
        ),
        chunk(
            r#"{"tool_calls":[{"index":0,"type":"function","function":{"name":"","arguments":"1}"}}]}"#,
            "null",
        ),
        chunk("{}", r#""tool_calls""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[{"id":"v","name":"get","arguments":{"q":1}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_empty_finish_reason_is_not_a_finish() {
    let got = chat(&[
        chunk(r#"{"content":"a"}"#, r#""""#),
        chunk(r#"{"content":"b"}"#, r#""""#),
        chunk(r#"{"content":""}"#, r#""stop""#),
    ]);
    assert_eq!(got, json!({"text":"ab","calls":[],"stop":"end_turn"}));
}

#[test]
fn openai_natural_stop_after_a_call_is_tool_use() {
    let got = chat(&[
        chunk(
            r#"{"tool_calls":[{"id":"g1","function":{"name":"f","arguments":"{}"}}]}"#,
            "null",
        ),
        chunk(r#"{"content":""}"#, r#""stop""#),
    ]);
    assert_eq!(got["stop"], "tool_use");
}

#[test]
fn openai_legacy_completions_text_is_text_and_a_delta_wins_over_it() {
    // llama.cpp's `/v1/completions` stream: `text`, no `delta`.
    let text = |t: &str, finish: &str| {
        format!(
            r#"{{"object":"text_completion","choices":[{{"text":{t},"index":0,"logprobs":null,"finish_reason":{finish}}}]}}"#
        )
    };
    let got = chat(&[
        text(r#""Par""#, "null"),
        text(r#""is""#, "null"),
        text(r#""""#, r#""length""#),
        "[DONE]".into(),
    ]);
    assert_eq!(got, json!({"text":"Paris","calls":[],"stop":"max_tokens"}));
    // A chunk with both is a chat chunk: its `text` is not read.
    let both =
        r#"{"choices":[{"index":0,"delta":{"content":"a"},"text":"b","finish_reason":"stop"}]}"#;
    let got = chat(&[both.to_owned()]);
    assert_eq!(got, json!({"text":"a","calls":[],"stop":"end_turn"}));
}

#[test]
fn openai_done_without_finish_reason_ends_naturally() {
    let got = chat(&[chunk(r#"{"content":"hi"}"#, "null"), "[DONE]".into()]);
    assert_eq!(got, json!({"text":"hi","calls":[],"stop":"end_turn"}));
}

#[test]
fn openai_usage_only_chunk_after_finish_changes_nothing() {
    let d = deltas(
        Wire::OpenAiChat,
        &sse(&[
            &chunk(r#"{"content":"ok"}"#, r#""stop""#),
            r#"{"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}"#,
            "[DONE]",
        ]),
    );
    let s = summarise(&d);
    assert_eq!(
        s.to_json(),
        json!({"text":"ok","calls":[],"stop":"end_turn"})
    );
    let usage = s.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(5), Some(2), Some(7))
    );
}

#[test]
fn openai_legacy_function_call() {
    let got = chat(&[
        chunk(r#"{"function_call":{"name":"f","arguments":""}}"#, "null"),
        chunk(r#"{"function_call":{"arguments":"{\"a\":"}}"#, "null"),
        chunk(r#"{"function_call":{"arguments":"[1]}"}}"#, "null"),
        chunk("{}", r#""function_call""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[{"id":null,"name":"f","arguments":{"a":[1]}}],"stop":"tool_use"})
    );
}

#[test]
fn openai_error_object_mid_stream_keeps_text() {
    let got = chat(&[
        chunk(r#"{"content":"par"}"#, "null"),
        r#"{"error":{"message":"boom","type":"server_error"}}"#.into(),
    ]);
    assert_eq!(
        got,
        json!({"text":"par","calls":[],"stop":"error","error":{"message":"boom"}})
    );
}

#[test]
fn openai_error_given_as_a_plain_string() {
    let got = chat(&[r#"{"error":"rate limited"}"#.into()]);
    assert_eq!(
        got,
        json!({"text":"","calls":[],"stop":"error","error":{"message":"rate limited"}})
    );
}

#[test]
fn openrouter_comments_are_ignored() {
    let mut bytes = b": OPENROUTER PROCESSING\n\n".to_vec();
    bytes.extend(sse(&[&chunk(r#"{"content":"x"}"#, "null")]));
    bytes.extend(b": OPENROUTER PROCESSING\r\n\r\n");
    bytes.extend(sse(&[&chunk("{}", r#""stop""#)]));
    assert_eq!(
        summary_json(Wire::OpenAiChat, &bytes),
        json!({"text":"x","calls":[],"stop":"end_turn"})
    );
}

#[test]
fn azure_prompt_filter_chunk_with_no_choices() {
    let got = chat(&[
        r#"{"choices":[],"id":"","model":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}"#.into(),
        chunk(r#"{"content":"fine"}"#, "null"),
        chunk("{}", r#""content_filter""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"fine","calls":[],"stop":"content_filter"})
    );
}

#[test]
fn deepseek_reasoning_content_and_reasoning_field() {
    let got = chat(&[
        chunk(r#"{"reasoning_content":"think "}"#, "null"),
        chunk(r#"{"reasoning":"more"}"#, "null"),
        chunk(r#"{"content":"answer"}"#, r#""stop""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"answer","reasoning":"think more","calls":[],"stop":"end_turn"})
    );
}

#[test]
fn openai_refusal_is_not_text() {
    let got = chat(&[chunk(r#"{"refusal":"I can't"}"#, r#""stop""#)]);
    assert_eq!(got, json!({"text":"","calls":[],"stop":"end_turn"}));
}

#[test]
fn calls_written_as_text_stay_visible_text() {
    // A model served without a tool parser: the call is plain text here; finding it
    // is the root crate's job, and nothing of it may be lost or turned into a call.
    let text = r#"<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>"#;
    let escaped = serde_json::to_string(text).unwrap();
    // Whole text, fed byte by byte.
    let bytes = sse(&[&chunk(&format!(r#"{{"content":{escaped}}}"#), r#""stop""#)]);
    let cuts: Vec<usize> = (1..bytes.len()).collect();
    let s = summarise(&deltas_split(Wire::OpenAiChat, &bytes, &cuts));
    assert_eq!(s.text, text);
    assert!(s.calls.is_empty());
    assert_eq!(s.stop.as_str(), "end_turn");
}

#[test]
fn sse_line_endings_cr_crlf_lf_and_splits_inside_crlf() {
    let body = chunk(r#"{"content":"é🚀"}"#, r#""stop""#);
    for eol in ["\n", "\r\n", "\r"] {
        let bytes = format!(
            "event: ignored\r\nid: 1{eol}retry: 5{eol}unknown-field: x{eol}data: {body}{eol}{eol}"
        )
        .into_bytes();
        let mut rng = Rng::new(eol.len() as u64);
        for _ in 0..20 {
            let cuts = rng.cuts(bytes.len(), 4);
            let s = summarise(&deltas_split(Wire::OpenAiChat, &bytes, &cuts));
            assert_eq!(s.text, "é🚀", "eol {eol:?}");
        }
    }
}

#[test]
fn sse_multi_line_data_is_joined_with_newlines() {
    // JSON may span several data: lines; they join with "\n" (JSON whitespace).
    let bytes = b"data: {\"choices\":[{\"index\":0,\ndata: \"delta\":{\"content\":\"m\"},\"finish_reason\":\"stop\"}]}\n\n";
    assert_eq!(
        summary_json(Wire::OpenAiChat, bytes),
        json!({"text":"m","calls":[],"stop":"end_turn"})
    );
}

#[test]
fn responses_arguments_only_in_done_event() {
    let bytes = sse(&[
        r#"{"type":"response.output_item.added","output_index":0,"item":{"id":"fc1","type":"function_call","arguments":"","call_id":"call_1","name":"f"}}"#,
        r#"{"type":"response.function_call_arguments.done","item_id":"fc1","output_index":0,"arguments":"{\"a\":1}"}"#,
        r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"fc1","type":"function_call","status":"completed","arguments":"{\"a\":1}","call_id":"call_1","name":"f"}}"#,
        r#"{"type":"response.completed","response":{"status":"completed"}}"#,
    ]);
    assert_eq!(
        summary_json(Wire::OpenAiResponses, &bytes),
        json!({"text":"","calls":[{"id":"call_1","name":"f","arguments":{"a":1}}],"stop":"tool_use"})
    );
}

#[test]
fn responses_hosted_tool_is_a_server_call() {
    let bytes = sse(&[
        r#"{"type":"response.output_item.done","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"q"}}}"#,
        r#"{"type":"response.output_text.delta","delta":"done"}"#,
        r#"{"type":"response.completed","response":{"status":"completed"}}"#,
    ]);
    assert_eq!(
        summary_json(Wire::OpenAiResponses, &bytes),
        json!({"text":"done","calls":[],"stop":"end_turn",
        "server_calls":[{"id":"ws_1","name":"web_search_call","arguments":{"type":"search","query":"q"}}]})
    );
}

#[test]
fn anthropic_ping_thinking_and_server_tool() {
    let bytes = sse(&[
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"server_tool_use","id":"srv","name":"web_search","input":{}}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\":"}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"x\"}"}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"web_search_tool_result","tool_use_id":"srv","content":[]}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"}}"#,
        r#"{"type":"message_stop"}"#,
    ]);
    assert_eq!(
        summary_json(Wire::Anthropic, &bytes),
        json!({"text":"","reasoning":"hmm","calls":[],"stop":"end_turn",
        "server_calls":[{"id":"srv","name":"web_search","arguments":{"query":"x"}}]})
    );
}

#[test]
fn anthropic_pause_turn_and_refusal_stop_reasons() {
    for (raw, want) in [
        ("pause_turn", "pause_turn"),
        ("refusal", "refusal"),
        ("stop_sequence", "stop_sequence"),
    ] {
        let frame = format!(r#"{{"type":"message_delta","delta":{{"stop_reason":"{raw}"}}}}"#);
        assert_eq!(summary_json(Wire::Anthropic, &sse(&[&frame]))["stop"], want);
    }
}

fn gemini_frame(parts: &str, finish: Option<&str>) -> String {
    let finish = finish
        .map(|f| format!(r#","finishReason":"{f}""#))
        .unwrap_or_default();
    format!(
        r#"{{"candidates":[{{"content":{{"parts":{parts},"role":"model"}}{finish},"index":0}}]}}"#
    )
}

#[test]
fn gemini_whole_function_calls_thought_parts_and_stop() {
    let bytes = sse(&[
        &gemini_frame(r#"[{"text":"plan","thought":true}]"#, None),
        &gemini_frame(
            r#"[{"text":"ok "},{"functionCall":{"name":"f","args":{"a":"é"}}},{"functionCall":{"name":"g"}}]"#,
            Some("STOP"),
        ),
    ]);
    assert_eq!(
        summary_json(Wire::Gemini, &bytes),
        json!({"text":"ok ","reasoning":"plan","calls":[
        {"id":null,"name":"f","arguments":{"a":"é"}},{"id":null,"name":"g","arguments":{}}],"stop":"tool_use"})
    );
}

#[test]
fn gemini_blocked_prompt_and_malformed_call_and_max_tokens() {
    let blocked = sse(&[r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#]);
    assert_eq!(
        summary_json(Wire::Gemini, &blocked),
        json!({"text":"","calls":[],"stop":"content_filter"})
    );
    let malformed = sse(&[&gemini_frame("[]", Some("MALFORMED_FUNCTION_CALL"))]);
    assert_eq!(
        summary_json(Wire::Gemini, &malformed),
        json!({"text":"","calls":[],"stop":"error"})
    );
    let long = sse(&[&gemini_frame(r#"[{"text":"abc"}]"#, Some("MAX_TOKENS"))]);
    assert_eq!(
        summary_json(Wire::Gemini, &long),
        json!({"text":"abc","calls":[],"stop":"max_tokens"})
    );
}

#[test]
fn vertex_partial_args_nested_paths_and_types() {
    let bytes = sse(&[
        &gemini_frame(
            r#"[{"functionCall":{"name":"f","willContinue":true}}]"#,
            None,
        ),
        &gemini_frame(
            r#"[{"functionCall":{"partialArgs":[{"jsonPath":"$.user.name","stringValue":"Ad","willContinue":true}],"willContinue":true}}]"#,
            None,
        ),
        &gemini_frame(
            r#"[{"functionCall":{"partialArgs":[{"jsonPath":"$.user.name","stringValue":"a"},{"jsonPath":"$.tags[1]","stringValue":"b"},{"jsonPath":"$.n","numberValue":1.5},{"jsonPath":"$.z","nullValue":null}],"willContinue":true}}]"#,
            None,
        ),
        &gemini_frame(r#"[{"functionCall":{}}]"#, Some("STOP")),
    ]);
    assert_eq!(
        summary_json(Wire::Gemini, &bytes),
        json!({"text":"","calls":[{"id":null,"name":"f","arguments":
        {"user":{"name":"Ada"},"tags":[null,"b"],"n":1.5,"z":null}}],"stop":"tool_use"})
    );
}

#[test]
fn ollama_object_arguments_thinking_and_legacy_done_line() {
    let bytes = concat!(
        r#"{"message":{"role":"assistant","content":"","thinking":"t"},"done":false}"#,
        "\n",
        r#"{"message":{"role":"assistant","content":"hi"},"done":false}"#,
        "\r\n",
        "\n",
        r#"{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":{"b":[1]}}}}]},"done":true,"done_reason":"stop"}"#,
    );
    assert_eq!(
        summary_json(Wire::Ollama, bytes.as_bytes()),
        json!({"text":"hi","reasoning":"t",
        "calls":[{"id":null,"name":"f","arguments":{"a":{"b":[1]}}}],"stop":"tool_use"})
    );
}

#[test]
fn ollama_length_stop() {
    let bytes = br#"{"message":{"content":"abc"},"done":true,"done_reason":"length"}"#;
    assert_eq!(
        summary_json(Wire::Ollama, bytes),
        json!({"text":"abc","calls":[],"stop":"max_tokens"})
    );
}

#[test]
fn bedrock_jsonl_and_binary_are_told_apart_by_content() {
    let events = [
        ("messageStart", r#"{"role":"assistant"}"#),
        (
            "contentBlockDelta",
            r#"{"delta":{"text":"hé"},"contentBlockIndex":0}"#,
        ),
        (
            "contentBlockStart",
            r#"{"start":{"toolUse":{"toolUseId":"t1","name":"f"}},"contentBlockIndex":1}"#,
        ),
        (
            "contentBlockDelta",
            r#"{"delta":{"toolUse":{"input":"{\"a\":"}},"contentBlockIndex":1}"#,
        ),
        (
            "contentBlockDelta",
            r#"{"delta":{"toolUse":{"input":"1}"}},"contentBlockIndex":1}"#,
        ),
        ("contentBlockStop", r#"{"contentBlockIndex":1}"#),
        ("messageStop", r#"{"stopReason":"tool_use"}"#),
        (
            "metadata",
            r#"{"usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}}"#,
        ),
    ];
    let want =
        json!({"text":"hé","calls":[{"id":"t1","name":"f","arguments":{"a":1}}],"stop":"tool_use"});

    let jsonl: String = events
        .iter()
        .map(|(n, b)| format!("{{\"{n}\":{b}}}\n"))
        .collect();
    assert_eq!(
        summary_json(Wire::Bedrock, format!("\n  {jsonl}").as_bytes()),
        want
    );

    let binary: Vec<u8> = events
        .iter()
        .flat_map(|(n, b)| {
            crate::malformed::frame(
                &[
                    (":message-type", "event"),
                    (":event-type", n),
                    (":content-type", "application/json"),
                ],
                b.as_bytes(),
            )
        })
        .collect();
    let mut rng = Rng::new(42);
    for _ in 0..10 {
        let cuts = rng.cuts(binary.len(), 9);
        assert_eq!(
            summarise(&deltas_split(Wire::Bedrock, &binary, &cuts)).to_json(),
            want
        );
    }
}

#[test]
fn bedrock_stop_reasons() {
    for (raw, want) in [
        ("guardrail_intervened", "content_filter"),
        ("max_tokens", "max_tokens"),
        ("end_turn", "end_turn"),
    ] {
        let line = format!("{{\"messageStop\":{{\"stopReason\":\"{raw}\"}}}}\n");
        assert_eq!(summary_json(Wire::Bedrock, line.as_bytes())["stop"], want);
    }
}

#[test]
fn no_error_deltas_on_clean_fixture_like_streams() {
    let d = deltas(
        Wire::OpenAiChat,
        &sse(&[&chunk(r#"{"content":"x"}"#, r#""stop""#), "[DONE]"]),
    );
    assert!(errors(&d).is_empty(), "{d:?}");
    let kinds: Vec<ErrorKind> = errors(&deltas(
        Wire::OpenAiChat,
        &sse(&[&chunk(r#"{"content":"x"}"#, "null")]),
    ))
    .into_iter()
    .map(|(k, _)| k)
    .collect();
    assert_eq!(kinds, vec![ErrorKind::Truncated]);
}

/// Position of the first delta matching `f`.
fn pos(d: &[ProviderDelta], f: impl Fn(&ProviderDelta) -> bool) -> usize {
    d.iter().position(f).expect("delta present")
}

#[test]
fn openai_call_ends_as_soon_as_the_next_one_starts_if_its_json_is_closed() {
    let bytes =
        std::fs::read(crate::support::fixtures_dir().join("openai-chat.parallel.sse")).unwrap();
    let d = deltas(Wire::OpenAiChat, &bytes);
    let end0 = pos(
        &d,
        |x| matches!(x, ProviderDelta::ToolCallEnd { key } if key.0 == 0),
    );
    let start1 = pos(
        &d,
        |x| matches!(x, ProviderDelta::ToolCallStart { key, .. } if key.0 == 1),
    );
    let finish = pos(&d, |x| matches!(x, ProviderDelta::Finish { .. }));
    assert!(end0 < start1 && start1 < finish, "{d:?}");

    // Interleaved fragments: call 1 closes its object first and ends when call 0
    // speaks next; call 0 ends at the finish.
    let bytes =
        std::fs::read(crate::support::fixtures_dir().join("openai-chat.interleaved.sse")).unwrap();
    let d = deltas(Wire::OpenAiChat, &bytes);
    let end1 = pos(
        &d,
        |x| matches!(x, ProviderDelta::ToolCallEnd { key } if key.0 == 1),
    );
    let last_args0 = d
        .iter()
        .rposition(|x| matches!(x, ProviderDelta::ToolCallArgs { key, .. } if key.0 == 0))
        .unwrap();
    let end0 = pos(
        &d,
        |x| matches!(x, ProviderDelta::ToolCallEnd { key } if key.0 == 0),
    );
    let finish = pos(&d, |x| matches!(x, ProviderDelta::Finish { .. }));
    assert!(
        end1 < last_args0 && last_args0 < end0 && end0 + 1 == finish,
        "{d:?}"
    );
}

#[test]
fn signatures_come_out_for_the_next_request() {
    let sig = |d: &[ProviderDelta]| -> Vec<(Option<u32>, String)> {
        d.iter()
            .filter_map(|x| match x {
                ProviderDelta::Signature { key, signature } => {
                    Some((key.map(|k| k.0), signature.clone()))
                }
                _ => None,
            })
            .collect()
    };
    let dir = crate::support::fixtures_dir();
    let read = |n: &str| std::fs::read(dir.join(n)).unwrap();
    assert_eq!(
        sig(&deltas(Wire::Gemini, &read("gemini.thinking.sse"))),
        vec![(
            Some(0),
            "CtwBAVSoXO6kS9zM1pQ4rT7uW0xY3aB5cD8eF1gH4iJ7kL0mN3oP6q".to_owned()
        )]
    );
    assert_eq!(
        sig(&deltas(Wire::OpenAiChat, &read("openai-compat.gemini.sse"))),
        vec![(Some(0), "CtIBAVSoXO7mQ2cM0aZbGq4pE1x9YvT3".to_owned())]
    );
    assert_eq!(
        sig(&deltas(Wire::Bedrock, &read("bedrock.reasoning.jsonl"))),
        vec![(None, "ErcBCkgIBhABGAIiQHc5Lm9Q3xW1y".to_owned())]
    );
    assert_eq!(
        sig(&deltas(Wire::Anthropic, &read("anthropic.thinking.sse"))).len(),
        1
    );
}

#[test]
fn collector_says_when_a_call_can_run_and_keeps_signed_reasoning_blocks() {
    use toolrouter_providers::{EndedCall, TurnCollector};
    let dir = crate::support::fixtures_dir();
    let d = deltas(
        Wire::Anthropic,
        &std::fs::read(dir.join("anthropic.parallel.sse")).unwrap(),
    );
    let mut c = TurnCollector::new();
    let mut ready = Vec::new();
    for (i, delta) in d.iter().enumerate() {
        if let Some(EndedCall::Complete { call, .. }) = c.push(delta) {
            ready.push((i, call.name));
        }
    }
    // Each call is ready at its own block stop, the first long before the turn ends.
    let names: Vec<&str> = ready.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["get_weather", "get_time"]);
    assert!(ready[0].0 < ready[1].0 && ready[1].0 < d.len() - 2);

    let d = deltas(
        Wire::Anthropic,
        &std::fs::read(dir.join("anthropic.max-tokens.sse")).unwrap(),
    );
    let mut c = TurnCollector::new();
    let ended: Vec<EndedCall> = d.iter().filter_map(|x| c.push(x)).collect();
    assert!(matches!(&ended[..], [EndedCall::Malformed { call, .. }] if call.name == "send_email"));

    let d = deltas(
        Wire::Anthropic,
        &std::fs::read(dir.join("anthropic.thinking.sse")).unwrap(),
    );
    let s = crate::support::summarise(&d);
    assert_eq!(s.reasoning_blocks.len(), 1);
    assert_eq!(s.reasoning_blocks[0].text, s.reasoning);
    assert!(
        s.reasoning_blocks[0]
            .signature
            .as_deref()
            .unwrap()
            .starts_with("EqQBCkgIBhAB")
    );
    assert_eq!(s.raw_stop.as_deref(), Some("tool_use"));

    let d = deltas(
        Wire::Gemini,
        &std::fs::read(dir.join("gemini.thinking.sse")).unwrap(),
    );
    let s = crate::support::summarise(&d);
    assert!(
        s.calls[0]
            .signature
            .as_deref()
            .unwrap()
            .starts_with("CtwBAVSo")
    );
}

#[test]
fn vertex_streamed_call_cut_by_max_tokens_is_partial() {
    let bytes = sse(&[
        &gemini_frame(
            r#"[{"functionCall":{"name":"f","willContinue":true}}]"#,
            None,
        ),
        &gemini_frame(
            r#"[{"functionCall":{"partialArgs":[{"jsonPath":"$.a","stringValue":"x","willContinue":true}],"willContinue":true}}]"#,
            Some("MAX_TOKENS"),
        ),
    ]);
    assert_eq!(
        summary_json(Wire::Gemini, &bytes),
        json!({"text":"","calls":[],"stop":"max_tokens",
        "partial_calls":[{"id":null,"name":"f","raw_arguments":"{\"a\":\"x\"}"}]})
    );
}

#[test]
fn mistral_content_given_as_parts_with_thinking() {
    let got = chat(&[
        chunk(
            r#"{"content":[{"type":"thinking","thinking":[{"type":"text","text":"hm"}]}]}"#,
            "null",
        ),
        chunk(r#"{"content":[{"type":"text","text":"yes"}]}"#, r#""stop""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"yes","reasoning":"hm","calls":[],"stop":"end_turn"})
    );
}

#[test]
fn openai_chunk_of_the_wrong_shape_is_a_malformed_frame_and_reading_goes_on() {
    let d = deltas(
        Wire::OpenAiChat,
        &sse(&[
            r#"{"choices":{"not":"a list"}}"#,
            &chunk(r#"{"content":"fine"}"#, r#""stop""#),
        ]),
    );
    assert_eq!(
        errors(&d).into_iter().map(|(k, _)| k).collect::<Vec<_>>(),
        vec![ErrorKind::Malformed]
    );
    assert_eq!(summarise(&d).text, "fine");
}

#[test]
fn openai_index_reused_without_ids_starts_a_new_call_once_the_first_is_closed() {
    let got = chat(&[
        chunk(
            r#"{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"{\"a\":"}}]}"#,
            "null",
        ),
        chunk(
            r#"{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"1}"}}]}"#,
            "null",
        ),
        chunk(
            r#"{"tool_calls":[{"index":0,"function":{"name":"g","arguments":"{}"}}]}"#,
            "null",
        ),
        chunk("{}", r#""tool_calls""#),
    ]);
    assert_eq!(
        got,
        json!({"text":"","calls":[
        {"id":null,"name":"f","arguments":{"a":1}},
        {"id":null,"name":"g","arguments":{}}],"stop":"tool_use"})
    );
}
