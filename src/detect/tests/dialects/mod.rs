//! Unit tests of the open-model dialects (issue 6), one module per dialect.

mod glm;
mod harmony;
mod minimax_m2;

mod props {
    //! Split-invariance and conservation over random mixtures of the markers of
    //! GLM, MiniMax-M2 and harmony (each format alone and all together).

    use proptest::prelude::*;

    use super::super::*;

    fn pieces_at(input: &str, mut cuts: Vec<usize>) -> Vec<&str> {
        cuts.retain(|&c| c <= input.len() && input.is_char_boundary(c));
        cuts.sort_unstable();
        cuts.dedup();
        let mut pieces = Vec::new();
        let mut pos = 0;
        for c in cuts {
            pieces.push(&input[pos..c]);
            pos = c;
        }
        pieces.push(&input[pos..]);
        pieces
    }

    fn no_ids(mut o: Outcome) -> Outcome {
        o.ids.clear();
        o
    }

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
                Just("<|start|>assistant"), Just("<|channel|>"), Just("analysis"), Just("final"),
                Just("commentary"), Just(" to=functions.ls"), Just(" to=functions.zz"),
                Just("<|constrain|>json"), Just("<|message|>"), Just("{\"a\":\"}\"}"), Just("{"),
                Just("}"), Just("\""), Just("<|end|>"), Just("<|call|>"), Just("<|return|>"),
                Just("```"), Just("é"),
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
            let (whole, regions) = run_pieces(&[&input], config.clone());
            conserved(&input, &whole.text, &regions);
            let (split, regions) = run_pieces(&pieces_at(&input, cut), config.clone());
            conserved(&input, &split.text, &regions);
            prop_assert_eq!(no_ids(split), no_ids(whole.clone()));
            let (single, _) = run_pieces(&chars(&input), config);
            prop_assert_eq!(no_ids(single), no_ids(whole));
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
                assert_eq!(no_ids(single), no_ids(whole), "{format}: {input}");
            }
        }
    }
}
