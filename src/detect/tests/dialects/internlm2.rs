//! InternLM2: `<|action_start|><|plugin|>{..}<|action_end|>`.

use super::super::*;

const I: WireFormat = WireFormat::InternLm2;

#[test]
fn plugin_calls_in_one_delta_with_text_around() {
    check_calls(
        "Weather.<|action_start|><|plugin|>\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}<|action_end|><|action_start|> <|plugin|>\n{\"name\": \"ls\", \"arguments\": {}}<|action_end|>\nDone.",
        expect(
            "Weather.\nDone.",
            &[
                ("get_weather", json!({"city": "Oslo"}), I),
                ("ls", json!({}), I),
            ],
            &[],
        ),
    );
}

#[test]
fn interpreter_action_and_fenced_markup_are_text() {
    for input in [
        "<|action_start|><|interpreter|>\nprint(1)<|action_end|>",
        "```\n<|action_start|><|plugin|>\n{\"name\": \"ls\"}<|action_end|>\n```",
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
}

#[test]
fn unknown_tool_unfinished_call_and_missing_end_token() {
    let input =
        "<|action_start|><|plugin|>\n{\"name\": \"launch\", \"parameters\": {}}<|action_end|>";
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
    let input = "<|action_start|><|plugin|>\n{\"name\": \"ls\", \"parameters\": {\"a\"";
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
    check_calls(
        "<|action_start|><|plugin|>\n{\"name\": \"ls\", \"parameters\": {}}",
        expect("", &[("ls", json!({}), I)], &[]),
    );
}
