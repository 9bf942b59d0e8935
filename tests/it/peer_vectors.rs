//! The peers' own parser tests as vectors (`tests/data/peers/`): model outputs
//! and expected calls from vLLM, SGLang and SMG, run through the detector whole and
//! under every split. A `pass` case must give exactly its calls (and its text and
//! reasoning, where the peer checks them); a `differs` case must not, so a fix that
//! makes one pass fails this test until the case is flipped. The conformance table in
//! `docs/formats.md` is checked against the files.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};
use toolrouter::tool_from_list_entry;
use toolrouter::{DetectConfig, ToolCatalog, ToolRegistry};

use crate::dialect_vectors::{Run, file_format, outside_regions, run, splits};
use crate::support::repo_root;

const PEERS: [&str; 3] = ["vllm", "sglang", "smg"];
const KEYS: [&str; 9] = [
    "peer",
    "source",
    "tools",
    "input",
    "calls",
    "text",
    "reasoning",
    "status",
    "reason",
];

/// One vector file: its name and its cases, in file-name order.
fn peer_files() -> Vec<(String, Vec<Map<String, Value>>)> {
    let dir = repo_root().join("tests/data/peers");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let cases: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            let cases = cases
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_object().unwrap().clone())
                .collect();
            (file, cases)
        })
        .collect()
}

/// The case's tools, registered. A tool our registry refuses (a name such as
/// `weather.get`, which no provider accepts) stays out, so calls to it are unknown;
/// the refusals are returned.
fn catalog(case: &Map<String, Value>) -> (Arc<ToolCatalog>, Vec<String>) {
    let registry = ToolRegistry::new();
    let mut refused = Vec::new();
    for tool in case["tools"].as_array().unwrap() {
        let registered = tool_from_list_entry(tool)
            .map_err(|e| e.to_string())
            .and_then(|d| registry.register_schema_only(d).map_err(|e| e.to_string()));
        if let Err(e) = registered {
            refused.push(e);
        }
    }
    (registry.catalog(), refused)
}

/// Whether one run gives what the peer expects: the calls (ids only where given),
/// and the text and reasoning where the case has them.
fn meets(case: &Map<String, Value>, got: &Run) -> bool {
    let want = case["calls"].as_array().unwrap();
    let calls_match = got.calls.len() == want.len()
        && got.calls.iter().zip(want).all(|((name, args, id), w)| {
            w["name"] == *name
                && w["arguments"] == *args
                && w.get("id").is_none_or(|wid| wid == id.as_str())
        });
    let text_matches = case.get("text").is_none_or(|t| t == got.text.as_str());
    let reasoning_matches = case
        .get("reasoning")
        .is_none_or(|r| r == got.reasoning.as_str());
    calls_match && text_matches && reasoning_matches
}

/// Runs a case under every split. Conservation (the input minus the call regions is
/// the text) is our own invariant and must hold whatever the status; the result is
/// `Ok` when every split meets the peer's expectation, else the first that does not.
fn check(file: &str, case: &Map<String, Value>) -> Result<(), String> {
    let source = case["source"].as_str().unwrap();
    let at = format!("{file}: {source}");
    let input = case["input"].as_str().unwrap();
    let (catalog, _) = catalog(case);
    let config = DetectConfig::default().with_formats([file_format(file)]);
    for pieces in splits(input) {
        let (got, regions) = run(&catalog, &config, &pieces);
        let outside = outside_regions(input, &regions);
        assert_eq!(
            outside, got.text,
            "{at}: text is not the input minus the regions"
        );
        if !meets(case, &got) {
            return Err(format!(
                "{at}\n   split {:?}\n   want calls {} text {:?} reasoning {:?}\n   got  {:?}",
                pieces.iter().map(|p| p.len()).collect::<Vec<_>>(),
                Value::Array(case["calls"].as_array().unwrap().clone()),
                case.get("text"),
                case.get("reasoning"),
                got
            ));
        }
    }
    Ok(())
}

#[test]
fn every_peer_file_is_well_formed() {
    let implemented = toolrouter::text_formats();
    let mut n_cases = 0;
    let mut unregistered = Vec::new();
    for (file, cases) in peer_files() {
        assert!(
            implemented.contains(&file_format(&file)),
            "{file}: no detector for this dialect"
        );
        let mut sources = std::collections::HashSet::new();
        for case in &cases {
            let source = case["source"].as_str().unwrap();
            let at = format!("{file}: {source}");
            assert!(sources.insert(source), "{at}: duplicate source");
            assert!(source.contains("::"), "{at}: source is not FILE::TEST");
            for key in case.keys() {
                assert!(KEYS.contains(&key.as_str()), "{at}: unexpected key {key}");
            }
            assert!(
                PEERS.contains(&case["peer"].as_str().unwrap()),
                "{at}: peer"
            );
            assert!(case["input"].is_string(), "{at}: input");
            for call in case["calls"].as_array().unwrap() {
                assert!(call["name"].is_string(), "{at}: call name");
                assert!(call.get("arguments").is_some(), "{at}: call arguments");
            }
            match case["status"].as_str().unwrap() {
                "pass" => assert!(case.get("reason").is_none(), "{at}: reason on a pass"),
                "differs" => assert!(
                    case.get("reason")
                        .and_then(Value::as_str)
                        .is_some_and(|r| !r.is_empty()),
                    "{at}: a differs case needs its reason"
                ),
                other => panic!("{at}: status {other}"),
            }
            let (_, refused) = catalog(case);
            if !refused.is_empty() && case["status"] == "pass" {
                unregistered.push(format!("{at}: {refused:?}"));
            }
            n_cases += 1;
        }
    }
    assert!(
        unregistered.is_empty(),
        "pass cases whose tools do not register:\n{}",
        unregistered.join("\n")
    );
    assert!(n_cases >= 300, "only {n_cases} peer vectors");
}

/// Every `pass` case passes under every split and every `differs` case still differs
/// (`DIALECT=glm45` narrows it to one file).
#[test]
fn peer_vectors_pass_or_differ_as_recorded() {
    let only = std::env::var("DIALECT").ok();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (file, cases) in peer_files() {
        if only
            .as_deref()
            .is_some_and(|o| file.trim_end_matches(".json") != o)
        {
            continue;
        }
        for case in &cases {
            let outcome = check(&file, case);
            match (case["status"].as_str().unwrap(), outcome) {
                ("pass", Err(e)) => failures.push(format!("recorded pass, differs: {e}")),
                ("differs", Ok(())) => failures.push(format!(
                    "recorded differs, now passes (flip it to pass, update the table): {file}: {}",
                    case["source"].as_str().unwrap()
                )),
                _ => {}
            }
            checked += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} peer vectors are not as recorded:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The conformance table of `docs/formats.md`, as the vector files make it.
fn conformance_table() -> String {
    // dialect -> peer -> (pass, differs)
    let mut counts: BTreeMap<String, BTreeMap<&str, (usize, usize)>> = BTreeMap::new();
    for (file, cases) in peer_files() {
        let dialect = file.trim_end_matches(".json").to_owned();
        let row = counts.entry(dialect).or_default();
        for case in &cases {
            let peer = PEERS
                .iter()
                .find(|p| **p == case["peer"].as_str().unwrap())
                .unwrap();
            let cell = row.entry(peer).or_default();
            if case["status"] == "pass" {
                cell.0 += 1;
            } else {
                cell.1 += 1;
            }
        }
    }
    let mut total: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut out = String::from(
        "| dialect | vLLM pass / differ | SGLang pass / differ | SMG pass / differ |\n|---|---|---|---|\n",
    );
    let cell = |c: Option<&(usize, usize)>| match c {
        Some((p, d)) => format!("{p} / {d}"),
        None => "–".to_owned(),
    };
    for (dialect, row) in &counts {
        out.push_str(&format!("| `{dialect}` |"));
        for peer in PEERS {
            out.push_str(&format!(" {} |", cell(row.get(peer))));
            if let Some((p, d)) = row.get(peer) {
                let t = total.entry(peer).or_default();
                t.0 += p;
                t.1 += d;
            }
        }
        out.push('\n');
    }
    out.push_str("| **all** |");
    for peer in PEERS {
        out.push_str(&format!(" {} |", cell(total.get(peer))));
    }
    out.push('\n');
    out
}

#[test]
fn the_conformance_table_in_the_docs_matches_the_vectors() {
    let docs = std::fs::read_to_string(repo_root().join("docs/formats.md")).unwrap();
    let table = conformance_table();
    assert!(
        docs.contains(&table),
        "docs/formats.md lacks the current conformance table; it is now:\n\n{table}"
    );
}
