//! Split-invariance and conservation for the JSON-list dialects together (Phi-4-mini
//! enabled too): random runs of their markup fragments, and each dialect alone.

use proptest::prelude::*;

use super::super::*;

const LIST_FORMATS: &[WireFormat] = &[
    WireFormat::Mistral,
    WireFormat::Llama3Json,
    WireFormat::Granite,
    WireFormat::JambaHunyuan,
    WireFormat::InternLm2,
    WireFormat::LongCat,
    WireFormat::Phi4Mini,
    WireFormat::Cohere,
];

fn config() -> DetectConfig {
    DetectConfig::default().with_formats([WireFormat::Phi4Mini])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_list_markup_agrees_under_splits(
        parts in proptest::collection::vec(prop_oneof![
            Just("[TOOL_CALLS]"), Just("[TOOL_CALLS] "), Just("ls"), Just("zz"), Just("[ARGS]"),
            Just("[CALL_ID]a1"), Just("[THINK]"), Just("[/THINK]"), Just("<|python_tag|>"),
            Just("<|tool_call|>"), Just("<tool_call>"), Just("<tool_calls>"), Just("</tool_calls>"),
            Just("<answer>"), Just("</answer>"), Just("<|action_start|>"), Just("<|plugin|>"),
            Just("<|action_end|>"), Just("<longcat_tool_call>"), Just("</longcat_tool_call>"),
            Just("functools"), Just("<|START_ACTION|>"), Just("<|END_ACTION|>"),
            Just("<|START_THINKING|>"), Just("<|END_THINKING|>"), Just("<|START_RESPONSE|>"),
            Just("<|END_RESPONSE|>"), Just("["), Just("]"), Just("{"), Just("}"), Just(","),
            Just(";"), Just(" "), Just("\n"), Just("\""), Just("\\"), Just("é"),
            Just("{\"name\": \"ls\", \"arguments\": {}}"), Just("{\"name\": \"zz\"}"),
            Just("\"parameters\": {\"a\": \"]}\"}"), Just("{\"tool_call_id\": \"0\", \"tool_name\": \"ls\"}"),
            Just("\"id\": \"abcdefghi\""), Just("```\n"), Just("text"),
        ], 0..20),
        cut in proptest::collection::vec(0usize..400, 0..10),
    ) {
        agree_under_splits(&parts.concat(), cut, config())?;
    }
}

#[test]
fn each_list_dialect_alone_agrees_under_splits() {
    let inputs = [
        "Hi [TOOL_CALLS] [{\"name\": \"ls\", \"arguments\": {}, \"id\": \"abcdefghi\"}, {\"name\": \"zz\", \"arguments\": {}}]\n[TOOL_CALLS]read_file[ARGS]{\"path\": \"a\"}",
        "{\"name\": \"ls\", \"parameters\": {}}; {\"name\": \"zz\"}; <|python_tag|>{\"name\": \"ls\"}",
        "<|tool_call|>[{\"arguments\": {\"path\": \"]\"}, \"name\": \"read_file\"}]<tool_call>[{\"name\": \"ls\"}",
        "<answer><tool_calls>[{\"name\": \"ls\", \"arguments\": {}}]</tool_calls></answer> <tool_calls>[{\"name\": \"zz\"}]</tool_calls>",
        "<|action_start|> <|plugin|>\n{\"name\": \"ls\", \"parameters\": {}}<|action_end|>x<longcat_tool_call>{\"name\": \"ls\"}</longcat_tool_call>",
        "functools[{\"name\": \"ls\", \"arguments\": {}}] <|START_THINKING|>p<|END_THINKING|><|START_RESPONSE|>r<|END_RESPONSE|><|START_ACTION|>[{\"tool_call_id\": \"7\", \"tool_name\": \"ls\", \"parameters\": {}}]<|END_ACTION|>",
        // Cohere's single call object.
        "<|START_ACTION|>\n{\"tool_call_id\": \"8\", \"tool_name\": \"ls\", \"parameters\": {\"a\": \"<|END_ACTION|>\"}}\n<|END_ACTION|> <|START_ACTION|>{\"tool_name\": \"zz\"}<|END_ACTION|>",
    ];
    for &format in LIST_FORMATS {
        for input in inputs {
            let config = DetectConfig::only(format);
            let (whole, regions) = run_pieces(&[input], config.clone());
            conserved(input, &whole.text, &regions);
            let (single, regions) = run_pieces(&chars(input), config);
            conserved(input, &single.text, &regions);
            assert_eq!(without_ids(single), without_ids(whole), "{format}: {input}");
        }
    }
}
