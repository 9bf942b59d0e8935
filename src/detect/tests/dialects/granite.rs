//! Granite: `<|tool_call|>[..]` and `<tool_call>[..]`.

use super::super::*;

const G: WireFormat = WireFormat::Granite;

#[test]
fn token_form_with_text_before_and_after() {
    check_calls(
        "Checking.<|tool_call|>[{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}]\nDone.",
        expect(
            "Checking.\nDone.",
            &[("get_weather", json!({"city": "Oslo"}), G)],
            &[],
        ),
    );
}

#[test]
fn tag_form_parallel_with_arguments_before_name_streams_the_arguments() {
    let input = r#"<tool_call>[{"arguments": {"city": "Oslo"}, "name": "get_weather"}, {"arguments": {}, "name": "ls"}]"#;
    check_calls(
        input,
        expect(
            "",
            &[
                ("get_weather", json!({"city": "Oslo"}), G),
                ("ls", json!({}), G),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city": "Oslo"}"#, "{}"]);
}

#[test]
fn hermes_and_granite_share_the_tag_and_are_told_apart_by_the_next_byte() {
    check_calls(
        "<tool_call>{\"name\": \"ls\", \"arguments\": {}}</tool_call>\n<tool_call> [ {\"name\": \"ls\", \"arguments\": {}}]",
        expect(
            "",
            &[("ls", json!({}), WireFormat::Hermes), ("ls", json!({}), G)],
            &[],
        ),
    );
}

#[test]
fn unknown_tool_and_unfinished_call_are_text() {
    let input = r#"<|tool_call|>[{"name": "launch", "arguments": {}}]"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
    let input = r#"<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Os"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
}

#[test]
fn markup_in_a_fence_and_a_non_call_array_are_text() {
    for input in [
        "```\n<|tool_call|>[{\"name\": \"ls\", \"arguments\": {}}]\n```",
        "<tool_call>[1, 2]",
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
}
