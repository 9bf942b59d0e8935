//! `Hub`: the one entry point that owns the registries (tools, resources,
//! prompts) and the executor every call goes through.

use std::sync::{Arc, OnceLock};

use rmcp::model::CallToolResult;

use crate::core::ToolCall;
use crate::exec::{Executor, ExecutorConfig};
use crate::registry::{PromptRegistry, ResourceRegistry, ToolRegistry};

/// The process-wide or embedded tool hub. Cheap to clone: clones share state.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<HubInner>,
}

#[derive(Debug)]
struct HubInner {
    registry: Arc<ToolRegistry>,
    resources: Arc<ResourceRegistry>,
    prompts: Arc<PromptRegistry>,
    executor: Executor,
}

/// Configures a [`Hub`].
#[derive(Debug, Default)]
pub struct HubBuilder {
    registry: Option<Arc<ToolRegistry>>,
    resources: Option<Arc<ResourceRegistry>>,
    prompts: Option<Arc<PromptRegistry>>,
    executor: ExecutorConfig,
}

impl HubBuilder {
    /// Uses an existing registry (for example one shared with another hub).
    pub fn registry(mut self, registry: Arc<ToolRegistry>) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Uses an existing resource registry.
    pub fn resources(mut self, resources: Arc<ResourceRegistry>) -> Self {
        self.resources = Some(resources);
        self
    }

    /// Uses an existing prompt registry.
    pub fn prompts(mut self, prompts: Arc<PromptRegistry>) -> Self {
        self.prompts = Some(prompts);
        self
    }

    /// Sets the executor's limits (default timeout, concurrency).
    pub fn executor_config(mut self, config: ExecutorConfig) -> Self {
        self.executor = config;
        self
    }

    /// Builds the hub.
    pub fn build(self) -> Hub {
        let registry = self.registry.unwrap_or_default();
        let executor = Executor::new(registry.clone(), self.executor);
        Hub {
            inner: Arc::new(HubInner {
                registry,
                resources: self.resources.unwrap_or_default(),
                prompts: self.prompts.unwrap_or_default(),
                executor,
            }),
        }
    }
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    /// The process-wide hub, created on first use.
    pub fn global() -> &'static Hub {
        static GLOBAL: OnceLock<Hub> = OnceLock::new();
        GLOBAL.get_or_init(Hub::new)
    }

    /// A new, isolated hub with empty registries.
    pub fn new() -> Self {
        HubBuilder::default().build()
    }

    /// A builder for a configured hub.
    pub fn builder() -> HubBuilder {
        HubBuilder::default()
    }

    /// The tool registry.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.inner.registry
    }

    /// The resources served over MCP.
    pub fn resources(&self) -> &Arc<ResourceRegistry> {
        &self.inner.resources
    }

    /// The prompts served over MCP.
    pub fn prompts(&self) -> &Arc<PromptRegistry> {
        &self.inner.prompts
    }

    /// The executor every call goes through.
    pub fn executor(&self) -> &Executor {
        &self.inner.executor
    }

    /// Runs a call found in a model stream (see [`Executor::execute`]).
    pub async fn execute(&self, call: &ToolCall) -> CallToolResult {
        self.inner.executor.execute(call).await
    }

    /// A router over this hub's tools and executor, for provider streams.
    pub fn router(&self) -> crate::router::Router {
        crate::router::Router::new(self.inner.executor.clone())
    }

    /// Whether two handles share the same hub.
    pub fn ptr_eq(&self, other: &Hub) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
