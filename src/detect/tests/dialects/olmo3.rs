//! Olmo 3: one pythonic call per line inside `<function_calls>`.

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
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

/// (vLLM `test_bad_sibling_call_does_not_drop_good_calls`,
/// `test_non_finite_argument_rejected`): a broken call goes back as text on
/// its own line; the other lines stay calls and the block's tags stay in the
/// region.
#[test]
fn a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    for bad in [
        "search(query=b'z')",
        "search(limit=1e999)",
        "search(ratio=float('nan'))",
        "search(tags=[1, 2)",
        "search(limit=foo, query='a)\\n')",
    ] {
        broken_element_goes_back_alone(
            |elements| format!("<function_calls>{}</function_calls>", elements.join("\n")),
            bad,
            [
                ("get_weather(city='x')", "get_weather", json!({"city": "x"})),
                ("ls()", "ls", json!({})),
            ],
            Olmo3,
        );
    }
}

/// A broken call whose `(` never balances runs to the end tag (a stray quote
/// only to the end of its line): the lines it swallows go back with it.
#[test]
fn an_unbalanced_broken_call_runs_to_the_end_tag() {
    check_calls(
        "<function_calls>ls()\nsearch(query=x'a\nget_weather(city='x')</function_calls>",
        expect(
            "search(query=x'a\nget_weather(city='x')",
            &[("ls", json!({}), Olmo3)],
            &[Invalid],
        ),
    );
    let input = "<function_calls>search(limit=1e999)</function_calls>";
    check_calls(input, expect(input, &[], &[Invalid]));
}
