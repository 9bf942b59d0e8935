//! LongCat: `<longcat_tool_call>{..}</longcat_tool_call>`.

use super::super::*;

const C: WireFormat = WireFormat::LongCat;

#[test]
fn parallel_blocks_in_one_delta_with_text_around() {
    let input = "Sure.\n<longcat_tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</longcat_tool_call>\n<longcat_tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</longcat_tool_call>\nDone.";
    check_calls(
        input,
        expect(
            "Sure.\n\nDone.",
            &[
                ("get_weather", json!({"city": "Oslo"}), C),
                ("ls", json!({}), C),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city": "Oslo"}"#, "{}"]);
}

#[test]
fn unknown_tool_and_unfinished_call_are_text() {
    let input = "<longcat_tool_call>{\"name\": \"launch\", \"arguments\": {}}</longcat_tool_call>";
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
    let input =
        "<longcat_tool_call>{\"name\": \"ls\", \"arguments\": {\"a\": \"</longcat_tool_call>";
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
}

#[test]
fn fenced_markup_is_text() {
    let input =
        "```\n<longcat_tool_call>{\"name\": \"ls\", \"arguments\": {}}</longcat_tool_call>\n```";
    check_calls(input, expect(input, &[], &[]));
}
