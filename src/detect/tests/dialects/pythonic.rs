//! Pythonic call lists: the contract rules, literals mapped to JSON, typing by schema.

use serde_json::json;

use super::super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn a_list_with_text_before_and_after() {
    let input = "Sure.\n[get_weather(city='Paris', days=3)]\nDone.";
    check_calls(
        input,
        expect(
            "Sure.\n\nDone.",
            &[("get_weather", json!({"city": "Paris", "days": 3}), Pythonic)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris","days":3}"#]);
}

#[test]
fn parallel_calls_in_one_delta() {
    let input = "[read_file(path=\"a\"), ls()]";
    check_calls(
        input,
        expect(
            "",
            &[
                ("read_file", json!({"path": "a"}), Pythonic),
                ("ls", json!({}), Pythonic),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"path":"a"}"#, "{}"]);
}

#[test]
fn brackets_that_do_not_open_a_registered_call_are_text() {
    let input = "See [read_file](docs/read_file.md), [1], [ls] and [launch(x=1)].";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn an_unknown_tool_after_a_known_one_goes_back_as_text_alone() {
    check_calls(
        "[ls(), nope(a=1)]",
        expect("nope(a=1)", &[("ls", json!({}), Pythonic)], &[UnknownTool]),
    );
}

#[test]
fn an_unfinished_list_is_text() {
    let input = "Hi [read_file(path=\"a";
    check_calls(input, expect(input, &[], &[Unfinished]));
    // The first call is complete, the list is not: nothing runs.
    let input = "[read_file(path=\"a\"), ls(";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn a_list_inside_a_code_fence_is_text() {
    let input = "Like this:\n```\n[ls()]\n```\nok";
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn python_literals_become_json() {
    let input = r#"[search(query='it\'s "q"\n', limit='7', ratio=.5, exact=True, tags=('a', 1_000, None, 0x1F, -2e3), opts={'k': [1.0, False], 2: 'x', None: 5.})]"#;
    check_calls(
        input,
        expect(
            "",
            &[(
                "search",
                json!({
                    "query": "it's \"q\"\n",
                    "limit": 7,
                    "ratio": 0.5,
                    "exact": true,
                    "tags": ["a", 1000, null, 31, -2000.0],
                    "opts": {"k": [1.0, false], "2": "x", "null": 5.0}
                }),
                Pythonic,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[
            r#"{"query":"it's \"q\"\n","limit":7,"ratio":0.5,"exact":true,"tags":["a",1000,null,31,-2e3],"opts":{"k":[1.0,false],"2":"x","null":5.0}}"#,
        ],
    );
}

#[test]
fn escapes_surrogates_and_non_ascii() {
    let input = r#"[write_to_file(path="é", content="\ud83d\ude00 \u00e9 \x41 \101 \U0001F600 \ud800 \q \N{DASH} a\
b")]"#;
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "é", "content": "😀 é A A 😀 \u{fffd} \\q \\N{DASH} ab"}),
                Pythonic,
            )],
            &[],
        ),
    );
}

#[test]
fn adjacent_triple_quoted_and_raw_strings() {
    let input =
        r#"[write_to_file(path='a' "b", content="""one\n"two" ''' three""", line_count=r'3')]"#;
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "ab", "content": "one\n\"two\" ''' three", "line_count": 3}),
                Pythonic,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[r#"{"path":"ab","content":"one\n\"two\" ''' three","line_count":3}"#],
    );
}

#[test]
fn typed_by_schema_numbers_for_strings_and_strings_that_do_not_convert() {
    check_calls(
        "[read_file(path=42), get_weather(city='x', days='soon')]",
        expect(
            "",
            &[
                ("read_file", json!({"path": "42"}), Pythonic),
                (
                    "get_weather",
                    json!({"city": "x", "days": "soon"}),
                    Pythonic,
                ),
            ],
            &[],
        ),
    );
}

#[test]
fn non_literals_make_the_whole_list_text() {
    for input in [
        "[read_file(path=\"a\"), ls(x=foo)]",
        "[read_file(\"a\")]",
        "[search(tags=[1, 2)]",
        "[search(limit=1e999)]",
        "[search(query=b'x')]",
        "[search(query=f'x')]",
        "[read_file(path='a') is how you call it]",
    ] {
        check_calls(input, expect(input, &[], &[Invalid]));
    }
}

#[test]
fn huge_and_deep_inputs_are_refused_without_panicking() {
    let big = format!("[search(limit=1{})]", "0".repeat(400));
    check_calls(&big, expect(&big, &[], &[Invalid]));
    let deep = format!("[search(tags={}1{})]", "[".repeat(200), "]".repeat(200));
    check_calls(&deep, expect(&deep, &[], &[Invalid]));
}

#[test]
fn llama4_wrapper_tokens() {
    check_calls(
        "<|python_start|>[ls()]<|python_end|> ok",
        expect(" ok", &[("ls", json!({}), Pythonic)], &[]),
    );
    // The list is complete; only the end token is missing.
    check_calls(
        "<|python_start|>[ls()]",
        expect("", &[("ls", json!({}), Pythonic)], &[]),
    );
    // Code for the interpreter is not a call list.
    let input = "<|python_start|>print(1)<|python_end|>";
    check_calls(input, expect(input, &[], &[]));
}
