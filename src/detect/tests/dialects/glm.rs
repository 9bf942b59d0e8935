//! GLM-4.5/4.6 and GLM-4.7/5: `<tool_call>NAME<arg_key>…</arg_key><arg_value>…</arg_value></tool_call>`.

use serde_json::json;

use super::super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn newline_layout_is_glm45_with_text_before_and_after() {
    check_calls(
        "Checking.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>\nDone.",
        expect(
            "Checking.\n\nDone.",
            &[("get_weather", json!({"city": "Paris"}), Glm45)],
            &[],
        ),
    );
}

#[test]
fn compact_layout_is_glm47_and_parallel_calls_in_one_delta() {
    check_calls(
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value><arg_key>days</arg_key><arg_value>2</arg_value></tool_call><tool_call>ls</tool_call>",
        expect(
            "",
            &[
                ("get_weather", json!({"city": "Oslo", "days": 2}), Glm47),
                ("ls", json!({}), Glm47),
            ],
            &[],
        ),
    );
}

#[test]
fn values_are_typed_by_schema_and_unknown_parameters_stay_strings() {
    let input = "<tool_call>search\n<arg_key>query</arg_key>\n<arg_value>42</arg_value>\n<arg_key>limit</arg_key>\n<arg_value>3</arg_value>\n<arg_key>ratio</arg_key>\n<arg_value>0.5</arg_value>\n<arg_key>exact</arg_key>\n<arg_value>true</arg_value>\n<arg_key>tags</arg_key>\n<arg_value>[1, 2]</arg_value>\n<arg_key>opts</arg_key>\n<arg_value>{\"a\": 1}</arg_value>\n<arg_key>extra</arg_key>\n<arg_value>7</arg_value>\n</tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "search",
                json!({"query": "42", "limit": 3, "ratio": 0.5, "exact": true, "tags": [1, 2], "opts": {"a": 1}, "extra": "7"}),
                Glm45,
            )],
            &[],
        ),
    );
    // A value that does not parse as its type stays a string.
    check_calls(
        "<tool_call>search<arg_key>limit</arg_key><arg_value>many</arg_value></tool_call>",
        expect("", &[("search", json!({"limit": "many"}), Glm47)], &[]),
    );
}

#[test]
fn string_values_stream_escaped_and_keep_their_own_closing_tags() {
    let input = "<tool_call>write_to_file\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>\n\"q\" \\ </arg_value> é\n\n</arg_value>\n</tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "a.txt", "content": "\"q\" \\ </arg_value> é\n"}),
                Glm45,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[r#"{"path":"a.txt","content":"\"q\" \\ </arg_value> é\n"}"#],
    );
}

#[test]
fn unknown_tool_is_text_and_its_neighbour_survives() {
    let bad =
        "<tool_call>launch_rocket<arg_key>target</arg_key><arg_value>moon</arg_value></tool_call>";
    check_calls(
        &format!("<tool_call>ls</tool_call>{bad}"),
        expect(bad, &[("ls", json!({}), Glm47)], &[UnknownTool]),
    );
}

#[test]
fn unfinished_calls_are_text() {
    for input in [
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Par",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>",
        // Cut inside a tag.
        "<tool_call>get_weather<arg_key>ci",
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
}

#[test]
fn markup_in_a_fence_is_text() {
    let input = "Like this:\n```\n<tool_call>ls</tool_call>\n```\n";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn tool_call_followed_by_prose_or_json_is_not_glm() {
    let input = "Write <tool_call>get_weather then the arguments.";
    check_calls(input, expect(input, &[], &[]));
    check_calls(
        "<tool_call>{\"name\": \"ls\"}</tool_call>",
        expect("", &[("ls", json!({}), Hermes)], &[]),
    );
    check_calls(
        "<tool_call>\n<function=ls>\n</function>\n</tool_call>",
        expect("", &[("ls", json!({}), Qwen3Coder)], &[]),
    );
}

#[test]
fn one_format_alone_accepts_both_layouts() {
    for (input, format) in [
        ("<tool_call>ls</tool_call>", Glm45),
        ("<tool_call>ls\n</tool_call>", Glm47),
    ] {
        check_calls_with(
            input,
            DetectConfig::only(format),
            expect("", &[("ls", json!({}), format)], &[]),
        );
    }
}
