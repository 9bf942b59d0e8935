//! `PromptRegistry`: the prompts an app serves over MCP (`prompts/list`,
//! `prompts/get` with arguments, and argument completion).

use crate::core::echo;

use std::future::Future;
use std::sync::{Arc, RwLock};

use futures::future::BoxFuture;
use rmcp::model::{GetPromptResponse, InputResponses, Prompt};
use tokio::sync::broadcast;

use super::error::ToolError;

/// The arguments of a `prompts/get`: names to string values.
pub type PromptArguments = serde_json::Map<String, serde_json::Value>;

/// What a prompt's builder receives.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct PromptRequest {
    /// The arguments, required ones already checked.
    pub arguments: PromptArguments,
    /// On a retry after an `input_required` result (protocol 2026-07-28), the
    /// client's answers keyed like the input requests.
    pub input_responses: Option<InputResponses>,
    /// On such a retry, the opaque state the builder returned.
    pub request_state: Option<String>,
}

impl PromptRequest {
    /// A request with these arguments.
    pub fn new(arguments: PromptArguments) -> Self {
        Self {
            arguments,
            input_responses: None,
            request_state: None,
        }
    }

    /// One argument as a string (missing or non-string gives `None`).
    pub fn argument(&self, name: &str) -> Option<&str> {
        self.arguments.get(name).and_then(|v| v.as_str())
    }
}

type GetFn = Arc<
    dyn Fn(PromptRequest) -> BoxFuture<'static, Result<GetPromptResponse, ToolError>> + Send + Sync,
>;
type CompleteFn = Arc<dyn Fn(&str, &str) -> Vec<String> + Send + Sync>;

#[derive(Clone)]
struct PromptEntry {
    prompt: Prompt,
    get: GetFn,
    complete: Option<CompleteFn>,
}

/// Why a `prompts/get` failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// No prompt of this name.
    #[error("unknown prompt `{}`", echo(.0))]
    NotFound(String),
    /// A required argument is missing.
    #[error("prompt `{prompt}` needs the argument `{argument}`")]
    MissingArgument {
        /// The prompt.
        prompt: String,
        /// The missing argument.
        argument: String,
    },
    /// The prompt's handler failed.
    #[error("prompt `{prompt}` failed: {message}")]
    Failed {
        /// The prompt.
        prompt: String,
        /// The handler's message.
        message: String,
    },
}

/// The registered prompts, listed in registration order.
pub struct PromptRegistry {
    prompts: RwLock<Vec<PromptEntry>>,
    changes: broadcast::Sender<()>,
}

impl std::fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptRegistry")
            .field("prompts", &self.list().len())
            .finish()
    }
}

impl Default for PromptRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl PromptRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        let (changes, _) = broadcast::channel(64);
        Self {
            prompts: RwLock::new(Vec::new()),
            changes,
        }
    }

    /// Registers a prompt with an async builder of its messages, replacing one
    /// of the same name. Required arguments are checked before `get` runs.
    pub fn register_fn<F, Fut>(&self, prompt: Prompt, get: F)
    where
        F: Fn(PromptRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResponse, ToolError>> + Send + 'static,
    {
        self.insert(PromptEntry {
            prompt,
            get: Arc::new(move |request| Box::pin(get(request))),
            complete: None,
        });
    }

    /// Registers a prompt like [`register_fn`](Self::register_fn), with a
    /// completer for its arguments: `complete(argument, typed_prefix)` gives
    /// the suggested values.
    pub fn register_with_completion<F, Fut, C>(&self, prompt: Prompt, get: F, complete: C)
    where
        F: Fn(PromptRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResponse, ToolError>> + Send + 'static,
        C: Fn(&str, &str) -> Vec<String> + Send + Sync + 'static,
    {
        self.insert(PromptEntry {
            prompt,
            get: Arc::new(move |request| Box::pin(get(request))),
            complete: Some(Arc::new(complete)),
        });
    }

    /// Removes a prompt; returns whether it was registered.
    pub fn remove(&self, name: &str) -> bool {
        let mut prompts = self.prompts.write().unwrap_or_else(|p| p.into_inner());
        let before = prompts.len();
        prompts.retain(|e| e.prompt.name != name);
        let removed = before != prompts.len();
        drop(prompts);
        if removed {
            let _ = self.changes.send(());
        }
        removed
    }

    /// The registered prompts.
    pub fn list(&self) -> Vec<Prompt> {
        let prompts = self.prompts.read().unwrap_or_else(|p| p.into_inner());
        prompts.iter().map(|e| e.prompt.clone()).collect()
    }

    /// Builds a prompt's messages.
    pub async fn get(
        &self,
        name: &str,
        request: PromptRequest,
    ) -> Result<GetPromptResponse, PromptError> {
        let entry = self
            .entry(name)
            .ok_or_else(|| PromptError::NotFound(name.to_owned()))?;
        for argument in entry.prompt.arguments.iter().flatten() {
            if argument.required == Some(true) && !request.arguments.contains_key(&argument.name) {
                return Err(PromptError::MissingArgument {
                    prompt: name.to_owned(),
                    argument: argument.name.clone(),
                });
            }
        }
        (entry.get)(request).await.map_err(|e| PromptError::Failed {
            prompt: name.to_owned(),
            message: e.message().to_owned(),
        })
    }

    /// Suggested values for one argument of a prompt (empty when the prompt has
    /// no completer).
    pub fn complete(&self, name: &str, argument: &str, prefix: &str) -> Vec<String> {
        self.entry(name)
            .and_then(|e| e.complete)
            .map(|complete| complete(argument, prefix))
            .unwrap_or_default()
    }

    /// Subscribes to list changes.
    pub fn subscribe(&self) -> broadcast::Receiver<()> {
        self.changes.subscribe()
    }

    fn entry(&self, name: &str) -> Option<PromptEntry> {
        let prompts = self.prompts.read().unwrap_or_else(|p| p.into_inner());
        prompts.iter().find(|e| e.prompt.name == name).cloned()
    }

    fn insert(&self, entry: PromptEntry) {
        let mut prompts = self.prompts.write().unwrap_or_else(|p| p.into_inner());
        prompts.retain(|e| e.prompt.name != entry.prompt.name);
        prompts.push(entry);
        drop(prompts);
        let _ = self.changes.send(());
    }
}
