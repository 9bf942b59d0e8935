//! Unit tests of the open-model dialects (issue 6), one module per dialect.

mod gemma4;
mod lfm2;
mod olmo3;
mod pythonic;

use proptest::prelude::*;

use super::*;

fn split_at(input: &str, mut cuts: Vec<usize>) -> Vec<&str> {
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

fn strip_ids(mut o: Outcome) -> Outcome {
    o.ids.clear();
    o
}

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
        ], 0..28),
        cut in proptest::collection::vec(0usize..400, 0..10),
    ) {
        let input: String = parts.concat();
        let (whole, regions) = run_pieces(&[&input], DetectConfig::default());
        conserved(&input, &whole.text, &regions);
        let (split, regions) = run_pieces(&split_at(&input, cut), DetectConfig::default());
        conserved(&input, &split.text, &regions);
        prop_assert_eq!(strip_ids(split), strip_ids(whole.clone()));
        let (single, _) = run_pieces(&chars(&input), DetectConfig::default());
        prop_assert_eq!(strip_ids(single), strip_ids(whole));
    }
}
