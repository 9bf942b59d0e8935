//! LFM2: pythonic (or JSON) lists between `<|tool_call_start|>` and `<|tool_call_end|>`.

use serde_json::json;

use super::super::*;
use super::broken_element_goes_back_alone;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn call_first_then_text() {
    let input =
        "<|tool_call_start|>[get_weather(city=\"Paris\", days=2)]<|tool_call_end|>Checking.";
    check_calls(
        input,
        expect(
            "Checking.",
            &[("get_weather", json!({"city": "Paris", "days": 2}), Lfm2)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris","days":2}"#]);
}

#[test]
fn json_envelopes_in_the_list_in_any_key_order() {
    let input = "Both.<|tool_call_start|>[{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}, {\"arguments\": {}, \"name\": \"ls\"}]<|tool_call_end|>";
    check_calls(
        input,
        expect(
            "Both.",
            &[
                ("read_file", json!({"path": "a"}), Lfm2),
                ("ls", json!({}), Lfm2),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"path": "a"}"#, "{}"]);
}

#[test]
fn an_envelope_naming_a_second_tool_keeps_the_name_it_started_with() {
    // Found by the detect_lfm2 fuzz target: the call started as `read_file`
    // and ended as `ls` (the last "name" key), so CallStart and CallEnd disagreed.
    let input = "<|tool_call_start|>[{\"name\": \"read_file\", \"name\": \"ls\", \"arguments\": {\"path\": \"a\"}}]<|tool_call_end|>";
    check_calls(
        input,
        expect("", &[("read_file", json!({"path": "a"}), Lfm2)], &[]),
    );
    check_deltas(input, &[r#"{"path": "a"}"#]);
}

#[test]
fn unknown_tool_and_unfinished_call_are_text() {
    let input = "<|tool_call_start|>[launch(x=1)]<|tool_call_end|>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = "<|tool_call_start|>[ls()";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn a_complete_list_lacking_only_the_end_token_is_accepted() {
    check_calls(
        "<|tool_call_start|>[ls()]",
        expect("", &[("ls", json!({}), Lfm2)], &[]),
    );
}

#[test]
fn inside_a_fence_it_is_text() {
    let input = "```\n<|tool_call_start|>[ls()]<|tool_call_end|>\n```";
    check_calls(input, expect(input, &[], &[]));
}

/// LFM2 writes its call again right after `<|tool_call_end|>`, in
/// another dialect; the echo is removed and runs nothing.
#[test]
fn a_call_echoed_right_after_its_markup_runs_once() {
    let call = "<|tool_call_start|>[get_weather(city=\"Paris\", days=2)]<|tool_call_end|>";
    let weather = || ("get_weather", json!({"city": "Paris", "days": 2}), Lfm2);
    for echo in [
        "[get_weather(city=\"Paris\", days=2)]",
        // The same arguments in other spellings, or as JSON.
        "\n[get_weather(days=2, city='Paris')]",
        "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}",
    ] {
        let input = format!("{call}{echo}");
        check_calls(&input, expect("", &[weather()], &[]));
        let input = format!("{call}{echo}\nChecking.");
        check_calls(&input, expect("\nChecking.", &[weather()], &[]));
    }
}

#[test]
fn what_is_not_an_echo_still_runs() {
    let call = "<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>";
    let paris = || ("get_weather", json!({"city": "Paris"}), Lfm2);
    // Other arguments, another call, an extra call.
    check_calls(
        &format!("{call}[get_weather(city=\"Rome\")]"),
        expect(
            "",
            &[paris(), ("get_weather", json!({"city": "Rome"}), Pythonic)],
            &[],
        ),
    );
    check_calls(
        &format!("{call}[ls()]"),
        expect("", &[paris(), ("ls", json!({}), Pythonic)], &[]),
    );
    check_calls(
        &format!("{call}[get_weather(city=\"Paris\"), ls()]"),
        expect(
            "",
            &[
                paris(),
                ("get_weather", json!({"city": "Paris"}), Pythonic),
                ("ls", json!({}), Pythonic),
            ],
            &[],
        ),
    );
    // Not right after the markup: text between.
    check_calls(
        &format!("{call}Again: [get_weather(city=\"Paris\")]"),
        expect(
            "Again: ",
            &[paris(), ("get_weather", json!({"city": "Paris"}), Pythonic)],
            &[],
        ),
    );
    // The same dialect twice is two parallel calls.
    check_calls(
        &format!("{call}{call}"),
        expect("", &[paris(), paris()], &[]),
    );
    // An echo candidate cut off is text, as any unfinished call.
    let input = format!("{call}[get_weather(city=\"Par");
    check_calls(
        &input,
        expect("[get_weather(city=\"Par", &[paris()], &[Unfinished]),
    );
}

#[test]
fn an_echo_gives_its_call_index_back() {
    let input = "<|tool_call_start|>[ls()]<|tool_call_end|>[ls()]<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>";
    for pieces in [vec![input], chars(input)] {
        let mut detector = StreamDetector::new(catalog(), DetectConfig::default());
        let mut events = Vec::new();
        for piece in pieces {
            detector.feed(piece, &mut events);
        }
        detector.finish(&mut events);
        let started: Vec<(usize, String)> = events
            .iter()
            .filter_map(|e| match e {
                DetectEvent::CallStart { index, name, .. } => Some((*index, name.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(started, [(0, "ls".to_owned()), (1, "read_file".to_owned())]);
    }
}

/// (vLLM `test_bad_sibling_call_does_not_drop_good_calls`): a broken
/// call, or a JSON envelope that is not a call, goes back as text on its own;
/// the other calls stay calls and the wrapper, brackets and commas stay in the
/// region.
#[test]
fn a_broken_call_at_the_start_middle_or_end_goes_back_alone() {
    for bad in [
        "search(query=b'z')",
        "search(limit=1e999)",
        "search(limit=float('-inf'))",
        "ls(x=foo(1))",
        r#"{"name": "ls", "arguments": [1]}"#,
        r#"{"arguments": {}}"#,
    ] {
        broken_element_goes_back_alone(
            |elements| {
                format!(
                    "<|tool_call_start|>[{}]<|tool_call_end|>",
                    elements.join(", ")
                )
            },
            bad,
            [
                ("read_file(path='a')", "read_file", json!({"path": "a"})),
                (r#"{"name": "ls", "arguments": {}}"#, "ls", json!({})),
            ],
            Lfm2,
        );
    }
}

/// The end token bounds the skip of a broken call, strings included: here the
/// list lacks its `]`, so the block is text and the text after it stays text.
#[test]
fn the_end_token_bounds_the_skip_of_a_broken_call() {
    let input = "<|tool_call_start|>[ls(), search(query=x'a<|tool_call_end|>Done.";
    check_calls(input, expect(input, &[], &[Invalid]));
}

/// vLLM `test_tool_call[set_arg]`.
#[test]
fn a_set_argument_is_an_array() {
    check_calls(
        "<|tool_call_start|>[search(tags={'urgent', 'bug'})]<|tool_call_end|>",
        expect(
            "",
            &[("search", json!({"tags": ["urgent", "bug"]}), Lfm2)],
            &[],
        ),
    );
}
