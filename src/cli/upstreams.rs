//! `toolrouter upstreams --config FILE`: connect to every upstream MCP server of a
//! configuration and list their tools with their source.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use toolrouter::ToolRegistry;
use toolrouter::{
    Gateway, GatewayConfig, UpstreamState, render_tool_listing, render_upstream_status,
    tool_listing,
};

/// The help's examples.
const EXAMPLES: &str = r#"
  # Claude Desktop's servers, each with its state and tools
  toolrouter upstreams --config ~/.config/Claude/claude_desktop_config.json
  # A toolrouter.toml
  toolrouter upstreams -c toolrouter.toml
"#;

/// Arguments of `toolrouter upstreams`.
#[derive(Debug, Args)]
#[command(after_help = super::help::examples(EXAMPLES))]
pub(crate) struct UpstreamsArgs {
    /// An `mcpServers` JSON file (Claude Desktop, Cursor, VS Code) or a
    /// `toolrouter.toml`.
    #[arg(long, short)]
    config: PathBuf,
}

/// Runs the command: connects, prints each upstream's state and every tool
/// with its source, then stops the upstreams. Fails when an upstream is not ready.
pub(crate) fn run(args: UpstreamsArgs) -> Result<(), String> {
    let config = GatewayConfig::load(&args.config).map_err(|e| e.to_string())?;
    super::setup::runtime()?.block_on(async {
        let registry = Arc::new(ToolRegistry::new());
        let gateway = Gateway::start(&config, registry.clone()).await;
        let status = gateway.status();
        let rows = tool_listing(&registry, Some(&gateway));
        print!("{}", render_upstream_status(&status));
        println!();
        print!("{}", render_tool_listing(&rows));
        gateway.shutdown().await;
        let not_ready = status
            .iter()
            .filter(|s| s.state != UpstreamState::Ready)
            .count();
        if not_ready == 0 {
            Ok(())
        } else {
            Err(format!(
                "{not_ready} of {} upstreams are not ready",
                status.len()
            ))
        }
    })
}
