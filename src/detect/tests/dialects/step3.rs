//! Step-3 sections (`<｜tool_calls_begin｜>` with `<steptml:invoke>`).

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

fn call(name: &str, params: &[(&str, &str)]) -> String {
    let params: String = params
        .iter()
        .map(|(k, v)| format!("<steptml:parameter name=\"{k}\">{v}</steptml:parameter>\n"))
        .collect();
    format!(
        "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"{name}\">\n{params}</steptml:invoke><｜tool_call_end｜>"
    )
}

fn section(calls: &[String]) -> String {
    format!(
        "<｜tool_calls_begin｜>\n{}\n<｜tool_calls_end｜>",
        calls.join("\n")
    )
}

#[test]
fn values_are_typed_by_the_schema_and_strings_stream() {
    let input = format!(
        "Searching.\n{}\nOne moment.",
        section(&[call(
            "search",
            &[
                ("query", "a \"b\""),
                ("limit", "3"),
                ("ratio", "0.5"),
                ("exact", "false"),
                ("tags", "[\"x\"]"),
                ("opts", "{\"k\": 1}"),
                ("extra", "7"),
            ],
        )])
    );
    check_calls(
        &input,
        expect(
            "Searching.\n\nOne moment.",
            &[(
                "search",
                json!({"query": "a \"b\"", "limit": 3, "ratio": 0.5, "exact": false, "tags": ["x"], "opts": {"k": 1}, "extra": "7"}),
                Step3,
            )],
            &[],
        ),
    );
    check_deltas(
        &input,
        &[
            r#"{"query":"a \"b\"","limit":3,"ratio":0.5,"exact":false,"tags":["x"],"opts":{"k":1},"extra":"7"}"#,
        ],
    );
}

#[test]
fn parallel_calls_in_one_delta() {
    let input = section(&[call("ls", &[]), call("read_file", &[("path", "a")])]);
    check_calls(
        &input,
        expect(
            "",
            &[
                ("ls", json!({}), Step3),
                ("read_file", json!({"path": "a"}), Step3),
            ],
            &[],
        ),
    );
}

#[test]
fn unknown_call_is_its_own_element_back_as_text() {
    let bad = call("launch_rocket", &[("target", "moon")]);
    let input = section(&[call("ls", &[]), bad.clone()]);
    check_calls(
        &input,
        expect(&bad, &[("ls", json!({}), Step3)], &[UnknownTool]),
    );
    let input = section(std::slice::from_ref(&bad));
    check_calls(&input, expect(&input, &[], &[UnknownTool]));
}

#[test]
fn unfinished_calls_come_back_as_text() {
    for input in [
        "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"read_file\">\n<steptml:parameter name=\"path\">a",
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"ls\">\n",
    ] {
        check_calls(input, expect(input, &[], &[Unfinished]));
    }
    let input = format!("<｜tool_calls_begin｜>{}", call("ls", &[]));
    check_calls(&input, expect("", &[("ls", json!({}), Step3)], &[]));
}

#[test]
fn deepseek_tokens_are_not_step3_and_fenced_markup_is_text() {
    let input = "<｜tool_calls_begin｜> is Step-3's token, <｜tool▁calls▁begin｜> DeepSeek's.";
    check_calls(input, expect(input, &[], &[]));
    let input = format!("```\n{}\n```", section(&[call("ls", &[])]));
    check_calls(&input, expect(&input, &[], &[]));
}

/// A broken call (prose where its parameters belong, a header that
/// does not read) is its own element back as text, from its call token to its
/// end token; the section's other calls stay calls.
#[test]
fn a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    let read = call("read_file", &[("path", "a")]);
    let ls = call("ls", &[]);
    for bad in [
        "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"read_file\">\nI will read a.rs.\n</steptml:invoke><｜tool_call_end｜>",
        // Without `</steptml:invoke>`: the call's end token ends it.
        "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"ls\">oops<｜tool_call_end｜>",
        "<｜tool_call_begin｜>function<｜tool_sep｜>ls()<｜tool_call_end｜>",
        // The name written again after the header is not the invoke's.
        "<｜tool_call_begin｜>function<｜tool_sep｜>read_file\n<steptml:invoke name=\"ls\"></steptml:invoke><｜tool_call_end｜>",
    ] {
        broken_element_goes_back_alone(
            section,
            bad,
            [
                (read.as_str(), "read_file", json!({"path": "a"})),
                (ls.as_str(), "ls", json!({})),
            ],
            Step3,
        );
    }
}

/// vLLM's Step-3 tests write calls without the `function<｜tool_sep｜>` header,
/// with the tool name again after it, and a stray `<｜tool_sep｜>` between
/// calls: all three read, the invoke's name naming the call.
#[test]
fn calls_without_the_header_or_with_the_name_again_read() {
    let bare = "<｜tool_call_begin｜><steptml:invoke name=\"get_weather\"><steptml:parameter name=\"city\">Tokyo</steptml:parameter><steptml:parameter name=\"days\">2</steptml:parameter></steptml:invoke><｜tool_call_end｜>";
    let again = "<｜tool_call_begin｜>function<｜tool_sep｜>read_file\n<steptml:invoke name=\"read_file\"><steptml:parameter name=\"path\">  a </steptml:parameter></steptml:invoke><｜tool_call_end｜>";
    let spaced = "<｜tool_call_begin｜>function<｜tool_sep｜> \n<steptml:invoke name=\"ls\"></steptml:invoke><｜tool_call_end｜>";
    let input = format!(
        "Checking.<｜tool_calls_begin｜>{bare}<｜tool_sep｜>{again}\n<｜tool_sep｜> {spaced}<｜tool_calls_end｜>"
    );
    check_calls(
        &input,
        expect(
            "Checking.",
            &[
                ("get_weather", json!({"city": "Tokyo", "days": 2}), Step3),
                ("read_file", json!({"path": "  a "}), Step3),
                ("ls", json!({}), Step3),
            ],
            &[],
        ),
    );
    check_deltas(
        &input,
        &[r#"{"city":"Tokyo","days":2}"#, r#"{"path":"  a "}"#, "{}"],
    );
    // A separator where the first call belongs opens no block: text.
    let input = "<｜tool_calls_begin｜><｜tool_sep｜><｜tool_calls_end｜>";
    check_calls(input, expect(input, &[], &[]));
}
