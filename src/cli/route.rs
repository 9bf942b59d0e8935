//! `toolrouter route`: replay a recorded provider stream through the router,
//! running the calls with the built-in tools — the main job.
//!
//! Exit codes: 0 when the turn ended without an error; 1 when the stream
//! ended in an error (a provider error, a stream that ended before the
//! provider finished, a turn over `--max-turn-bytes`); 2 for a usage error (a
//! bad flag or value, an unknown provider or text format, tools that cannot
//! be set up; clap's own errors are 2 too); 3 for an I/O error (the recording
//! cannot be read, the output cannot be written).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use futures::StreamExt;
use tokio::io::AsyncReadExt as _;
use toolrouter::DetectConfig;
use toolrouter::providers::find_profile;
use toolrouter::{Hub, TurnOutcome};

use super::detect_args::DetectArgs;
use super::help::examples;
use super::names::PROVIDER;
use super::setup::{ToolSetupArgs, Upstreams, with_tools};
use super::size::{parse_size, show_size};
use super::transcript::Transcript;

/// The default of `--max-turn-bytes`: 64 MiB.
const DEFAULT_MAX_TURN_BYTES: u64 = 64 << 20;

/// The help's examples.
const EXAMPLES: &str = r#"
  # Replay a recorded OpenAI stream, running its calls with the built-in tools
  toolrouter route --provider openai recording.sse
  # One JSON object: the turn's text, calls, results and stop
  toolrouter route --provider anthropic --summary recording.sse
  # Events as JSON Lines, the stream fed one byte at a time
  toolrouter route --provider vllm --json --chunk 1 recording.sse
  # A Responses API recording, with the tools of an MCP configuration
  toolrouter route --provider openai-responses --config mcp.json recording.sse
"#;

/// Arguments of `toolrouter route`.
#[derive(Debug, Args)]
#[command(after_help = examples(EXAMPLES))]
pub(crate) struct RouteArgs {
    /// The provider the stream was recorded from: a profile (its name or one
    /// of its other names) or a wire a profile offers (`openai-responses`).
    /// Its wire is read and its dialects are detected in the text.
    #[arg(long, value_name = "NAME", value_parser = PROVIDER)]
    provider: String,
    /// The recorded response body, exactly as the provider sent it.
    file: PathBuf,
    /// Print the events as JSON Lines.
    #[arg(long, conflicts_with = "summary")]
    json: bool,
    /// Print one JSON object: the turn's summary plus `results`.
    #[arg(long)]
    summary: bool,
    /// Where the tools come from.
    #[command(flatten)]
    setup: ToolSetupArgs,
    /// Detector options.
    #[command(flatten)]
    detect: DetectArgs,
    /// Feed the stream in pieces of this size, as a network would cut it.
    #[arg(long, value_name = "SIZE", value_parser = parse_size::<usize>,
          default_value = show_size(4096))]
    chunk: usize,
    /// The most bytes one turn may take; past it the turn ends with an error
    /// (and exit code 1). What the turn holds (its text) stays below it.
    #[arg(long, value_name = "SIZE", value_parser = parse_size::<u64>,
          default_value = show_size(DEFAULT_MAX_TURN_BYTES))]
    max_turn_bytes: u64,
}

/// Why `route` could not do its job (a stream that ended in an error is not
/// one: it is reported and gives exit code 1).
enum Failure {
    /// A bad flag or value.
    Usage(String),
    /// The recording or the output.
    Io(String),
}

/// Runs the command; the exit code is as the module says.
pub(crate) fn run(args: RouteArgs) -> ExitCode {
    let ended = with_tools(&args.setup, Upstreams::Wait, async |setup| {
        Ok(route(&args, &setup.hub).await)
    })
    .unwrap_or_else(|e| Err(Failure::Usage(e)));
    match ended {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(Failure::Usage(e)) => {
            eprintln!("toolrouter: {e}");
            ExitCode::from(2)
        }
        Err(Failure::Io(e)) => {
            eprintln!("toolrouter: {e}");
            ExitCode::from(3)
        }
    }
}

/// Routes the recording; `true` when the turn ended in an error.
async fn route(args: &RouteArgs, hub: &Hub) -> Result<bool, Failure> {
    let found = find_profile(&args.provider).map_err(|e| Failure::Usage(e.to_string()))?;
    let detect = args
        .detect
        .config(DetectConfig::default(), &found.profile.text_formats)
        .map_err(Failure::Usage)?;
    let file = tokio::fs::File::open(&args.file)
        .await
        .map_err(|e| Failure::Io(format!("cannot read {}: {e}", args.file.display())))?;
    let pieces = pieces(file, &args.file, args.chunk.max(1), args.max_turn_bytes);
    let started = std::time::Instant::now();
    let mut events = hub.router().detect_config(detect).route(found.wire, pieces);

    let io = |e: std::io::Error| Failure::Io(format!("cannot write the output: {e}"));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut outcome = TurnOutcome::new(found.wire);
    let mut transcript = Transcript::default();
    while let Some(event) = events.next().await {
        outcome.push(&event);
        if args.json {
            serde_json::to_writer(&mut out, &event).map_err(|e| io(e.into()))?;
            writeln!(out).map_err(io)?;
        } else if !args.summary {
            transcript
                .write(&mut out, &event, started)
                .map_err(Failure::Io)?;
        }
    }
    if args.summary {
        // The text moves into the summary instead of being copied.
        let text = std::mem::take(&mut outcome.text);
        let mut summary = outcome.summary();
        summary["text"] = serde_json::Value::String(text);
        serde_json::to_writer_pretty(&mut out, &summary).map_err(|e| io(e.into()))?;
        writeln!(out).map_err(io)?;
    } else if !args.json {
        transcript.close(&mut out).map_err(Failure::Io)?;
    }
    out.flush().map_err(io)?;
    if let Some(error) = &outcome.error {
        tracing::debug!(%error, "the stream ended in an error");
    }
    Ok(outcome.ended_in_error())
}

/// The recording read in pieces of `chunk` bytes as the router asks for them
/// (never all of it at once), ending with an error past `max_turn_bytes`.
fn pieces(
    file: tokio::fs::File,
    path: &Path,
    chunk: usize,
    max_turn_bytes: u64,
) -> impl futures::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + 'static {
    let path = path.display().to_string();
    futures::stream::unfold((Some(file), 0u64), move |(file, read)| {
        let path = path.clone();
        async move {
            let mut file = file?;
            if read > max_turn_bytes {
                let message =
                    format!("the turn is over the {max_turn_bytes}-byte limit (--max-turn-bytes)");
                return Some((Err(std::io::Error::other(message)), (None, read)));
            }
            let mut piece = vec![0; chunk];
            let mut filled = 0;
            while filled < chunk {
                match file.read(&mut piece[filled..]).await {
                    Ok(0) => break,
                    Ok(n) => filled += n,
                    Err(e) => {
                        let e = std::io::Error::new(e.kind(), format!("cannot read {path}: {e}"));
                        return Some((Err(e), (None, read)));
                    }
                }
            }
            if filled == 0 {
                return None;
            }
            piece.truncate(filled);
            let read = read + filled as u64;
            Some((Ok(piece), (Some(file), read)))
        }
    })
}
