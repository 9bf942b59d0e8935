//! `ResourceRegistry`: the resources and resource templates an app serves over MCP.
//!
//! A resource is a fixed URI with a reader; a template is an RFC 6570 level-1
//! URI template (`test://items/{id}`) whose reader gets the matched variables.
//! Reading looks for an exact resource first, then tries templates in
//! registration order.

use crate::core::echo;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};
use tokio::sync::broadcast;

use super::error::ToolError;

/// The variables a template matched (`{id}` -> `"123"`).
pub type UriVariables = HashMap<String, String>;

type ReadFn = Arc<
    dyn Fn(String, UriVariables) -> BoxFuture<'static, Result<Vec<ResourceContents>, ToolError>>
        + Send
        + Sync,
>;

/// A change that connected clients may need to hear about.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResourceChange {
    /// The set of resources or templates changed.
    ListChanged,
    /// The content behind this URI changed.
    Updated(String),
}

#[derive(Clone)]
struct StaticEntry {
    resource: Resource,
    read: ReadFn,
}

#[derive(Clone)]
struct TemplateEntry {
    template: ResourceTemplate,
    pattern: UriPattern,
    read: ReadFn,
}

/// Why a read failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No resource or template matches the URI.
    #[error("resource not found: {}", echo(.0))]
    NotFound(String),
    /// The reader failed.
    #[error("reading {} failed: {message}", echo(.uri))]
    ReadFailed {
        /// The requested URI.
        uri: String,
        /// The reader's message.
        message: String,
    },
}

/// The registered resources and templates. Share it as `Arc<ResourceRegistry>`.
pub struct ResourceRegistry {
    resources: RwLock<Vec<StaticEntry>>,
    templates: RwLock<Vec<TemplateEntry>>,
    changes: broadcast::Sender<ResourceChange>,
}

impl std::fmt::Debug for ResourceRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceRegistry")
            .field("resources", &self.list().len())
            .field("templates", &self.list_templates().len())
            .finish()
    }
}

impl Default for ResourceRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl ResourceRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        let (changes, _) = broadcast::channel(256);
        Self {
            resources: RwLock::new(Vec::new()),
            templates: RwLock::new(Vec::new()),
            changes,
        }
    }

    /// Registers a resource with an async reader, replacing one of the same URI.
    pub fn register_fn<F, Fut>(&self, resource: Resource, read: F)
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send + 'static,
    {
        let read: ReadFn = Arc::new(move |uri, _vars| Box::pin(read(uri)));
        let entry = StaticEntry { resource, read };
        let mut resources = self.resources.write().unwrap_or_else(|p| p.into_inner());
        resources.retain(|e| e.resource.uri != entry.resource.uri);
        resources.push(entry);
        drop(resources);
        self.send(ResourceChange::ListChanged);
    }

    /// Registers a resource whose content is fixed text.
    pub fn register_text(&self, resource: Resource, text: impl Into<String>) {
        let text: Arc<str> = Arc::from(text.into());
        let mime = resource.mime_type.clone();
        self.register_fn(resource, move |uri| {
            let mut contents = ResourceContents::text(text.to_string(), uri);
            if let Some(mime) = &mime {
                contents = contents.with_mime_type(mime.clone());
            }
            std::future::ready(Ok(vec![contents]))
        });
    }

    /// Registers a URI template with an async reader that gets the full URI and
    /// the matched variables. Fails if the template is not a level-1 template.
    pub fn register_template_fn<F, Fut>(
        &self,
        template: ResourceTemplate,
        read: F,
    ) -> Result<(), ResourceError>
    where
        F: Fn(String, UriVariables) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<ResourceContents>, ToolError>> + Send + 'static,
    {
        let pattern =
            UriPattern::parse(&template.uri_template).ok_or_else(|| ResourceError::ReadFailed {
                uri: template.uri_template.clone(),
                message: "not a level-1 URI template (`{name}` variables only)".to_owned(),
            })?;
        let read: ReadFn = Arc::new(move |uri, vars| Box::pin(read(uri, vars)));
        let entry = TemplateEntry {
            template,
            pattern,
            read,
        };
        let mut templates = self.templates.write().unwrap_or_else(|p| p.into_inner());
        templates.retain(|e| e.template.uri_template != entry.template.uri_template);
        templates.push(entry);
        drop(templates);
        self.send(ResourceChange::ListChanged);
        Ok(())
    }

    /// Removes a resource; returns whether it was registered.
    pub fn remove(&self, uri: &str) -> bool {
        let mut resources = self.resources.write().unwrap_or_else(|p| p.into_inner());
        let before = resources.len();
        resources.retain(|e| e.resource.uri != uri);
        let removed = resources.len() != before;
        drop(resources);
        if removed {
            self.send(ResourceChange::ListChanged);
        }
        removed
    }

    /// The registered resources, in registration order.
    pub fn list(&self) -> Vec<Resource> {
        let resources = self.resources.read().unwrap_or_else(|p| p.into_inner());
        resources.iter().map(|e| e.resource.clone()).collect()
    }

    /// The registered templates, in registration order.
    pub fn list_templates(&self) -> Vec<ResourceTemplate> {
        let templates = self.templates.read().unwrap_or_else(|p| p.into_inner());
        templates.iter().map(|e| e.template.clone()).collect()
    }

    /// Whether a resource or template answers this URI.
    pub fn contains(&self, uri: &str) -> bool {
        self.find(uri).is_some()
    }

    /// Reads a resource.
    pub async fn read(&self, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
        let Some((read, vars)) = self.find(uri) else {
            return Err(ResourceError::NotFound(uri.to_owned()));
        };
        read(uri.to_owned(), vars)
            .await
            .map_err(|e| ResourceError::ReadFailed {
                uri: uri.to_owned(),
                message: e.message().to_owned(),
            })
    }

    /// Tells subscribed clients that the content behind `uri` changed.
    pub fn notify_updated(&self, uri: impl Into<String>) {
        self.send(ResourceChange::Updated(uri.into()));
    }

    /// Subscribes to changes.
    pub fn subscribe(&self) -> broadcast::Receiver<ResourceChange> {
        self.changes.subscribe()
    }

    fn find(&self, uri: &str) -> Option<(ReadFn, UriVariables)> {
        {
            let resources = self.resources.read().unwrap_or_else(|p| p.into_inner());
            if let Some(entry) = resources.iter().find(|e| e.resource.uri == uri) {
                return Some((entry.read.clone(), UriVariables::new()));
            }
        }
        let templates = self.templates.read().unwrap_or_else(|p| p.into_inner());
        templates
            .iter()
            .find_map(|e| e.pattern.matches(uri).map(|vars| (e.read.clone(), vars)))
    }

    fn send(&self, change: ResourceChange) {
        // No receiver is not an error: no client is connected.
        let _ = self.changes.send(change);
    }
}

/// A level-1 URI template split into literal text and variable names.
#[derive(Debug, Clone, PartialEq, Eq)]
struct UriPattern {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Variable(String),
}

impl UriPattern {
    fn parse(template: &str) -> Option<Self> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close = rest[open..].find('}')? + open;
            let name = &rest[open + 1..close];
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if !valid || matches!(parts.last(), Some(Part::Variable(_))) {
                return None;
            }
            parts.push(Part::Variable(name.to_owned()));
            rest = &rest[close + 1..];
        }
        if rest.contains('}') {
            return None;
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Some(Self { parts })
    }

    /// Matches a URI; a variable matches one or more characters other than `/`.
    fn matches(&self, uri: &str) -> Option<UriVariables> {
        let mut vars = UriVariables::new();
        let mut rest = uri;
        let mut parts = self.parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(lit) => rest = rest.strip_prefix(lit.as_str())?,
                Part::Variable(name) => {
                    let end = match parts.peek() {
                        Some(Part::Literal(next)) => rest.find(next.as_str())?,
                        _ => rest.len(),
                    };
                    let value = &rest[..end];
                    if value.is_empty() || value.contains('/') {
                        return None;
                    }
                    vars.insert(name.clone(), value.to_owned());
                    rest = &rest[end..];
                }
            }
        }
        rest.is_empty().then_some(vars)
    }
}

#[cfg(test)]
mod tests;
