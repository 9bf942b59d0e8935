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
    let out = stdout(&run(&[
        "tools",
        "--no-builtins",
        "--tools",
        &file,
        "--json",
    ]));
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
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
        "ollama",
        "xml-text",
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
        declarations["openai-chat"]["strict_tools"][0],
        json!({"type": "function", "function": {
            "name": "get_time", "description": "Current time",
            "parameters": {"type": "object", "properties": {}, "required": [],
                           "additionalProperties": false},
            "strict": true}})
    );
    assert_eq!(
        declarations["openai-chat"]["functions"][0],
        json!({"name": "get_time", "description": "Current time",
               "parameters": {"type": "object"}})
    );
    let prompt = declarations["xml-text"]["system_prompt"]
        .as_str()
        .expect("prompt text");
    assert!(prompt.contains("- path (string, required)"), "{prompt}");
}

#[test]
fn tools_text_for_one_dialect() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = tools_file(&dir);
    let out = stdout(&run(&[
        "tools",
        "--no-builtins",
        "--tools",
        &file,
        "--dialect",
        "gemini",
    ]));
    assert!(
        out.starts_with("TOOL       SOURCE       DESCRIPTION\n"),
        "{out}"
    );
    assert!(
        out.contains("read_file  schema-only  Read a file.\n"),
        "{out}"
    );
    assert!(out.contains("== gemini: tools ==\n"), "{out}");
    assert!(!out.contains("== anthropic"), "{out}");
    assert!(
        out.contains("note: read_file /: dropped: `$schema` dropped"),
        "{out}"
    );
}

/// The names `toolrouter tools --json` lists with `extra` flags.
fn listed_tool_names(extra: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    let workspace = dir.path().to_str().expect("utf-8 path");
    let mut command = vec!["tools", "--workspace", workspace, "--json"];
    command.extend_from_slice(extra);
    let doc: Value = serde_json::from_str(&stdout(&run(&command))).expect("json");
    doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[test]
fn tools_lists_the_read_only_builtins_by_default() {
    assert_eq!(
        listed_tool_names(&[]),
        ["calculate", "list_files", "read_file", "search_files"]
    );
    assert_eq!(
        listed_tool_names(&["--allow-write"]),
        [
            "calculate",
            "list_files",
            "read_file",
            "search_files",
            "write_to_file"
        ]
    );
}

#[test]
fn a_configuration_naming_write_to_file_needs_allow_write() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("toolrouter.toml");
    std::fs::write(&config, "builtins = [\"read_file\", \"write_to_file\"]\n").expect("write");
    let config = config.to_str().expect("utf-8 path");
    let refused = run(&["tools", "--config", config]);
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("turns on `write_to_file`, which changes files: pass --allow-write"),
        "{stderr}"
    );
    let out = stdout(&run(&[
        "tools",
        "--config",
        config,
        "--allow-write",
        "--json",
    ]));
    let doc: Value = serde_json::from_str(&out).expect("json");
    let names: Vec<&str> = doc["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["read_file", "write_to_file"]);
}

#[test]
fn tools_without_any_source_says_none_are_registered() {
    let out = stdout(&run(&["tools", "--no-builtins"]));
    assert!(out.contains("no tools registered"), "{out}");
    let doc: Value =
        serde_json::from_str(&stdout(&run(&["tools", "--no-builtins", "--json"]))).expect("json");
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
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("invalid value 'openai' for '--dialect <NAME|all>'"),
        "{stderr}"
    );

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
