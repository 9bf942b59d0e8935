//! `toolrouter route --summary` against every recorded stream in
//! `tests/data/streams/`, fed whole and one byte at a time. New fixtures
//! are picked up without code changes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::{streams_dir, toolrouter_bin};

fn fixtures() -> Vec<(PathBuf, PathBuf)> {
    let dir = streams_dir();
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

/// `route --summary` of a fixture; a stream that ended in an error must exit
/// with 1, any other with 0.
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
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: summary is not JSON ({e}): {}",
            stream.display(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let in_error = summary.get("error").is_some() || summary["stop"] == "error";
    assert_eq!(
        out.status.code(),
        Some(if in_error { 1 } else { 0 }),
        "{}: {}",
        stream.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    summary
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
        // `results` and `errors` are the command's own, not the fixtures'.
        if key != "results" && key != "errors" && !exp.contains_key(key) {
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
    let dir = streams_dir();
    let summary = route_summary(&dir.join("openai-chat.parallel.sse"), 7);
    let results = summary["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for (result, name) in results.iter().zip(["get_weather", "get_time"]) {
        assert_eq!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap_or("");
        assert!(text.contains(name), "{text}");
    }
}

/// A Hermes call in the text cut by `max_tokens` stays in the text,
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

/// `toolrouter route --summary ARGS FILE` over `stream`: the exit code and the summary.
fn route_generated(stream: &[u8], args: &[&str]) -> (Option<i32>, Value) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("turn.sse");
    std::fs::write(&path, stream).expect("write the stream");
    let out = Command::new(toolrouter_bin())
        .args(["route", "--summary", "--provider", "openai-compat"])
        .args(args)
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .expect("run toolrouter route");
    let summary = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), summary)
}

fn sse(chunks: &[Value]) -> Vec<u8> {
    let mut out = String::new();
    for chunk in chunks {
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

fn content(text: &str) -> Value {
    serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]})
}

fn finish(reason: &str) -> Value {
    serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

/// Calls over `max_call_bytes`, written in the text or sent
/// as structured calls, are the summary's partial calls with reason
/// `over_limit` (the text one used to vanish from the summary).
#[test]
fn calls_over_the_limit_are_partial_calls_with_a_reason() {
    let long = "1+".repeat(200) + "1";
    let text_call = format!(
        r#"Let me compute. <tool_call>{{"name": "calculate", "arguments": {{"expression": "{long}"}}}}</tool_call> done"#
    );
    let structured = serde_json::json!({"choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "id": "call_1", "type": "function",
        "function": {"name": "calculate", "arguments": format!(r#"{{"expression": "{long}"}}"#)}
    }]}, "finish_reason": null}]});
    let stream = sse(&[content(&text_call), structured, finish("tool_calls")]);
    let (code, summary) = route_generated(&stream, &["--max-call-bytes", "100"]);
    assert_eq!(code, Some(0), "{summary}");
    let partial = summary["partial_calls"].as_array().expect("partial calls");
    assert_eq!(partial.len(), 2, "{summary}");
    assert!(
        partial.iter().all(|p| p["reason"] == "over_limit"),
        "{summary}"
    );
    assert_eq!(partial[0]["id"], "call_1");
    assert_eq!(summary["calls"], serde_json::json!([]));
}

/// A stream that ends in an error exits with 1 and lists
/// the error in `errors`; usage and I/O errors have codes of their own.
#[test]
fn route_exit_codes_tell_what_happened() {
    let stream = sse(&[
        content("Hello"),
        serde_json::json!({"error": {"message": "overloaded", "type": "server_error"}}),
    ]);
    let (code, summary) = route_generated(&stream, &[]);
    assert_eq!(code, Some(1), "{summary}");
    assert_eq!(summary["stop"], "error", "{summary}");
    let errors = summary["errors"].as_array().expect("errors");
    assert!(
        errors
            .iter()
            .any(|e| e["message"].as_str().unwrap_or("").contains("overloaded")),
        "{summary}"
    );
    let (code, _) = route_generated(&sse(&[content("Hi"), finish("stop")]), &[]);
    assert_eq!(code, Some(0));
    let (code, _) = route_generated(b"", &["--provider", "no-such-provider"]);
    assert_eq!(code, Some(2));
    let out = Command::new(toolrouter_bin())
        .args([
            "route",
            "--summary",
            "--provider",
            "openai-compat",
            "/no/such/file.sse",
        ])
        .current_dir(std::env::temp_dir())
        .output()
        .expect("run toolrouter route");
    assert_eq!(out.status.code(), Some(3));
}

/// A turn over `--max-turn-bytes` ends with an error in
/// `errors` and exit code 1, having read (and kept) no more than about that.
#[test]
fn a_turn_over_its_byte_limit_ends_with_an_error() {
    let piece = "lorem ipsum ".repeat(80);
    let mut chunks: Vec<Value> = (0..100).map(|_| content(&piece)).collect();
    chunks.push(finish("stop"));
    let stream = sse(&chunks);
    assert!(stream.len() > 90_000);
    let (code, summary) =
        route_generated(&stream, &["--max-turn-bytes", "16384", "--chunk", "1024"]);
    assert_eq!(code, Some(1), "{summary}");
    assert_eq!(summary["stop"], "error");
    let errors = summary["errors"].as_array().expect("errors");
    assert!(
        errors.iter().any(|e| e["message"]
            .as_str()
            .unwrap_or("")
            .contains("--max-turn-bytes")),
        "{summary}"
    );
    let text = summary["text"].as_str().expect("text");
    assert!(!text.is_empty() && text.len() < 16384, "{}", text.len());
    // The same stream under the default limit is fine.
    let (code, _) = route_generated(&stream, &[]);
    assert_eq!(code, Some(0));
}
