//! The registries an app serves: tools (definitions, handlers and the context
//! they run in, validation, change notification), resources and prompts.

mod context;
mod error;
mod handler;
mod name;
mod prompts;
mod resources;
mod store;
mod tool;
mod typed;
mod validate;

#[cfg(test)]
mod tests;

pub(crate) use context::RoundEnd;
pub use context::{ClientPeer, Elicitation, ToolContext};
pub use error::{RegistryError, ToolError};
pub use handler::{FnHandler, ToolHandler};
pub use name::{MAX_TOOL_NAME_LEN, TOOL_NAME_RULE, validate_tool_name};
pub use prompts::{PromptArguments, PromptError, PromptRegistry, PromptRequest};
pub use resources::{ResourceChange, ResourceError, ResourceRegistry, UriVariables};
pub use store::{RegistryChange, ToolPage, ToolRegistry};
pub use tool::{RegisteredTool, ToolSource, tool_from_list_entry};
pub use typed::TypedToolBuilder;
#[cfg(test)]
pub(crate) use validate::ArgumentValidator;
