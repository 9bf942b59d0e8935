//! Shared test glue: real external peers (Python `mcp` and `openai` SDKs, npm MCP
//! servers), a loopback model server replaying recorded streams, and paths to
//! the recorded streams and test scripts under `tests/data/`.

#![allow(dead_code, unreachable_pub)]

pub mod client;
pub mod ext;
pub mod replay;

use std::path::PathBuf;

use toolrouter::rmcp::model::{CallToolResult, ContentBlock};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The recorded provider streams, each beside its `.expect.json`:
/// `tests/data/streams`, or the folder `TOOLROUTER_STREAMS_DIR` names (CI
/// points it at a newer copy of the same fixtures to check them too).
pub fn streams_dir() -> PathBuf {
    match std::env::var_os("TOOLROUTER_STREAMS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => repo_root().join("tests").join("data").join("streams"),
    }
}

/// The MCP client check written with the official Python SDK
/// (`tests/data/conformance/pyclient.py`).
pub fn pyclient() -> PathBuf {
    repo_root()
        .join("tests")
        .join("data")
        .join("conformance")
        .join("pyclient.py")
}

/// The built `toolrouter` binary.
pub fn toolrouter_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolrouter"))
}

/// The text blocks of a result, joined by newlines.
pub fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs a client program (a real SDK's app) to its end, at most two minutes,
/// and gives the JSON object of its last stdout line; a failed run fails the
/// test with its stderr. A client still running at the deadline is killed, so
/// that nothing is left for the test's runtime to wait on.
pub async fn run_json_client(command: std::process::Command) -> serde_json::Value {
    let mut command = tokio::process::Command::from(command);
    command.kill_on_drop(true);
    let output = tokio::time::timeout(std::time::Duration::from_secs(120), command.output())
        .await
        .expect("the client finished within two minutes")
        .expect("start the client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.lines().last().unwrap_or("")).expect("a JSON line")
}
