//! Jamba / Hunyuan-A13B: `<tool_calls>[..]</tool_calls>`, Hunyuan's `<answer>` wrapper.

use super::super::*;

const J: WireFormat = WireFormat::JambaHunyuan;

#[test]
fn parallel_calls_with_text_before_and_after() {
    check_calls(
        "Both.\n<tool_calls>[{\"name\": \"ls\", \"arguments\": {}}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}]</tool_calls> Done.",
        expect(
            "Both.\n Done.",
            &[
                ("ls", json!({}), J),
                ("get_weather", json!({"city": "Rome"}), J),
            ],
            &[],
        ),
    );
}

#[test]
fn hunyuan_answer_wrapper_is_removed_and_its_text_stays() {
    check_calls(
        "<think>\nplan\n</think>\n<answer>\nIt is sunny.\n</answer>",
        Outcome {
            reasoning: "\nplan\n".to_owned(),
            ..expect("\nIt is sunny.\n", &[], &[])
        },
    );
    check_calls(
        "<answer>\n<tool_calls>[{\"name\": \"ls\", \"arguments\": {}}]</tool_calls>\n</answer>",
        expect("", &[("ls", json!({}), J)], &[]),
    );
}

#[test]
fn answer_tags_in_prose_are_text() {
    for input in [
        "Put it in <answer> tags.",
        "Close with </answer> please.",
        "The <tool_calls> tag holds [calls].",
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
}

#[test]
fn unknown_tool_unfinished_call_and_missing_end_tag() {
    let input = r#"<tool_calls>[{"name": "launch", "arguments": {}}]</tool_calls>"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
    let input = r#"<tool_calls>[{"name": "ls", "arguments": {"a": "x"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
    check_calls(
        r#"<tool_calls>[{"name": "ls", "arguments": {}}]"#,
        expect("", &[("ls", json!({}), J)], &[]),
    );
}

#[test]
fn end_tag_inside_a_string_and_a_fence() {
    check_calls(
        r#"<tool_calls>[{"name": "read_file", "arguments": {"path": "]</tool_calls>"}}]</tool_calls>"#,
        expect(
            "",
            &[("read_file", json!({"path": "]</tool_calls>"}), J)],
            &[],
        ),
    );
    let input = "```\n<tool_calls>[{\"name\": \"ls\", \"arguments\": {}}]</tool_calls>\n```";
    check_calls(input, expect(input, &[], &[]));
}
