//! Mistral: `[TOOL_CALLS] [..]` before v11, `[TOOL_CALLS]NAME[ARGS]{..}` after,
//! `[THINK]` reasoning.

use super::super::*;
use super::broken_element_goes_back_alone;

const M: WireFormat = WireFormat::Mistral;

#[test]
fn pre_v11_array_with_text_around_keeps_the_model_id() {
    let input = "Sure.\n[TOOL_CALLS] [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}, \"id\": \"a1B2c3D4e\"}]\nDone.";
    check_calls(
        input,
        expect(
            "Sure.\n\nDone.",
            &[("get_weather", json!({"city": "Paris"}), M)],
            &[],
        ),
    );
    let (out, _) = run_pieces(&chars(input), DetectConfig::default());
    assert_eq!(out.ids, ["a1B2c3D4e"]);
    check_deltas(input, &[r#"{"city": "Paris"}"#]);
}

#[test]
fn pre_v11_parallel_calls_in_one_delta_without_space() {
    check_calls(
        r#"[TOOL_CALLS][{"name": "ls", "arguments": {}}, {"name": "read_file", "arguments": {"path": "a"}}]"#,
        expect(
            "",
            &[("ls", json!({}), M), ("read_file", json!({"path": "a"}), M)],
            &[],
        ),
    );
}

#[test]
fn pre_v11_unknown_element_next_to_a_known_one_goes_back_alone() {
    check_calls(
        r#"[TOOL_CALLS] [{"name": "launch", "arguments": {"x": 1}}, {"name": "ls", "arguments": {}}]"#,
        expect(
            r#"{"name": "launch", "arguments": {"x": 1}}"#,
            &[("ls", json!({}), M)],
            &[DiagnosticKind::UnknownTool],
        ),
    );
}

#[test]
fn pre_v11_only_unknown_calls_give_the_whole_block_back() {
    let input = r#"[TOOL_CALLS] [{"name": "launch", "arguments": {}}]"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::UnknownTool]));
}

#[test]
fn v11_calls_in_one_delta_with_and_without_call_id() {
    let input = r#"[TOOL_CALLS]get_weather[CALL_ID]k9Xq2LmPz[ARGS]{"city": "Oslo"}[TOOL_CALLS]ls[ARGS]{} ok"#;
    check_calls(
        input,
        expect(
            " ok",
            &[
                ("get_weather", json!({"city": "Oslo"}), M),
                ("ls", json!({}), M),
            ],
            &[],
        ),
    );
    let (out, _) = run_pieces(&[input], DetectConfig::default());
    assert_eq!(out.ids[0], "k9Xq2LmPz");
    assert_ne!(out.ids[1], "");
    check_deltas(input, &[r#"{"city": "Oslo"}"#, "{}"]);
}

#[test]
fn v11_unknown_tool_goes_back_and_the_known_call_stays() {
    check_calls(
        r#"[TOOL_CALLS]launch[ARGS]{"a": "}"}[TOOL_CALLS]ls[ARGS]{}"#,
        expect(
            r#"[TOOL_CALLS]launch[ARGS]{"a": "}"}"#,
            &[("ls", json!({}), M)],
            &[DiagnosticKind::UnknownTool],
        ),
    );
}

#[test]
fn v11_unfinished_call_is_text() {
    let input = r#"Now [TOOL_CALLS]get_weather[ARGS]{"city": "Os"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::Unfinished]));
}

#[test]
fn v11_broken_arguments_are_text_with_a_diagnostic() {
    let input = r#"[TOOL_CALLS]ls[ARGS]{"a" 1}"#;
    check_calls(input, expect(input, &[], &[DiagnosticKind::Invalid]));
}

#[test]
fn the_marker_in_prose_or_in_a_fence_is_text() {
    for input in [
        "The [TOOL_CALLS]get_weather token starts a call.",
        "Write [TOOL_CALLS] then [1, 2].",
        "```\n[TOOL_CALLS]ls[ARGS]{}\n```\n",
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
}

#[test]
fn think_block_at_the_start_is_reasoning_later_it_is_text() {
    check_calls(
        "[THINK]plan: [TOOL_CALLS]ls[ARGS]{}[/THINK]Hi[TOOL_CALLS]ls[ARGS]{}",
        Outcome {
            reasoning: "plan: [TOOL_CALLS]ls[ARGS]{}".to_owned(),
            ..expect("Hi", &[("ls", json!({}), M)], &[])
        },
    );
    let input = "Models write [THINK] first.";
    check_calls(input, expect(input, &[], &[]));
}

/// A well-formed element that is not a valid call (arguments that
/// are not an object, no name) goes back as text alone; the array's other
/// elements stay calls and its brackets and commas stay in the region.
#[test]
fn pre_v11_a_broken_element_at_the_start_middle_or_end_goes_back_alone() {
    let array = |elements: &[String]| format!("[TOOL_CALLS] [{}]", elements.join(", "));
    let read = r#"{"name": "read_file", "arguments": {"path": "a"}, "id": "a1B2c3D4e"}"#;
    let ls = r#"{"name": "ls", "arguments": {}}"#;
    for bad in [
        r#"{"name": "ls", "arguments": "not json", "id": "x9Y8z7W6v"}"#,
        r#"{"name": "read_file", "arguments": 5}"#,
        r#"{"arguments": {"path": "b"}}"#,
    ] {
        broken_element_goes_back_alone(
            array,
            bad,
            [
                (read, "read_file", json!({"path": "a"})),
                (ls, "ls", json!({})),
            ],
            M,
        );
    }
}
