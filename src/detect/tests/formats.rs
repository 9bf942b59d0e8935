//! One test per dialect and per tricky split, with hand-written expectations.

use serde_json::json;

use super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

#[test]
fn xml_tag_call_with_text_around() {
    check_calls(
        "Let me read it.\n<read_file><path>src/a.ts</path></read_file>\nDone.",
        expect(
            "Let me read it.\n\nDone.",
            &[("read_file", json!({"path": "src/a.ts"}), Xml)],
            &[],
        ),
    );
}

#[test]
fn xml_tag_streams_escaped_values_and_strips_one_newline() {
    let input = "<write_to_file>\n<path>a.txt</path>\n<content>\n\"q\" \\ tab\there\n\n</content>\n<line_count>2</line_count>\n</write_to_file>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "a.txt", "content": "\"q\" \\ tab\there\n", "line_count": 2}),
                Xml,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[r#"{"path":"a.txt","content":"\"q\" \\ tab\there\n","line_count":2}"#],
    );
}

#[test]
fn xml_closing_tag_inside_a_value_is_content() {
    // The file itself contains `</content>` followed by more text: not the end.
    let input =
        "<write_to_file><path>x.xml</path><content>a</content>b\n</content></write_to_file>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "x.xml", "content": "a</content>b"}),
                Xml,
            )],
            &[],
        ),
    );
}

#[test]
fn xml_unregistered_and_html_tags_are_text() {
    check_calls(
        "Use <div><b>bold</b></div> and <T> here.",
        expect("Use <div><b>bold</b></div> and <T> here.", &[], &[]),
    );
}

#[test]
fn xml_prose_that_mentions_the_tool_tag_is_text() {
    check_calls(
        "I will call <read_file> next, then <ls> too.",
        expect("I will call <read_file> next, then <ls> too.", &[], &[]),
    );
}

#[test]
fn xml_typed_parameters_follow_the_schema() {
    check_calls(
        "<search><query>42</query><limit>7</limit><ratio>0.5</ratio><exact>true</exact><tags>[\"a\"]</tags><opts>{\"x\":1}</opts></search>",
        expect(
            "",
            &[(
                "search",
                json!({"query": "42", "limit": 7, "ratio": 0.5, "exact": true, "tags": ["a"], "opts": {"x": 1}}),
                Xml,
            )],
            &[],
        ),
    );
    // A value that does not parse as its type stays a string; unknown parameters are strings.
    check_calls(
        "<search><limit>many</limit><extra>1</extra></search>",
        expect(
            "",
            &[("search", json!({"limit": "many", "extra": "1"}), Xml)],
            &[],
        ),
    );
}

#[test]
fn xml_no_entity_decoding() {
    check_calls(
        "<read_file><path>a&amp;b&lt;c</path></read_file>",
        expect(
            "",
            &[("read_file", json!({"path": "a&amp;b&lt;c"}), Xml)],
            &[],
        ),
    );
}

#[test]
fn xml_entities_are_decoded_when_configured() {
    // `--text-tools` writes `&`, `<` and `>` as entities and decodes XML's
    // five; any other `&` (bare, unknown, numeric, unfinished) stays as written.
    let config = DetectConfig::default().with_xml_entities();
    check_calls_with(
        "<write_to_file><path>a&amp;b</path><content>\nif a &lt; b &amp;&amp; c &gt; d:\n  \
         x = &quot;&apos;&amp;lt;&apos;&quot; &nbsp; &#60; & &am &\n</content>\
         <line_count>&lt;</line_count></write_to_file>",
        config.clone(),
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "a&b",
                       "content": "if a < b && c > d:\n  x = \"'&lt;'\" &nbsp; &#60; & &am &",
                       "line_count": "<"}),
                Xml,
            )],
            &[],
        ),
    );
    // A value that held its own closing tag, written escaped, is one value.
    check_calls_with(
        "<get_weather>\n<city>P&lt;/city&gt;&lt;/get_weather&gt;&lt;ls&gt;</city>\n</get_weather>",
        config.clone(),
        expect(
            "",
            &[(
                "get_weather",
                json!({"city": "P</city></get_weather><ls>"}),
                Xml,
            )],
            &[],
        ),
    );
    // Typed values are decoded before they are read; a nullable string's
    // `null` is still null, an escaped one is text.
    check_calls_with(
        "<search><tags>[\"&lt;b&gt;\"]</tags><opts>{\"a&amp;b\": 1}</opts></search>\
         <configure><label>null</label><mode>&amp;null</mode></configure>",
        config.clone(),
        expect(
            "",
            &[
                ("search", json!({"tags": ["<b>"], "opts": {"a&b": 1}}), Xml),
                ("configure", json!({"label": null, "mode": "&null"}), Xml),
            ],
            &[],
        ),
    );
    // Only the tag-per-tool dialect decodes.
    check_calls_with(
        "<function_calls><invoke name=\"read_file\"><parameter name=\"path\">a&amp;b</parameter></invoke></function_calls>",
        config,
        expect(
            "",
            &[("read_file", json!({"path": "a&amp;b"}), AnthropicInvoke)],
            &[],
        ),
    );
}

#[test]
fn xml_tool_without_parameters() {
    check_calls("<ls></ls>", expect("", &[("ls", json!({}), Xml)], &[]));
    check_deltas("<ls>\n</ls>", &["{}"]);
}

#[test]
fn json_tool_use_object_in_text() {
    let input = r#"Sure. {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris","days":2}} ok"#;
    let want = expect(
        "Sure.  ok",
        &[(
            "get_weather",
            json!({"city": "Paris", "days": 2}),
            JsonToolUse,
        )],
        &[],
    );
    check_calls(input, want);
    check_deltas(input, &[r#"{"city":"Paris","days":2}"#]);
    let (o, _) = run_pieces(&[input], DetectConfig::default());
    assert_eq!(o.ids, vec!["toolu_1".to_owned()]);
}

#[test]
fn json_tool_use_key_order_is_free() {
    check_calls(
        r#"{"input":{"path":"b"},"name":"read_file","type":"tool_use","id":"t2"}"#,
        expect("", &[("read_file", json!({"path": "b"}), JsonToolUse)], &[]),
    );
}

#[test]
fn json_objects_that_are_not_calls_stay_text() {
    let input = r#"Data: {"type":"message","name":"x"} and {"a":1} and {"name":"Bob"}."#;
    check_calls(input, expect(input, &[], &[]));
}

#[test]
fn openai_function_json_in_text_decodes_string_arguments() {
    let input = r#"{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Z\u00fcrich \\\"old\\\"\"}"}},{"id":"call_2","type":"function","function":{"name":"ls","arguments":""}}]}"#;
    check_calls(
        input,
        expect(
            "",
            &[
                (
                    "get_weather",
                    json!({"city": "Zürich \"old\""}),
                    OpenAiFunction,
                ),
                ("ls", json!({}), OpenAiFunction),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Zürich \"old\""}"#, "{}"]);
}

#[test]
fn openai_function_string_arguments_decode_alike_under_every_cut() {
    // The arguments string is decoded as it streams and parsed once it ends.
    // `check_calls` runs every cut and one character per delta, each into a
    // Vec and (through `run_pieces`) into batches cleared per delta, never
    // cleared, and new per delta.
    let call = |args: &str| {
        format!(
            r#"{{"tool_calls":[{{"id":"c1","type":"function","function":{{"name":"search","arguments":{args}}}}}]}}"#
        )
    };
    for (args, want) in [
        // Escapes of both layers, a \u escape, a surrogate pair and non-ASCII.
        (
            r#""{\"query\":\"a\\\\b \\\"q\\\" \u00e9 \ud83d\ude00 日\",\"limit\":2}""#,
            json!({"query": "a\\b \"q\" é 😀 日", "limit": 2}),
        ),
        // A lone high surrogate before the closing quote of the inner string.
        (
            r#""{\"query\":\"x\ud83d\"}""#,
            json!({"query": "x\u{fffd}"}),
        ),
        // Whitespace only, or nothing: no arguments.
        (r#"" \n ""#, json!({})),
        (r#""""#, json!({})),
        // An object spelled with escapes only.
        (r#""\u007b\u0022limit\u0022:3\u007d""#, json!({"limit": 3})),
    ] {
        let input = call(args);
        check_calls(&input, expect("", &[("search", want, OpenAiFunction)], &[]));
    }
    // Not an object once decoded, or two values that make none together.
    for args in [
        r#""[1]""#,
        r#""{\"limit\":""#,
        r#""{\"limit\":1}","arguments":"{\"limit\":2}""#,
        r#""{\"limit\":1}","arguments":{"limit":2}"#,
    ] {
        let input = call(args);
        check_calls(&input, expect(&input, &[], &[DiagnosticKind::Invalid]));
    }
}

#[test]
fn openai_function_keys_count_only_at_their_own_depth_in_any_order() {
    // Element 1: `parameters` for `arguments`, given before `name`, as an
    // object holding a `name` key of its own; its id comes after the function,
    // when the call has already started (at its name, since its arguments had
    // begun), so the call keeps the id generated then. Element 2: a
    // `tool_calls` key and a `name` deeper down are data, and the function's
    // own name comes last.
    let input = concat!(
        r#"{"tool_calls":[{"type":"function","function":{"parameters":{"name":"x","path":"a"},"name":"read_file"},"id":"c1"},"#,
        r#"{"id":"c2","meta":{"name":"ls","tool_calls":[{"name":"ls"}]},"function":{"info":{"name":"ls"},"arguments":"{}","name":"get_weather"}}]}"#,
    );
    check_calls(
        input,
        expect(
            "",
            &[
                (
                    "read_file",
                    json!({"name": "x", "path": "a"}),
                    OpenAiFunction,
                ),
                ("get_weather", json!({}), OpenAiFunction),
            ],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"name":"x","path":"a"}"#, "{}"]);
    let (whole, _) = run_pieces(&[input], DetectConfig::default());
    assert_eq!(whole.ids.len(), 2);
    assert!(whole.ids[0].starts_with("call_") && whole.ids[0].len() == 29);
    assert_eq!(whole.ids[1], "c2");
}

#[test]
fn hermes_calls_in_a_row_are_parallel_and_the_separator_is_not_text() {
    let input = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"arguments\": {\"city\": \"Rome\"}, \"name\": \"get_weather\"}\n</tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[
                ("get_weather", json!({"city": "Paris"}), Hermes),
                ("get_weather", json!({"city": "Rome"}), Hermes),
            ],
            &[],
        ),
    );
}

#[test]
fn hermes_parameters_alias_string_arguments_and_no_arguments() {
    check_calls(
        r#"<tool_call>{"name":"read_file","parameters":{"path":"p"}}</tool_call><tool_call>{"name":"read_file","arguments":"{\"path\":\"q\"}"}</tool_call><tool_call>{"name":"ls"}</tool_call>"#,
        expect(
            "",
            &[
                ("read_file", json!({"path": "p"}), Hermes),
                ("read_file", json!({"path": "q"}), Hermes),
                ("ls", json!({}), Hermes),
            ],
            &[],
        ),
    );
}

#[test]
fn hermes_end_marker_inside_a_json_string_does_not_end_the_call() {
    check_calls(
        r#"<tool_call>{"name":"write_to_file","arguments":{"path":"t","content":"x</tool_call>y \"}\" {"}}</tool_call>after"#,
        expect(
            "after",
            &[(
                "write_to_file",
                json!({"path": "t", "content": "x</tool_call>y \"}\" {"}),
                Hermes,
            )],
            &[],
        ),
    );
}

#[test]
fn qwen3_coder_call() {
    let input = "<tool_call>\n<function=write_to_file>\n<parameter=path>\nsrc/m.rs\n</parameter>\n<parameter=content>\nfn main() {}\n</parameter>\n<parameter=line_count>\n1\n</parameter>\n</function>\n</tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "src/m.rs", "content": "fn main() {}", "line_count": 1}),
                Qwen3Coder,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[r#"{"path":"src/m.rs","content":"fn main() {}","line_count":1}"#],
    );
}

#[test]
fn anthropic_invoke_block_with_two_calls() {
    let input = "Checking.\n<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n<invoke name=\"read_file\">\n<parameter name=\"path\">a</parameter>\n</invoke>\n</function_calls>";
    check_calls(
        input,
        expect(
            "Checking.\n",
            &[
                (
                    "get_weather",
                    json!({"city": "Paris", "days": 3}),
                    AnthropicInvoke,
                ),
                ("read_file", json!({"path": "a"}), AnthropicInvoke),
            ],
            &[],
        ),
    );
}

#[test]
fn anthropic_parameter_value_with_its_own_closing_tag() {
    check_calls(
        "<function_calls><invoke name=\"write_to_file\"><parameter name=\"content\">a</parameter> b</parameter></invoke></function_calls>",
        expect(
            "",
            &[(
                "write_to_file",
                json!({"content": "a</parameter> b"}),
                AnthropicInvoke,
            )],
            &[],
        ),
    );
}

#[test]
fn format_selection_disables_the_others() {
    let input = "<read_file><path>a</path></read_file><tool_call>{\"name\":\"ls\"}</tool_call>";
    check_calls_with(
        input,
        DetectConfig::only(Hermes),
        expect(
            "<read_file><path>a</path></read_file>",
            &[("ls", json!({}), Hermes)],
            &[],
        ),
    );
    let _ = Invalid;
}

/// The Anthropic and Qwen3-Coder blocks share the XML parser, so a
/// broken entry there goes back alone too.
#[test]
fn anthropic_and_qwen3_coder_broken_entries_go_back_alone() {
    use super::dialects::broken_element_goes_back_alone;
    let block = |invokes: &[String]| {
        format!(
            "<function_calls>\n{}\n</function_calls>",
            invokes.join("\n")
        )
    };
    let read = "<invoke name=\"read_file\">\n<parameter name=\"path\">a</parameter>\n</invoke>";
    let ls = "<invoke name=\"ls\">\n</invoke>";
    for bad in [
        "<invoke name=\"read_file\">\nI will read a.rs.\n</invoke>",
        "<invoke name=ls></invoke>",
    ] {
        broken_element_goes_back_alone(
            block,
            bad,
            [
                (read, "read_file", json!({"path": "a"})),
                (ls, "ls", json!({})),
            ],
            AnthropicInvoke,
        );
    }
    let block =
        |functions: &[String]| format!("<tool_call>\n{}\n</tool_call>", functions.join("\n"));
    let read = "<function=read_file>\n<parameter=path>\na\n</parameter>\n</function>";
    let ls = "<function=ls>\n</function>";
    broken_element_goes_back_alone(
        block,
        "<function=ls>\nprose\n</function>",
        [
            (read, "read_file", json!({"path": "a"})),
            (ls, "ls", json!({})),
        ],
        Qwen3Coder,
    );
}
