//! The contract rules, one test each.

use serde_json::json;

use super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn whitespace_next_to_text_stays_text_separators_do_not() {
    check_calls(
        "\n<ls></ls>\n\n<ls></ls>\n",
        expect("", &[("ls", json!({}), Xml), ("ls", json!({}), Xml)], &[]),
    );
    check_calls(
        "Hi \n<ls></ls>\n bye",
        expect("Hi \n\n bye", &[("ls", json!({}), Xml)], &[]),
    );
}

#[test]
fn unknown_tool_comes_back_verbatim_and_neighbours_survive() {
    let bad = "<tool_call>{\"name\":\"rm_rf\",\"arguments\":{}}</tool_call>";
    let input = format!(
        "<tool_call>{{\"name\":\"ls\"}}</tool_call>\n{bad}\n<tool_call>{{\"name\":\"ls\"}}</tool_call>"
    );
    check_calls(
        &input,
        expect(
            &format!("\n{bad}\n"),
            &[("ls", json!({}), Hermes), ("ls", json!({}), Hermes)],
            &[UnknownTool],
        ),
    );
}

#[test]
fn unknown_invoke_in_a_block_is_text_the_other_is_a_call() {
    let bad = "<invoke name=\"nope\"><parameter name=\"a\">1</parameter></invoke>";
    let input = format!("<function_calls>{bad}<invoke name=\"ls\"></invoke></function_calls>");
    check_calls(
        &input,
        expect(bad, &[("ls", json!({}), AnthropicInvoke)], &[UnknownTool]),
    );
}

#[test]
fn unknown_json_tool_use_is_text() {
    let input = r#"{"type":"tool_use","id":"x","name":"nope","input":{}}"#;
    check_calls(input, expect(input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_call_comes_back_as_text() {
    for input in [
        "Text <read_file><path>a",
        "<tool_call>{\"name\":\"read_file\",\"arguments\":{\"path\":\"a",
        "<function_calls><invoke name=\"ls\">",
        "<tool_call><function=read_file><parameter=path>x</parameter>",
        // Cut inside a parameter's tag or the end tag: unfinished, not invalid.
        "<read_file><pa",
        "<read_file>\n<",
        "<read_file><path>a</path></read_f",
        "<tool_call><function=read_file><param",
        "<tool_call><function=read_file><parameter=path>x</parameter></func",
        "<function_calls><invoke name=\"ls\"><para",
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
}

#[test]
fn complete_body_without_outer_end_tag_is_accepted() {
    check_calls(
        "<tool_call>{\"name\":\"ls\"}",
        expect("", &[("ls", json!({}), Hermes)], &[]),
    );
    check_calls(
        "<tool_call>\n<function=ls>\n</function>\n",
        expect("", &[("ls", json!({}), Qwen3Coder)], &[]),
    );
    check_calls(
        "<function_calls><invoke name=\"ls\"></invoke>",
        expect("", &[("ls", json!({}), AnthropicInvoke)], &[]),
    );
}

#[test]
fn tags_in_code_fences_are_text() {
    let input = "Example:\n```xml\n<read_file><path>a</path></read_file>\n<tool_call>{\"name\":\"ls\"}</tool_call>\n```\nend";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn a_fence_holding_exactly_one_envelope_is_the_call() {
    let input = "Calling:\n```json\n{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"ls\",\"input\":{}}\n```\nthen";
    check_calls(
        input,
        expect("Calling:\n\nthen", &[("ls", json!({}), JsonToolUse)], &[]),
    );
    let input = "```\n{\"tool_calls\":[{\"id\":\"c\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}\n```";
    check_calls(input, expect("", &[("ls", json!({}), OpenAiFunction)], &[]));
}

#[test]
fn a_fence_with_more_than_the_envelope_is_text() {
    let input = "```json\n{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"ls\",\"input\":{}}\n// and more\n```\n";
    check_calls(input, expect(input, &[], &[Invalid]));
    let input =
        "```json\n{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"nope\",\"input\":{}}\n```";
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = "```json\n{\"a\": 1}\n```";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn splits_mid_escape_and_between_surrogate_halves() {
    // `\ud83d\ude00` is 😀; every cut (check_calls cuts at each byte) splits it somewhere.
    let input = r#"<tool_call>{"name":"read_file","arguments":"{\"path\":\"\\ud83d\\ude00 \\\" \\n\"}"}</tool_call>"#;
    check_calls(
        input,
        expect(
            "",
            &[("read_file", json!({"path": "😀 \" \n"}), Hermes)],
            &[],
        ),
    );
    let input = r#"{"tool_calls":[{"id":"c","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"\ud83d\ude00\"}"}}]}"#;
    check_calls(
        input,
        expect(
            "",
            &[("read_file", json!({"path": "😀"}), OpenAiFunction)],
            &[],
        ),
    );
}

#[test]
fn parallel_calls_in_one_delta_and_text_after() {
    let input = "<ls></ls><read_file><path>a</path></read_file>tail";
    let (o, _) = run_pieces(&[input], DetectConfig::default());
    assert_eq!(o.calls.len(), 2);
    assert_eq!(o.text, "tail");
}

#[test]
fn oversized_call_is_a_limit_diagnostic() {
    let input = format!("<read_file><path>{}</path></read_file>", "x".repeat(300));
    let (o, _) = run_pieces(&[&input], DetectConfig::default().with_max_call_bytes(100));
    assert!(o.calls.is_empty());
    assert_eq!(o.malformed, vec![LimitExceeded]);
    assert_eq!(o.text, input);
}

#[test]
fn the_newline_between_a_call_and_a_fenced_envelope_is_a_separator() {
    let input = "<ls></ls>\n```json\n{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{}}\n```\n";
    check_calls(
        input,
        expect(
            "",
            &[("ls", json!({}), Xml), ("ls", json!({}), JsonToolUse)],
            &[],
        ),
    );
    let input = "<ls></ls>\n```rust\nfn x() {}\n```";
    check_calls(
        input,
        expect("\n```rust\nfn x() {}\n```", &[("ls", json!({}), Xml)], &[]),
    );
}

#[test]
fn unknown_entry_in_a_tool_calls_list_is_text_the_other_is_a_call() {
    let bad = r#"{"id":"a","type":"function","function":{"name":"nope","arguments":"{}"}}"#;
    let input = format!(
        r#"{{"tool_calls":[{bad},{{"id":"b","type":"function","function":{{"name":"ls","arguments":"{{}}"}}}}]}}"#
    );
    check_calls(
        &input,
        expect(bad, &[("ls", json!({}), OpenAiFunction)], &[UnknownTool]),
    );
}

#[test]
fn unknown_qwen3_function_is_text() {
    let input =
        "<tool_call>\n<function=nope>\n<parameter=a>1</parameter>\n</function>\n</tool_call>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_json_envelopes_come_back_as_text() {
    for input in [
        r#"{"type":"tool_use","id":"t","name":"ls","input":{"a":"#,
        r#"{"tool_calls":[{"id":"c","type":"function","function":{"name":"ls","arguments":"{\"a"#,
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
}

#[test]
fn a_started_call_keeps_the_name_it_started_with() {
    // A second `name` key after the call has started (its `call_start` is out)
    // does not rename the call: the call that ends is the one that started,
    // in every JSON dialect that reads names from keys. Before the start, a
    // name that is no tool is replaced by a later one.
    let cases: &[(&str, WireFormat)] = &[
        (
            r#"<tool_call>{"name":"read_file","arguments":{"path":"a"},"name":"ls"}</tool_call>"#,
            Hermes,
        ),
        (
            r#"{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"},"name":"ls"}"#,
            JsonToolUse,
        ),
        (
            r#"{"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}","name":"ls"}}]}"#,
            OpenAiFunction,
        ),
        (
            r#"<tool_calls>[{"name":"read_file","arguments":{"path":"a"},"name":"ls"}]</tool_calls>"#,
            JambaHunyuan,
        ),
        (
            r#"<tool_call>{"name":"nope","arguments":{"path":"a"},"name":"read_file"}</tool_call>"#,
            Hermes,
        ),
    ];
    for &(input, format) in cases {
        check_calls(
            input,
            expect("", &[("read_file", json!({"path": "a"}), format)], &[]),
        );
    }
}
