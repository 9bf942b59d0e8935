//! The `toolrouter` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

/// jemalloc, whose background thread returns freed memory to the system
/// (glibc's malloc keeps a burst's worth: 20,000 expired sessions stayed as
/// 1.2 GB resident).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Route model tool calls to tools, in every provider's dialect.
#[derive(Debug, Parser)]
#[command(name = "toolrouter", version, about)]
struct Cli {
    /// How log lines are written on stderr: `text`, or `json` (one object a
    /// line, with the fields of the span it was written in). `TOOLROUTER_LOG`
    /// sets the level (default `warn`).
    #[arg(long, global = true, value_enum, default_value_t = cli::log::LogFormat::Text)]
    log_format: cli::log::LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay a recorded provider stream through the router and run its calls.
    Route(cli::route::RouteArgs),
    /// Chat with a live endpoint: stream its answers, run its calls, send the results back.
    Chat(cli::chat::ChatArgs),
    /// List the registered tools and print their declaration in every dialect.
    Tools(cli::tools::ToolsArgs),
    /// Connect to the MCP servers of a configuration and list their tools.
    Upstreams(cli::upstreams::UpstreamsArgs),
    /// Serve the tools as an MCP server over stdio or Streamable HTTP.
    Serve(cli::serve::ServeArgs),
    /// Replay a captured stream of text deltas through the tool-call detector.
    Parse(cli::parse::ParseArgs),
    /// Serve an OpenAI-compatible API in front of a model server: calls written
    /// in the text come back as structured tool calls.
    Proxy(cli::proxy::ProxyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    cli::log::init(cli.log_format);
    let outcome = match cli.command {
        // `route` has its own exit codes (docs: README, Commands).
        Command::Route(args) => return cli::route::run(args),
        Command::Chat(args) => cli::chat::run(args),
        Command::Tools(args) => cli::tools::run(args),
        Command::Upstreams(args) => cli::upstreams::run(args),
        Command::Serve(args) => cli::serve::run(args),
        Command::Parse(args) => cli::parse::run(args),
        Command::Proxy(args) => cli::proxy::run(args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toolrouter: {e}");
            ExitCode::FAILURE
        }
    }
}
