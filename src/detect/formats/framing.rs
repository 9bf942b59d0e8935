//! Framing tokens: the special tokens a dialect writes around its output (end
//! of turn, end of sequence, the next role's header) that are not content. A
//! server that keeps special tokens passes them on in the text (`<|im_end|>`,
//! `<|eot_id|>`, `<｜end▁of▁sentence｜>`, …); each one is a one-marker kept
//! region ([`KeptMarker`]), so it never reaches the visible text and its bytes
//! are still accounted for as a region.
//!
//! Each dialect lists its own tokens (`TextFormat::framing`); the scanner
//! asks [`probe_tokens`] with them at a start byte where no dialect's probe
//! matched, and only where the byte after it can continue one of them (the
//! table's `framing_may_follow`). Only special tokens are listed, never ordinary words
//! or tags; the one end token that is also ordinary markup (Mistral's `</s>`,
//! HTML's strikethrough end tag) counts only at the end of the stream
//! ([`probe_final_token`], asked by that dialect's own probe).

use super::super::format::{Probe, ProbeContext};
use super::super::scan::starts;
use super::kept::KeptMarker;

/// ChatML's end of message (Qwen, Hermes, Kimi K2, LFM2, InternLM2, Olmo 3).
pub(crate) const IM_END: &str = "<|im_end|>";
/// The end-of-text token of the Qwen and GPT-2 style vocabularies (Qwen,
/// GLM, Olmo 3, Phi-4).
pub(crate) const ENDOFTEXT: &str = "<|endoftext|>";
/// Llama 3.x's end of turn, end of message (after a `<|python_tag|>` call)
/// and end of text; Llama 4's end of turn and end of message.
pub(crate) const LLAMA: &[&str] = &[
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
    "<|eot|>",
    "<|eom|>",
];
/// DeepSeek's end of sentence (V3, R1, V3.1, V3.2, V4).
pub(crate) const DEEPSEEK_EOS: &str = "<｜end▁of▁sentence｜>";

/// Whether `input` starts with one of `tokens`: a kept region of its length,
/// `NeedMore` while the input is a prefix of one.
pub(crate) fn probe_tokens(input: &str, tokens: &[&str], cx: &ProbeContext<'_>) -> Probe {
    let bytes = input.as_bytes();
    let mut undecided = false;
    for token in tokens {
        let token = token.as_bytes();
        if let (Some(a), Some(b)) = (bytes.get(1), token.get(1))
            && a != b
        {
            continue;
        }
        match starts(bytes, token) {
            Some(true) => return Probe::Match(Box::new(KeptMarker::new(token.len()))),
            None => undecided = true,
            Some(false) => {}
        }
    }
    if undecided {
        cx.need_more()
    } else {
        Probe::NoMatch
    }
}

/// An end-of-sequence `token` that is also ordinary markup: a kept region only
/// when nothing but whitespace follows it up to the end of the stream (or of
/// the probe's look-ahead).
pub(crate) fn probe_final_token(input: &str, token: &str, cx: &ProbeContext<'_>) -> Probe {
    let bytes = input.as_bytes();
    if let (Some(a), Some(b)) = (bytes.get(1), token.as_bytes().get(1))
        && a != b
    {
        return Probe::NoMatch;
    }
    match starts(bytes, token.as_bytes()) {
        Some(true) => {
            let rest = &bytes[token.len()..];
            if !rest.iter().all(u8::is_ascii_whitespace) {
                Probe::NoMatch
            } else if cx.eof {
                Probe::Match(Box::new(KeptMarker::new(token.len())))
            } else {
                Probe::NeedMore
            }
        }
        None => cx.need_more(),
        Some(false) => Probe::NoMatch,
    }
}
