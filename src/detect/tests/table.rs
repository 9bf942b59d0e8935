//! The dialect table and a detector's `FormatTable` built from it.

use std::collections::HashSet;

use crate::core::WireFormat;
use crate::detect::DetectConfig;
use crate::detect::recognisers::RECOGNISERS;
use crate::detect::table::FormatTable;

/// The stop bytes and, per stop byte, the formats in probing order, built
/// the obvious way (what the table replaced).
fn naive(formats: &[WireFormat]) -> Vec<(u8, Vec<WireFormat>)> {
    let enabled: Vec<_> = RECOGNISERS
        .iter()
        .filter(|r| formats.contains(&r.format))
        .collect();
    let mut stops: Vec<u8> = enabled
        .iter()
        .flat_map(|r| r.text.start_bytes().iter().copied())
        .collect();
    stops.push(b'`');
    stops.sort_unstable();
    stops.dedup();
    stops
        .into_iter()
        .map(|b| {
            let fs = enabled
                .iter()
                .filter(|r| r.text.start_bytes().contains(&b))
                .map(|r| r.format)
                .collect();
            (b, fs)
        })
        .collect()
}

fn check(formats: &[WireFormat]) {
    let table = FormatTable::new(&DetectConfig {
        formats: formats.to_vec(),
        ..DetectConfig::default()
    });
    let got: Vec<(u8, Vec<WireFormat>)> = table
        .stops()
        .iter()
        .map(|&b| (b, table.candidates(b).map(|r| r.format).collect()))
        .collect();
    assert_eq!(got, naive(formats), "{formats:?}");
}

#[test]
fn a_table_holds_the_enabled_dialects_by_start_byte_in_probing_order() {
    check(&DetectConfig::default().formats);
    check(&crate::detect::text_formats());
    check(crate::detect::CORE_TEXT_FORMATS);
    check(&[]);
    for &f in WireFormat::ALL {
        check(&[f]);
    }
}

#[test]
fn every_start_byte_fits_a_table() {
    assert!(RECOGNISERS.len() <= 64);
    let every = naive(&crate::detect::text_formats());
    assert!(every.len() <= 8, "{} stop bytes", every.len());
}

#[test]
fn the_default_formats_are_every_dialect_but_phi4_mini() {
    let default: HashSet<_> = DetectConfig::default().formats.into_iter().collect();
    let expected: HashSet<_> = [
        WireFormat::Xml,
        WireFormat::JsonToolUse,
        WireFormat::OpenAiFunction,
        WireFormat::Hermes,
        WireFormat::Qwen3Coder,
        WireFormat::AnthropicInvoke,
        WireFormat::Mistral,
        WireFormat::Llama3Json,
        WireFormat::Pythonic,
        WireFormat::Lfm2,
        WireFormat::Olmo3,
        WireFormat::DeepSeekV3,
        WireFormat::DeepSeekV31,
        WireFormat::DeepSeekDsml,
        WireFormat::KimiK2,
        WireFormat::Glm45,
        WireFormat::Glm47,
        WireFormat::MinimaxM2,
        WireFormat::Harmony,
        WireFormat::Step3,
        WireFormat::InternLm2,
        WireFormat::JambaHunyuan,
        WireFormat::Granite,
        WireFormat::Cohere,
        WireFormat::Gemma4,
        WireFormat::LongCat,
        WireFormat::Think,
    ]
    .into_iter()
    .collect();
    assert_eq!(default, expected);
    assert_eq!(DetectConfig::default().formats.len(), expected.len());
    let core: HashSet<_> = crate::detect::CORE_TEXT_FORMATS.iter().copied().collect();
    let expected_core: HashSet<_> = [
        WireFormat::Xml,
        WireFormat::JsonToolUse,
        WireFormat::OpenAiFunction,
        WireFormat::Hermes,
        WireFormat::Qwen3Coder,
        WireFormat::AnthropicInvoke,
    ]
    .into_iter()
    .collect();
    assert_eq!(core, expected_core);
    let text: Vec<_> = WireFormat::ALL
        .iter()
        .filter(|f| f.is_text_embedded())
        .copied()
        .collect();
    assert_eq!(text.len(), 27);
    assert!(!WireFormat::Think.is_text_embedded());
    assert!(!WireFormat::OpenAiChat.is_text_embedded());
}

#[test]
fn the_probing_order_is_kept() {
    use WireFormat::*;
    assert_eq!(
        crate::detect::text_formats(),
        [
            AnthropicInvoke,
            Qwen3Coder,
            Hermes,
            Glm45,
            Glm47,
            MinimaxM2,
            Harmony,
            OpenAiFunction,
            Llama3Json,
            JsonToolUse,
            Xml,
            DeepSeekV3,
            DeepSeekV31,
            DeepSeekDsml,
            KimiK2,
            Step3,
            Mistral,
            Granite,
            JambaHunyuan,
            InternLm2,
            LongCat,
            Phi4Mini,
            Cohere,
            Think,
            Olmo3,
            Pythonic,
            Lfm2,
            Gemma4,
        ]
    );
}
