//! `toolrouter tools`: list the registered tools.

use clap::Args;

/// Arguments of `toolrouter tools`.
#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {}

/// Runs the command.
pub(crate) fn run(_args: ToolsArgs) -> Result<(), String> {
    Ok(())
}
