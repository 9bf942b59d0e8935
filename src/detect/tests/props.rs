//! Property tests: any split gives the same outcome as one piece, and text plus
//! call regions reproduce the input.

use proptest::prelude::*;

use super::*;

/// Inputs covering every dialect, contract cases and mixtures.
pub(super) const CORPUS: &[&str] = &[
    "Let me read it.\n<read_file><path>src/a.ts</path></read_file>\nDone.",
    "<write_to_file>\n<path>a.txt</path>\n<content>\n\"q\" \\ </content> x\n\n</content>\n</write_to_file>",
    r#"Sure. {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris \"x\" {}","days":2}} ok"#,
    r#"{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"\ud83d\ude00\"}"}}]}"#,
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"nope\"}\n</tool_call>",
    "<tool_call>\n<function=write_to_file>\n<parameter=content>\nx</parameter>y\n</parameter>\n</function>\n</tool_call> after",
    "A\n<function_calls>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n</invoke>\n<invoke name=\"zz\"></invoke>\n</function_calls>\nB",
    "```xml\n<read_file><path>a</path></read_file>\n```\n```json\n{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"ls\",\"input\":{}}\n```\n",
    "Mixed <div> {\"a\":1} <ls></ls> `code` <tool_call>{\"name\":\"ls\"}</tool_call> <function_calls><invoke name=\"ls\"></invoke> tail <read_file><path>unfinished",
    "<think>\nplan: <read_file><path>x</path></read_file>\n</think>\n\nAnswer <think>not reasoning</think>",
    "<search><limit>3</limit><tags>[1,2]</tags></search>{\"type\":\"tool_use\",\"name\":\"search\",\"input\":\"{\\\"query\\\":\\\"q\\\"}\"}",
    // Pythonic, LFM2, Olmo 3, Gemma 4.
    "Text [get_weather(city='Par\\'is', days=2), ls(), nope(a=[1,{'b': None}])] and [read_file](x) [ls(\n)]\n<|python_start|>[read_file(path=\"\"\"a\"b\"\"\")]<|python_end|>",
    "<|tool_call_start|>[{\"name\": \"ls\", \"arguments\": {}}, search(query=r'\\d+', tags=(1, -2.5e3, True), limit='4')]<|tool_call_end|>ok <|tool_call_start|>[ls(",
    "<function_calls>\nsearch(exact=true, opts={\"a\": null, 2: 'x'})\nget_weather(city=\"\\ud83d\\ude00\\ud800\")\n</function_calls>\n<function_calls><invoke name=\"ls\"></invoke></function_calls>",
    "<|channel>thought\nplan<channel|><|tool_call>call:search{opts:{a:[1,<|\"|>x<|\"|>]},query:<|\"|>a <|\"b\"|> {,}<|\"|>}<tool_call|><|tool_call>call:nope{}<tool_call|> tail <|tool_call>call:ls{",
    // DeepSeek V3, V3.1, DSML, Kimi K2, Step-3.
    "Hi <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\", \"days\": 2}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>nope\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜> bye",
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"<｜tool▁call▁end｜>\\\"\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{}",
    "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"limit\" string=\"false\">3</｜DSML｜parameter>\n<｜DSML｜parameter name=\"query\" string=\"true\">a</｜DSML｜parameter>b\n</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"zz\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "x<|tool_calls_section_begin|> <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\":\"é\"}<|tool_call_end|><|tool_call_begin|>functions.nope:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>y",
    "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\">\n<steptml:parameter name=\"limit\">4</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜> then <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"ls\">",
    // GLM-4.5 and 4.7 layouts, an unknown tool, a value holding its own closing tag, prose.
    "Hi <tool_call>ls\n</tool_call>\n<tool_call>search<arg_key>limit</arg_key><arg_value>3</arg_value><arg_key>query</arg_key><arg_value>\na</arg_value> b\n</arg_value></tool_call><tool_call>zz</tool_call> <tool_call>get_weather then",
    // MiniMax-M2: parallel invokes, an unknown one, text after.
    "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n<parameter name=\"days\">3</parameter>\n</invoke>\n<invoke name=\"zz\"></invoke>\n</minimax:tool_call>\nok <minimax:tool_call>",
    // gpt-oss harmony: analysis, preamble, calls in both header sections, final, an unknown call.
    "<|channel|>analysis<|message|>Plan <|x|>.<|end|><|start|>assistant<|channel|>commentary<|message|>Looking.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"P\\\"s }\"}<|call|><|start|>assistant to=functions.ls<|channel|>commentary json<|message|><|call|><|start|>assistant<|channel|>commentary to=functions.zz<|message|>{}<|call|><|start|>assistant<|channel|>final<|message|>Done <|start|>.<|return|>",
    // Open-model JSON-list dialects.
    "[THINK]p[/THINK]Hi [TOOL_CALLS] [{\"name\": \"ls\", \"arguments\": {}, \"id\": \"a1B2c3D4e\"}, {\"name\": \"zz\", \"arguments\": {}}] [TOOL_CALLS]get_weather[CALL_ID]k9Xq2LmPz[ARGS]{\"city\": \"]\\\"}\"}[TOOL_CALLS]zz[ARGS]{}",
    "{\"name\": \"ls\", \"parameters\": {}}; {\"type\": \"function\", \"name\": \"read_file\", \"arguments\": {\"path\": \"a;b\"}}; x <|python_tag|>{\"name\": \"ls\"}",
    "<|tool_call|>[{\"arguments\": {\"city\": \"B\"}, \"name\": \"get_weather\"}]\n<tool_call>[{\"name\": \"ls\", \"arguments\": {}}] <tool_calls>[{\"name\": \"ls\", \"arguments\": {\"a\": \"</tool_calls>\"}}]</tool_calls>",
    "<think>\nq\n</think>\n<answer>\nHi <|action_start|> <|plugin|>\n{\"name\": \"ls\", \"parameters\": {}}<|action_end|><|action_start|><|interpreter|>x<|action_end|>\n</answer>",
    // Python spellings and nullable values in the XML dialects, a
    // Qwen3-Coder call lacking `</function>`, a DSML JSON body, Cohere's and
    // LFM2's single call object, harmony's bare recipient and a channel word
    // between calls.
    "<configure><verbose>True</verbose><label>None</label><mode>nullish</mode></configure> <tool_call>\n<function=configure>\n<parameter=level>\nNone\n</parameter>\n</tool_call> <tool_call>configure<arg_key>label</arg_key><arg_value>nu</arg_value></tool_call>",
    "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"get_weather\">\n{\"city\": \"</｜DSML｜invoke>\", \"days\": 2}\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"zz\">{}</｜DSML｜invoke>\n</｜DSML｜tool_calls> <|START_ACTION|>{\"tool_call_id\": \"1\", \"tool_name\": \"ls\", \"parameters\": {}}<|END_ACTION|><|tool_call_start|>{\"name\": \"ls\", \"arguments\": {}}<|tool_call_end|>",
    "<|channel|>commentary to=get_weather<|message|>{\"city\": \"P\"}<|call|>commentary<|start|>assistant to=ls<|channel|>commentary<|message|>{}<|call|>final",
    "<longcat_tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</longcat_tool_call>\n<|START_THINKING|>p<|END_THINKING|><|START_RESPONSE|>ok<|END_RESPONSE|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"ls\", \"parameters\": {}}\n]<|END_ACTION|> functools[{\"name\": \"ls\"}]",
    // Broken calls next to good ones in shared sections and lists.
    "A <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{bad}<｜tool▁call▁end｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"a\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>I will<｜tool▁call▁end｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>[1]<｜tool▁call▁end｜><｜tool▁calls▁end｜> B",
    "<｜tool▁calls▁begin｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{\"a\": 1, oops}\n```<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{} junk\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{\"a\": 1} x<|tool_call_end|><|tool_call_begin|>functions.ls:1<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>prose here<|tool_call_end|><|tool_calls_section_end|> <|tool_calls_section_begin|><|tool_call_begin|>functions.ls:2<|tool_call_argument_begin|>nope",
    "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"ls\">\nI will list.\n</｜DSML｜invoke>\n<｜DSML｜invoke name=ls>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"ls\">\n</｜DSML｜invoke>\n</｜DSML｜function_calls>",
    "<minimax:tool_call>\n<invoke name=\"ls\">\n</invoke>\n<invoke name=\"read_file\">\nprose <path>a</path>\n</invoke>\n<invoke name=ls></invoke>\n</minimax:tool_call> <function_calls><invoke name=\"ls\">x</invoke><invoke name=\"ls\"></invoke></function_calls>",
    "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜>ls()<｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"ls\">oops<｜tool_call_end｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"ls\"></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>",
    "[TOOL_CALLS] [{\"name\": \"ls\", \"arguments\": \"{bad\", \"id\": \"a1B2c3D4e\"}, {\"name\": \"ls\", \"arguments\": {}}, {\"arguments\": 5}] <|tool_call|>[{\"name\": \"ls\", \"arguments\": [1]}, {\"name\": \"ls\"}]",
    // The remaining peer shapes: a Qwen3-Coder value lacking
    // `</parameter>`, a quoted opener, a bare `<function=NAME>`; Step-3 calls
    // without the header, with the name again, a stray separator; Kimi K2
    // arguments that never balance before a valid call.
    "<tool_call>\n<function=write_to_file>\n<parameter=path>\na\n<parameter=content>\nb\n<parameter=path>\nc\n<parameter=line_count>\n2\n</parameter>\n</function>\n</tool_call> <function=get_weather>\n<parameter=city>\nP\n</parameter>\n</function> <function=ls> x",
    "<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name=\"ls\"></steptml:invoke><｜tool_call_end｜><｜tool_sep｜><｜tool_call_begin｜>function<｜tool_sep｜>read_file\n<steptml:invoke name=\"read_file\"><steptml:parameter name=\"path\">a</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_call_begin｜>function<｜tool_sep｜>ls <steptml:invoke name=\"search\"></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"B\"<|tool_call_end|><|tool_call_begin|>functions.ls:1<|tool_call_argument_begin|>{\"a\": \"<|tool_call_end|>\"}<|tool_call_end|><|tool_calls_section_end|>",
    // Broken calls in the pythonic lists: non-literals, infinite
    // numbers, mismatched and unbalanced brackets, stray quotes, sets.
    "[search(query=b'z'), ls(), search(limit=1e999), read_file(path='a'), search(limit=float('inf')), search(tags=[1, 2), search(tags={'urgent', 'bug'}, opts={})] [ls(), search(opts={'a': (1, [2}, x=nan), search(tags=[1], ls()] x",
    "<|tool_call_start|>[ls(x='a)], \"(', y=z), {\"name\": \"ls\", \"arguments\": [1]}, {\"arguments\": {}}, read_file(path=r'\\')]<|tool_call_end|> <|tool_call_start|>[ls(), search(query=x'a<|tool_call_end|>after <|python_start|>[ls(), ls(1)]<|python_end|>",
    "<function_calls>search(query=b'z')\nls()\nsearch(query=x'a\nget_weather(city='x')\nsearch(tags=[1, 2)\n'''\n</function_calls> <function_calls>ls(a={1, [2]})\nls()",
];

fn cuts(len: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0..=len, 0..12)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_splits_of_the_corpus_agree(which in 0..CORPUS.len(), cut in cuts(600)) {
        let input = CORPUS[which];
        let (whole, regions) = run_pieces(&[input], DetectConfig::default());
        conserved(input, &whole.text, &regions);
        let pieces = split_at(input, cut.into_iter().map(|c| c.min(input.len())).collect());
        let (split, regions) = run_pieces(&pieces, DetectConfig::default());
        conserved(input, &split.text, &regions);
        prop_assert_eq!(without_ids(split), without_ids(whole));
    }

    #[test]
    fn random_text_with_markup_fragments_agrees(
        parts in proptest::collection::vec(prop_oneof![
            Just("<"), Just(">"), Just("</"), Just("{"), Just("}"), Just("\""), Just("\n"), Just(" "),
            Just("```"), Just("<read_file>"), Just("</read_file>"), Just("<path>"), Just("</path>"),
            Just("<tool_call>"), Just("</tool_call>"), Just("{\"name\":\"ls\"}"), Just("<function=ls>"),
            Just("</function>"), Just("<parameter=a>"), Just("</parameter>"), Just("<function_calls>"),
            Just("<invoke name=\"ls\">"), Just("</invoke>"), Just("{\"type\":\"tool_use\",\"name\":\"ls\""),
            Just("\"input\":{}"), Just("{\"tool_calls\":["), Just("]}"), Just(","), Just("é"), Just("\\"),
            Just("text"), Just("<ls>"), Just("</ls>"),
            // Python spellings and nullable values.
            Just("<configure>"), Just("</configure>"), Just("<label>"), Just("</label>"),
            Just("<parameter=label>"), Just("<function=configure>"), Just("None"), Just("True"),
            Just("nu"),
            // Openers ending values that lack their end tag.
            Just("<parameter=city>"), Just("<parameter=path>"), Just("<function=get_weather>"),
            Just("\n<parameter=days>\n"),
        ], 0..24),
        cut in cuts(400),
    ) {
        agree_under_splits(&parts.concat(), cut, DetectConfig::default())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_character_soup_agrees(input in "[<>{}\\[\\]\"\\\\ \n:,a-z_/=`é😀]{0,80}", cut in cuts(200)) {
        let (whole, regions) = run_pieces(&[&input], DetectConfig::default());
        conserved(&input, &whole.text, &regions);
        let pieces = split_at(&input, cut.into_iter().map(|c| c.min(input.len())).collect());
        let (split, _) = run_pieces(&pieces, DetectConfig::default());
        prop_assert_eq!(without_ids(split), without_ids(whole.clone()));
        let (single, _) = run_pieces(&chars(&input), DetectConfig::default());
        prop_assert_eq!(without_ids(single), without_ids(whole));
    }
}

#[test]
fn every_single_character_split_of_the_corpus_agrees() {
    for input in CORPUS {
        let (whole, regions) = run_pieces(&[input], DetectConfig::default());
        conserved(input, &whole.text, &regions);
        let (single, regions) = run_pieces(&chars(input), DetectConfig::default());
        conserved(input, &single.text, &regions);
        assert_eq!(without_ids(single), without_ids(whole), "{input}");
    }
}

#[test]
fn every_format_alone_agrees_under_splits() {
    for &format in crate::detect::CORE_TEXT_FORMATS {
        for input in CORPUS {
            let config = DetectConfig::only(format);
            let (whole, regions) = run_pieces(&[input], config.clone());
            conserved(input, &whole.text, &regions);
            let (single, _) = run_pieces(&chars(input), config);
            assert_eq!(without_ids(single), without_ids(whole), "{format}: {input}");
        }
    }
}
