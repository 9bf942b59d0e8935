//! Property tests over random mixtures of the DeepSeek, DSML, Kimi K2 and
//! Step-3 tokens: any split gives the same outcome as one piece, text plus
//! call regions reproduce the input, and each of these dialects alone agrees
//! under one-character splits of its own markup.

use proptest::prelude::*;

use super::super::*;
use crate::core::WireFormat;

/// The dialects of this module.
const FORMATS: &[WireFormat] = &[
    WireFormat::DeepSeekV3,
    WireFormat::DeepSeekV31,
    WireFormat::DeepSeekDsml,
    WireFormat::KimiK2,
    WireFormat::Step3,
];

fn fragment() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("<｜tool▁calls▁begin｜>"),
        Just("<｜tool▁call▁begin｜>"),
        Just("function<｜tool▁sep｜>"),
        Just("<｜tool▁sep｜>"),
        Just("<｜tool▁call▁end｜>"),
        Just("<｜tool▁calls▁end｜>"),
        Just("```json\n"),
        Just("```"),
        Just("<|tool_calls_section_begin|>"),
        Just("<|tool_call_begin|>"),
        Just("functions.ls:0"),
        Just("<|tool_call_argument_begin|>"),
        Just("<|tool_call_end|>"),
        Just("<|tool_calls_section_end|>"),
        Just("<｜DSML｜function_calls>"),
        Just("<｜DSML｜invoke name=\"ls\">"),
        Just("<｜DSML｜invoke name=\"search\">"),
        Just("<｜DSML｜parameter name=\"limit\" string=\"false\">"),
        Just("<｜DSML｜parameter name=\"query\">"),
        Just("</｜DSML｜parameter>"),
        Just("</｜DSML｜invoke>"),
        Just("</｜DSML｜function_calls>"),
        Just("<｜tool_calls_begin｜>"),
        Just("<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\">"),
        Just("<steptml:parameter name=\"limit\">"),
        Just("</steptml:parameter>"),
        Just("</steptml:invoke><｜tool_call_end｜>"),
        Just("<｜tool_calls_end｜>"),
        Just("ls"),
        Just("read_file"),
        Just("nope"),
        Just("{}"),
        Just("{\"path\": \"a\"}"),
        Just("{"),
        Just("}"),
        Just("\""),
        Just("3"),
        Just("\n"),
        Just(" "),
        Just("é"),
        Just("text"),
        // Junk where a call's header, arguments or parameters belong.
        Just("{bad}"),
        Just("[1]"),
        Just("I will"),
        Just("<｜DSML｜invoke name=ls>"),
        Just("<steptml:invoke name=\"ls\">"),
        Just("<｜tool▁call▁begin｜>ls<｜tool▁sep｜>{\"a\": 1, oops}<｜tool▁call▁end｜>"),
        Just("<|tool_call_begin|>functions.ls:3<|tool_call_argument_begin|>{} x<|tool_call_end|>"),
        Just("<｜DSML｜invoke name=\"ls\">\nprose\n</｜DSML｜invoke>"),
        Just("<｜tool_call_begin｜>function<｜tool_sep｜>ls()<｜tool_call_end｜>"),
        // Step-3 without the header, with the name again, a stray separator;
        // Kimi K2 arguments that never balance.
        Just("<｜tool_call_begin｜><steptml:invoke name=\"ls\">"),
        Just("<｜tool_call_begin｜>function<｜tool_sep｜>ls\n<steptml:invoke name=\"ls\">"),
        Just("<｜tool_sep｜>"),
        Just(
            "<|tool_call_begin|>functions.ls:4<|tool_call_argument_begin|>{\"a\": [1<|tool_call_end|>"
        ),
        // Whole elements, so that complete calls are frequent.
        Just(
            "<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"<｜tool▁call▁end｜>\"}<｜tool▁call▁end｜>"
        ),
        Just("<｜tool▁call▁begin｜>function<｜tool▁sep｜>ls\n```json\n{}\n```<｜tool▁call▁end｜>"),
        Just(
            "<|tool_call_begin|>functions.search:1<|tool_call_argument_begin|>{\"limit\": 2}<|tool_call_end|>"
        ),
        Just(
            "<｜DSML｜invoke name=\"read_file\"><｜DSML｜parameter name=\"path\" string=\"true\">x</｜DSML｜invoke></｜DSML｜parameter></｜DSML｜invoke>"
        ),
        Just(
            "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"ls\"></steptml:invoke><｜tool_call_end｜>"
        ),
        // Section openers with a first call, so that sections are frequent.
        Just("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{}<｜tool▁call▁end｜>"),
        Just(
            "<｜tool▁calls▁begin｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>nope\n```json\n{}\n```<｜tool▁call▁end｜>"
        ),
        Just(
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
        ),
        Just("<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"ls\">\n</｜DSML｜invoke>"),
        // A JSON object as the whole invoke body, and values typed the way
        // models write them.
        Just(
            "<｜DSML｜invoke name=\"read_file\">\n{\"path\": \"</｜DSML｜invoke>\"}\n</｜DSML｜invoke>"
        ),
        Just("<｜DSML｜invoke name=\"configure\">"),
        Just("<｜DSML｜parameter name=\"label\">"),
        Just("<｜DSML｜parameter name=\"verbose\" string=\"false\">"),
        Just("None"),
        Just("True"),
        Just(
            "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"search\"><steptml:parameter name=\"limit\">2</steptml:parameter></steptml:invoke><｜tool_call_end｜>"
        ),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_token_mixtures_agree_under_splits(
        parts in proptest::collection::vec(fragment(), 0..24),
        cut in proptest::collection::vec(0..=600usize, 0..12),
    ) {
        agree_under_splits(&parts.concat(), cut, DetectConfig::default())?;
    }

    #[test]
    fn each_dialect_alone_agrees_under_splits(
        which in 0..FORMATS.len(),
        parts in proptest::collection::vec(fragment(), 0..24),
    ) {
        let input: String = parts.concat();
        let config = DetectConfig::only(FORMATS[which]);
        let (whole, regions) = run_pieces(&[&input], config.clone());
        conserved(&input, &whole.text, &regions);
        let (single, regions) = run_pieces(&chars(&input), config);
        conserved(&input, &single.text, &regions);
        prop_assert_eq!(without_ids(single), without_ids(whole));
    }
}
