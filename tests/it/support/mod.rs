//! Shared test glue: real external peers (Python `mcp` and `openai` SDKs, npm MCP
//! servers), a loopback model server replaying recorded streams, and paths to
//! the shared fixtures.

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

/// `../shared` beside the repository root (fixtures, conformance scripts).
pub fn shared_dir() -> PathBuf {
    repo_root().join("..").join("shared")
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
