//! Converters between the neutral types (rmcp's `Tool`, `CallToolResult`, and
//! [`ToolCall`](crate::ToolCall)) and each provider's dialect, one module per dialect.
//!
//! Every function is pure: it reads its input and returns JSON values or text,
//! never does I/O and never panics on odd input. Rules: `docs/converters.md`.
//!
//! ```
//! use serde_json::json;
//! use toolrouter::rmcp::model::{CallToolResult, ContentBlock, Tool};
//! use toolrouter::{Dialect, ToolCall, WireFormat};
//!
//! let tool: Tool = serde_json::from_value(json!({
//!     "name": "read_file",
//!     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}
//! }))
//! .unwrap();
//! let declared = Dialect::Anthropic.declare(std::slice::from_ref(&tool)).value;
//! assert_eq!(declared[0]["input_schema"]["properties"]["path"]["type"], "string");
//! let gemini = Dialect::Gemini.declare(&[tool]);
//! assert_eq!(gemini.value[0]["functionDeclarations"][0]["parameters"]["type"], "OBJECT");
//!
//! let call = ToolCall::new("toolu_1", "read_file", None, WireFormat::Anthropic);
//! let result = CallToolResult::error(vec![ContentBlock::text("no such file")]);
//! let messages = Dialect::Anthropic.result_messages(&[(&call, &result)]);
//! assert_eq!(messages[0]["content"][0]["is_error"], true);
//! ```

mod anthropic;
mod bedrock;
mod content;
mod dialect;
mod gemini;
mod gemini_schema;
mod mcp;
mod note;
mod ollama;
mod openai_chat;
mod openai_responses;
mod openai_strict;
mod schema;
pub(crate) mod xml_text;

#[cfg(test)]
mod tests;

pub(crate) use content::image_format;
pub use dialect::Dialect;
pub use note::{ConversionNote, Declarations, NoteKind};
pub use openai_strict::restore_optional_nulls;
