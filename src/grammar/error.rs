//! `GrammarError`: why no grammar was built.

use crate::core::WireFormat;

/// Why a grammar could not be built. A grammar is never built wrong: where a
/// dialect cannot carry a tool faithfully, this says so instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GrammarError {
    /// The format is not a dialect a model writes calls in (a structured
    /// provider format, or `think`).
    #[error("`{0}` is not a text dialect a model writes calls in")]
    NotATextDialect(WireFormat),
    /// No tool to call (an empty tool list with a `tool_choice` that needs one).
    #[error("no tools to call")]
    NoTools,
    /// `tool_choice` names a tool that is not among the tools.
    #[error("tool_choice names `{0}`, which is not among the tools")]
    UnknownTool(String),
    /// A tool name that no dialect's markup can hold (1 to 128 ASCII letters,
    /// digits, `_`, `-` or `.`).
    #[error("tool name `{0}` is not 1 to 128 ascii letters, digits, `_`, `-` or `.`")]
    ToolName(String),
    /// The dialect cannot write this tool's arguments so that they read back
    /// as the schema means them.
    #[error("`{dialect}` cannot carry `{tool}`: {reason}")]
    Unrepresentable {
        /// The dialect.
        dialect: WireFormat,
        /// The tool.
        tool: String,
        /// What it cannot carry.
        reason: String,
    },
    /// A schema that is not usable JSON Schema here (a `$ref` that does not
    /// resolve locally, a keyword of the wrong type).
    #[error("the schema of `{tool}` is not usable: {reason}")]
    Schema {
        /// The tool.
        tool: String,
        /// What is wrong.
        reason: String,
    },
    /// Building the grammar would take more work than allowed (very large or
    /// deeply nested schemas, a schema bomb).
    #[error("the grammar exceeds its budget of {limit} units of work")]
    Budget {
        /// The budget.
        limit: usize,
    },
    /// The schemas nest deeper than allowed.
    #[error("the schema of `{tool}` nests deeper than {limit} levels")]
    TooDeep {
        /// The tool.
        tool: String,
        /// The limit.
        limit: usize,
    },
}

impl GrammarError {
    /// Whether the error is about the size of the input (budget or depth),
    /// not about what it says.
    pub fn is_limit(&self) -> bool {
        matches!(
            self,
            GrammarError::Budget { .. } | GrammarError::TooDeep { .. }
        )
    }
}
