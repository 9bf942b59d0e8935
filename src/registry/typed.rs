//! Typed registration: the input schema derived from a Rust struct (`schemars`),
//! the arguments deserialized into it before the handler runs.

use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::context::ToolContext;
use super::error::{RegistryError, ToolError};
use super::handler::ToolHandler;
use super::store::{RegistryChange, ToolRegistry};
use super::tool::RegisteredTool;
use crate::core::JsonObject;

/// Builds a tool whose arguments are a Rust type.
///
/// ```
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use toolrouter::{ToolRegistry, TypedToolBuilder};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Add { a: i64, b: i64 }
///
/// let registry = ToolRegistry::new();
/// TypedToolBuilder::new("add", "Adds two integers")
///     .register(&registry, |args: Add, _ctx| async move {
///         Ok::<_, toolrouter::ToolError>(args.a + args.b)
///     })
///     .unwrap();
/// assert!(registry.contains("add"));
/// ```
#[derive(Debug, Clone)]
pub struct TypedToolBuilder {
    name: String,
    description: String,
    title: Option<String>,
    annotations: Option<ToolAnnotations>,
    timeout: Option<std::time::Duration>,
}

impl TypedToolBuilder {
    /// Starts a tool with a name and a description.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            title: None,
            annotations: None,
            timeout: None,
        }
    }

    /// Sets the human-readable title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the MCP annotations (read-only, destructive, idempotent, open-world hints).
    pub fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// Sets a per-tool timeout.
    pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Builds the checked tool. The handler's output is serialized: a JSON object
    /// becomes `structuredContent` (and the tool gets an `outputSchema` derived
    /// from `O`), anything else a text block; the JSON text is always also given
    /// as a text block for clients that ignore structured content.
    pub fn build<A, O, F, Fut>(self, f: F) -> Result<RegisteredTool, RegistryError>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + Send + 'static,
        F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        let input_schema = schema_object::<A>();
        let output_schema = schema_object::<O>();
        let structured = output_schema.get("type").and_then(|t| t.as_str()) == Some("object");
        let mut definition = Tool::new(self.name, self.description, Arc::new(input_schema));
        if structured {
            definition = definition.with_raw_output_schema(Arc::new(output_schema));
        }
        if let Some(title) = self.title {
            definition = definition.with_title(title);
        }
        if let Some(annotations) = self.annotations {
            definition = definition.with_annotations(annotations);
        }
        let handler = TypedHandler::<A, O, F, Fut> {
            f,
            structured,
            _types: PhantomData,
        };
        let mut tool = RegisteredTool::new(definition, Some(Arc::new(handler)))?;
        if let Some(timeout) = self.timeout {
            tool = tool.with_timeout(timeout);
        }
        Ok(tool)
    }

    /// Builds the tool and registers it, replacing any tool of the same name.
    pub fn register<A, O, F, Fut>(
        self,
        registry: &ToolRegistry,
        f: F,
    ) -> Result<RegistryChange, RegistryError>
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + Send + 'static,
        F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        Ok(registry.insert(self.build(f)?))
    }
}

fn schema_object<T: JsonSchema>() -> JsonObject {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    match serde_json::to_value(schema) {
        Ok(serde_json::Value::Object(mut map)) => {
            // A unit or empty struct derives `{"type":"null"}` or no type; MCP wants
            // an object schema.
            if map.get("type").and_then(|t| t.as_str()) != Some("object")
                && !map.contains_key("properties")
                && std::any::type_name::<T>() == "()"
            {
                map.clear();
                map.insert("type".into(), "object".into());
            }
            map
        }
        _ => JsonObject::new(),
    }
}

struct TypedHandler<A, O, F, Fut> {
    f: F,
    structured: bool,
    _types: PhantomData<fn(A) -> (O, Fut)>,
}

#[async_trait]
impl<A, O, F, Fut> ToolHandler for TypedHandler<A, O, F, Fut>
where
    A: DeserializeOwned + Send + 'static,
    O: Serialize + Send + 'static,
    F: Fn(A, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    async fn call(&self, args: JsonObject, ctx: ToolContext) -> Result<CallToolResult, ToolError> {
        let args: A = serde_json::from_value(serde_json::Value::Object(args))
            .map_err(|e| ToolError::new(format!("arguments do not fit the tool's type: {e}")))?;
        let output = (self.f)(args, ctx).await?;
        let value = serde_json::to_value(output)?;
        let text = match &value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        if self.structured {
            result.structured_content = Some(value);
        }
        Ok(result)
    }
}
