//! Cohere: THINKING reasoning, ACTION calls with ids, RESPONSE wrappers.

use super::super::*;

const C: WireFormat = WireFormat::Cohere;

#[test]
fn plan_then_parallel_actions_keep_the_model_ids() {
    let input = "<|START_THINKING|>Two calls.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}},\n    {\"tool_call_id\": \"1\", \"tool_name\": \"ls\", \"parameters\": {}}\n]<|END_ACTION|>";
    check_calls(
        input,
        Outcome {
            reasoning: "Two calls.".to_owned(),
            ..expect(
                "",
                &[
                    ("get_weather", json!({"city": "Oslo"}), C),
                    ("ls", json!({}), C),
                ],
                &[],
            )
        },
    );
    let (out, _) = run_pieces(&chars(input), DetectConfig::default());
    assert_eq!(out.ids, ["0", "1"]);
    check_deltas(input, &[r#"{"city": "Oslo"}"#, "{}"]);
}

#[test]
fn response_wrappers_are_removed_and_markup_inside_is_scanned() {
    check_calls(
        "<|START_RESPONSE|>It is <b>sunny</b>.<|END_RESPONSE|>",
        expect("It is <b>sunny</b>.", &[], &[]),
    );
}

#[test]
fn mixed_known_and_unknown_actions() {
    check_calls(
        r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "launch", "parameters": {}}, {"tool_call_id": "1", "tool_name": "ls", "parameters": {}}]<|END_ACTION|>"#,
        expect(
            r#"{"tool_call_id": "0", "tool_name": "launch", "parameters": {}}"#,
            &[("ls", json!({}), C)],
            &[DiagnosticKind::UnknownTool],
        ),
    );
}

#[test]
fn unknown_only_unfinished_and_fenced_actions_are_text() {
    let input = r#"<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "launch", "parameters": {}}]<|END_ACTION|>"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
    let input = r#"Ok <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "ls", "parameters": {"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
    let input = "```\n<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"ls\", \"parameters\": {}}]<|END_ACTION|>\n```";
    check_calls(input, expect(input, &[], &[]));
}
