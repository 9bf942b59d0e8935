//! Llama 3.x JSON: `<|python_tag|>` or bare JSON at message start, `; `-joined calls.

use super::super::*;

const L: WireFormat = WireFormat::Llama3Json;

#[test]
fn python_tag_call_with_text_before_and_after() {
    let input = "Let me.\n<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}} Done.";
    check_calls(
        input,
        expect(
            "Let me.\n Done.",
            &[("get_weather", json!({"city": "Oslo"}), L)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city": "Oslo"}"#]);
}

#[test]
fn bare_calls_joined_by_semicolons_in_one_delta() {
    check_calls(
        "\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}; {\"type\": \"function\", \"name\": \"ls\", \"arguments\": {}};{\"name\": \"ls\"}",
        expect(
            "",
            &[
                ("get_weather", json!({"city": "Oslo"}), L),
                ("ls", json!({}), L),
                ("ls", json!({}), L),
            ],
            &[],
        ),
    );
}

#[test]
fn a_separator_not_followed_by_an_object_ends_the_calls() {
    check_calls(
        r#"{"name": "ls", "parameters": {}}; echo"#,
        expect("; echo", &[("ls", json!({}), L)], &[]),
    );
}

#[test]
fn bare_json_is_a_call_only_at_the_start_and_only_for_a_registered_name() {
    for input in [
        r#"Example: {"name": "ls", "parameters": {}}"#,
        r#"{"name": "launch", "parameters": {}}"#,
        r#"{"city": "Oslo", "name": "ls"}"#,
        r#"{"type": "object", "name": "ls"}"#,
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
}

#[test]
fn python_tag_with_an_unknown_tool_or_python_code_is_text() {
    let input = r#"<|python_tag|>{"name": "launch", "parameters": {}}"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
    let input = "<|python_tag|>brave_search.call(query=\"x\")";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn unfinished_call_is_text() {
    let input = r#"<|python_tag|>{"name": "get_weather", "parameters": {"city": "Os"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
}

#[test]
fn json_in_a_fence_is_text() {
    let input = "```json\n{\"name\": \"ls\", \"parameters\": {}}\n```";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn the_tool_use_envelope_is_still_read_as_tool_use_at_the_start() {
    check_calls(
        r#"{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}"#,
        expect("", &[("ls", json!({}), WireFormat::JsonToolUse)], &[]),
    );
}
