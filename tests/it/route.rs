//! `toolrouter route --summary` against every recorded stream in
//! `../shared/fixtures/streams/`, fed whole and one byte at a time. New fixtures
//! are picked up without code changes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{shared_dir, toolrouter_bin};

fn fixtures() -> Vec<(PathBuf, PathBuf)> {
    let dir = shared_dir().join("fixtures").join("streams");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures folder") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some(stream) = name.strip_suffix(".expect.json") {
            out.push((dir.join(stream), path.clone()));
        }
    }
    out.sort();
    assert!(
        out.len() >= 60,
        "expected the shared fixtures, found {}",
        out.len()
    );
    out
}

/// The provider prefix of `<provider>.<case>.<ext>`.
fn provider_of(stream: &Path) -> String {
    let name = stream.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.split('.').next().unwrap_or("").to_owned()
}

fn route_summary(stream: &Path, chunk: usize) -> Value {
    route_summary_with(stream, chunk, &[])
}

/// `route_summary` with extra flags (`--allow-write`).
fn route_summary_with(stream: &Path, chunk: usize, extra: &[&str]) -> Value {
    let out = Command::new(toolrouter_bin())
        .args([
            "route",
            "--summary",
            "--chunk",
            &chunk.to_string(),
            "--provider",
        ])
        .arg(provider_of(stream))
        .arg(stream)
        .args(extra)
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run toolrouter route");
    assert!(
        out.status.success(),
        "{}: exit {}: {}",
        stream.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: summary is not JSON ({e}): {}",
            stream.display(),
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Compares a list of calls; ids only where the expectation has one.
fn same_calls(expected: &Value, actual: &Value) -> Result<(), String> {
    let (Some(exp), Some(act)) = (expected.as_array(), actual.as_array()) else {
        return Err(format!("not arrays: {expected} vs {actual}"));
    };
    if exp.len() != act.len() {
        return Err(format!(
            "{} calls expected, got {}: {actual}",
            exp.len(),
            act.len()
        ));
    }
    for (e, a) in exp.iter().zip(act) {
        let Some(e) = e.as_object() else {
            return Err(format!("bad expectation {e}"));
        };
        for (key, want) in e {
            if key == "id" && want.is_null() {
                let got = a.get("id").and_then(Value::as_str).unwrap_or("");
                if got.is_empty() {
                    return Err(format!("a made-up id must still be given: {a}"));
                }
                continue;
            }
            if a.get(key) != Some(want) {
                return Err(format!("`{key}`: expected {want}, got {:?}", a.get(key)));
            }
        }
    }
    Ok(())
}

fn check(expected: &Value, actual: &Value) -> Result<(), String> {
    let exp = expected.as_object().ok_or("expectation is not an object")?;
    let act = actual.as_object().ok_or("summary is not an object")?;
    for (key, want) in exp {
        let got = act.get(key).unwrap_or(&Value::Null);
        let verdict = match key.as_str() {
            "calls" | "partial_calls" | "server_calls" => same_calls(want, got),
            _ if want == got => Ok(()),
            _ => Err(format!("expected {want}, got {got}")),
        };
        verdict.map_err(|e| format!("`{key}`: {e}"))?;
    }
    for key in act.keys() {
        if key != "results" && !exp.contains_key(key) {
            return Err(format!("unexpected key `{key}`: {}", act[key]));
        }
    }
    let n_calls = act
        .get("calls")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let n_results = act
        .get("results")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if n_calls != n_results {
        return Err(format!("{n_calls} calls but {n_results} results"));
    }
    Ok(())
}

fn run_all(chunk: usize) {
    let mut failures = Vec::new();
    for (stream, expect) in fixtures() {
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expect).expect("read expectation"))
                .expect("expectation is JSON");
        let actual = route_summary(&stream, chunk);
        if let Err(e) = check(&expected, &actual) {
            failures.push(format!("{}: {e}", stream.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixtures differ (chunk {chunk}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_fixture_routes_to_its_expectation() {
    run_all(4096);
}

#[test]
fn every_fixture_routes_to_its_expectation_one_byte_at_a_time() {
    run_all(1);
}

#[test]
fn calls_run_and_results_come_back_in_call_order() {
    // The fixtures call tools the command does not have: each result is an
    // `isError` result naming the unknown tool.
    let dir = shared_dir().join("fixtures").join("streams");
    let summary = route_summary(&dir.join("openai-chat.parallel.sse"), 7);
    let results = summary["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for (result, name) in results.iter().zip(["get_weather", "get_time"]) {
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains(name), "{text}");
    }
}

/// Issue 24: a Hermes call in the text cut by `max_tokens` stays in the text,
/// is never run, and is the summary's one partial call, named, with no id.
#[test]
fn a_text_call_cut_by_max_tokens_is_a_partial_call() {
    let stream = crate::support::repo_root()
        .join("tests")
        .join("data")
        .join("route")
        .join("openai-chat.hermes-cut.sse");
    let expect_path = stream.with_file_name("openai-chat.hermes-cut.sse.expect.json");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(&expect_path).expect("read expectation"))
            .expect("expectation is JSON");
    // The cut call is to `write_to_file`, declared only with --allow-write; it
    // never runs, and the workspace is an empty scratch directory anyway.
    let workspace = tempfile::tempdir().expect("tempdir");
    let workspace = workspace.path().to_str().expect("utf-8 path");
    let flags = ["--allow-write", "--workspace", workspace];
    for chunk in [1, 9, 4096] {
        let actual = route_summary_with(&stream, chunk, &flags);
        // Compared whole: a text call's partial call has no id at all (the
        // fixtures' `null` means "made up" for completed calls).
        let mut summary = actual.as_object().cloned().expect("an object");
        assert_eq!(
            summary.remove("results"),
            Some(serde_json::json!([])),
            "never run (chunk {chunk})"
        );
        assert_eq!(Value::Object(summary), expected, "chunk {chunk}");
    }
}
