//! DeepSeek V3/R1 and V3.1 sections (`<｜tool▁calls▁begin｜>`).

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

/// A V3 call element.
fn v3(name: &str, args: &str) -> String {
    format!(
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{args}\n```<｜tool▁call▁end｜>"
    )
}

/// A V3.1 call element.
fn v31(name: &str, args: &str) -> String {
    format!("<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{args}<｜tool▁call▁end｜>")
}

fn section(calls: &[String]) -> String {
    format!(
        "<｜tool▁calls▁begin｜>{}<｜tool▁calls▁end｜>",
        calls.join("\n")
    )
}

#[test]
fn v3_call_with_text_before_and_after_streams_its_raw_arguments() {
    let args = r#"{"city": "Paris", "days": 2}"#;
    let input = format!("Checking.\n{}\nDone.", section(&[v3("get_weather", args)]));
    check_calls(
        &input,
        expect(
            "Checking.\n\nDone.",
            &[(
                "get_weather",
                json!({"city": "Paris", "days": 2}),
                DeepSeekV3,
            )],
            &[],
        ),
    );
    check_deltas(&input, &[args]);
}

#[test]
fn v3_parallel_calls_in_one_delta() {
    let input = section(&[v3("ls", "{}"), v3("read_file", r#"{"path": "a.rs"}"#)]);
    check_calls(
        &input,
        expect(
            "",
            &[
                ("ls", json!({}), DeepSeekV3),
                ("read_file", json!({"path": "a.rs"}), DeepSeekV3),
            ],
            &[],
        ),
    );
}

#[test]
fn v31_calls_are_told_apart_from_v3_by_their_header() {
    let input = format!(
        "Let me look.{}",
        section(&[v31("get_weather", r#"{"city":"Oslo"}"#), v31("ls", "{}")])
    );
    check_calls(
        &input,
        expect(
            "Let me look.",
            &[
                ("get_weather", json!({"city": "Oslo"}), DeepSeekV31),
                ("ls", json!({}), DeepSeekV31),
            ],
            &[],
        ),
    );
}

#[test]
fn each_version_alone_leaves_the_other_as_text() {
    let input = section(&[v31("ls", "{}")]);
    check_calls_with(
        &input,
        DetectConfig::only(DeepSeekV3),
        expect(&input, &[], &[]),
    );
    let input = section(&[v3("ls", "{}")]);
    check_calls_with(
        &input,
        DetectConfig::only(DeepSeekV31),
        expect(&input, &[], &[]),
    );
}

#[test]
fn unknown_call_in_a_section_is_its_own_element_back_as_text() {
    let bad = v31("launch_rocket", r#"{"target": "moon"}"#);
    let input = section(&[bad.clone(), v31("ls", "{}")]);
    check_calls(
        &input,
        expect(&bad, &[("ls", json!({}), DeepSeekV31)], &[UnknownTool]),
    );
    let bad = v3("launch_rocket", "{}");
    let input = format!("A {} B", section(&[v3("ls", "{}"), bad.clone()]));
    // The newline between the two elements is layout inside the section, which
    // stays a region: only the unknown element's own bytes come back.
    check_calls(
        &input,
        expect(
            &format!("A {bad} B"),
            &[("ls", json!({}), DeepSeekV3)],
            &[UnknownTool],
        ),
    );
}

#[test]
fn a_section_of_unknown_calls_is_text_whole() {
    let input = section(&[v3("launch_rocket", "{}"), v3("nope", "{}")]);
    check_calls(&input, expect(&input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_calls_come_back_as_text() {
    for input in [
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_fi",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"a\"}",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{}\n",
        "Text <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>",
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
}

#[test]
fn a_complete_call_without_the_section_end_is_accepted() {
    let input = format!("<｜tool▁calls▁begin｜>{}\n", v31("ls", "{}"));
    check_calls(&input, expect("", &[("ls", json!({}), DeepSeekV31)], &[]));
    // A second call cut short: the first stands, the rest is text.
    let rest = "<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"pa";
    let input = format!("<｜tool▁calls▁begin｜>{}{rest}", v31("ls", "{}"));
    check_calls(
        &input,
        expect(rest, &[("ls", json!({}), DeepSeekV31)], &[Unfinished]),
    );
}

#[test]
fn markup_in_a_code_fence_is_text() {
    let input = format!("See:\n```\n{}\n```\n", section(&[v31("ls", "{}")]));
    check_calls(&input, expect(&input, &[], &[]));
}

#[test]
fn end_tokens_inside_json_strings_do_not_end_the_call() {
    let args = r#"{"path": "n.md", "content": "a <｜tool▁call▁end｜> ``` <｜tool▁calls▁end｜> \"q\" \\ é"}"#;
    let input = section(&[v3("write_to_file", args)]);
    check_calls(
        &input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "n.md", "content": "a <｜tool▁call▁end｜> ``` <｜tool▁calls▁end｜> \"q\" \\ é"}),
                DeepSeekV3,
            )],
            &[],
        ),
    );
    check_deltas(&input, &[args]);
}

#[test]
fn broken_markup_is_an_invalid_diagnostic_and_text() {
    for input in [
        // Not a JSON fence.
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```python\n{}\n```<｜tool▁call▁end｜>",
        // Arguments that are not an object.
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>[1]<｜tool▁call▁end｜>",
        // Something else where the call's end token belongs.
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{} and more",
    ] {
        check_calls(input, expect(input, &[], &[Invalid]));
    }
}

#[test]
fn r1_reasoning_opened_by_the_prompt_then_a_call() {
    let input = format!("Think.\n</think>\n\n{}", section(&[v3("ls", "{}")]));
    check_calls_with(
        &input,
        DetectConfig::default().starting_in_reasoning(),
        Outcome {
            reasoning: "Think.\n".to_owned(),
            ..expect("", &[("ls", json!({}), DeepSeekV3)], &[])
        },
    );
}

#[test]
fn prose_that_mentions_the_tokens_is_text() {
    let input = "The <｜tool▁calls▁begin｜> token opens a section; <｜tool▁call▁begin｜> a call.";
    check_calls(input, expect(input, &[], &[]));
}

/// A call with broken arguments before a
/// good one goes back as text alone, and no section token is left in the text.
#[test]
fn a_broken_call_does_not_take_the_section_down() {
    let bad = "<｜tool▁call▁begin｜>ls<｜tool▁sep｜>{bad}<｜tool▁call▁end｜>";
    let input = format!(
        "<｜tool▁calls▁begin｜>{bad}<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{{\"path\": \"a\"}}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    );
    check_calls(
        &input,
        expect(
            bad,
            &[("read_file", json!({"path": "a"}), DeepSeekV31)],
            &[Invalid],
        ),
    );
}

#[test]
fn v31_a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    let read = v31("read_file", r#"{"path": "a"}"#);
    let ls = v31("ls", "{}");
    for bad in [
        // Arguments that are not JSON.
        v31("ls", "{bad}"),
        // Arguments that break after they began to stream.
        v31("read_file", r#"{"path": "b", oops}"#),
        // Arguments that are not an object.
        v31("ls", "[1]"),
        // Prose where the arguments belong, and prose for the whole header.
        v31("ls", "Let me list the files."),
        "<｜tool▁call▁begin｜>I will read the file now.<｜tool▁call▁end｜>".to_owned(),
        // Junk where the call's end token belongs.
        v31("ls", "{} and more"),
    ] {
        broken_element_goes_back_alone(
            section,
            &bad,
            [
                (read.as_str(), "read_file", json!({"path": "a"})),
                (ls.as_str(), "ls", json!({})),
            ],
            DeepSeekV31,
        );
    }
}

#[test]
fn v3_a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    let read = v3("read_file", r#"{"path": "a"}"#);
    let ls = v3("ls", "{}");
    for bad in [
        v3("ls", "{bad}"),
        v3("read_file", r#"{"path": "b", oops}"#),
        // Not a JSON fence, and junk where the closing fence belongs.
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```python\n{}\n```<｜tool▁call▁end｜>"
            .to_owned(),
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{}\nand more\n```<｜tool▁call▁end｜>"
            .to_owned(),
    ] {
        broken_element_goes_back_alone(
            section,
            &bad,
            [
                (read.as_str(), "read_file", json!({"path": "a"})),
                (ls.as_str(), "ls", json!({})),
            ],
            DeepSeekV3,
        );
    }
}

#[test]
fn a_broken_last_call_without_its_end_token_runs_to_the_end_of_the_stream() {
    let rest = "<｜tool▁call▁begin｜>I will read it";
    let input = format!("<｜tool▁calls▁begin｜>{}{rest}", v31("ls", "{}"));
    check_calls(
        &input,
        expect(rest, &[("ls", json!({}), DeepSeekV31)], &[Invalid]),
    );
}
