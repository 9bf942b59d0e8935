//! Converters between the neutral types (rmcp's `Tool`, `CallToolResult`, and
//! [`ToolCall`](crate::ToolCall)) and each provider's dialect, one module per dialect.
//!
//! Every function is pure: it reads its input and returns JSON values or text,
//! never does I/O and never panics on odd input. Rules: `docs/converters.md`.

pub mod anthropic;
pub mod bedrock;
mod content;
mod dialect;
pub mod gemini;
mod gemini_schema;
pub mod mcp;
mod note;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;
mod openai_strict;
mod schema;
pub mod xml_text;

#[cfg(test)]
mod tests;

pub use dialect::{Dialect, UnknownDialect};
pub use gemini_schema::gemini_schema;
pub use note::{ConversionNote, Declarations, NoteKind};
pub use openai_strict::{StrictSchema, restore_optional_nulls, strict_schema};
