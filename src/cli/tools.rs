//! `toolrouter tools`: list the registered tools and print their declarations
//! in every dialect (the stand-in for the main job until streaming lands).

use std::io::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde_json::{Map, Value, json};
use toolrouter::ToolRegistry;
use toolrouter::convert::{
    ConversionNote, Declarations, Dialect, gemini, openai_chat, openai_responses,
};
use toolrouter::registry::tool_from_list_entry;
use toolrouter::rmcp::model::Tool;

/// Arguments of `toolrouter tools`.
#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// A JSON file holding MCP `tools/list` entries: an array, or an object
    /// with a `tools` array (a whole `tools/list` result).
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// The dialect to print (`open_ai_chat`, `open_ai_responses`, `anthropic`,
    /// `gemini`, `bedrock`, `ollama`, `xml_text`) or `all`.
    #[arg(long, value_name = "NAME|all", default_value = "all")]
    dialect: String,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the command.
pub(crate) fn run(args: ToolsArgs) -> Result<(), String> {
    let dialects: Vec<Dialect> = match args.dialect.as_str() {
        "all" => Dialect::ALL.to_vec(),
        name => vec![name.parse::<Dialect>().map_err(|e| e.to_string())?],
    };
    let registry = ToolRegistry::new();
    if let Some(path) = &args.tools {
        for tool in read_tools(path)? {
            registry
                .register_schema_only(tool)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    let tools: Vec<Tool> = registry
        .list()
        .iter()
        .map(|t| t.definition().as_ref().clone())
        .collect();
    let out = if args.json {
        let doc = json_report(&tools, &dialects, args.tools.is_some());
        let mut text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        text.push('\n');
        text
    } else {
        text_report(&tools, &dialects, args.tools.is_some())
    };
    std::io::stdout()
        .lock()
        .write_all(out.as_bytes())
        .map_err(|e| format!("cannot write to stdout: {e}"))
}

/// What was said when no file was given.
const NO_TOOLS: &str = "no tools registered: the built-in tools are not available yet; \
                        pass --tools FILE (a JSON array of MCP tools/list entries)";

fn read_tools(path: &PathBuf) -> Result<Vec<Tool>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
    let entries = match &value {
        Value::Array(entries) => entries,
        Value::Object(map) => match map.get("tools") {
            Some(Value::Array(entries)) => entries,
            _ => return Err(format!("{}: expected an array of tools", path.display())),
        },
        _ => return Err(format!("{}: expected an array of tools", path.display())),
    };
    entries
        .iter()
        .enumerate()
        .map(|(idx, entry)| {
            tool_from_list_entry(entry).map_err(|e| format!("{} entry {idx}: {e}", path.display()))
        })
        .collect()
}

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
    match dialect {
        Dialect::OpenAiChat => vec![
            plain("tools", "tools"),
            Section {
                dialect,
                key: "strict_tools",
                heading: "tools, strict mode",
                declarations: openai_chat::strict_tools(tools),
            },
            Section {
                dialect,
                key: "functions",
                heading: "legacy functions",
                declarations: Declarations {
                    value: openai_chat::functions(tools),
                    notes: Vec::new(),
                },
            },
        ],
        Dialect::OpenAiResponses => vec![
            plain("tools", "tools"),
            Section {
                dialect,
                key: "strict_tools",
                heading: "tools, strict mode",
                declarations: openai_responses::strict_tools(tools),
            },
        ],
        Dialect::Gemini => vec![Section {
            dialect,
            key: "tools",
            heading: "tools",
            declarations: gemini::tools(tools),
        }],
        Dialect::Bedrock => vec![plain("tools", "toolConfig.tools")],
        Dialect::XmlText => vec![plain("system_prompt", "system prompt section")],
        _ => vec![plain("tools", "tools")],
    }
}

fn text_report(tools: &[Tool], dialects: &[Dialect], from_file: bool) -> String {
    let mut out = String::new();
    if tools.is_empty() {
        out.push_str(if from_file {
            "no tools registered: the file lists none\n"
        } else {
            NO_TOOLS
        });
        if !from_file {
            out.push('\n');
        }
        return out;
    }
    out.push_str(&format!("{} tools registered:\n", tools.len()));
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for tool in tools {
        let description = tool.description.as_deref().unwrap_or("");
        let first_line = description.lines().next().unwrap_or("");
        out.push_str(&format!("  {:width$}  {first_line}\n", tool.name));
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

fn json_report(tools: &[Tool], dialects: &[Dialect], from_file: bool) -> Value {
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
    if tools.is_empty() && !from_file {
        doc["message"] = json!(NO_TOOLS);
    }
    doc
}
