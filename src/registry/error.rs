//! Errors of registration (`RegistryError`) and of running a handler (`ToolError`).

use crate::core::echo;

use std::fmt;

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistryError {
    /// The name breaks the portable name rule.
    #[error("invalid tool name `{}`: {rule}", echo(.name))]
    InvalidName {
        /// The rejected name.
        name: String,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// The input or output schema is not a usable JSON Schema.
    #[error("invalid {which} schema for tool `{name}`: {reason}")]
    InvalidSchema {
        /// The tool name.
        name: String,
        /// `input` or `output`.
        which: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A `tools/list` entry could not be read as a tool definition.
    #[error("invalid tool definition: {0}")]
    InvalidDefinition(String),
    /// The name is taken and the caller asked not to replace it.
    #[error("a tool named `{0}` is already registered")]
    Duplicate(String),
}

/// The error a handler returns; the executor turns it into an `isError` result
/// whose text is this message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    message: String,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::new(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        Self::new(e.to_string())
    }
}

impl From<serde_json::Error> for ToolError {
    fn from(e: serde_json::Error) -> Self {
        Self::new(e.to_string())
    }
}
