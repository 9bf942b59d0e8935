//! Olmo 3: one pythonic call per line inside `<function_calls>`.

use serde_json::json;

use super::super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn calls_one_per_line_with_text_around() {
    let input =
        "Looking.\n<function_calls>get_weather(city=\"Paris\")\nls()</function_calls>\nDone.";
    check_calls(
        input,
        expect(
            "Looking.\n\nDone.",
            &[
                ("get_weather", json!({"city": "Paris"}), Olmo3),
                ("ls", json!({}), Olmo3),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris"}"#, "{}"]);
}

#[test]
fn invoke_after_the_marker_is_anthropic_legacy() {
    check_calls(
        "<function_calls><invoke name=\"ls\"></invoke></function_calls>",
        expect("", &[("ls", json!({}), AnthropicInvoke)], &[]),
    );
}

#[test]
fn json_spellings_of_the_literals() {
    check_calls(
        "<function_calls>search(exact=true, opts={\"a\": null, \"b\": [false, True]})</function_calls>",
        expect(
            "",
            &[(
                "search",
                json!({"exact": true, "opts": {"a": null, "b": [false, true]}}),
                Olmo3,
            )],
            &[],
        ),
    );
}

#[test]
fn unknown_tool_unfinished_call_and_fence_are_text() {
    let input = "<function_calls>launch(x=1)</function_calls>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = "<function_calls>ls()\nread_file(path=\"a";
    check_calls(input, expect(input, &[], &[Unfinished]));
    let input = "```\n<function_calls>ls()</function_calls>\n```";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn a_block_lacking_only_its_end_tag_is_accepted() {
    check_calls(
        "<function_calls>ls()\n",
        expect("", &[("ls", json!({}), Olmo3)], &[]),
    );
}

#[test]
fn reasoning_then_a_call() {
    let (got, _) = run_pieces(
        &["<think>plan</think>\n<function_calls>ls()</function_calls>"],
        DetectConfig::default(),
    );
    assert_eq!(got.reasoning, "plan");
    assert_eq!(got.text, "");
    assert_eq!(got.calls, vec![("ls".to_owned(), json!({}), Olmo3)]);
}

#[test]
fn calls_separated_by_commas_on_one_line() {
    check_calls(
        "<function_calls>ls(), get_weather(city='x')</function_calls>",
        expect(
            "",
            &[
                ("ls", json!({}), Olmo3),
                ("get_weather", json!({"city": "x"}), Olmo3),
            ],
            &[],
        ),
    );
}
