//! Hub set-up shared by the commands that run tools: built-ins, schema-only
//! tools from a `tools/list` file, and upstream MCP servers from a configuration.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::Value;
use toolrouter::rmcp::model::Tool;
use toolrouter::tool_from_list_entry;
use toolrouter::{BUILTIN_TOOL_NAMES, BuiltinsConfig, Hub, register_builtins};
use toolrouter::{Gateway, GatewayConfig, UpstreamState};

/// Where a command's tools come from.
#[derive(Debug, Args)]
pub(crate) struct ToolSetupArgs {
    /// Root of the built-in file tools (default: the configuration's
    /// `workspace`, else the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) workspace: Option<PathBuf>,
    /// Extra tools by schema alone: a JSON array of MCP `tools/list` entries (or a
    /// whole `tools/list` result). Their calls are parsed and validated; running one
    /// gives an `isError` result saying that no handler is registered.
    #[arg(long, value_name = "FILE")]
    pub(crate) tools: Option<PathBuf>,
    /// Upstream MCP servers: an `mcpServers` JSON file (Claude Desktop, Cursor,
    /// VS Code) or a `toolrouter.toml`; their tools join the built-ins.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// Leave the built-in tools off.
    #[arg(long)]
    pub(crate) no_builtins: bool,
    /// Declare the built-in tools that change files (`write_to_file`, and any
    /// built-in not annotated read-only). Without it, a model or MCP client
    /// sees only the read-only built-ins.
    #[arg(long)]
    pub(crate) allow_write: bool,
}

/// When a command's upstream servers' tools must be there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Upstreams {
    /// Before the command begins: each upstream has made its first
    /// connection attempt (bounded by its connect timeout). For commands
    /// that declare the whole tool list once.
    Wait,
    /// Whenever each connects: the command begins at once (a server, whose
    /// clients hear `tools/list_changed`).
    Background,
}

/// A hub with its tools, and the gateway that keeps upstream tools alive.
pub(crate) struct ToolSetup {
    pub(crate) hub: Hub,
    pub(crate) gateway: Option<Gateway>,
}

impl ToolSetup {
    /// Builds the hub: built-ins first (so a colliding upstream tool is the one
    /// reported), then schema-only tools, then upstreams.
    pub(crate) async fn build(args: &ToolSetupArgs, upstreams: Upstreams) -> Result<Self, String> {
        let config = match &args.config {
            Some(path) => Some(GatewayConfig::load(path).map_err(|e| e.to_string())?),
            None => None,
        };
        let hub = Hub::new();
        // The configuration may list built-ins; without a list, every built-in
        // that `register_builtins` declares (the writing ones need --allow-write).
        let listed = config.as_ref().and_then(|c| c.builtins.clone());
        let explicit = listed.is_some();
        let wanted: Vec<String> = match listed {
            _ if args.no_builtins => Vec::new(),
            Some(names) => names,
            None => BUILTIN_TOOL_NAMES.iter().map(|n| (*n).to_owned()).collect(),
        };
        if let Some(unknown) = wanted
            .iter()
            .find(|n| !BUILTIN_TOOL_NAMES.contains(&n.as_str()))
        {
            return Err(format!(
                "unknown built-in tool `{unknown}` (built-ins: {})",
                BUILTIN_TOOL_NAMES.join(", ")
            ));
        }
        if !wanted.is_empty() {
            let workspace = match (
                &args.workspace,
                config.as_ref().and_then(|c| c.workspace.clone()),
            ) {
                (Some(dir), _) => dir.clone(),
                (None, Some(dir)) => dir,
                (None, None) => {
                    std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?
                }
            };
            let mut builtins = BuiltinsConfig::new(workspace);
            builtins.allow_write = args.allow_write;
            let registered =
                register_builtins(hub.registry(), &builtins).map_err(|e| e.to_string())?;
            let held_back = wanted.iter().find(|w| !registered.contains(w));
            if let Some(held_back) = held_back.filter(|_| explicit) {
                return Err(format!(
                    "the configuration turns on `{held_back}`, which changes files: \
                     pass --allow-write to declare it"
                ));
            }
            for name in BUILTIN_TOOL_NAMES {
                if !wanted.iter().any(|w| w == name) {
                    hub.registry().remove(name);
                }
            }
        }
        if let Some(path) = &args.tools {
            for tool in read_tools(path)? {
                hub.registry()
                    .register_schema_only(tool)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        let gateway = match &config {
            Some(config) if upstreams == Upstreams::Background => {
                Some(Gateway::spawn(config, hub.registry().clone()))
            }
            Some(config) => {
                let gateway = Gateway::start(config, hub.registry().clone()).await;
                for status in gateway.status() {
                    if status.state != UpstreamState::Ready {
                        eprintln!(
                            "toolrouter: upstream `{}` is not ready ({})",
                            status.name, status.state
                        );
                    }
                }
                Some(gateway)
            }
            None => None,
        };
        Ok(Self { hub, gateway })
    }

    /// Stops the upstream servers.
    pub(crate) async fn shutdown(self) {
        if let Some(gateway) = self.gateway {
            gateway.shutdown().await;
        }
    }
}

/// Reads MCP `tools/list` entries: an array, or an object with a `tools` array.
pub(crate) fn read_tools(path: &Path) -> Result<Vec<Tool>, String> {
    read_tool_entries(path)?
        .iter()
        .enumerate()
        .map(|(idx, entry)| {
            tool_from_list_entry(entry).map_err(|e| format!("{} entry {idx}: {e}", path.display()))
        })
        .collect()
}

/// The raw entries of a `tools/list` file (an array, or an object with a
/// `tools` array), for callers that read them more leniently than `read_tools`.
pub(crate) fn read_tool_entries(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    match value {
        Value::Array(entries) => Ok(entries),
        Value::Object(mut map) => match map.remove("tools") {
            Some(Value::Array(entries)) => Ok(entries),
            _ => Err(format!("{}: expected an array of tools", path.display())),
        },
        _ => Err(format!("{}: expected an array of tools", path.display())),
    }
}

/// Runs `job` on a fresh runtime with the tools `args` set up, then stops the
/// upstream servers, whatever `job` returned.
pub(crate) fn with_tools<T>(
    args: &ToolSetupArgs,
    upstreams: Upstreams,
    job: impl AsyncFnOnce(&ToolSetup) -> Result<T, String>,
) -> Result<T, String> {
    runtime()?.block_on(async {
        let setup = ToolSetup::build(args, upstreams).await?;
        let outcome = job(&setup).await;
        setup.shutdown().await;
        outcome
    })
}

/// A multi-threaded runtime for one command.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}
