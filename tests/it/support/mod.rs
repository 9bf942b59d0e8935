//! Shared test glue: real external peers (Python `mcp` SDK, npm MCP servers) and
//! paths to the shared fixtures.

#![allow(dead_code, unreachable_pub)]

pub mod ext;

use std::path::PathBuf;

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
