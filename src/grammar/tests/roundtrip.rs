//! The round trip: strings derived from each dialect's grammar, fed to the
//! detector in random splits, read back as exactly the calls they were
//! derived from, with arguments their schemas allow.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::derive::{Deriver, Expected, expected_calls};
use crate::core::{DetectEvent, JsonObject, ToolCatalog, WireFormat};
use crate::detect::{DetectConfig, StreamDetector};
use crate::grammar::{GrammarOptions, GrammarTool, ToolChoice, build_grammar};
use crate::registry::ArgumentValidator;

/// Every dialect a grammar is built for.
pub(super) const DIALECTS: &[WireFormat] = &[
    WireFormat::Xml,
    WireFormat::Hermes,
    WireFormat::Qwen3Coder,
    WireFormat::AnthropicInvoke,
    WireFormat::MinimaxM2,
    WireFormat::Glm45,
    WireFormat::Glm47,
    WireFormat::Step3,
    WireFormat::DeepSeekDsml,
    WireFormat::Harmony,
    WireFormat::OpenAiFunction,
    WireFormat::JsonToolUse,
    WireFormat::Llama3Json,
    WireFormat::DeepSeekV3,
    WireFormat::DeepSeekV31,
    WireFormat::KimiK2,
    WireFormat::Mistral,
    WireFormat::Granite,
    WireFormat::JambaHunyuan,
    WireFormat::Phi4Mini,
    WireFormat::InternLm2,
    WireFormat::LongCat,
    WireFormat::Cohere,
    WireFormat::Pythonic,
    WireFormat::Lfm2,
    WireFormat::Olmo3,
    WireFormat::Gemma4,
];

/// The tool sets: nested objects, enums, bounded integers and numbers,
/// arrays, optional and nullable fields, a recursive `$ref`, several tools.
pub(super) fn tool_sets() -> Vec<Vec<(String, JsonObject)>> {
    let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
    let weather = (
        "get_weather".to_owned(),
        obj(json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1, "maxLength": 12},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}
            },
            "required": ["city"]
        })),
    );
    let search = (
        "search_files".to_owned(),
        obj(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "filters": {
                    "type": "object",
                    "properties": {
                        "tags": {"type": "array", "items": {"type": "string", "maxLength": 6}, "minItems": 1, "maxItems": 3},
                        "limit": {"type": "integer", "minimum": -5, "maximum": 1000},
                        "exact": {"type": "boolean"}
                    },
                    "required": ["limit"],
                    "additionalProperties": false
                },
                "ratio": {"type": "number", "minimum": 0, "maximum": 1},
                "since": {"type": "string", "format": "date"},
                "note": {"type": ["string", "null"]},
                "count": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            },
            "required": ["query", "filters"]
        })),
    );
    let tree = (
        "make_tree".to_owned(),
        obj(json!({
            "type": "object",
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "label": {"type": "string", "maxLength": 8},
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}, "maxItems": 2}
                    },
                    "required": ["label"],
                    "additionalProperties": false
                }
            },
            "properties": {
                "root": {"type": "object", "properties": {"node": {"$ref": "#/$defs/node"}}, "required": ["node"]},
                "mode": {"const": "fast"},
                "shape": {"oneOf": [
                    {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"], "additionalProperties": false},
                    {"type": "object", "properties": {"w": {"type": "integer", "exclusiveMinimum": 0}}, "required": ["w"], "additionalProperties": false}
                ]},
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "boolean"}], "items": false}
            },
            "required": ["root", "mode"]
        })),
    );
    let ls = (
        "ls".to_owned(),
        obj(json!({"type": "object", "properties": {}})),
    );
    vec![
        vec![weather.clone()],
        vec![search, ls.clone()],
        vec![tree, weather, ls],
    ]
}

fn choices(tools: &[(String, JsonObject)]) -> Vec<ToolChoice> {
    let mut out = vec![ToolChoice::Required, ToolChoice::Auto];
    if let Some((name, _)) = tools.last() {
        out.push(ToolChoice::Named(name.clone()));
    }
    out
}

/// Derives one string and checks that it reads back. `seed` drives the
/// derivation, `cuts` the deltas.
fn round_trip(
    dialect: WireFormat,
    tools: &[(String, JsonObject)],
    choice: ToolChoice,
    parallel: bool,
    reasoning: bool,
    seed: u64,
    cuts: &[usize],
) -> Result<(), TestCaseError> {
    let specs: Vec<GrammarTool<'_>> = tools.iter().map(|(n, s)| GrammarTool::new(n, s)).collect();
    let options = GrammarOptions {
        tool_choice: choice.clone(),
        parallel_tool_calls: parallel,
        reasoning,
        ..GrammarOptions::default()
    };
    let grammar = build_grammar(&specs, dialect, &options)
        .map_err(|e| TestCaseError::fail(format!("{dialect}: {e}")))?;
    let mut deriver = Deriver::new(&grammar.grammar, seed);
    let spans = deriver.derive(&grammar.root);
    let text = deriver.out;
    let expected = expected_calls(&text, &spans).map_err(TestCaseError::fail)?;

    let catalog = ToolCatalog::from_schemas(tools.iter().map(|(n, s)| (n.as_str(), s)));
    let config = DetectConfig::default().with_formats([dialect]);
    let mut detector = StreamDetector::new(Arc::new(catalog), config);
    let mut events = Vec::new();
    let mut at = 0;
    for &cut in cuts {
        let mut end = (at + cut % 24 + 1).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        detector.feed(&text[at..end], &mut events);
        at = end;
        if at == text.len() {
            break;
        }
    }
    detector.feed(&text[at..], &mut events);
    detector.finish(&mut events);

    let mut got = Vec::new();
    for event in &events {
        match event {
            DetectEvent::CallEnd { call, .. } => {
                prop_assert_eq!(call.format, dialect, "format of a call in {:?}", text);
                got.push(Expected {
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                });
            }
            DetectEvent::Malformed { diagnostic } => {
                return Err(TestCaseError::fail(format!(
                    "{dialect} {choice:?}: malformed {diagnostic:?} in {text:?}"
                )));
            }
            _ => {}
        }
    }
    prop_assert_eq!(
        &got,
        &expected,
        "{} {:?} parallel {}: {:?}",
        dialect,
        choice,
        parallel,
        text
    );
    if !matches!(choice, ToolChoice::Auto) {
        prop_assert!(!got.is_empty(), "{dialect}: no call in {text:?}");
    }
    if !parallel {
        prop_assert!(got.len() <= 1, "{dialect}: several calls in {text:?}");
    }
    for call in got {
        let Some((_, schema)) = tools.iter().find(|(n, _)| *n == call.name) else {
            return Err(TestCaseError::fail(format!("unknown tool {}", call.name)));
        };
        let validator = ArgumentValidator::compile(schema).map_err(TestCaseError::fail)?;
        let (_, verdict) = validator.validate(call.arguments.clone());
        prop_assert!(
            verdict.is_ok(),
            "{dialect}: {:?} for {:?} in {text:?}",
            verdict,
            call.arguments
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn derived_calls_read_back_in_every_dialect(
        seed in any::<u64>(),
        cuts in proptest::collection::vec(any::<usize>(), 0..64),
        set in 0usize..3,
        parallel in any::<bool>(),
        reasoning in any::<bool>(),
    ) {
        let sets = tool_sets();
        let tools = &sets[set];
        for &dialect in DIALECTS {
            for choice in choices(tools) {
                // Several derivations per case: each dialect sees many strings.
                for k in 0..4u64 {
                    round_trip(dialect, tools, choice.clone(), parallel, reasoning,
                               seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15)), &cuts)?;
                }
            }
        }
    }
}
