//! `toolrouter tools`: list the registered tools (built-ins, schema-only tools,
//! upstream servers' tools) and print their declarations in every dialect.

use std::io::Write as _;

use clap::Args;
use serde_json::{Map, Value, json};
use toolrouter::rmcp::model::Tool;
use toolrouter::{ConversionNote, Declarations, Dialect};
use toolrouter::{render_tool_listing, tool_listing};

use super::help::examples;
use super::names::{DIALECT_OR_ALL, EveryOr};
use super::setup::{ToolSetupArgs, Upstreams, with_tools};

/// The help's examples.
const EXAMPLES: &str = r#"
  # The built-in tools, declared in every dialect
  toolrouter tools
  # Anthropic's declarations as JSON, with the tools of an MCP configuration
  toolrouter tools --config mcp.json --dialect anthropic --json
  # The system-prompt section a model without tool support is taught
  toolrouter tools --dialect xml-text
"#;

/// Arguments of `toolrouter tools`.
#[derive(Debug, Args)]
#[command(after_help = examples(EXAMPLES))]
pub(crate) struct ToolsArgs {
    /// Where the tools come from.
    #[command(flatten)]
    setup: ToolSetupArgs,
    /// The dialect to print, or `all`.
    #[arg(long, value_name = "NAME|all", default_value = "all", value_parser = DIALECT_OR_ALL)]
    dialect: EveryOr<Dialect>,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the command.
pub(crate) fn run(args: ToolsArgs) -> Result<(), String> {
    let dialects: Vec<Dialect> = match args.dialect {
        EveryOr::Every => Dialect::ALL.to_vec(),
        EveryOr::One(dialect) => vec![dialect],
    };
    let (tools, listing) = with_tools(&args.setup, Upstreams::Wait, async |setup| {
        let tools: Vec<Tool> = setup.hub.registry().definitions();
        let listing =
            render_tool_listing(&tool_listing(setup.hub.registry(), setup.gateway.as_ref()));
        Ok((tools, listing))
    })?;
    let out = if args.json {
        let doc = json_report(&tools, &dialects);
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        text.push('\n');
        text
    } else {
        let mut text = listing;
        text.push('\n');
        text.push_str(&text_report(&tools, &dialects));
        text
    };
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write to stdout: {e}"))
}

/// What is said when no tool is registered.
const NO_TOOLS: &str = "no tools registered: the built-in tools are off and neither \
                        --tools FILE nor --config FILE gave any";

/// One printed block: a heading, the declarations and their notes.
struct Section {
    dialect: Dialect,
    key: &'static str,
    heading: &'static str,
    declarations: Declarations,
}

fn sections(tools: &[Tool], dialect: Dialect) -> Vec<Section> {
    let plain = |key, heading| Section {
        dialect,
        key,
        heading,
        declarations: dialect.declare(tools),
    };
    let strict = || Section {
        dialect,
        key: "strict_tools",
        heading: "tools, strict mode",
        declarations: dialect.declare_strict(tools),
    };
    match dialect {
        Dialect::OpenAiChat => {
            let mut out = vec![plain("tools", "tools"), strict()];
            if let Some(declarations) = dialect.declare_legacy(tools) {
                out.push(Section {
                    dialect,
                    key: "functions",
                    heading: "legacy functions",
                    declarations,
                });
            }
            out
        }
        Dialect::OpenAiResponses => vec![plain("tools", "tools"), strict()],
        Dialect::Bedrock => vec![plain("tools", "toolConfig.tools")],
        Dialect::XmlText => vec![plain("system_prompt", "system prompt section")],
        _ => vec![plain("tools", "tools")],
    }
}

fn text_report(tools: &[Tool], dialects: &[Dialect]) -> String {
    let mut out = String::new();
    if tools.is_empty() {
        out.push_str(NO_TOOLS);
        out.push('\n');
        return out;
    }
    for &dialect in dialects {
        for section in sections(tools, dialect) {
            out.push_str(&format!(
                "\n== {}: {} ==\n",
                section.dialect, section.heading
            ));
            match &section.declarations.value {
                Value::String(text) => out.push_str(text),
                value => {
                    out.push_str(&serde_json::to_string_pretty(value).unwrap_or_default());
                    out.push('\n');
                }
            }
            for note in &section.declarations.notes {
                out.push_str(&format!("note: {note}\n"));
            }
        }
    }
    out
}

fn json_report(tools: &[Tool], dialects: &[Dialect]) -> Value {
    let mut declarations = Map::new();
    for &dialect in dialects {
        let mut entry = Map::new();
        let mut notes: Vec<&ConversionNote> = Vec::new();
        let built = sections(tools, dialect);
        for section in &built {
            entry.insert(section.key.to_owned(), section.declarations.value.clone());
            notes.extend(&section.declarations.notes);
        }
        entry.insert("notes".to_owned(), json!(notes));
        declarations.insert(dialect.as_str().to_owned(), Value::Object(entry));
    }
    let mut doc = json!({
        "tools": tools,
        "declarations": declarations,
    });
    if tools.is_empty() {
        doc["message"] = json!(NO_TOOLS);
    }
    doc
}
