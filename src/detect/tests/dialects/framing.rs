//! Framing tokens (end of turn, end of sequence, wrappers of the
//! answer) never reach the visible text, in every dialect that writes them,
//! whole and under every split, with the dialect alone and with the defaults.

use serde_json::json;

use super::super::*;
use crate::core::WireFormat::{self, *};

/// One case: the dialect, the model's text, the visible text, the calls.
struct Case {
    format: WireFormat,
    input: &'static str,
    text: &'static str,
    calls: &'static [(&'static str, WireFormat)],
}

const fn case(
    format: WireFormat,
    input: &'static str,
    text: &'static str,
    calls: &'static [(&'static str, WireFormat)],
) -> Case {
    Case {
        format,
        input,
        text,
        calls,
    }
}

/// Every call below takes no arguments (`ls`, `{}`).
const CASES: &[Case] = &[
    case(Hermes, "Paris is sunny.<|im_end|>", "Paris is sunny.", &[]),
    case(
        Hermes,
        "<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call><|im_end|>\n",
        "",
        &[("ls", Hermes)],
    ),
    case(Hermes, "Done.<|endoftext|>", "Done.", &[]),
    case(
        Qwen3Coder,
        "<tool_call>\n<function=ls>\n</function>\n</tool_call><|im_end|>",
        "",
        &[("ls", Qwen3Coder)],
    ),
    case(
        Glm47,
        "<tool_call>ls</tool_call><|observation|>",
        "",
        &[("ls", Glm47)],
    ),
    case(Glm47, "Sunny.<|user|>", "Sunny.", &[]),
    case(Glm45, "Sunny.<|endoftext|>", "Sunny.", &[]),
    case(MinimaxM2, "Done.\n[e~[\n", "Done.\n", &[]),
    case(
        MinimaxM2,
        "<minimax:tool_call>\n<invoke name=\"ls\">\n</invoke>\n</minimax:tool_call>\n[e~[",
        "",
        &[("ls", MinimaxM2)],
    ),
    case(
        Harmony,
        "The answer is 4.<|return|>",
        "The answer is 4.",
        &[],
    ),
    case(
        Harmony,
        "Checking.<|end|> More.<|call|>",
        "Checking. More.",
        &[],
    ),
    case(Llama3Json, "It is sunny.<|eot_id|>", "It is sunny.", &[]),
    case(
        Llama3Json,
        "<|python_tag|>{\"name\": \"ls\", \"parameters\": {}}<|eom_id|>",
        "",
        &[("ls", Llama3Json)],
    ),
    case(Llama3Json, "Sunny.<|eot|>", "Sunny.", &[]),
    case(Llama3Json, "Sunny.<|end_of_text|>", "Sunny.", &[]),
    case(Pythonic, "[ls()]<|eom|>", "", &[("ls", Pythonic)]),
    case(Pythonic, "Sunny.<|eot_id|>", "Sunny.", &[]),
    case(DeepSeekV3, "Sunny.<｜end▁of▁sentence｜>", "Sunny.", &[]),
    case(
        DeepSeekV31,
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>ls<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
        "",
        &[("ls", DeepSeekV31)],
    ),
    case(DeepSeekDsml, "Done.<｜end▁of▁sentence｜>", "Done.", &[]),
    case(
        KimiK2,
        "Let me check.<|tool_calls_section_begin|><|tool_call_begin|>functions.ls:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|><|im_end|>",
        "Let me check.",
        &[("ls", KimiK2)],
    ),
    case(Step3, "Done.<|EOT|>", "Done.", &[]),
    case(Mistral, "Done.</s>", "Done.", &[]),
    case(
        Mistral,
        "[TOOL_CALLS]ls[ARGS]{}</s>\n",
        "",
        &[("ls", Mistral)],
    ),
    case(Granite, "Done.<|end_of_text|>", "Done.", &[]),
    case(
        JambaHunyuan,
        "<tool_calls>[{\"name\": \"ls\", \"arguments\": {}}]</tool_calls><|eom|>",
        "",
        &[("ls", JambaHunyuan)],
    ),
    case(InternLm2, "Done.<|im_end|>", "Done.", &[]),
    case(Phi4Mini, "Done.<|end|>", "Done.", &[]),
    case(Phi4Mini, "Done.<|endoftext|>", "Done.", &[]),
    case(
        Cohere,
        "<|START_RESPONSE|>Sunny.<|END_RESPONSE|><|END_OF_TURN_TOKEN|>",
        "Sunny.",
        &[],
    ),
    case(Cohere, "<|START_TEXT|>Sunny.<|END_TEXT|>", "Sunny.", &[]),
    case(Olmo3, "Done.<|im_end|>", "Done.", &[]),
    case(
        Olmo3,
        "<function_calls>ls()</function_calls><|endoftext|>",
        "",
        &[("ls", Olmo3)],
    ),
    case(
        Lfm2,
        "<|tool_call_start|>[ls()]<|tool_call_end|>Checking.<|im_end|>",
        "Checking.",
        &[("ls", Lfm2)],
    ),
    case(Gemma4, "Sunny.<turn|>", "Sunny.", &[]),
    case(
        Gemma4,
        "<|tool_call>call:ls{}<tool_call|><turn|>",
        "",
        &[("ls", Gemma4)],
    ),
    case(Gemma4, "Sunny.<end_of_turn>\n", "Sunny.", &[]),
];

fn expected(case: &Case) -> Outcome {
    let calls: Vec<(&str, serde_json::Value, WireFormat)> = case
        .calls
        .iter()
        .map(|&(name, format)| (name, json!({}), format))
        .collect();
    expect(case.text, &calls, &[])
}

#[test]
fn each_dialect_drops_its_framing_tokens_alone_and_by_default() {
    for case in CASES {
        check_calls_with(case.input, DetectConfig::only(case.format), expected(case));
        let defaults = DetectConfig::default().with_formats([case.format]);
        check_calls_with(case.input, defaults, expected(case));
    }
}

#[test]
fn a_framing_token_in_prose_of_another_dialect_is_text() {
    // With only Hermes on, Llama's end of turn is not one of its tokens.
    let input = "Done.<|eot_id|>";
    check_calls_with(input, DetectConfig::only(Hermes), expect(input, &[], &[]));
}

#[test]
fn mistral_end_of_sequence_counts_only_at_the_end() {
    for input in ["Use <s>old</s> prices.", "a</s>b", "</s> and more"] {
        check_calls(input, expect(input, &[], &[]));
    }
    check_calls("Done.</s>  \n", expect("Done.", &[], &[]));
}

#[test]
fn unfinished_tokens_lookalikes_and_fences_stay_text() {
    for input in [
        "Done.<|im_en",
        "Done.<|im_end",
        "<|im_end>",
        "<end_of_turn is not closed",
        "```\nDone.<|im_end|>\n```",
        "[e~ not the token",
    ] {
        check_calls(input, expect(input, &[], &[]));
    }
}

#[test]
fn whitespace_after_a_framing_token_is_a_separator() {
    check_calls("Done.<|im_end|>\n\n", expect("Done.", &[], &[]));
    check_calls("<|im_end|>\nHello", expect("\nHello", &[], &[]));
}
