//! LFM2: pythonic (or JSON) lists between `<|tool_call_start|>` and `<|tool_call_end|>`.

use serde_json::json;

use super::super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn call_first_then_text() {
    let input =
        "<|tool_call_start|>[get_weather(city=\"Paris\", days=2)]<|tool_call_end|>Checking.";
    check_calls(
        input,
        expect(
            "Checking.",
            &[("get_weather", json!({"city": "Paris", "days": 2}), Lfm2)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris","days":2}"#]);
}

#[test]
fn json_envelopes_in_the_list_in_any_key_order() {
    let input = "Both.<|tool_call_start|>[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"arguments\": {}, \"name\": \"ls\"}]<|tool_call_end|>";
    check_calls(
        input,
        expect(
            "Both.",
            &[
                ("read_file", json!({"path": "a"}), Lfm2),
                ("ls", json!({}), Lfm2),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"path": "a"}"#, "{}"]);
}

#[test]
fn unknown_tool_and_unfinished_call_are_text() {
    let input = "<|tool_call_start|>[launch(x=1)]<|tool_call_end|>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = "<|tool_call_start|>[ls()";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn a_complete_list_lacking_only_the_end_token_is_accepted() {
    check_calls(
        "<|tool_call_start|>[ls()]",
        expect("", &[("ls", json!({}), Lfm2)], &[]),
    );
}

#[test]
fn inside_a_fence_it_is_text() {
    let input = "```\n<|tool_call_start|>[ls()]<|tool_call_end|>\n```";
    check_calls(input, expect(input, &[], &[]));
}
