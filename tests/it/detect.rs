//! The detector end to end: the `toolrouter parse` command, and the shared
//! recorded provider streams replayed through the router's session.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use serde_json::{Value, json};
use toolrouter::DetectConfig;
use toolrouter::providers::find_profile;
use toolrouter::{RouteSession, ToolCatalog, TurnOutcome};

use crate::support;

fn run_parse(args: &[&str], stdin: &str) -> (bool, String, String) {
    let mut child = Command::new(support::toolrouter_bin())
        .arg("parse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolrouter");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn deltas(pieces: &[&str]) -> String {
    pieces
        .iter()
        .map(|p| serde_json::to_string(p).unwrap() + "\n")
        .collect()
}

const TOOLS: &str = r#"[{"name":"read_file","description":"Read a file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}},
 {"name":"get_weather","inputSchema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}}}}]"#;

#[test]
fn parse_summary_reports_text_calls_and_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, TOOLS).unwrap();
    let input = deltas(&[
        "Reading.\n<read_",
        "file><path>a.rs</pa",
        "th></read_file>\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\",\"days\":",
        "2}}</tool_call>\n<tool_call>{\"name\":\"rm\"}</tool_call>",
    ]);
    let (ok, stdout, stderr) =
        run_parse(&["--tools", tools.to_str().unwrap(), "--summary"], &input);
    assert!(ok, "{stderr}");
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        summary["text"],
        "Reading.\n\n<tool_call>{\"name\":\"rm\"}</tool_call>"
    );
    let calls = summary["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["name"], "read_file");
    assert_eq!(calls[0]["arguments"], json!({"path": "a.rs"}));
    assert_eq!(calls[1]["name"], "get_weather");
    assert_eq!(calls[1]["arguments"], json!({"city": "Oslo", "days": 2}));
    assert!(calls[0]["id"].as_str().unwrap().starts_with("call_"));
    let malformed = summary["malformed"].as_array().unwrap();
    assert_eq!(malformed.len(), 1);
    assert_eq!(malformed[0]["kind"], "unknown_tool");
    assert_eq!(malformed[0]["name"], "rm");
    assert_eq!(
        malformed[0]["raw"],
        "<tool_call>{\"name\":\"rm\"}</tool_call>"
    );
}

#[test]
fn parse_event_lines_and_format_selection() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, TOOLS).unwrap();
    let input = deltas(&["<read_file><path>x</path></read_file>"]);
    let (ok, stdout, _) = run_parse(
        &["--tools", tools.to_str().unwrap(), "--format", "hermes"],
        &input,
    );
    assert!(ok);
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        events,
        vec![json!({"type": "text", "text": "<read_file><path>x</path></read_file>"})]
    );

    let (ok, stdout, _) = run_parse(&["--tools", tools.to_str().unwrap()], &input);
    assert!(ok);
    let types: Vec<String> = stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(types, ["call_start", "args_delta", "call_end"]);
    let end: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(end["call"]["format"], "xml");

    let (ok, _, stderr) = run_parse(&["--format", "nope"], "");
    assert!(!ok);
    assert!(
        stderr.contains("invalid value 'nope' for '--format <auto|NAME>'"),
        "{stderr}"
    );
    let (ok, _, stderr) = run_parse(&[], "not json\n");
    assert!(!ok);
    assert!(stderr.contains("line 1"), "{stderr}");
}

/// Replays a recorded provider stream through the router's session, where the
/// provider's structured calls and the detector's text calls share one event
/// model (the detector parses text only).
fn replay(name: &str) -> (String, Vec<Value>) {
    let path = support::streams_dir().join(name);
    let raw = std::fs::read(&path).unwrap();
    let wire = find_profile(name.split('.').next().unwrap()).unwrap().wire;
    let mut session =
        RouteSession::new(wire, Arc::new(ToolCatalog::new()), DetectConfig::default());
    let mut events = Vec::new();
    session.feed(&raw, &mut events);
    session.finish(&mut events);
    let outcome = TurnOutcome::from_events(wire, &events);
    let calls = outcome
        .tool_calls()
        .into_iter()
        .map(|call| json!({"id": call.id, "name": call.name, "arguments": call.arguments}))
        .collect();
    (outcome.text, calls)
}

#[test]
fn recorded_provider_streams_enter_the_same_event_model() {
    for name in [
        "anthropic.single.sse",
        "anthropic.parallel.sse",
        "anthropic.unicode.sse",
        "anthropic.no-args.sse",
        "anthropic.text.sse",
        "openai-chat.single.sse",
        "openai-chat.parallel.sse",
        "openai-chat.unicode.sse",
        "openai-chat.interleaved.sse",
        "openai-chat.escape-split.sse",
        "openai-chat.no-args.sse",
        "openai-chat.text.sse",
    ] {
        let expect_path = support::streams_dir().join(format!("{name}.expect.json"));
        let expect: Value =
            serde_json::from_str(&std::fs::read_to_string(expect_path).unwrap()).unwrap();
        let (text, calls) = replay(name);
        assert_eq!(text, expect["text"], "{name}");
        let want = expect["calls"].as_array().unwrap();
        assert_eq!(calls.len(), want.len(), "{name}");
        for (got, want) in calls.iter().zip(want) {
            assert_eq!(got["name"], want["name"], "{name}");
            assert_eq!(got["arguments"], want["arguments"], "{name}");
            if !want["id"].is_null() {
                assert_eq!(got["id"], want["id"], "{name}");
            }
        }
    }
}

#[test]
fn parse_reports_reasoning_and_takes_the_reasoning_options() {
    let dir = tempfile::tempdir().unwrap();
    let tools = dir.path().join("tools.json");
    std::fs::write(&tools, TOOLS).unwrap();
    let tools = tools.to_str().unwrap();
    // Opened by the prompt: only the closing tag is in the output.
    let input = deltas(&[
        "Need Oslo.\n</th",
        "ink>\n\n<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}}</tool_call>",
    ]);
    let (ok, stdout, stderr) = run_parse(
        &["--tools", tools, "--summary", "--start-in-reasoning"],
        &input,
    );
    assert!(ok, "{stderr}");
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["reasoning"], "Need Oslo.\n");
    assert_eq!(summary["text"], "");
    assert_eq!(summary["calls"][0]["arguments"], json!({"city": "Oslo"}));
    // Without the option the same output is text with a stray closing tag.
    let (ok, stdout, _) = run_parse(&["--tools", tools, "--summary"], &input);
    assert!(ok);
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["text"], "Need Oslo.\n</think>\n\n");
    assert!(summary.get("reasoning").is_none());
    // `<think>` mid-text is text unless asked for.
    let input = deltas(&["So <think>x</think> y"]);
    let (_, stdout, _) = run_parse(&["--summary"], &input);
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["text"], "So <think>x</think> y");
    let (_, stdout, _) = run_parse(&["--summary", "--reasoning-anywhere"], &input);
    let summary: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(summary["text"], "So  y");
    assert_eq!(summary["reasoning"], "x");
    // An unknown dialect name is refused.
    let (ok, _, stderr) = run_parse(&["--text-format", "klingon"], "");
    assert!(!ok);
    assert!(stderr.contains("klingon"), "{stderr}");
}
