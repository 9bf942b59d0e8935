//! `RegisteredTool`: a definition with its compiled schema, handler and settings.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Tool;

use super::error::RegistryError;
use super::handler::ToolHandler;
use super::name::validate_tool_name;
use super::validate::ArgumentValidator;
use crate::core::{JsonObject, ToolShape};

/// Where a tool's handler lives.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolSource {
    /// A handler in this process.
    Local,
    /// A tool of another MCP server, reached through the named upstream.
    Upstream(String),
    /// Known by its schema alone: calls are parsed, but running one gives an
    /// `isError` result saying that no handler is registered.
    SchemaOnly,
}

/// A tool as the registry holds it. Cheap to clone (all `Arc`).
#[derive(Clone)]
pub struct RegisteredTool {
    definition: Arc<Tool>,
    handler: Option<Arc<dyn ToolHandler>>,
    validator: Arc<ArgumentValidator>,
    output_validator: Option<Arc<ArgumentValidator>>,
    shape: Arc<ToolShape>,
    timeout: Option<Duration>,
    source: ToolSource,
}

impl fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.definition.name)
            .field("source", &self.source)
            .field("timeout", &self.timeout)
            .field("has_handler", &self.handler.is_some())
            .finish()
    }
}

impl RegisteredTool {
    /// Checks the definition (name rule, schemas) and compiles its input and
    /// output schemas.
    pub fn new(
        definition: Tool,
        handler: Option<Arc<dyn ToolHandler>>,
    ) -> Result<Self, RegistryError> {
        validate_tool_name(&definition.name)?;
        let name = definition.name.to_string();
        check_object_schema(&name, "input", &definition.input_schema)?;
        let validator = ArgumentValidator::compile(&definition.input_schema).map_err(|reason| {
            RegistryError::InvalidSchema {
                name: name.clone(),
                which: "input",
                reason,
            }
        })?;
        let output_validator = match &definition.output_schema {
            Some(output) => {
                check_object_schema(&name, "output", output)?;
                let compiled = ArgumentValidator::compile(output).map_err(|reason| {
                    RegistryError::InvalidSchema {
                        name: name.clone(),
                        which: "output",
                        reason,
                    }
                })?;
                Some(Arc::new(compiled))
            }
            None => None,
        };
        let shape = ToolShape::from_input_schema(&definition.input_schema);
        let source = if handler.is_some() {
            ToolSource::Local
        } else {
            ToolSource::SchemaOnly
        };
        Ok(Self {
            definition: Arc::new(definition),
            handler,
            validator: Arc::new(validator),
            output_validator,
            shape: Arc::new(shape),
            timeout: None,
            source,
        })
    }

    /// Sets a per-tool timeout, overriding the executor's default.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Marks where the handler lives.
    pub fn with_source(mut self, source: ToolSource) -> Self {
        self.source = source;
        self
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.definition.name
    }

    /// The MCP definition.
    pub fn definition(&self) -> &Arc<Tool> {
        &self.definition
    }

    /// The handler, if one is registered.
    pub fn handler(&self) -> Option<&Arc<dyn ToolHandler>> {
        self.handler.as_ref()
    }

    /// The compiled input schema.
    pub fn validator(&self) -> &ArgumentValidator {
        &self.validator
    }

    /// The compiled output schema, when the tool declares one.
    pub fn output_validator(&self) -> Option<&ArgumentValidator> {
        self.output_validator.as_deref()
    }

    /// The parameter types parsers need.
    pub fn shape(&self) -> &Arc<ToolShape> {
        &self.shape
    }

    /// The per-tool timeout, if set.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Where the handler lives.
    pub fn source(&self) -> &ToolSource {
        &self.source
    }
}

fn check_object_schema(
    name: &str,
    which: &'static str,
    schema: &JsonObject,
) -> Result<(), RegistryError> {
    match schema.get("type") {
        Some(serde_json::Value::String(t)) if t == "object" => Ok(()),
        _ => Err(RegistryError::InvalidSchema {
            name: name.to_owned(),
            which,
            reason: "MCP requires a schema of `\"type\": \"object\"`".to_owned(),
        }),
    }
}

/// Reads one entry of an MCP `tools/list` result (a JSON object with `name`,
/// `inputSchema` and optional `title`, `description`, `outputSchema`,
/// `annotations`) into a definition, checking the name rule.
pub fn tool_from_list_entry(entry: &serde_json::Value) -> Result<Tool, RegistryError> {
    let tool: Tool = serde_json::from_value(entry.clone())
        .map_err(|e| RegistryError::InvalidDefinition(e.to_string()))?;
    validate_tool_name(&tool.name)?;
    Ok(tool)
}
