//! `register_builtins`: the built-in tools as ordinary registered tools, with
//! their definitions (title, description, annotations, input schema) and
//! handlers.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::expr::{self, MAX_EXPRESSION_CHARS};
use super::files::{self, LineRange, ListRequest, ReadLimits};
use super::search::{self, SearchRequest};
use super::workspace::Workspace;
use crate::core::JsonObject;
use crate::registry::{RegisteredTool, RegistryError, ToolContext, ToolError, ToolRegistry};

/// The names of every built-in tool, in registration order.
pub const BUILTIN_TOOL_NAMES: [&str; 5] = [
    "calculate",
    "read_file",
    "write_to_file",
    "list_files",
    "search_files",
];

/// Settings of the built-in tools.
///
/// ```
/// let mut config = toolrouter::BuiltinsConfig::new(".");
/// config.allow_write = true; // declare `write_to_file` too
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BuiltinsConfig {
    /// The one directory the file tools may touch. It must exist; it is
    /// opened at registration, and the file tools reach files only through
    /// that handle.
    pub workspace: PathBuf,
    /// Whether tools that change files are registered (default false): those
    /// not annotated read-only whose `destructiveHint` is not false, which
    /// among the built-ins is `write_to_file`. Without it a model or client
    /// sees the read-only built-ins only.
    pub allow_write: bool,
    /// The most bytes `read_file` returns (default 1 MiB).
    pub max_read_bytes: u64,
    /// The largest content `write_to_file` accepts (default 10 MiB).
    pub max_write_bytes: usize,
    /// The most entries `list_files` returns (default 1000).
    pub max_list_entries: usize,
    /// The most matching lines `search_files` returns (default 200).
    pub max_search_results: usize,
    /// Files larger than this are skipped by `search_files` (default 1 MiB).
    pub max_search_file_bytes: u64,
}

impl BuiltinsConfig {
    /// The defaults, with `workspace` as the root.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            allow_write: false,
            max_read_bytes: 1024 * 1024,
            max_write_bytes: 10 * 1024 * 1024,
            max_list_entries: 1000,
            max_search_results: 200,
            max_search_file_bytes: 1024 * 1024,
        }
    }
}

/// Why the built-in tools could not be registered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuiltinsError {
    /// The workspace root does not exist, cannot be read or is not a directory.
    #[error("workspace root `{path}` is unusable: {source}")]
    Workspace {
        /// The root as configured.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A built-in's name is already taken in the registry; nothing was registered.
    #[error("cannot register the built-in tools: {0}")]
    Registry(#[from] RegistryError),
}

/// Registers the built-in tools (`calculate`, `read_file`, `list_files`,
/// `search_files`, and `write_to_file` when `allow_write` is set) and returns
/// their names. Refuses, registering nothing, when one of the names is taken.
///
/// Opens the workspace root once, with a blocking call; the file tools reach
/// files only through that directory handle, never by an ambient path.
pub fn register_builtins(
    registry: &ToolRegistry,
    config: &BuiltinsConfig,
) -> Result<Vec<String>, BuiltinsError> {
    let workspace = Arc::new(Workspace::open(&config.workspace).map_err(|source| {
        BuiltinsError::Workspace {
            path: config.workspace.clone(),
            source,
        }
    })?);
    let mut tools = vec![
        calculate_tool()?,
        read_file_tool(&workspace, config)?,
        write_file_tool(&workspace, config)?,
        list_files_tool(&workspace, config)?,
        search_files_tool(&workspace, config)?,
    ];
    if !config.allow_write {
        tools.retain(|tool| !changes_things(tool.definition()));
    }
    if let Some(taken) = tools.iter().find(|tool| registry.contains(tool.name())) {
        return Err(RegistryError::Duplicate(taken.name().to_owned()).into());
    }
    let mut names = Vec::with_capacity(tools.len());
    for tool in tools {
        names.push(tool.name().to_owned());
        registry.insert_new(tool)?;
    }
    tracing::debug!(?names, root = %workspace.root().display(), "built-in tools registered");
    Ok(names)
}

/// Whether a tool may change things, by its annotations read with MCP's
/// defaults: unless marked read-only, a tool is destructive unless it says
/// `destructiveHint: false`.
fn changes_things(tool: &Tool) -> bool {
    match &tool.annotations {
        Some(a) => a.read_only_hint != Some(true) && a.destructive_hint != Some(false),
        None => true,
    }
}

// ---- definitions ----------------------------------------------------------

fn input_schema<A: JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<A>();
    match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(mut map)) => {
            // The Rust type's name and doc line mean nothing to a model.
            map.remove("title");
            map.remove("description");
            Arc::new(map)
        }
        _ => Arc::new(JsonObject::new()),
    }
}

fn definition<A: JsonSchema>(
    name: &'static str,
    title: &'static str,
    description: String,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, input_schema::<A>())
        .with_title(title)
        .with_annotations(annotations.title(title))
}

trait AnnotationsExt {
    fn title(self, title: &str) -> Self;
}

impl AnnotationsExt for ToolAnnotations {
    fn title(mut self, title: &str) -> Self {
        self.title = Some(title.to_owned());
        self
    }
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

fn parse_args<A: DeserializeOwned>(args: JsonObject) -> Result<A, ToolError> {
    serde_json::from_value(serde_json::Value::Object(args))
        .map_err(|e| ToolError::new(format!("invalid arguments: {e}")))
}

fn text(text: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// Runs a blocking file-system job on tokio's blocking pool.
async fn blocking<T, F>(job: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    tokio::task::spawn_blocking(job)
        .await
        .map_err(|e| ToolError::new(format!("the file-system task failed: {e}")))?
}

// ---- calculate ------------------------------------------------------------

/// Arguments of `calculate`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CalculateArgs {
    /// The arithmetic expression, for example `(12 + 5) * 3` or `sqrt(2) / 2`.
    #[schemars(length(min = 1, max = 4096))]
    expression: String,
}

fn calculate_tool() -> Result<RegisteredTool, RegistryError> {
    let functions: Vec<_> = expr::function_names().collect();
    let description = format!(
        "Evaluates an arithmetic expression and returns the number. Operators: + - * / \
         % (remainder) and ^ or ** (power, right-associative; -2^2 is -4), unary minus, \
         parentheses, decimals and exponents (2.5e3). Functions: {}. Constants: pi, e. \
         At most {MAX_EXPRESSION_CHARS} characters.",
        functions.join(", ")
    );
    let output_schema: JsonObject = match serde_json::json!({
        "type": "object",
        "properties": {"result": {"type": "number", "description": "The value of the expression"}},
        "required": ["result"],
        "additionalProperties": false
    }) {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    let tool = definition::<CalculateArgs>("calculate", "Calculator", description, read_only())
        .with_raw_output_schema(Arc::new(output_schema));
    RegisteredTool::new(
        tool,
        Some(handler(|args: CalculateArgs, _ctx| async move {
            let value =
                expr::evaluate(&args.expression).map_err(|e| ToolError::new(e.to_string()))?;
            let mut result = text(expr::format_number(value));
            result.structured_content = Some(serde_json::json!({ "result": json_number(value) }));
            Ok(result)
        })),
    )
}

/// An integral value within the exactly representable range as a JSON
/// integer, anything else as a float.
fn json_number(value: f64) -> serde_json::Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if value.fract() == 0.0 && value.abs() <= EXACT {
        serde_json::Value::from(value as i64)
    } else {
        serde_json::Value::from(value)
    }
}

// ---- read_file ------------------------------------------------------------

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadFileArgs {
    /// The file, relative to the workspace root.
    path: String,
    /// The first line to return, counting from 1 (default: the first line).
    #[schemars(range(min = 1))]
    start_line: Option<u64>,
    /// The last line to return, inclusive (default: the last line).
    #[schemars(range(min = 1))]
    end_line: Option<u64>,
}

fn read_file_tool(
    workspace: &Arc<Workspace>,
    config: &BuiltinsConfig,
) -> Result<RegisteredTool, RegistryError> {
    let limits = ReadLimits {
        max_bytes: config.max_read_bytes,
    };
    let description = format!(
        "Reads a UTF-8 text file inside the workspace and returns its content, whole or \
         the lines start_line..=end_line (counting from 1). Paths are relative to the \
         workspace root and may not leave it. Returns at most {} bytes.",
        limits.max_bytes
    );
    let tool = definition::<ReadFileArgs>("read_file", "Read file", description, read_only());
    let workspace = workspace.clone();
    RegisteredTool::new(
        tool,
        Some(handler(move |args: ReadFileArgs, _ctx| {
            let workspace = workspace.clone();
            async move {
                let range = LineRange {
                    start: args.start_line,
                    end: args.end_line,
                };
                let content =
                    blocking(move || files::read_file(&workspace, &args.path, range, limits))
                        .await?;
                Ok(text(content))
            }
        })),
    )
}

// ---- write_to_file --------------------------------------------------------

/// Arguments of `write_to_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteFileArgs {
    /// The file, relative to the workspace root; missing parent directories are created.
    path: String,
    /// The complete new content of the file.
    content: String,
}

fn write_file_tool(
    workspace: &Arc<Workspace>,
    config: &BuiltinsConfig,
) -> Result<RegisteredTool, RegistryError> {
    let max_bytes = config.max_write_bytes;
    let description = format!(
        "Writes content to a file inside the workspace, replacing the file if it exists and \
         creating it and any missing parent directories if not. Paths are relative to the \
         workspace root and may not leave it. At most {max_bytes} bytes."
    );
    let annotations = ToolAnnotations::new()
        .read_only(false)
        .destructive(true)
        .idempotent(true)
        .open_world(false);
    let tool = definition::<WriteFileArgs>("write_to_file", "Write file", description, annotations);
    let workspace = workspace.clone();
    RegisteredTool::new(
        tool,
        Some(handler(move |args: WriteFileArgs, _ctx| {
            let workspace = workspace.clone();
            async move {
                let summary = blocking(move || {
                    files::write_file(&workspace, &args.path, &args.content, max_bytes)
                })
                .await?;
                Ok(text(summary))
            }
        })),
    )
}

// ---- list_files -----------------------------------------------------------

/// Arguments of `list_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListFilesArgs {
    /// The directory, relative to the workspace root (default: the root).
    #[serde(default = "dot")]
    #[schemars(default = "dot")]
    path: String,
    /// Whether to list subdirectories' contents too (default false).
    #[serde(default)]
    recursive: bool,
    /// The most entries to return (capped by the server's limit).
    #[schemars(range(min = 1))]
    max_entries: Option<usize>,
}

fn dot() -> String {
    ".".into()
}

fn list_files_tool(
    workspace: &Arc<Workspace>,
    config: &BuiltinsConfig,
) -> Result<RegisteredTool, RegistryError> {
    let limit = config.max_list_entries.max(1);
    let description = format!(
        "Lists a directory inside the workspace, one entry per line as a path relative to \
         the workspace root, directories ending in `/`, in name order; with recursive, \
         the whole tree below it (a `.git` directory is listed but not descended into). \
         Symbolic links are listed, never followed. At most {limit} entries."
    );
    let tool = definition::<ListFilesArgs>("list_files", "List files", description, read_only());
    let workspace = workspace.clone();
    RegisteredTool::new(
        tool,
        Some(handler(move |args: ListFilesArgs, ctx: ToolContext| {
            let workspace = workspace.clone();
            async move {
                let request = ListRequest {
                    recursive: args.recursive,
                    max_entries: args.max_entries.unwrap_or(limit).clamp(1, limit),
                };
                let cancel = ctx.cancellation().clone();
                let listing =
                    blocking(move || files::list_files(&workspace, &args.path, request, &cancel))
                        .await?;
                Ok(text(listing))
            }
        })),
    )
}

// ---- search_files ---------------------------------------------------------

/// Arguments of `search_files`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchFilesArgs {
    /// The directory (or file) to search, relative to the workspace root (default: the root).
    #[serde(default = "dot")]
    #[schemars(default = "dot")]
    path: String,
    /// The regular expression (Rust `regex` syntax) to find in each line.
    #[schemars(length(min = 1))]
    regex: String,
    /// Only search files matching this glob (`*`, `?`, `**`, `{a,b}`): `*.rs` matches file names, a pattern with a `/` such as `src/**/*.rs` matches paths relative to the workspace root.
    file_pattern: Option<String>,
    /// Whether letter case is ignored (default false).
    #[serde(default)]
    ignore_case: bool,
    /// The most matching lines to return (capped by the server's limit).
    #[schemars(range(min = 1))]
    max_results: Option<usize>,
}

fn search_files_tool(
    workspace: &Arc<Workspace>,
    config: &BuiltinsConfig,
) -> Result<RegisteredTool, RegistryError> {
    let limit = config.max_search_results.max(1);
    let max_file_bytes = config.max_search_file_bytes;
    let description = format!(
        "Searches the text files under a directory of the workspace for lines matching a \
         regular expression and returns one `path:line: text` line per match, paths \
         relative to the workspace root. Binary files, files over {max_file_bytes} bytes, \
         symbolic links and `.git` directories are skipped. At most {limit} matches."
    );
    let tool =
        definition::<SearchFilesArgs>("search_files", "Search files", description, read_only());
    let workspace = workspace.clone();
    RegisteredTool::new(
        tool,
        Some(handler(move |args: SearchFilesArgs, ctx: ToolContext| {
            let workspace = workspace.clone();
            async move {
                let cancel = ctx.cancellation().clone();
                let found = blocking(move || {
                    let request = SearchRequest {
                        path: &args.path,
                        regex: &args.regex,
                        file_pattern: args.file_pattern.as_deref(),
                        ignore_case: args.ignore_case,
                        max_results: args.max_results.unwrap_or(limit).clamp(1, limit),
                        max_file_bytes,
                    };
                    search::search_files(&workspace, &request, &cancel)
                })
                .await?;
                Ok(text(found))
            }
        })),
    )
}

// ---- handler glue ---------------------------------------------------------

/// A handler that deserializes its arguments into `A` first.
fn handler<A, F, Fut>(f: F) -> Arc<dyn crate::registry::ToolHandler>
where
    A: DeserializeOwned + Send + 'static,
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    Arc::new(crate::registry::FnHandler::new(
        move |args: JsonObject, ctx: ToolContext| {
            let parsed = parse_args::<A>(args);
            let future = parsed.map(|args| f(args, ctx));
            async move { future?.await }
        },
    ))
}
