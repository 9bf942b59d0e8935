//! `toolrouter parse`: replays a captured stream of text deltas through the detector.
//!
//! INPUT (or stdin) is JSON Lines, each line a JSON string holding one delta.
//! Output is one JSON event per line, or with `--summary` one JSON object
//! `{"text", "calls": [{"id", "name", "arguments"}], "malformed": [...]}`.
//! See docs/formats.md for the format of both.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use serde_json::{Value, json};

use toolrouter::{DetectConfig, StreamDetector, WireFormat};
use toolrouter::{DetectEvent, JsonObject, ToolCatalog};

use super::help::examples;
use super::names::{EveryOr, TEXT_FORMAT_OR_AUTO};

/// Arguments of `toolrouter parse`.
#[derive(Debug, Args)]
#[command(after_help = examples(EXAMPLES))]
pub(crate) struct ParseArgs {
    /// A JSON array of MCP tool entries (`name`, `description`, `inputSchema`), as
    /// `tools/list` returns them. Without it no tool is registered, so every call
    /// is reported as naming an unknown tool.
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// `auto` (every text dialect on by default, at once) or one text format,
    /// e.g. `hermes`.
    #[arg(long, default_value = "auto", value_name = "auto|NAME",
          value_parser = TEXT_FORMAT_OR_AUTO)]
    format: EveryOr<WireFormat>,
    /// Detector options.
    #[command(flatten)]
    detect: super::detect_args::DetectArgs,
    /// Print one summary object instead of one event per line.
    #[arg(long)]
    summary: bool,
    /// The captured deltas (JSON Lines of strings); stdin when absent.
    input: Option<PathBuf>,
}

/// The help's examples.
const EXAMPLES: &str = r#"
  # Every dialect at once, one event per line (each input line: one delta, a JSON string)
  toolrouter parse deltas.jsonl
  # One dialect and the tools a server lists; one summary object
  toolrouter parse --format qwen3-coder --tools tools.json --summary deltas.jsonl
  # Deltas on stdin, with Phi-4-mini's calls too (off by default)
  echo '"functools[{\"name\": \"ls\", \"arguments\": {}}]"' | toolrouter parse --text-format phi4-mini --summary
"#;

/// Runs the command.
pub(crate) fn run(args: ParseArgs) -> Result<(), String> {
    let catalog = match &args.tools {
        Some(path) => load_tools(path)?,
        None => ToolCatalog::new(),
    };
    let base = match args.format {
        EveryOr::Every => DetectConfig::default(),
        EveryOr::One(format) => DetectConfig::only(format),
    };
    let config = args.detect.config(base, &[])?;
    let reader: Box<dyn Read> = match &args.input {
        Some(path) => Box::new(
            std::fs::File::open(path)
                .map_err(|e| format!("cannot open {}: {e}", path.display()))?,
        ),
        None => Box::new(std::io::stdin()),
    };
    let mut detector = StreamDetector::new(Arc::new(catalog), config);
    let mut events = Vec::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut all = Vec::new();
    for (n, line) in BufReader::new(reader).lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read input: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let delta: String = serde_json::from_str(&line).map_err(|e| {
            format!(
                "line {}: expected a JSON string holding one delta: {e}",
                n + 1
            )
        })?;
        detector.feed(&delta, &mut events);
        flush(&mut events, &mut all, args.summary, &mut out)?;
    }
    detector.finish(&mut events);
    flush(&mut events, &mut all, args.summary, &mut out)?;
    if args.summary {
        let summary = summarize(&all);
        writeln!(out, "{summary}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn flush(
    events: &mut Vec<DetectEvent>,
    all: &mut Vec<DetectEvent>,
    summary: bool,
    out: &mut impl Write,
) -> Result<(), String> {
    if summary {
        all.append(events);
        return Ok(());
    }
    for event in events.drain(..) {
        let line = serde_json::to_string(&event).map_err(|e| e.to_string())?;
        writeln!(out, "{line}").map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The `--summary` object.
fn summarize(events: &[DetectEvent]) -> Value {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    let mut malformed = Vec::new();
    for event in events {
        match event {
            DetectEvent::Text { text: t } => text.push_str(t),
            DetectEvent::Reasoning { text: t } => reasoning.push_str(t),
            DetectEvent::CallEnd { call, .. } => {
                calls.push(json!({"id": call.id, "name": call.name, "arguments": call.arguments}));
            }
            DetectEvent::Malformed { diagnostic } => malformed.push(json!(diagnostic)),
            _ => {}
        }
    }
    let mut summary = json!({"text": text, "calls": calls, "malformed": malformed});
    if !reasoning.is_empty() {
        summary["reasoning"] = Value::String(reasoning);
    }
    summary
}

fn load_tools(path: &Path) -> Result<ToolCatalog, String> {
    // Names are not held to the registry's rule here: a captured stream may
    // call tools another server named freely.
    let entries = super::setup::read_tool_entries(path)?;
    let empty = JsonObject::new();
    let mut catalog = ToolCatalog::new();
    for (i, entry) in entries.iter().enumerate() {
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{}: tool {i} has no name", path.display()))?;
        let schema = entry
            .get("inputSchema")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        catalog.insert(name, toolrouter::ToolShape::from_input_schema(schema));
    }
    Ok(catalog)
}
