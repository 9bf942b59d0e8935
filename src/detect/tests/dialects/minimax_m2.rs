//! MiniMax-M2: `<minimax:tool_call><invoke name=…><parameter name=…>…</parameter></invoke></minimax:tool_call>`.

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn reasoning_opened_by_the_prompt_then_text_and_a_call() {
    let input = "Read it first.\n</think>\n\nReading.\n<minimax:tool_call>\n<invoke name=\"read_file\">\n<parameter name=\"path\">a.rs</parameter>\n</invoke>\n</minimax:tool_call>";
    check_calls_with(
        input,
        DetectConfig::default().starting_in_reasoning(),
        Outcome {
            reasoning: "Read it first.\n".to_owned(),
            ..expect(
                "\n\nReading.\n",
                &[("read_file", json!({"path": "a.rs"}), MinimaxM2)],
                &[],
            )
        },
    );
}

#[test]
fn several_invokes_are_parallel_calls_typed_by_schema() {
    let input = "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n<invoke name=\"write_to_file\">\n<parameter name=\"content\">\na &lt; b\n</parameter>\n</invoke>\n</minimax:tool_call>\nok";
    check_calls(
        input,
        expect(
            "\nok",
            &[
                (
                    "get_weather",
                    json!({"city": "Paris", "days": 3}),
                    MinimaxM2,
                ),
                ("write_to_file", json!({"content": "a &lt; b"}), MinimaxM2),
            ],
            &[],
        ),
    );
    check_deltas(
        input,
        &[r#"{"city":"Paris","days":3}"#, r#"{"content":"a &lt; b"}"#],
    );
}

#[test]
fn an_unknown_invoke_is_text_the_other_is_a_call() {
    let bad = "<invoke name=\"launch\">\n<parameter name=\"a\">1</parameter>\n</invoke>";
    let input = format!(
        "<minimax:tool_call>\n{bad}\n<invoke name=\"ls\">\n</invoke>\n</minimax:tool_call>"
    );
    check_calls(
        &input,
        expect(bad, &[("ls", json!({}), MinimaxM2)], &[UnknownTool]),
    );
    let input = format!("<minimax:tool_call>\n{bad}\n</minimax:tool_call>");
    check_calls(&input, expect(&input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_call_is_text_a_missing_wrapper_end_is_not() {
    let input = "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Par";
    check_calls(input, expect(input, &[], &[Unfinished]));
    check_calls(
        "<minimax:tool_call>\n<invoke name=\"ls\">\n</invoke>\n",
        expect("", &[("ls", json!({}), MinimaxM2)], &[]),
    );
}

#[test]
fn fenced_or_prose_markup_is_text() {
    let input =
        "```\n<minimax:tool_call>\n<invoke name=\"ls\">\n</invoke>\n</minimax:tool_call>\n```";
    check_calls(input, expect(input, &[], &[]));
    let input = "The <minimax:tool_call> tag wraps calls.";
    check_calls(input, expect(input, &[], &[]));
}

/// A broken invoke (prose or a stray tag where its parameters
/// belong, an opening tag that does not read) is its own element back as
/// text; the wrapper and the other invokes stay calls.
#[test]
fn a_broken_invoke_at_the_start_middle_or_end_goes_back_alone() {
    let block = |invokes: &[String]| {
        format!(
            "<minimax:tool_call>\n{}\n</minimax:tool_call>",
            invokes.join("\n")
        )
    };
    let read = "<invoke name=\"read_file\">\n<parameter name=\"path\">a</parameter>\n</invoke>";
    let ls = "<invoke name=\"ls\">\n</invoke>";
    for bad in [
        "<invoke name=\"read_file\">\nI will read a.rs first.\n</invoke>",
        "<invoke name=\"ls\">\n<path>a</path>\n</invoke>",
        "<invoke name=ls>\n</invoke>",
    ] {
        broken_element_goes_back_alone(
            block,
            bad,
            [
                (read, "read_file", json!({"path": "a"})),
                (ls, "ls", json!({})),
            ],
            MinimaxM2,
        );
    }
}
