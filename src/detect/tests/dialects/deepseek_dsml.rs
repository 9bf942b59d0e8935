//! DeepSeek V3.2/V4 DSML blocks: the `string` flag types values, the schema
//! only when the flag is absent.

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

fn param(name: &str, flag: Option<bool>, value: &str) -> String {
    let flag = match flag {
        Some(f) => format!(" string=\"{f}\""),
        None => String::new(),
    };
    format!("<｜DSML｜parameter name=\"{name}\"{flag}>{value}</｜DSML｜parameter>")
}

fn invoke(name: &str, params: &[String]) -> String {
    format!(
        "<｜DSML｜invoke name=\"{name}\">\n{}\n</｜DSML｜invoke>",
        params.join("\n")
    )
}

fn block(tag: &str, invokes: &[String]) -> String {
    format!("<｜DSML｜{tag}>\n{}\n</｜DSML｜{tag}>", invokes.join("\n"))
}

#[test]
fn the_string_flag_decides_the_type_and_the_schema_only_without_it() {
    // `days` is an integer in the schema, `query` a string, `ratio` a number.
    let input = block(
        "function_calls",
        &[
            invoke(
                "get_weather",
                &[
                    param("city", Some(true), "Paris"),
                    param("days", Some(true), "3"),
                ],
            ),
            invoke(
                "search",
                &[
                    param("query", Some(false), "[1, 2]"),
                    param("limit", None, "5"),
                    param("ratio", Some(false), "not json"),
                    param("exact", Some(false), "true"),
                ],
            ),
        ],
    );
    check_calls(
        &input,
        expect(
            "",
            &[
                (
                    "get_weather",
                    json!({"city": "Paris", "days": "3"}),
                    DeepSeekDsml,
                ),
                (
                    "search",
                    json!({"query": [1, 2], "limit": 5, "ratio": "not json", "exact": true}),
                    DeepSeekDsml,
                ),
            ],
            &[],
        ),
    );
    check_deltas(
        &input,
        &[
            r#"{"city":"Paris","days":"3"}"#,
            r#"{"query":[1,2],"limit":5,"ratio":"not json","exact":true}"#,
        ],
    );
}

#[test]
fn v4_tool_calls_block_with_text_before_and_after() {
    let input = format!(
        "Sure.\n\n{}\nDone.",
        block("tool_calls", &[invoke("ls", &[])])
    );
    check_calls(
        &input,
        expect("Sure.\n\n\nDone.", &[("ls", json!({}), DeepSeekDsml)], &[]),
    );
}

#[test]
fn string_values_stream_raw_text_escaped_and_keep_their_own_tags() {
    let content = "line \"1\"\n<b>x</b> </｜DSML｜parameter> y\\";
    let input = block(
        "function_calls",
        &[invoke(
            "write_to_file",
            &[
                param("path", Some(true), "a.md"),
                param("content", Some(true), content),
            ],
        )],
    );
    check_calls(
        &input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "a.md", "content": content}),
                DeepSeekDsml,
            )],
            &[],
        ),
    );
    check_deltas(
        &input,
        &[r#"{"path":"a.md","content":"line \"1\"\n<b>x</b> </｜DSML｜parameter> y\\"}"#],
    );
}

#[test]
fn unknown_invoke_is_its_own_element_back_as_text() {
    let bad = invoke("launch_rocket", &[param("target", Some(true), "moon")]);
    let input = block("function_calls", &[bad.clone(), invoke("ls", &[])]);
    check_calls(
        &input,
        expect(&bad, &[("ls", json!({}), DeepSeekDsml)], &[UnknownTool]),
    );
    let input = block("function_calls", std::slice::from_ref(&bad));
    check_calls(&input, expect(&input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_calls_come_back_as_text_and_a_complete_one_without_the_block_end_stands() {
    for input in [
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">a",
        "<｜DSML｜tool_calls><｜DSML｜invoke name=\"read_file\">\n",
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
    let input = "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"ls\">\n</｜DSML｜invoke>\n";
    check_calls(input, expect("", &[("ls", json!({}), DeepSeekDsml)], &[]));
}

#[test]
fn a_bad_flag_is_invalid_and_fenced_markup_is_text() {
    let input = "<｜DSML｜function_calls><｜DSML｜invoke name=\"ls\"><｜DSML｜parameter name=\"a\" string=\"maybe\">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>";
    check_calls(input, expect(input, &[], &[Invalid]));
    let input = format!(
        "```\n{}\n```",
        block("function_calls", &[invoke("ls", &[])])
    );
    check_calls(&input, expect(&input, &[], &[]));
}

/// A broken invoke (prose or a stray tag where its parameters
/// belong, an opening tag that does not read) is its own element back as text.
#[test]
fn a_broken_invoke_at_the_start_middle_or_end_goes_back_alone() {
    let read = invoke("read_file", &[param("path", Some(true), "a")]);
    let ls = invoke("ls", &[]);
    for bad in [
        "<｜DSML｜invoke name=\"read_file\">\nI will read a.rs first.\n</｜DSML｜invoke>",
        "<｜DSML｜invoke name=\"ls\">\n<b>x</b>\n</｜DSML｜invoke>",
        "<｜DSML｜invoke name=ls>\n</｜DSML｜invoke>",
    ] {
        for tag in ["function_calls", "tool_calls"] {
            broken_element_goes_back_alone(
                |invokes| block(tag, invokes),
                bad,
                [
                    (read.as_str(), "read_file", json!({"path": "a"})),
                    (ls.as_str(), "ls", json!({})),
                ],
                DeepSeekDsml,
            );
        }
    }
}
