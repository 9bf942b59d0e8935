//! The `toolrouter` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// Route model tool calls to tools, in every provider's dialect.
#[derive(Debug, Parser)]
#[command(name = "toolrouter", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the registered tools and print their declaration in every dialect.
    Tools(cli::tools::ToolsArgs),
    /// Serve the tools as an MCP server over stdio or Streamable HTTP.
    Serve(cli::serve::ServeArgs),
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("TOOLROUTER_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Tools(args) => cli::tools::run(args),
        Command::Serve(args) => cli::serve::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolrouter: {e}");
            ExitCode::FAILURE
        }
    }
}
