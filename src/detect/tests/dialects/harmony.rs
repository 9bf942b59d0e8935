//! gpt-oss harmony (text form): channels, reasoning, calls addressed `to=functions.NAME`.

use serde_json::json;

use super::super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

fn with_reasoning(text: &str, reasoning: &str, calls: &[(&str, Value, WireFormat)]) -> Outcome {
    Outcome {
        reasoning: reasoning.to_owned(),
        ..expect(text, calls, &[])
    }
}

#[test]
fn analysis_is_reasoning_and_final_is_text() {
    check_calls(
        "<|channel|>analysis<|message|>Think <b>hard</b>.<|end|><|start|>assistant<|channel|>final<|message|>The answer: <i>4</i>.<|return|>",
        with_reasoning("The answer: <i>4</i>.", "Think <b>hard</b>.", &[]),
    );
}

#[test]
fn a_message_to_a_function_is_a_call_in_either_header_section() {
    check_calls(
        "<|channel|>analysis<|message|>Weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\", \"days\": 2}<|call|>",
        with_reasoning(
            "",
            "Weather.",
            &[("get_weather", json!({"city": "Paris", "days": 2}), Harmony)],
        ),
    );
    check_calls(
        "<|start|>assistant to=functions.read_file<|channel|>commentary json<|message|>{\"path\":\"a\"}<|call|>",
        expect("", &[("read_file", json!({"path": "a"}), Harmony)], &[]),
    );
}

#[test]
fn arguments_stream_raw() {
    let input = "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a \\\"b\\\" }\"}<|call|>";
    check_deltas(input, &[r#"{"path": "a \"b\" }"}"#]);
}

#[test]
fn preambles_are_text_and_later_messages_count_wherever_they_sit() {
    check_calls(
        "<|channel|>commentary<|message|>Looking.<|end|>\n<|start|>assistant<|channel|>commentary to=functions.ls<|message|>{}<|call|><|start|>assistant<|channel|>commentary to=functions.ls<|message|><|call|>",
        expect(
            "Looking.",
            &[("ls", json!({}), Harmony), ("ls", json!({}), Harmony)],
            &[],
        ),
    );
}

#[test]
fn harmony_markers_after_visible_text_stay_text_unless_the_stream_is_harmony() {
    // The header stays text; the end token is a framing token wherever it is.
    let input = "Hello <|channel|>final<|message|>x<|end|>";
    check_calls(
        input,
        expect("Hello <|channel|>final<|message|>x", &[], &[]),
    );
    check_calls(
        "<|channel|>final<|message|>Sure.<|end|><|start|>assistant<|channel|>commentary to=functions.ls<|message|>{}",
        expect("Sure.", &[("ls", json!({}), Harmony)], &[]),
    );
}

#[test]
fn messages_to_builtin_tools_are_hidden() {
    check_calls(
        "<|channel|>analysis to=python<|message|>print(1)<|call|>",
        with_reasoning("", "print(1)", &[]),
    );
}

#[test]
fn unknown_function_is_text() {
    let input =
        "<|channel|>commentary to=functions.launch <|constrain|>json<|message|>{\"a\":1}<|call|>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_or_non_json_calls_are_text() {
    let input = "<|channel|>commentary to=functions.get_weather<|message|>{\"city\":\"Pa";
    check_calls(input, expect(input, &[], &[Unfinished]));
    // The content is given back; the end token after it is framing, not text.
    let input = "<|channel|>commentary to=functions.get_weather<|message|>Paris<|call|>";
    check_calls(
        input,
        expect(
            "<|channel|>commentary to=functions.get_weather<|message|>Paris",
            &[],
            &[Invalid],
        ),
    );
}

#[test]
fn analysis_cut_short_is_reasoning() {
    check_calls(
        "<|channel|>analysis<|message|>Still thinking <|en",
        with_reasoning("", "Still thinking <|en", &[]),
    );
}

#[test]
fn a_fence_is_text() {
    let input = "```\n<|channel|>final<|message|>x<|end|>\n```";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn a_first_call_to_an_unknown_tool_still_shows_the_stream_speaks_harmony() {
    let unknown = "<|channel|>commentary to=functions.zz <|constrain|>json<|message|>{}<|call|>";
    let input = format!(
        "{unknown}<|start|>assistant<|channel|>commentary to=functions.ls <|constrain|>json<|message|>{{}}<|call|>"
    );
    check_calls(
        &input,
        expect(
            unknown,
            &[("ls", json!({}), WireFormat::Harmony)],
            &[DiagnosticKind::UnknownTool],
        ),
    );
}
