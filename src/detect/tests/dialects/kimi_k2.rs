//! Kimi K2 sections (`<|tool_calls_section_begin|>`), ids kept.

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

fn call(id: &str, args: &str) -> String {
    format!("<|tool_call_begin|>{id}<|tool_call_argument_begin|>{args}<|tool_call_end|>")
}

fn section(calls: &[String]) -> String {
    format!(
        "<|tool_calls_section_begin|>{}<|tool_calls_section_end|>",
        calls.concat()
    )
}

#[test]
fn the_functions_name_idx_header_is_the_call_id() {
    let input = format!(
        "Let me check.{}",
        section(&[
            call("functions.get_weather:0", r#"{"city": "Beijing"}"#),
            call("functions.ls:1", "{}"),
        ])
    );
    check_calls(
        &input,
        expect(
            "Let me check.",
            &[
                ("get_weather", json!({"city": "Beijing"}), KimiK2),
                ("ls", json!({}), KimiK2),
            ],
            &[],
        ),
    );
    for pieces in [vec![input.as_str()], chars(&input)] {
        let (got, _) = run_pieces(&pieces, DetectConfig::default());
        assert_eq!(got.ids, ["functions.get_weather:0", "functions.ls:1"]);
    }
    check_deltas(&input, &[r#"{"city": "Beijing"}"#, "{}"]);
}

#[test]
fn whitespace_between_the_tokens_belongs_to_the_section() {
    let input = "<|tool_calls_section_begin|>\n<|tool_call_begin|> functions.ls:0 <|tool_call_argument_begin|> {} <|tool_call_end|>\n<|tool_calls_section_end|>\nAfter.";
    check_calls(input, expect("\nAfter.", &[("ls", json!({}), KimiK2)], &[]));
}

#[test]
fn a_bare_name_idx_header_is_accepted() {
    let input = section(&[call("ls:4", "{}")]);
    check_calls(&input, expect("", &[("ls", json!({}), KimiK2)], &[]));
    let (got, _) = run_pieces(&[&input], DetectConfig::default());
    assert_eq!(got.ids, ["ls:4"]);
}

#[test]
fn unknown_call_in_a_section_is_its_own_element_back_as_text() {
    let bad = call("functions.launch_rocket:0", r#"{"target": "moon"}"#);
    let input = section(&[call("functions.ls:1", "{}"), bad.clone()]);
    check_calls(
        &input,
        expect(&bad, &[("ls", json!({}), KimiK2)], &[UnknownTool]),
    );
    let input = section(std::slice::from_ref(&bad));
    check_calls(&input, expect(&input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_calls_come_back_as_text() {
    for input in [
        "Hi <|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"a",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_fi",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}",
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
}

#[test]
fn a_complete_call_without_the_section_end_is_accepted() {
    let input = format!(
        "<|tool_calls_section_begin|>{}",
        call("functions.ls:0", "{}")
    );
    check_calls(&input, expect("", &[("ls", json!({}), KimiK2)], &[]));
}

#[test]
fn a_call_token_outside_a_section_and_fenced_markup_are_text() {
    let input = call("functions.ls:0", "{}");
    check_calls(&input, expect(&input, &[], &[]));
    let input = format!("```\n{}\n```", section(&[call("functions.ls:0", "{}")]));
    check_calls(&input, expect(&input, &[], &[]));
}

#[test]
fn end_tokens_inside_json_strings_do_not_end_the_call() {
    let args = r#"{"path": "<|tool_call_end|><|tool_calls_section_end|>"}"#;
    let input = section(&[call("functions.read_file:0", args)]);
    check_calls(
        &input,
        expect(
            "",
            &[(
                "read_file",
                json!({"path": "<|tool_call_end|><|tool_calls_section_end|>"}),
                KimiK2,
            )],
            &[],
        ),
    );
}

#[test]
fn k2_thinking_reasoning_then_text_then_a_call() {
    let input = format!(
        "<think>Plan.</think>Checking.{}",
        section(&[call("functions.ls:0", "{}")])
    );
    check_calls(
        &input,
        Outcome {
            reasoning: "Plan.".to_owned(),
            ..expect("Checking.", &[("ls", json!({}), KimiK2)], &[])
        },
    );
}

/// A broken call is its own element back as text; the section's
/// other calls stay calls and its tokens stay in the region.
#[test]
fn a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    let read = call("functions.read_file:0", r#"{"path": "a"}"#);
    let ls = call("functions.ls:1", "{}");
    for bad in [
        call("functions.ls:2", "{bad}"),
        call("functions.read_file:2", r#"{"path": "b", oops}"#),
        call("functions.ls:2", "[1]"),
        call("functions.ls:2", "I will list them."),
        // Prose for the whole header.
        "<|tool_call_begin|>I will list the files.<|tool_call_end|>".to_owned(),
        call("functions.ls:2", "{} and more"),
        // Arguments whose brackets never balance end at the call's end token.
        call("functions.ls:2", r#"{"a": {"b": 1}"#),
        call("functions.read_file:2", r#"{"path": "a", "#),
    ] {
        broken_element_goes_back_alone(
            section,
            &bad,
            [
                (read.as_str(), "read_file", json!({"path": "a"})),
                (ls.as_str(), "ls", json!({})),
            ],
            KimiK2,
        );
    }
}

/// vLLM's `test_invalid_json_still_extracted`: unterminated arguments end,
/// broken, at the call's end token (a `<` outside their strings), so the
/// next call in the section still reads; an end token inside a string is
/// content.
#[test]
fn unterminated_arguments_end_at_the_call_end_token() {
    let bad = call("functions.get_weather:0", r#"{"city": "Beijing""#);
    let input = format!(
        "Help. {}",
        section(&[
            bad.clone(),
            call(
                "functions.get_weather:1",
                r#"{"city": "<|tool_call_end|>"}"#
            ),
        ])
    );
    check_calls(
        &input,
        expect(
            &format!("Help. {bad}"),
            &[("get_weather", json!({"city": "<|tool_call_end|>"}), KimiK2)],
            &[Invalid],
        ),
    );
    // The broken call streamed its arguments up to the token, then no end.
    check_deltas(
        &input,
        &[r#"{"city": "Beijing""#, r#"{"city": "<|tool_call_end|>"}"#],
    );
    // Still open inside a string at the end of the stream: unfinished.
    let input = section(&[call("functions.ls:0", r#"{"a": "<|tool_call_end|>"#)]);
    check_calls(&input, expect(&input, &[], &[Unfinished]));
}
