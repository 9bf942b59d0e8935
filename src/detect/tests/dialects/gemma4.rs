//! Gemma 4: `<|tool_call>call:NAME{…}<tool_call|>` blocks and the thought channel.

use serde_json::json;

use super::super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn a_call_with_text_before_and_after() {
    let input =
        "Checking.<|tool_call>call:get_weather{city:<|\"|>Paris<|\"|>,days:2}<tool_call|> ok";
    check_calls(
        input,
        expect(
            "Checking. ok",
            &[("get_weather", json!({"city": "Paris", "days": 2}), Gemma4)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris","days":2}"#]);
}

#[test]
fn parallel_blocks_in_one_delta() {
    check_calls(
        "<|tool_call>call:ls{}<tool_call|><|tool_call>call:read_file{path:<|\"|>a<|\"|>}<tool_call|>",
        expect(
            "",
            &[
                ("ls", json!({}), Gemma4),
                ("read_file", json!({"path": "a"}), Gemma4),
            ],
            &[],
        ),
    );
}

#[test]
fn values_typed_by_syntax_and_strings_kept_byte_exact() {
    let input = "<|tool_call>call:search{exact:true,limit:<|\"|>5<|\"|>,opts:{a:[1,<|\"|>x<|\"|>],b:null},query:<|\"|>a <b> <| c\\n\"{,}<|\"|>,ratio:-0.5,tags:[]}<tool_call|>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "search",
                json!({
                    "exact": true,
                    "limit": 5,
                    "opts": {"a": [1, "x"], "b": null},
                    "query": "a <b> <| c\\n\"{,}",
                    "ratio": -0.5,
                    "tags": []
                }),
                Gemma4,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[
            r#"{"exact":true,"limit":5,"opts":{"a":[1,"x"],"b":null},"query":"a <b> <| c\\n\"{,}","ratio":-0.5,"tags":[]}"#,
        ],
    );
}

#[test]
fn the_thought_channel_is_reasoning() {
    let input = "<|channel>thought\nNeed the file.<channel|><|tool_call>call:read_file{path:<|\"|>a<|\"|>}<tool_call|>";
    let (got, _) = run_pieces(&chars(input), DetectConfig::default());
    assert_eq!(got.reasoning, "Need the file.");
    assert_eq!(got.text, "");
    assert_eq!(
        got.calls,
        vec![("read_file".to_owned(), json!({"path": "a"}), Gemma4)]
    );
}

#[test]
fn unknown_tool_unfinished_call_and_fence_are_text() {
    let input = "<|tool_call>call:launch{x:1}<tool_call|>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = "<|tool_call>call:read_file{path:<|\"|>a";
    check_calls(input, expect(input, &[], &[Unfinished]));
    let input = "```\n<|tool_call>call:ls{}<tool_call|>\n```";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn a_complete_body_lacking_only_the_end_token_is_accepted() {
    check_calls(
        "<|tool_call>call:ls{}",
        expect("", &[("ls", json!({}), Gemma4)], &[]),
    );
}

#[test]
fn markers_that_are_not_gemma_calls_are_text() {
    let input = "<|tool_call>get_weather{} and <|channel>final and <|tool_call|>";
    check_calls(input, expect(input, &[], &[]));
}
