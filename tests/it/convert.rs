//! `toolrouter tools`: the converters seen through the command line.

use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::toolrouter_bin;

fn run(args: &[&str]) -> Output {
    Command::new(toolrouter_bin())
        .args(args)
        .env("TOOLROUTER_LOG", "error")
        .output()
        .expect("run toolrouter")
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "toolrouter failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("utf-8")
}

fn tools_file(dir: &tempfile::TempDir) -> String {
    let path = dir.path().join("tools.json");
    let tools = json!([
        {"name": "read_file", "description": "Read a file.", "inputSchema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"]}},
        {"name": "get_time", "title": "Current time", "inputSchema": {"type": "object"}}
    ]);
    std::fs::write(&path, tools.to_string()).expect("write tools file");
    path.to_str().expect("utf-8 path").to_owned()
}

#[test]
fn tools_json_prints_every_dialect() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = tools_file(&dir);
    let out = stdout(&run(&["tools", "--tools", &file, "--json"]));
    let doc: Value = serde_json::from_str(&out).expect("json output");
    let names: Vec<&str> = doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["get_time", "read_file"], "listed in name order");
    let declarations = &doc["declarations"];
    for dialect in [
        "open_ai_chat",
        "open_ai_responses",
        "anthropic",
        "gemini",
        "bedrock",
        "ollama",
        "xml_text",
    ] {
        assert!(declarations.get(dialect).is_some(), "{dialect} missing");
    }
    assert_eq!(
        declarations["anthropic"]["tools"][1],
        json!({"name": "read_file", "description": "Read a file.", "input_schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"]}})
    );
    assert_eq!(
        declarations["gemini"]["tools"],
        json!([{"functionDeclarations": [
            {"name": "get_time", "description": "Current time"},
            {"name": "read_file", "description": "Read a file.", "parameters": {
                "type": "OBJECT",
                "properties": {"path": {"type": "STRING"}},
                "required": ["path"]}}
        ]}])
    );
    assert_eq!(
        declarations["gemini"]["notes"][0]["kind"],
        json!("dropped"),
        "the dropped $schema is reported"
    );
    assert_eq!(
        declarations["open_ai_chat"]["strict_tools"][0],
        json!({"type": "function", "function": {
            "name": "get_time", "description": "Current time",
            "parameters": {"type": "object", "properties": {}, "required": [],
                           "additionalProperties": false},
            "strict": true}})
    );
    assert_eq!(
        declarations["open_ai_chat"]["functions"][0],
        json!({"name": "get_time", "description": "Current time",
               "parameters": {"type": "object"}})
    );
    let prompt = declarations["xml_text"]["system_prompt"]
        .as_str()
        .expect("prompt text");
    assert!(prompt.contains("- path (string, required)"), "{prompt}");
}

#[test]
fn tools_text_for_one_dialect() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = tools_file(&dir);
    let out = stdout(&run(&["tools", "--tools", &file, "--dialect", "gemini"]));
    assert!(out.starts_with("2 tools registered:\n"), "{out}");
    assert!(out.contains("read_file  Read a file.\n"), "{out}");
    assert!(out.contains("== gemini: tools ==\n"), "{out}");
    assert!(!out.contains("== anthropic"), "{out}");
    assert!(
        out.contains("note: read_file /: dropped: `$schema` dropped"),
        "{out}"
    );
}

#[test]
fn tools_without_a_file_says_none_are_registered() {
    let out = stdout(&run(&["tools"]));
    assert!(out.starts_with("no tools registered"), "{out}");
    let doc: Value = serde_json::from_str(&stdout(&run(&["tools", "--json"]))).expect("json");
    assert_eq!(doc["tools"], json!([]));
    assert!(
        doc["message"]
            .as_str()
            .expect("message")
            .contains("--tools FILE")
    );
}

#[test]
fn tools_rejects_unknown_dialects_and_bad_files() {
    let out = run(&["tools", "--dialect", "openai"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown dialect `openai`"));

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        r#"[{"name": "has space", "inputSchema": {"type": "object"}}]"#,
    )
    .expect("write");
    let out = run(&["tools", "--tools", path.to_str().expect("path")]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("entry 0"), "{stderr}");
}
