//! Set-up shared by the `route` and `chat` commands: the async runtime, and a
//! hub with the built-in tools plus any tools given by schema alone.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolrouter::registry::tool_from_list_entry;
use toolrouter::{BuiltinsConfig, Hub, register_builtins};

/// A multi-threaded runtime with every driver enabled.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// A fresh hub with the built-in tools rooted at `workspace` (default: the
/// current directory) and the tools of `tools_file` registered by schema alone.
pub(crate) fn hub_with_tools(
    workspace: Option<&Path>,
    tools_file: Option<&Path>,
) -> Result<Hub, String> {
    let hub = Hub::new();
    let workspace = match workspace {
        Some(dir) => dir.to_path_buf(),
        None => std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?,
    };
    register_builtins(hub.registry(), &BuiltinsConfig::new(workspace))
        .map_err(|e| e.to_string())?;
    if let Some(path) = tools_file {
        register_schema_only(&hub, path)?;
    }
    Ok(hub)
}

/// Registers every entry of a JSON file of MCP `tools/list` entries (an array,
/// or an object with a `tools` array) by schema alone.
fn register_schema_only(hub: &Hub, path: &Path) -> Result<(), String> {
    let shown = PathBuf::from(path);
    let shown = shown.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{shown} is not JSON: {e}"))?;
    let entries = match &value {
        Value::Array(entries) => entries.as_slice(),
        Value::Object(map) => match map.get("tools") {
            Some(Value::Array(entries)) => entries.as_slice(),
            _ => return Err(format!("{shown}: expected an array of tools")),
        },
        _ => return Err(format!("{shown}: expected an array of tools")),
    };
    for entry in entries {
        let tool = tool_from_list_entry(entry).map_err(|e| format!("{shown}: {e}"))?;
        hub.registry()
            .register_schema_only(tool)
            .map_err(|e| format!("{shown}: {e}"))?;
    }
    Ok(())
}
