//! The hand-written dialect vectors (`tests/data/dialects/`): first that they are well
//! formed (shape, tools that register, expected calls that name a listed tool and
//! satisfy its schema, text and reasoning taken from the input), then that the detector
//! yields exactly them under every split, and that every provider profile names only
//! dialects the detector reads.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use serde_json::{Map, Value};
use toolrouter::tool_from_list_entry;
use toolrouter::{DetectConfig, StreamDetector};
use toolrouter::{DetectEvent, ToolCatalog, ToolRegistry, WireFormat};

use crate::support::repo_root;

/// Whether `small` can be made from `big` by deleting characters.
fn is_subsequence(small: &str, big: &str) -> bool {
    let mut rest = big.chars();
    small.chars().all(|c| rest.any(|b| b == c))
}

fn check_case(file: &str, case: &Map<String, Value>) {
    let name = case["name"].as_str().unwrap();
    let at = format!("{file}: {name}");
    for key in case.keys() {
        assert!(
            [
                "name",
                "tools",
                "input",
                "expect",
                "note",
                "start_in_reasoning"
            ]
            .contains(&key.as_str()),
            "{at}: unexpected key {key}"
        );
    }
    let input = case["input"].as_str().unwrap();
    let registry = ToolRegistry::new();
    for tool in case["tools"].as_array().unwrap() {
        let definition = tool_from_list_entry(tool).unwrap_or_else(|e| panic!("{at}: {e}"));
        registry
            .register_schema_only(definition)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
    }
    let expect = case["expect"].as_object().unwrap();
    let text = expect["text"].as_str().unwrap();
    assert!(
        is_subsequence(text, input),
        "{at}: text is not the input with parts removed"
    );
    if let Some(reasoning) = expect.get("reasoning") {
        let reasoning = reasoning.as_str().unwrap();
        assert!(
            input.contains(reasoning),
            "{at}: reasoning not in the input"
        );
    }
    for call in expect["calls"].as_array().unwrap() {
        let call_name = call["name"].as_str().unwrap();
        let tool = registry
            .get(call_name)
            .unwrap_or_else(|| panic!("{at}: expected call to unlisted tool {call_name}"));
        assert!(
            input.contains(call_name),
            "{at}: {call_name} not in the input"
        );
        if let Some(id) = call.get("id") {
            assert!(
                input.contains(id.as_str().unwrap()),
                "{at}: id not in the input"
            );
        }
        let arguments = call["arguments"].as_object().unwrap().clone();
        let (_, verdict) = tool.validator().validate(arguments);
        verdict.unwrap_or_else(|e| panic!("{at}: arguments break the schema: {e}"));
    }
}

#[test]
fn every_dialect_file_is_well_formed() {
    let dir = repo_root().join("tests/data/dialects");
    let mut n_files = 0;
    let mut n_cases = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let cases = cases.as_array().unwrap();
        assert!(cases.len() >= 3, "{file}: fewer than 3 cases");
        let mut names = std::collections::HashSet::new();
        for case in cases {
            let case = case.as_object().unwrap();
            assert!(
                names.insert(case["name"].as_str().unwrap()),
                "{file}: duplicate name"
            );
            check_case(&file, case);
            n_cases += 1;
        }
        n_files += 1;
    }
    // One file per open-model dialect (docs/formats.md).
    assert_eq!(n_files, 22);
    assert!(n_cases >= 3 * n_files);
}

#[test]
fn the_checker_catches_a_text_that_is_not_from_the_input() {
    assert!(is_subsequence("ac", "abc"));
    assert!(!is_subsequence("ca", "abc"));
    assert!(!is_subsequence("abcd", "abc"));
}

/// The dialect a vector file exercises (`mistral_pre_v11.json` -> `mistral`).
pub(crate) fn file_format(file: &str) -> WireFormat {
    let stem = file.trim_end_matches(".json");
    let stem = match stem {
        "mistral_pre_v11" | "mistral_v11" => "mistral",
        other => other,
    };
    stem.parse()
        .unwrap_or_else(|e| panic!("{file}: no wire format: {e}"))
}

/// What a detector made of one run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Run {
    pub(crate) text: String,
    pub(crate) reasoning: String,
    /// (name, arguments, id)
    pub(crate) calls: Vec<(String, Value, String)>,
}

pub(crate) fn run(
    catalog: &Arc<ToolCatalog>,
    config: &DetectConfig,
    pieces: &[&str],
) -> (Run, Vec<std::ops::Range<usize>>) {
    let mut detector = StreamDetector::new(catalog.clone(), config.clone().with_regions());
    let mut events = Vec::new();
    for p in pieces {
        detector.feed(p, &mut events);
    }
    detector.finish(&mut events);
    let mut out = Run {
        text: String::new(),
        reasoning: String::new(),
        calls: Vec::new(),
    };
    // (index, concatenated deltas, name at the start) of every call started.
    let mut deltas: Vec<(usize, String, String)> = Vec::new();
    for event in &events {
        match event {
            DetectEvent::Text { text } => out.text.push_str(text),
            DetectEvent::Reasoning { text } => out.reasoning.push_str(text),
            DetectEvent::CallStart { index, name, .. } => {
                deltas.push((*index, String::new(), name.clone()))
            }
            DetectEvent::ArgsDelta { index, fragment } => {
                let d = deltas.iter_mut().find(|(i, ..)| i == index).unwrap();
                d.1.push_str(fragment);
            }
            DetectEvent::CallEnd { index, call } => {
                let (_, d, started_as) = deltas.iter().find(|(i, ..)| i == index).unwrap();
                assert_eq!(*started_as, call.name, "start and end names differ");
                let streamed: Value = serde_json::from_str(d)
                    .unwrap_or_else(|e| panic!("argument deltas are not json ({e}): {d}"));
                assert_eq!(
                    streamed,
                    Value::Object(call.arguments.clone()),
                    "argument deltas differ from the arguments"
                );
                out.calls.push((
                    call.name.clone(),
                    Value::Object(call.arguments.clone()),
                    call.id.clone(),
                ));
            }
            _ => {}
        }
    }
    (out, detector.call_regions().to_vec())
}

/// Every way the vectors are cut: whole, one character per delta, every cut
/// into two pieces, and a few pseudo-random multi-cuts.
pub(crate) fn splits(input: &str) -> Vec<Vec<&str>> {
    let bounds: Vec<usize> = (1..input.len())
        .filter(|&i| input.is_char_boundary(i))
        .collect();
    let mut all = vec![vec![input]];
    all.push(
        input
            .char_indices()
            .map(|(i, c)| &input[i..i + c.len_utf8()])
            .collect(),
    );
    for &b in &bounds {
        all.push(vec![&input[..b], &input[b..]]);
    }
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ input.len() as u64;
    for _ in 0..8 {
        let mut cuts: Vec<usize> = Vec::new();
        for _ in 0..6 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if !bounds.is_empty() {
                cuts.push(bounds[(seed >> 33) as usize % bounds.len()]);
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        let mut pieces = Vec::new();
        let mut pos = 0;
        for c in cuts {
            pieces.push(&input[pos..c]);
            pos = c;
        }
        pieces.push(&input[pos..]);
        all.push(pieces);
    }
    all
}

/// Checks one case under every split; returns the failures.
fn detect_case(file: &str, case: &Map<String, Value>) -> Vec<String> {
    let name = case["name"].as_str().unwrap();
    let input = case["input"].as_str().unwrap();
    let registry = ToolRegistry::new();
    for tool in case["tools"].as_array().unwrap() {
        registry
            .register_schema_only(tool_from_list_entry(tool).unwrap())
            .unwrap();
    }
    let catalog = registry.catalog();
    let mut config = DetectConfig::default().with_formats([file_format(file)]);
    config.start_in_reasoning = case
        .get("start_in_reasoning")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let expect = &case["expect"];
    let want = Run {
        text: expect["text"].as_str().unwrap().to_owned(),
        reasoning: expect
            .get("reasoning")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned(),
        calls: expect["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["name"].as_str().unwrap().to_owned(),
                    c["arguments"].clone(),
                    c.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
                )
            })
            .collect(),
    };
    let compare = |mut got: Run| {
        // Ids are compared only where the dialect writes them.
        for (g, w) in got.calls.iter_mut().zip(&want.calls) {
            if w.2.is_empty() {
                g.2.clear();
            }
        }
        got
    };
    let mut failures = Vec::new();
    for pieces in splits(input) {
        let (got, regions) = run(&catalog, &config, &pieces);
        // Conservation: the input minus the recorded regions is the text.
        let outside = outside_regions(input, &regions);
        let got = compare(got);
        if got != want || outside != got.text {
            failures.push(format!(
                "{file}: {name}: split {:?}\n   want {want:?}\n   got  {got:?}\n   outside regions {outside:?}",
                pieces.iter().map(|p| p.len()).collect::<Vec<_>>()
            ));
            break;
        }
    }
    failures
}

/// Runs every vector of every dialect under every split (`DIALECT=glm45`
/// narrows it to one file).
#[test]
fn dialect_vectors_detect_as_written_under_every_split() {
    let only = std::env::var("DIALECT").ok();
    let dir = repo_root().join("tests/data/dialects");
    let implemented = toolrouter::text_formats();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    files.sort();
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| !file.starts_with(o)) {
            continue;
        }
        assert!(
            implemented.contains(&file_format(&file)),
            "{file}: no detector for {}",
            file_format(&file)
        );
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in cases.as_array().unwrap() {
            failures.extend(detect_case(&file, case.as_object().unwrap()));
            checked += 1;
        }
    }
    if only.is_none() {
        assert!(checked >= 140, "only {checked} cases ran");
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_provider_profile_names_dialects_the_detector_reads() {
    let readable = toolrouter::text_formats();
    let mut named = 0;
    for profile in toolrouter::providers::profiles() {
        for name in &profile.text_formats {
            let format: WireFormat = name
                .parse()
                .unwrap_or_else(|e| panic!("profile {}: {e}", profile.name));
            assert!(
                readable.contains(&format),
                "profile {} names {name}, which the detector does not read",
                profile.name
            );
            named += 1;
        }
    }
    assert!(named > 0);
}

/// The input minus the call regions the detector recorded: what conservation
/// says the visible text must be.
pub(crate) fn outside_regions(input: &str, regions: &[std::ops::Range<usize>]) -> String {
    let mut outside = String::new();
    let mut pos = 0;
    for r in regions {
        outside.push_str(&input[pos..r.start]);
        pos = r.end;
    }
    outside.push_str(&input[pos..]);
    outside
}
