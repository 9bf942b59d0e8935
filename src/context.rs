//! `ToolContext`: what a running handler can reach (cancellation, progress, logging,
//! the client's model and user).
//!
//! The executor builds one context per call. When the call came from an MCP client
//! the context carries that client as a [`ClientPeer`]; for calls found in a model
//! stream there is no client, and progress and logs go to `tracing` only.
//!
//! rmcp 3.x marks sampling and logging deprecated (SEP-2577) but both remain in
//! the 2025-11-25 protocol that clients speak today, so they are served.
#![allow(deprecated)]

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    LoggingLevel,
};
use tokio_util::sync::CancellationToken;

use crate::registry::ToolError;

/// The client side of a call, as a handler sees it.
///
/// The embedded MCP server implements this over the connected client; tests and
/// embedders can implement it to observe what handlers send.
#[async_trait]
pub trait ClientPeer: Send + Sync + 'static {
    /// Sends a `notifications/progress` for this call.
    async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>);
    /// Sends a `notifications/message` log entry.
    async fn log(&self, level: LoggingLevel, logger: Option<String>, data: serde_json::Value);
    /// Asks the client's model for a completion (`sampling/createMessage`).
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError>;
    /// Asks the user for input (`elicitation/create`).
    async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, ToolError>;
}

/// Per-call context handed to every handler.
#[derive(Clone)]
pub struct ToolContext {
    call_id: String,
    tool_name: String,
    cancel: CancellationToken,
    peer: Option<Arc<dyn ClientPeer>>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("tool_name", &self.tool_name)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("has_peer", &self.peer.is_some())
            .finish()
    }
}

impl ToolContext {
    /// A context with no client attached.
    pub fn new(call_id: impl Into<String>, tool_name: impl Into<String>) -> Self {
        Self {
            call_id: call_id.into(),
            tool_name: tool_name.into(),
            cancel: CancellationToken::new(),
            peer: None,
        }
    }

    /// Uses `cancel` as this call's cancellation token.
    pub fn with_cancellation(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Attaches the client that asked for this call.
    pub fn with_peer(mut self, peer: Arc<dyn ClientPeer>) -> Self {
        self.peer = Some(peer);
        self
    }

    /// The call id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's registered name.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// The call's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await
    }

    /// The attached client, if any.
    pub fn peer(&self) -> Option<&Arc<dyn ClientPeer>> {
        self.peer.as_ref()
    }

    /// Reports progress to the client (a no-op without one).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        tracing::debug!(tool = %self.tool_name, call = %self.call_id, progress, ?total, "progress");
        if let Some(peer) = &self.peer {
            peer.progress(progress, total, message).await;
        }
    }

    /// Sends a log entry to the client (and to `tracing`).
    pub async fn log(&self, level: LoggingLevel, data: serde_json::Value) {
        tracing::info!(tool = %self.tool_name, call = %self.call_id, ?level, %data, "tool log");
        if let Some(peer) = &self.peer {
            peer.log(level, Some(self.tool_name.clone()), data).await;
        }
    }

    /// Asks the client's model for a completion.
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        match &self.peer {
            Some(peer) => peer.create_message(params).await,
            None => Err(ToolError::new(
                "sampling is unavailable: no MCP client is attached to this call",
            )),
        }
    }

    /// Asks the user for input through the client.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, ToolError> {
        match &self.peer {
            Some(peer) => peer.elicit(params).await,
            None => Err(ToolError::new(
                "elicitation is unavailable: no MCP client is attached to this call",
            )),
        }
    }
}
