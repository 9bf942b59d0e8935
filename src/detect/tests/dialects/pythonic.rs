//! Pythonic call lists: the contract rules, literals mapped to JSON, typing by schema.

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
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

/// A list whose only call is broken is text, whatever broke it.
#[test]
fn non_literals_make_the_whole_list_text() {
    for input in [
        "[ls(x=foo)]",
        "[search(limit=1])]",
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

/// (vLLM `test_bad_sibling_call_does_not_drop_good_calls`,
/// `test_non_finite_argument_rejected`): a broken call goes back as text on its
/// own with an `invalid` diagnostic, at the start, in the middle or at the end;
/// the other calls stay calls and the list's `[`, `, ` and `]` stay in the region.
#[test]
fn a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    for bad in [
        "search(query=b'z')",
        "search(limit=1e999)",
        "search(limit=float('inf'))",
        "search(ratio=nan)",
        "search(ratio=-inf)",
        "ls('positional')",
        "search(query='x' + 'y')",
        // The skip reads strings: their brackets and commas do not end it.
        "search(limit=foo, query='a)], x(')",
        // A mismatched bracket closes down to its own kind.
        "search(tags=[1, 2)",
        "search(opts={'a': (1, [2}, limit=x)",
    ] {
        broken_element_goes_back_alone(
            |elements| format!("[{}]", elements.join(", ")),
            bad,
            [
                ("read_file(path='a')", "read_file", json!({"path": "a"})),
                ("ls()", "ls", json!({})),
            ],
            Pythonic,
        );
    }
}

#[test]
fn a_broken_call_inside_the_llama4_wrapper_goes_back_alone() {
    check_calls(
        "<|python_start|>[ls(), search(limit=inf)]<|python_end|> ok",
        expect(
            "search(limit=inf) ok",
            &[("ls", json!({}), Pythonic)],
            &[Invalid],
        ),
    );
}

#[test]
fn a_broken_call_naming_an_unknown_tool_goes_back_as_unknown() {
    check_calls(
        "[ls(), nope(x=foo), read_file(path='a')]",
        expect(
            "nope(x=foo)",
            &[
                ("ls", json!({}), Pythonic),
                ("read_file", json!({"path": "a"}), Pythonic),
            ],
            &[UnknownTool],
        ),
    );
}

/// The skip's rule when the call's `(` never balances: the element ends
/// before the list's `]`; a stray quote runs to the end of its line, here the
/// end of the stream, so the list is cut off and all of it is text.
#[test]
fn a_call_whose_paren_never_balances_ends_before_the_lists_bracket() {
    check_calls(
        "[read_file(path='a'), search(tags=[1, 2], ls()]",
        expect(
            "search(tags=[1, 2], ls()",
            &[("read_file", json!({"path": "a"}), Pythonic)],
            &[Invalid],
        ),
    );
    let input = "[read_file(path='a'), search(query=x'y), ls()]";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

/// vLLM `test_tool_call[set_arg]`: a set of literals is an array in source
/// order; `{}` stays the empty dict; nothing from a `{` streams before its
/// first entry shows which it is.
#[test]
fn a_set_literal_is_an_array_in_source_order() {
    let input = "[search(tags={'urgent', 'bug'}, opts={}), search(tags={3}, opts={'k': {1, 2}})]";
    check_calls(
        input,
        expect(
            "",
            &[
                (
                    "search",
                    json!({"tags": ["urgent", "bug"], "opts": {}}),
                    Pythonic,
                ),
                (
                    "search",
                    json!({"tags": [3], "opts": {"k": [1, 2]}}),
                    Pythonic,
                ),
            ],
            &[],
        ),
    );
    check_deltas(
        input,
        &[
            r#"{"tags":["urgent","bug"],"opts":{}}"#,
            r#"{"tags":[3],"opts":{"k":[1,2]}}"#,
        ],
    );
}
