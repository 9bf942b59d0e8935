//! `ToolRegistry`: the concurrent set of registered tools.
//!
//! Reads are cheap from many tasks: a lookup is one `DashMap` shard read, and
//! listing uses a sorted snapshot that is rebuilt only after the set changed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use dashmap::DashMap;
use rmcp::model::Tool;
use tokio::sync::broadcast;

use super::context::ToolContext;
use super::error::RegistryError;
use super::handler::{FnHandler, ToolHandler};
use super::tool::RegisteredTool;
use crate::core::{JsonObject, ToolCatalog, closest_names};
use rmcp::model::CallToolResult;

use super::error::ToolError;

/// A change to the set of registered tools.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryChange {
    /// A tool was added.
    Added(String),
    /// A tool was replaced by a new definition or handler.
    Replaced(String),
    /// A tool was removed.
    Removed(String),
}

impl RegistryChange {
    /// The tool the change is about.
    pub fn name(&self) -> &str {
        match self {
            RegistryChange::Added(n) | RegistryChange::Replaced(n) | RegistryChange::Removed(n) => {
                n
            }
        }
    }
}

/// One page of a listing.
#[derive(Debug, Clone)]
pub struct ToolPage {
    /// The tools of this page, in name order.
    pub tools: Vec<RegisteredTool>,
    /// The cursor for the next page, `None` on the last one.
    pub next_cursor: Option<String>,
}

/// A sorted view of the registry at one version.
#[derive(Debug, Default)]
struct Snapshot {
    version: u64,
    tools: Vec<RegisteredTool>,
    catalog: Arc<ToolCatalog>,
}

/// The registered tools. Share it as `Arc<ToolRegistry>`.
#[derive(Debug)]
pub struct ToolRegistry {
    tools: DashMap<String, RegisteredTool>,
    version: AtomicU64,
    snapshot: RwLock<Arc<Snapshot>>,
    changes: broadcast::Sender<RegistryChange>,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        let (changes, _) = broadcast::channel(256);
        Self {
            tools: DashMap::new(),
            version: AtomicU64::new(1),
            snapshot: RwLock::new(Arc::new(Snapshot::default())),
            changes,
        }
    }

    /// Registers a checked tool, replacing any tool of the same name.
    pub fn insert(&self, tool: RegisteredTool) -> RegistryChange {
        let name = tool.name().to_owned();
        let previous = self.tools.insert(name.clone(), tool);
        let change = if previous.is_some() {
            RegistryChange::Replaced(name)
        } else {
            RegistryChange::Added(name)
        };
        self.changed(change.clone());
        change
    }

    /// Registers a checked tool unless the name is taken.
    pub fn insert_new(&self, tool: RegisteredTool) -> Result<(), RegistryError> {
        use dashmap::mapref::entry::Entry;
        let name = tool.name().to_owned();
        match self.tools.entry(name.clone()) {
            Entry::Occupied(_) => return Err(RegistryError::Duplicate(name)),
            Entry::Vacant(slot) => {
                slot.insert(tool);
            }
        }
        self.changed(RegistryChange::Added(name));
        Ok(())
    }

    /// Registers a definition with a handler (trait object), replacing any tool of
    /// the same name.
    pub fn register(
        &self,
        definition: Tool,
        handler: Arc<dyn ToolHandler>,
    ) -> Result<RegistryChange, RegistryError> {
        Ok(self.insert(RegisteredTool::new(definition, Some(handler))?))
    }

    /// Registers a definition with an async closure as its handler.
    pub fn register_fn<F, Fut>(
        &self,
        definition: Tool,
        f: F,
    ) -> Result<RegistryChange, RegistryError>
    where
        F: Fn(JsonObject, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        self.register(definition, Arc::new(FnHandler::new(f)))
    }

    /// Registers a tool by its definition alone (for example an entry of another
    /// server's `tools/list`): its calls are recognised and validated, and running
    /// one gives an `isError` result saying that no handler is registered.
    pub fn register_schema_only(&self, definition: Tool) -> Result<RegistryChange, RegistryError> {
        Ok(self.insert(RegisteredTool::new(definition, None)?))
    }

    /// Removes a tool; returns it if it was registered.
    pub fn remove(&self, name: &str) -> Option<RegisteredTool> {
        let removed = self.tools.remove(name).map(|(_, tool)| tool);
        if removed.is_some() {
            self.changed(RegistryChange::Removed(name.to_owned()));
        }
        removed
    }

    /// Looks a tool up by name.
    pub fn get(&self, name: &str) -> Option<RegisteredTool> {
        self.tools.get(name).map(|entry| entry.value().clone())
    }

    /// Whether a tool of this name is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// The number of registered tools.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every tool, sorted by name.
    pub fn list(&self) -> Vec<RegisteredTool> {
        self.snapshot().tools.clone()
    }

    /// The registered tools' definitions, sorted by name: what a provider's
    /// request declares (see `Dialect::declare`).
    pub fn definitions(&self) -> Vec<Tool> {
        self.snapshot()
            .tools
            .iter()
            .map(|t| t.definition().as_ref().clone())
            .collect()
    }

    /// One page of at most `page_size` tools in name order, starting after
    /// `cursor` (the opaque `next_cursor` of the previous page).
    pub fn page(&self, cursor: Option<&str>, page_size: usize) -> ToolPage {
        let snapshot = self.snapshot();
        let start = match cursor {
            Some(after) => snapshot.tools.partition_point(|tool| tool.name() <= after),
            None => 0,
        };
        let end = start
            .saturating_add(page_size.max(1))
            .min(snapshot.tools.len());
        let tools = snapshot.tools[start..end].to_vec();
        let next_cursor = if end < snapshot.tools.len() {
            tools.last().map(|t| t.name().to_owned())
        } else {
            None
        };
        ToolPage { tools, next_cursor }
    }

    /// The names and parameter types parsers need, as an immutable snapshot.
    pub fn catalog(&self) -> Arc<ToolCatalog> {
        self.snapshot().catalog.clone()
    }

    /// Up to three registered names close to `name`, for "did you mean".
    pub fn suggest(&self, name: &str) -> Vec<String> {
        let snapshot = self.snapshot();
        closest_names(name, snapshot.tools.iter().map(|t| t.name()))
    }

    /// Subscribes to changes. A receiver that falls more than 256 changes behind
    /// gets `RecvError::Lagged` and should re-list.
    pub fn subscribe(&self) -> broadcast::Receiver<RegistryChange> {
        self.changes.subscribe()
    }

    /// A number that grows with every change.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    fn changed(&self, change: RegistryChange) {
        self.version.fetch_add(1, Ordering::AcqRel);
        tracing::debug!(?change, "tool registry changed");
        // No receiver is not an error: nobody listens yet.
        let _ = self.changes.send(change);
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        let version = self.version();
        if let Ok(current) = self.snapshot.read()
            && current.version == version
        {
            return current.clone();
        }
        // Read the version before iterating: a change that lands during the
        // rebuild makes the next call rebuild again.
        let mut tools: Vec<RegisteredTool> = self.tools.iter().map(|e| e.value().clone()).collect();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        let mut catalog = ToolCatalog::new();
        for tool in &tools {
            catalog.insert(tool.name(), (**tool.shape()).clone());
        }
        let fresh = Arc::new(Snapshot {
            version,
            tools,
            catalog: Arc::new(catalog),
        });
        match self.snapshot.write() {
            Ok(mut slot) => {
                if slot.version < version {
                    *slot = fresh.clone();
                }
            }
            Err(poisoned) => {
                *poisoned.into_inner() = fresh.clone();
            }
        }
        fresh
    }
}
