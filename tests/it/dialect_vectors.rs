//! Keeps the hand-written dialect vectors (`tests/data/dialects/`) well formed until
//! the dialect detectors consume them: shape, tools that register, expected calls that
//! name a listed tool and satisfy its schema, text and reasoning taken from the input.
#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value};
use toolrouter::ToolRegistry;
use toolrouter::registry::tool_from_list_entry;

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
    // One file per dialect of issue 6 (docs/dialects-research.md).
    assert_eq!(n_files, 22);
    assert!(n_cases >= 3 * n_files);
}

#[test]
fn the_checker_catches_a_text_that_is_not_from_the_input() {
    assert!(is_subsequence("ac", "abc"));
    assert!(!is_subsequence("ca", "abc"));
    assert!(!is_subsequence("abcd", "abc"));
}
