//! Unit tests of the open-model dialects, one module per dialect.

mod cohere;
mod deepseek;
mod deepseek_dsml;
mod framing;
mod gemma4;
mod glm;
mod granite;
mod harmony;
mod internlm2;
mod jamba_hunyuan;
mod json_lists;
mod kimi_k2;
mod lfm2;
mod llama3_json;
mod longcat;
mod minimax_m2;
mod mistral;
mod olmo3;
mod phi4_mini;
mod props;
mod pythonic;
mod step3;

use proptest::prelude::*;

use super::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Fragments of the pythonic and Gemma dialects in any order: any split
    /// gives the same outcome as one piece, the text plus the regions is the
    /// input, and nothing panics (unbalanced brackets, bad escapes, huge
    /// numbers, lone surrogates).
    #[test]
    fn pythonic_and_gemma_fragments_agree_under_splits(
        parts in proptest::collection::vec(prop_oneof![
            Just("["), Just("]"), Just("("), Just(")"), Just("{"), Just("}"), Just(","), Just("="),
            Just(":"), Just(" "), Just("\n"), Just("'"), Just("\""), Just("'''"), Just("\\"),
            Just("\\u"), Just("\\ud83d"), Just("\\ude00"), Just("\\x4"), Just("\\N{X}"), Just("r'"),
            Just("[ls("), Just("[read_file("), Just("[search("), Just("path="), Just("limit="),
            Just("tags="), Just("query="), Just("1"), Just("-2.5e3"), Just("1e999"), Just("0x"),
            Just("True"), Just("None"), Just("null"), Just("x"), Just("é😀"),
            Just("<|python_start|>"), Just("<|python_end|>"), Just("<|tool_call_start|>"),
            Just("<|tool_call_end|>"), Just("<function_calls>"), Just("</function_calls>"),
            Just("ls()"), Just("<|tool_call>call:"), Just("<tool_call|>"), Just("search{"),
            Just("<|\"|>"), Just("<|"), Just("<|channel>thought\n"), Just("<channel|>"),
            Just("{\"name\": \"ls\", \"arguments\": {}}"), Just("```"),
            // Broken calls next to good ones and sets.
            Just("b'z'"), Just("x'"), Just("float('inf')"), Just("nan"), Just("-inf"),
            Just("search(tags=[1, 2)"), Just("ls(x=foo), "), Just("{'a', 1}"), Just("{}"),
            Just("\"\"\""), Just("{\"arguments\": [1]}"),
        ], 0..28),
        cut in proptest::collection::vec(0usize..400, 0..10),
    ) {
        agree_under_splits(&parts.concat(), cut, DetectConfig::default())?;
    }
}

/// Inputs mixing the four dialects with the core ones.
const MIXED: &[&str] = &[
    "Text [get_weather(city='Par\\'is', days=2), ls(), nope(a=[1,{'b': None}])] and [read_file](x) [ls(\n)]\n<|python_start|>[read_file(path=\"\"\"a\"b\"\"\")]<|python_end|>",
    "<|tool_call_start|>[{\"name\": \"ls\", \"arguments\": {}}, search(query=r'\\d+', tags=(1, -2.5e3, True), limit='4')]<|tool_call_end|>ok <|tool_call_start|>[ls(",
    "<function_calls>\nsearch(exact=true, opts={\"a\": null, 2: 'x'})\nget_weather(city=\"\\ud83d\\ude00\\ud800\")\n</function_calls>\n<function_calls><invoke name=\"ls\"></invoke></function_calls>",
    "<|channel>thought\nplan<channel|><|tool_call>call:search{opts:{a:[1,<|\"|>x<|\"|>]},query:<|\"|>a <|\"b\"|> {,}<|\"|>}<tool_call|><|tool_call>call:nope{}<tool_call|> tail <|tool_call>call:ls{",
    "<tool_call>{\"name\": \"ls\"}</tool_call>\n[ls()] <read_file><path>[ls()]</path></read_file>", // Broken calls, as in the core corpus.
    "[search(query=b'z'), ls(), search(limit=1e999), read_file(path='a'), search(limit=float('inf')), search(tags=[1, 2), search(tags={'urgent', 'bug'}, opts={})] [ls(), search(opts={'a': (1, [2}, x=nan), search(tags=[1], ls()] x",
    "<|tool_call_start|>[ls(x='a)], \"(', y=z), {\"name\": \"ls\", \"arguments\": [1]}, {\"arguments\": {}}, read_file(path=r'\\')]<|tool_call_end|> <|tool_call_start|>[ls(), search(query=x'a<|tool_call_end|>after <|python_start|>[ls(), ls(1)]<|python_end|>",
    "<function_calls>search(query=b'z')\nls()\nsearch(query=x'a\nget_weather(city='x')\nsearch(tags=[1, 2)\n'''\n</function_calls> <function_calls>ls(a={1, [2]})\nls()",
];

#[test]
fn each_dialect_alone_agrees_under_splits() {
    use crate::core::WireFormat::*;
    for format in [Pythonic, Lfm2, Olmo3, Gemma4] {
        for input in MIXED {
            let config = DetectConfig::only(format);
            let (whole, regions) = run_pieces(&[input], config.clone());
            conserved(input, &whole.text, &regions);
            let (single, regions) = run_pieces(&chars(input), config);
            conserved(input, &single.text, &regions);
            assert_eq!(without_ids(single), without_ids(whole), "{format}: {input}");
        }
    }
}

mod props_glm_minimax_harmony {
    //! Split-invariance and conservation over random mixtures of the markers of
    //! GLM, MiniMax-M2 and harmony (each format alone and all together).

    use proptest::prelude::*;

    use super::super::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn random_glm_minimax_and_harmony_markup_agrees(
            parts in proptest::collection::vec(prop_oneof![
                Just("<tool_call>"), Just("</tool_call>"), Just("ls"), Just("search"), Just("zz"),
                Just("<arg_key>"), Just("</arg_key>"), Just("limit"), Just("<arg_value>"),
                Just("</arg_value>"), Just("3"), Just("\n"), Just(" "), Just("x"), Just("<"),
                Just("<minimax:tool_call>"), Just("</minimax:tool_call>"), Just("<invoke name=\"ls\">"),
                Just("</invoke>"), Just("<parameter name=\"a\">"), Just("</parameter>"),
                Just("<invoke name=ls>"), Just("prose"),
                Just("<|start|>assistant"), Just("<|channel|>"), Just("analysis"), Just("final"),
                Just("commentary"), Just(" to=functions.ls"), Just(" to=functions.zz"),
                Just("<|constrain|>json"), Just("<|message|>"), Just("{\"a\":\"}\"}"), Just("{"),
                Just("}"), Just("\""), Just("<|end|>"), Just("<|call|>"), Just("<|return|>"),
                Just("```"), Just("é"),
                // A bare recipient, Python spellings, nullable values.
                Just(" to=ls"), Just(" to=python"), Just("configure"), Just("label"), Just("verbose"),
                Just("None"), Just("True"), Just("nu"),
            ], 0..24),
            cut in proptest::collection::vec(0usize..400, 0..10),
            which in 0usize..5,
        ) {
            let input: String = parts.concat();
            let config = match which {
                0 => DetectConfig::only(WireFormat::Glm45),
                1 => DetectConfig::only(WireFormat::Glm47),
                2 => DetectConfig::only(WireFormat::MinimaxM2),
                3 => DetectConfig::only(WireFormat::Harmony),
                _ => DetectConfig::default(),
            };
            agree_under_splits(&input, cut, config)?;
        }
    }

    #[test]
    fn each_format_alone_agrees_on_the_corpus_by_character() {
        for format in [
            WireFormat::Glm45,
            WireFormat::Glm47,
            WireFormat::MinimaxM2,
            WireFormat::Harmony,
        ] {
            for input in super::super::props::CORPUS {
                let config = DetectConfig::only(format);
                let (whole, regions) = run_pieces(&[input], config.clone());
                conserved(input, &whole.text, &regions);
                let (single, _) = run_pieces(&chars(input), config);
                assert_eq!(without_ids(single), without_ids(whole), "{format}: {input}");
            }
        }
    }
}

/// A broken element `bad` at the start, in the middle and at the end
/// of a block of two good elements (`good`: markup, tool name, arguments; the
/// block built by `block`) goes back as text on its own, with one `invalid`
/// diagnostic, while the good elements stay calls and the block's own markup
/// stays in the call region; whole and under every split.
pub(super) fn broken_element_goes_back_alone(
    block: impl Fn(&[String]) -> String,
    bad: &str,
    good: [(&str, &str, Value); 2],
    format: WireFormat,
) {
    let calls: Vec<(&str, Value, WireFormat)> = good
        .iter()
        .map(|(_, name, args)| (*name, args.clone(), format))
        .collect();
    for at in 0..=good.len() {
        let mut elements: Vec<String> = good.iter().map(|(m, ..)| (*m).to_owned()).collect();
        elements.insert(at, bad.to_owned());
        let input = block(&elements);
        check_calls(&input, expect(bad, &calls, &[DiagnosticKind::Invalid]));
    }
}
