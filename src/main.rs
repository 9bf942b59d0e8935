//! The `toolrouter` command line.

use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};

mod cli;

/// jemalloc, whose background thread returns freed memory to the system
/// (glibc's malloc keeps a burst's worth: 20,000 expired sessions stayed as
/// 1.2 GB resident).
#[cfg(all(feature = "jemalloc", not(target_env = "msvc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The help's examples.
const EXAMPLES: &str = r#"
  # Replay a recorded provider stream, running its calls
  toolrouter route --provider openai recording.sse
  # A proxy in front of a local vLLM server, for OpenAI and Anthropic SDK clients
  toolrouter proxy --listen 127.0.0.1:4000 --upstream http://127.0.0.1:8000/v1 --provider vllm
  # The built-in tools as an MCP server over stdio
  toolrouter serve --stdio
  # A command's own options and examples
  toolrouter help proxy
"#;

/// Route model tool calls to tools, in every provider's dialect.
#[derive(Debug, Parser)]
#[command(name = "toolrouter", version, about, after_help = cli::help::examples(EXAMPLES))]
struct Cli {
    /// How log lines are written on stderr: `text`, or `json` (one object a
    /// line, with the fields of the span it was written in). `TOOLROUTER_LOG`
    /// sets the level (default `warn`).
    #[arg(long, global = true, value_enum, default_value_t = cli::log::LogFormat::Text,
          help_heading = cli::help::GLOBAL_OPTIONS)]
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
    /// Serve the OpenAI Chat Completions, OpenAI Responses and Anthropic
    /// Messages APIs in front of a model server: calls written in the text come
    /// back as structured tool calls.
    Proxy(cli::proxy::ProxyArgs),
}

fn main() -> ExitCode {
    let cli = Cli::try_parse().unwrap_or_else(|e| without_quoting_tip(e).exit());
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

/// clap's error without the tip it adds to an unknown flag of any command
/// that takes a positional argument (`route FILE`, `parse [INPUT]`): "to pass
/// '--verbose' as a value, use '-- --verbose'" reads as if the flag were right
/// and only needed quoting. Its other tips (a flag of a similar name) stay.
fn without_quoting_tip(mut error: clap::Error) -> clap::Error {
    if error.kind() != ErrorKind::UnknownArgument {
        return error;
    }
    if let Some(ContextValue::StyledStrs(tips)) = error.remove(ContextKind::Suggested) {
        let kept: Vec<_> = tips
            .into_iter()
            .filter(|tip| !tip.to_string().starts_with("to pass "))
            .collect();
        if !kept.is_empty() {
            error.insert(ContextKind::Suggested, ContextValue::StyledStrs(kept));
        }
    }
    error
}
