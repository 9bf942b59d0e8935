//! What a grammar is built from: the tools, `tool_choice`, and the limits.

use crate::core::JsonObject;

/// One tool a grammar may call: its name and its input schema (JSON Schema,
/// an object). rmcp's `Tool` maps to it as
/// `GrammarTool::new(&tool.name, &tool.input_schema)`.
#[derive(Debug, Clone, Copy)]
pub struct GrammarTool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// Its input schema.
    pub input_schema: &'a JsonObject,
}

impl<'a> GrammarTool<'a> {
    /// A tool of this name and input schema.
    pub fn new(name: &'a str, input_schema: &'a JsonObject) -> Self {
        Self { name, input_schema }
    }
}

/// Which calls the model must write, as OpenAI's `tool_choice` says it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum ToolChoice {
    /// Text or calls: the grammar is lazy, free text until a trigger opens
    /// a call region.
    #[default]
    Auto,
    /// At least one call, and nothing else.
    Required,
    /// No call: free text that never opens a call region.
    None,
    /// Calls of this tool only, and nothing else.
    Named(String),
}

/// The limits on the work of one build. Exceeding one gives
/// [`GrammarError::Budget`](super::GrammarError::Budget) or
/// [`GrammarError::TooDeep`](super::GrammarError::TooDeep).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GrammarLimits {
    /// Units of work (nodes and rules made, schema keywords read) for the
    /// whole grammar.
    pub budget: usize,
    /// Nesting of schemas within schemas.
    pub max_depth: usize,
    /// The largest count or length bound written as a bounded repeat; a
    /// larger bound is loosened (left to validation) instead of expanded.
    pub max_repeat: u32,
}

impl Default for GrammarLimits {
    fn default() -> Self {
        Self {
            budget: 400_000,
            max_depth: 48,
            max_repeat: 64,
        }
    }
}

/// How a grammar is built besides its tools and dialect.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GrammarOptions {
    /// Which calls the model must write.
    pub tool_choice: ToolChoice,
    /// Whether several calls may follow each other in one turn.
    pub parallel_tool_calls: bool,
    /// Whether the dialect's reasoning block (`<think>…</think>`, …) may come
    /// before the calls.
    pub reasoning: bool,
    /// The limits on the build.
    pub limits: GrammarLimits,
}

impl GrammarOptions {
    /// Options with this `tool_choice`, parallel calls allowed, no reasoning
    /// block, default limits.
    pub fn new(tool_choice: ToolChoice) -> Self {
        Self {
            tool_choice,
            parallel_tool_calls: true,
            ..Self::default()
        }
    }
}
