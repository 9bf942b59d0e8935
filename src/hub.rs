//! `Hub`: the one entry point that owns the registry (and, as later layers land,
//! the executor and the embedded server).

use std::sync::{Arc, OnceLock};

use crate::registry::ToolRegistry;

/// The process-wide or embedded tool hub. Cheap to clone: clones share state.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<HubInner>,
}

#[derive(Debug)]
struct HubInner {
    registry: Arc<ToolRegistry>,
}

/// Configures a [`Hub`].
#[derive(Debug, Default)]
pub struct HubBuilder {
    registry: Option<Arc<ToolRegistry>>,
}

impl HubBuilder {
    /// Uses an existing registry (for example one shared with another hub).
    pub fn registry(mut self, registry: Arc<ToolRegistry>) -> Self {
        self.registry = Some(registry);
        self
    }

    /// Builds the hub.
    pub fn build(self) -> Hub {
        Hub {
            inner: Arc::new(HubInner {
                registry: self.registry.unwrap_or_default(),
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

    /// A new, isolated hub with an empty registry.
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

    /// Whether two handles share the same hub.
    pub fn ptr_eq(&self, other: &Hub) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
