//! Values typed the way models write them (Python's
//! `True`/`False`/`None` where the schema says boolean or allows null), and
//! the bodies the peers accept (a DSML invoke holding one JSON object, a
//! Qwen3-Coder call lacking `</function>`, Cohere's and LFM2's single call
//! object, harmony's bare recipient and a channel word between calls).
//!
//! `configure` (test catalog): `verbose` boolean, `level` `["integer","null"]`,
//! `label` `["string","null"]`, `mode` `anyOf` string or null, `limit`
//! `anyOf` integer or null.

use super::*;
use crate::core::DiagnosticKind::*;
use crate::core::WireFormat::*;

/// One `configure` call with `params` in every XML-valued dialect.
fn in_every_xml_dialect(params: &[(&str, &str)]) -> Vec<(String, WireFormat)> {
    let each = |f: &dyn Fn(&str, &str) -> String| -> String {
        params.iter().map(|(k, v)| f(k, v)).collect()
    };
    let invoke = each(&|k, v| format!("<parameter name=\"{k}\">{v}</parameter>\n"));
    vec![
        (
            format!(
                "<configure>{}</configure>",
                each(&|k, v| format!("<{k}>{v}</{k}>"))
            ),
            Xml,
        ),
        (
            format!(
                "<tool_call>\n<function=configure>\n{}</function>\n</tool_call>",
                each(&|k, v| format!("<parameter={k}>\n{v}\n</parameter>\n"))
            ),
            Qwen3Coder,
        ),
        (
            format!(
                "<function_calls>\n<invoke name=\"configure\">\n{invoke}</invoke>\n</function_calls>"
            ),
            AnthropicInvoke,
        ),
        (
            format!(
                "<minimax:tool_call>\n<invoke name=\"configure\">\n{invoke}</invoke>\n</minimax:tool_call>"
            ),
            MinimaxM2,
        ),
        (
            format!(
                "<tool_call>configure{}</tool_call>",
                each(&|k, v| format!("<arg_key>{k}</arg_key><arg_value>{v}</arg_value>"))
            ),
            Glm47,
        ),
        (
            format!(
                "<tool_call>configure\n{}</tool_call>",
                each(&|k, v| format!("<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"))
            ),
            Glm45,
        ),
        (
            format!(
                "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"configure\">\n{}</｜DSML｜invoke>\n</｜DSML｜tool_calls>",
                each(&|k, v| format!("<｜DSML｜parameter name=\"{k}\">{v}</｜DSML｜parameter>\n"))
            ),
            DeepSeekDsml,
        ),
        (
            format!(
                "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"configure\">{}</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
                each(&|k, v| format!("<steptml:parameter name=\"{k}\">{v}</steptml:parameter>"))
            ),
            Step3,
        ),
    ]
}

/// `params` give `want` (and exactly the deltas `deltas`) in every XML dialect.
fn check_everywhere(params: &[(&str, &str)], want: Value, deltas: &str) {
    for (input, format) in in_every_xml_dialect(params) {
        check_calls(
            &input,
            expect("", &[("configure", want.clone(), format)], &[]),
        );
        check_deltas(&input, &[deltas]);
    }
}

#[test]
fn python_true_and_none_read_as_true_and_null_where_the_schema_allows() {
    check_everywhere(
        &[
            ("verbose", "True"),
            ("level", "None"),
            ("label", "null"),
            ("mode", "None"),
            ("limit", "7"),
        ],
        json!({"verbose": true, "level": null, "label": null, "mode": null, "limit": 7}),
        r#"{"verbose":true,"level":null,"label":null,"mode":null,"limit":7}"#,
    );
}

#[test]
fn python_false_and_json_null_in_a_union_read_as_false_and_null() {
    check_everywhere(
        &[
            ("verbose", "False"),
            ("level", "null"),
            ("label", "None"),
            ("mode", "null"),
            ("limit", "None"),
        ],
        json!({"verbose": false, "level": null, "label": null, "mode": null, "limit": null}),
        r#"{"verbose":false,"level":null,"label":null,"mode":null,"limit":null}"#,
    );
}

#[test]
fn a_nullable_string_that_is_not_null_streams_as_the_string() {
    // Held while it could still be `null` or `None`, then the string, whole.
    for (value, json_text) in [
        ("nullify", r#""nullify""#),
        ("nu", r#""nu""#),
        ("No", r#""No""#),
        ("", r#""""#),
        ("None ", r#""None ""#),
        ("Nonesuch", r#""Nonesuch""#),
        ("n<b", r#""n<b""#),
        ("\"None\"", r#""\"None\"""#),
        ("NULL", r#""NULL""#),
    ] {
        let want: Value = serde_json::from_str(json_text).expect("json");
        check_everywhere(
            &[("label", value)],
            json!({ "label": want }),
            &format!("{{\"label\":{json_text}}}"),
        );
    }
}

#[test]
fn other_spellings_and_types_without_null_stay_strings() {
    let want = json!({"verbose": "TRUE", "level": "none", "limit": "Nil"});
    check_everywhere(
        &[("verbose", "TRUE"), ("level", "none"), ("limit", "Nil")],
        want,
        r#"{"verbose":"TRUE","level":"none","limit":"Nil"}"#,
    );
    // `exact` is a boolean and `limit` an integer that do not allow null;
    // `query` is a string; `extra` is not in the schema.
    let input = "<search><exact>None</exact><limit>null</limit><query>None</query><extra>True</extra></search>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "search",
                json!({"exact": "None", "limit": "null", "query": "None", "extra": "True"}),
                Xml,
            )],
            &[],
        ),
    );
    check_deltas(
        input,
        &[r#"{"exact":"None","limit":"null","query":"None","extra":"True"}"#],
    );
}

#[test]
fn dsml_flags_come_first_and_string_false_falls_back_to_the_schema() {
    let p = |k: &str, flag: &str, v: &str| {
        format!("<｜DSML｜parameter name=\"{k}\" string=\"{flag}\">{v}</｜DSML｜parameter>\n")
    };
    let input = format!(
        "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"configure\">\n{}{}{}{}{}</｜DSML｜invoke>\n</｜DSML｜function_calls>",
        p("label", "true", "None"),
        p("verbose", "false", "False"),
        p("level", "false", "None"),
        p("limit", "false", "[1]"),
        p("mode", "false", "x y"),
    );
    check_calls(
        &input,
        expect(
            "",
            &[(
                "configure",
                json!({"label": "None", "verbose": false, "level": null, "limit": [1], "mode": "x y"}),
                DeepSeekDsml,
            )],
            &[],
        ),
    );
    check_deltas(
        &input,
        &[r#"{"label":"None","verbose":false,"level":null,"limit":[1],"mode":"x y"}"#],
    );
}

#[test]
fn a_dsml_invoke_whose_body_is_a_json_object() {
    let input = "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{\"city\": \"Paris\", \"days\": 3}\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">a</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>";
    check_calls(
        input,
        expect(
            "",
            &[
                (
                    "get_weather",
                    json!({"city": "Paris", "days": 3}),
                    DeepSeekDsml,
                ),
                ("read_file", json!({"path": "a"}), DeepSeekDsml),
            ],
            &[],
        ),
    );
    // The object streams raw, as the model wrote it.
    check_deltas(
        input,
        &[r#"{"city": "Paris", "days": 3}"#, r#"{"path":"a"}"#],
    );
}

#[test]
fn a_dsml_json_body_of_an_unknown_tool_is_its_element_and_end_tokens_in_strings_are_content() {
    let unknown = "<｜DSML｜invoke name=\"nope\">{\"a\": \"</｜DSML｜invoke>\"}</｜DSML｜invoke>";
    let input = format!(
        "<｜DSML｜function_calls>\n{unknown}\n<｜DSML｜invoke name=\"ls\">{{}}</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    );
    check_calls(
        &input,
        expect(unknown, &[("ls", json!({}), DeepSeekDsml)], &[UnknownTool]),
    );
    check_deltas(&input, &["{}"]);
}

#[test]
fn a_dsml_json_body_with_more_after_it_or_not_an_object_is_invalid() {
    for input in [
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"ls\">{} x</｜DSML｜invoke></｜DSML｜function_calls>",
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"ls\">{}<｜DSML｜parameter name=\"a\">1</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>",
        "<｜DSML｜function_calls><｜DSML｜invoke name=\"ls\">{\"a\": }</｜DSML｜invoke></｜DSML｜function_calls>",
    ] {
        check_calls(input, expect(input, &[], &[Invalid]));
    }
    let input = "<｜DSML｜function_calls><｜DSML｜invoke name=\"ls\">{\"a\": ";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn a_qwen3_coder_call_lacking_its_function_end_ends_at_the_block_end() {
    let input = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</tool_call>\nDone.";
    check_calls(
        input,
        expect(
            "\nDone.",
            &[("get_weather", json!({"city": "Paris"}), Qwen3Coder)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris"}"#]);
    let input = "<tool_call><function=ls></tool_call>\n<tool_call>\n<function=read_file>\n<parameter=path>\na</parameter></tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[
                ("ls", json!({}), Qwen3Coder),
                ("read_file", json!({"path": "a"}), Qwen3Coder),
            ],
            &[],
        ),
    );
    // A `</parameter>` followed by anything else is still content.
    let input = "<tool_call><function=read_file><parameter=path>a</parameter></tool_x></parameter></function></tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "read_file",
                json!({"path": "a</parameter></tool_x>"}),
                Qwen3Coder,
            )],
            &[],
        ),
    );
}

/// vLLM's `test_extract_tool_calls_missing_closing_parameter_tag`: a value
/// lacking `</parameter>` ends where a line opens another declared parameter
/// of the tool; its newline before the tag is stripped like the one before
/// `</parameter>`, and nothing of the tag is streamed into the value.
#[test]
fn a_qwen3_coder_value_lacking_its_end_tag_ends_at_the_next_parameter() {
    let input = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "get_weather",
                json!({"city": "Paris", "days": 3}),
                Qwen3Coder,
            )],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris","days":3}"#]);
    // At the value's very start (its leading newline stripped): an empty value.
    let input = "<tool_call>\n<function=get_weather>\n<parameter=city>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";
    check_calls(
        input,
        expect(
            "",
            &[("get_weather", json!({"city": "", "days": 3}), Qwen3Coder)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"","days":3}"#]);
    // In a bare call too, the last value ended by `</function>` as usual.
    let input = "<function=write_to_file>\n<parameter=path>\na.md\n<parameter=content>\n# A\n</parameter>\n</function>";
    check_calls(
        input,
        expect(
            "",
            &[(
                "write_to_file",
                json!({"path": "a.md", "content": "# A"}),
                Qwen3Coder,
            )],
            &[],
        ),
    );
}

/// The opener that ends a value must start a line and name a parameter the
/// schema declares, not the current one nor one already given: anything
/// else is the value's text (a file's content may hold Qwen3-Coder markup).
#[test]
fn a_parameter_tag_inside_a_value_is_text_unless_it_opens_a_new_declared_parameter() {
    let call = |params: &str| {
        format!("<tool_call>\n<function=write_to_file>\n{params}</function>\n</tool_call>")
    };
    for (params, want) in [
        // Not at the start of a line.
        (
            "<parameter=path>\na <parameter=content>\nb\n</parameter>\n",
            json!({"path": "a <parameter=content>\nb"}),
        ),
        // Not declared by write_to_file's schema.
        (
            "<parameter=path>\na\n<parameter=mode>\nb\n</parameter>\n",
            json!({"path": "a\n<parameter=mode>\nb"}),
        ),
        // The current parameter.
        (
            "<parameter=content>\na\n<parameter=content>\nb\n</parameter>\n",
            json!({"content": "a\n<parameter=content>\nb"}),
        ),
        // One already given: the file's content quotes a call.
        (
            "<parameter=path>\nx.md\n</parameter>\n<parameter=content>\nWrite\n<parameter=path>\ny\n</parameter>\n",
            json!({"path": "x.md", "content": "Write\n<parameter=path>\ny"}),
        ),
        // Not a well-formed opener.
        (
            "<parameter=path>\na\n<parameter=line_count\nb\n</parameter>\n",
            json!({"path": "a\n<parameter=line_count\nb"}),
        ),
    ] {
        check_calls(
            &call(params),
            expect("", &[("write_to_file", want, Qwen3Coder)], &[]),
        );
    }
    // Cut off inside the opener: the call is unfinished, its markup text.
    let input = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n<parameter=da";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

/// vLLM's `test_extract_tool_calls_fallback_no_tags`: a bare
/// `<function=NAME>` of a registered tool, followed by the Qwen3-Coder body,
/// is a call without `<tool_call>`; a mention in prose is text.
#[test]
fn a_bare_qwen3_coder_function_is_a_call() {
    let input = "Sure.\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\nDone.";
    check_calls(
        input,
        expect(
            "Sure.\n\nDone.",
            &[(
                "get_weather",
                json!({"city": "Paris", "days": 2}),
                Qwen3Coder,
            )],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city":"Paris","days":2}"#]);
    check_calls(
        "<function=ls> \n</function>",
        expect("", &[("ls", json!({}), Qwen3Coder)], &[]),
    );
    for input in [
        // Prose, an unregistered tool, a body of another shape.
        "Call <function=ls> to list.",
        "<function=launch>\n<parameter=x>\n1\n</parameter>\n</function>",
        "<function=ls>{\"a\": 1}</function>",
        "<function=get_weather <parameter=city>",
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
    // A bare call cut off is unfinished, like any other.
    let input = "<function=read_file>\n<parameter=path>\na\n</parameter>\n";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn cohere_reads_one_call_object_without_the_list() {
    let input = "<|START_ACTION|>\n{\"tool_call_id\": \"0\", \"tool_name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\"}}\n<|END_ACTION|>";
    check_calls(
        input,
        expect("", &[("get_weather", json!({"city": "Oslo"}), Cohere)], &[]),
    );
    check_deltas(input, &[r#"{"city": "Oslo"}"#]);
    let (out, _) = run_pieces(&chars(input), DetectConfig::default());
    assert_eq!(out.ids, ["0"]);
    let input = r#"<|START_ACTION|>{"tool_call_id": "0", "tool_name": "launch", "parameters": {}}<|END_ACTION|>"#;
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = r#"<|START_ACTION|>{"note": "no call"}<|END_ACTION|>"#;
    check_calls(input, expect(input, &[], &[Invalid]));
    let input = r#"<|START_ACTION|>{"tool_name": "ls", "parameters": {"#;
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn lfm2_reads_one_json_envelope_without_the_list() {
    let input = "<|tool_call_start|>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}<|tool_call_end|>Checking.";
    check_calls(
        input,
        expect(
            "Checking.",
            &[("get_weather", json!({"city": "Paris"}), Lfm2)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city": "Paris"}"#]);
    check_calls(
        "<|tool_call_start|> {\"arguments\": {}, \"name\": \"ls\"}",
        expect("", &[("ls", json!({}), Lfm2)], &[]),
    );
    let input = "<|tool_call_start|>{\"name\": \"nope\", \"arguments\": {}}<|tool_call_end|>";
    check_calls(input, expect(input, &[], &[UnknownTool]));
    let input = "<|tool_call_start|>{\"name\": \"ls\", \"arguments\": {";
    check_calls(input, expect(input, &[], &[Unfinished]));
}

#[test]
fn harmony_reads_a_registered_tool_without_the_functions_namespace() {
    let input = "<|start|>assistant<|channel|>commentary to=get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>";
    check_calls(
        input,
        expect(
            "",
            &[("get_weather", json!({"city": "Paris"}), Harmony)],
            &[],
        ),
    );
    check_deltas(input, &[r#"{"city": "Paris"}"#]);
    check_calls(
        "<|start|>assistant to=read_file<|channel|>commentary json<|message|>{\"path\":\"a\"}<|call|>",
        expect("", &[("read_file", json!({"path": "a"}), Harmony)], &[]),
    );
    // Any other recipient is a built-in tool: reasoning, as before.
    check_calls(
        "<|start|>assistant<|channel|>analysis to=python<|message|>print(1)<|call|>",
        Outcome {
            reasoning: "print(1)".to_owned(),
            ..expect("", &[], &[])
        },
    );
}

#[test]
fn harmony_takes_a_channel_word_between_calls_into_the_call() {
    let input = "<|channel|>commentary to=functions.ls<|message|>{}<|call|>commentary<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a\"}<|call|>analysis<|channel|>final<|message|>Done.<|return|>";
    check_calls(
        input,
        expect(
            "Done.",
            &[
                ("ls", json!({}), Harmony),
                ("read_file", json!({"path": "a"}), Harmony),
            ],
            &[],
        ),
    );
    // Not before a header: the word is text.
    check_calls(
        "<|channel|>commentary to=functions.ls<|message|><|call|>commentary",
        expect("commentary", &[("ls", json!({}), Harmony)], &[]),
    );
    check_calls(
        "<|channel|>commentary to=functions.ls<|message|>{}<|call|>final answer",
        expect("final answer", &[("ls", json!({}), Harmony)], &[]),
    );
}
