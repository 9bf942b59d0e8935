//! `toolrouter route`: replay a recorded provider stream through the router,
//! running the calls with the built-in tools — the main job.

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use futures::StreamExt;
use rmcp::model::{CallToolResult, ContentBlock};
use toolrouter::providers::find_profile;
use toolrouter::{Hub, RouteEvent, TurnOutcome};

use super::setup::{ToolSetup, ToolSetupArgs, runtime};

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
    /// Feed the stream in pieces of this many bytes, as a network would cut it.
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    chunk: usize,
}

/// Runs the command.
pub(crate) fn run(args: RouteArgs) -> Result<(), String> {
    runtime()?.block_on(async {
        let setup = ToolSetup::build(&args.setup).await?;
        let outcome = route(&args, &setup.hub).await;
        setup.shutdown().await;
        outcome
    })
}

async fn route(args: &RouteArgs, hub: &Hub) -> Result<(), String> {
    let found = find_profile(&args.provider).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&args.file)
        .map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;

    let chunk = args.chunk.max(1);
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        bytes.chunks(chunk).map(|c| Ok(c.to_vec())).collect();
    let started = std::time::Instant::now();
    let mut events = hub.router().route(found.wire, futures::stream::iter(pieces));

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut outcome = TurnOutcome::new();
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

/// The readable transcript: text as it streams, one line per call and result.
#[derive(Default)]
struct Transcript {
    mid_line: bool,
}

impl Transcript {
    fn line(&mut self, out: &mut impl std::io::Write, line: &str) -> Result<(), String> {
        if self.mid_line {
            writeln!(out).map_err(|e| e.to_string())?;
            self.mid_line = false;
        }
        writeln!(out, "{line}").map_err(|e| e.to_string())
    }

    fn write(
        &mut self,
        out: &mut impl std::io::Write,
        event: &RouteEvent,
        started: std::time::Instant,
    ) -> Result<(), String> {
        let at = started.elapsed().as_secs_f64() * 1000.0;
        match event {
            RouteEvent::Text { text } => {
                write!(out, "{text}").map_err(|e| e.to_string())?;
                self.mid_line = !text.ends_with('\n');
                Ok(())
            }
            RouteEvent::Reasoning { text } => self.line(out, &format!("[thinking] {text}")),
            RouteEvent::Refusal { text } => self.line(out, &format!("[refusal] {text}")),
            RouteEvent::CallEnd { index, call } => self.line(
                out,
                &format!(
                    "→ call #{index} {} {} [{}, id {}] at {at:.1} ms",
                    call.name,
                    serde_json::Value::Object(call.arguments.clone()),
                    call.format,
                    call.id
                ),
            ),
            RouteEvent::Malformed { diagnostic } => self.line(
                out,
                &format!("! {} ({:?}): {}", diagnostic.format, diagnostic.kind, diagnostic.message),
            ),
            RouteEvent::ServerCall { name, arguments, .. } => {
                self.line(out, &format!("· provider ran {name} {arguments}"))
            }
            RouteEvent::ProviderError { kind, message } => {
                self.line(out, &format!("! provider error ({kind:?}): {message}"))
            }
            RouteEvent::Finish { stop, .. } => {
                self.line(out, &format!("■ stop: {} at {at:.1} ms", stop.as_str()))
            }
            RouteEvent::ToolResult {
                index,
                name,
                result,
                elapsed_ms,
                ..
            } => self.line(
                out,
                &format!(
                    "← result #{index} {name}{} ({elapsed_ms} ms): {}",
                    if result.is_error == Some(true) { " [error]" } else { "" },
                    result_text(result)
                ),
            ),
            _ => Ok(()),
        }
    }

    fn close(&mut self, out: &mut impl std::io::Write) -> Result<(), String> {
        if self.mid_line {
            writeln!(out).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

fn result_text(result: &CallToolResult) -> String {
    let mut text = String::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            _ => text.push_str("[non-text content]"),
        }
    }
    const MAX: usize = 400;
    if text.len() > MAX {
        let mut cut = MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text.replace('\n', "\\n")
}

