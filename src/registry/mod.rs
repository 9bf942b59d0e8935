//! The tool registry: definitions, handlers, validation and change notification.

mod error;
mod handler;
mod name;
mod store;
mod tool;
mod typed;
mod validate;

#[cfg(test)]
mod tests;

pub use error::{RegistryError, ToolError};
pub use handler::{FnHandler, ToolHandler};
pub use name::{MAX_TOOL_NAME_LEN, TOOL_NAME_RULE, validate_tool_name};
pub use store::{RegistryChange, ToolPage, ToolRegistry};
pub use tool::{RegisteredTool, ToolSource, tool_from_list_entry};
pub use typed::TypedToolBuilder;
pub use validate::{ArgumentValidator, closest_names};
