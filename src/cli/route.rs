//! `toolrouter route`: replay a recorded provider stream through the router,
//! running the calls with the built-in tools — the main job.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use futures::StreamExt;
use toolrouter::DetectConfig;
use toolrouter::providers::find_profile;
use toolrouter::{Hub, TurnOutcome};

use super::detect_args::DetectArgs;
use super::setup::{ToolSetupArgs, with_tools};
use super::transcript::Transcript;

/// Arguments of `toolrouter route`.
#[derive(Debug, Args)]
pub(crate) struct RouteArgs {
    /// The provider: a profile name (`openai`, `anthropic`, `groq`, ...) or a wire
    /// name (`openai-chat`, `openai-responses`, `anthropic`, `gemini`, `vertex`,
    /// `ollama`, `bedrock`, `mistral`, `openai-compat`).
    #[arg(long, value_name = "NAME")]
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
    /// Feed the stream in pieces of this many bytes, as a network would cut it.
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    chunk: usize,
}

/// Runs the command.
pub(crate) fn run(args: RouteArgs) -> Result<(), String> {
    with_tools(&args.setup, async |setup| route(&args, &setup.hub).await)
}

async fn route(args: &RouteArgs, hub: &Hub) -> Result<(), String> {
    let found = find_profile(&args.provider).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;

    let chunk = args.chunk.max(1);
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(chunk).map(|c| Ok(c.to_vec())).collect();
    let detect = args
        .detect
        .config(DetectConfig::default(), &found.profile.text_formats)?;
    let started = std::time::Instant::now();
    let mut events = hub
        .router()
        .detect_config(detect)
        .route(found.wire, futures::stream::iter(pieces));

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut outcome = TurnOutcome::new(found.wire);
    let mut transcript = Transcript::default();
    while let Some(event) = events.next().await {
        outcome.push(&event);
        if args.json {
            let line = serde_json::to_string(&event).map_err(|e| e.to_string())?;
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        } else if !args.summary {
            transcript.write(&mut out, &event, started)?;
        }
    }
    if args.summary {
        let text = serde_json::to_string_pretty(&outcome.summary()).map_err(|e| e.to_string())?;
        writeln!(out, "{text}").map_err(|e| e.to_string())?;
    } else if !args.json {
        transcript.close(&mut out)?;
    }
    Ok(())
}
