//! `RmcpClientPeer`: the [`ClientPeer`] a handler sees when its call came from an
//! MCP client, over rmcp's `Peer<RoleServer>`.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use async_trait::async_trait;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProgressToken,
};
use rmcp::service::{Peer, RoleServer};

use crate::context::ClientPeer;
use crate::registry::ToolError;

/// The log threshold a client chose with `logging/setLevel`, shared by the
/// calls of one connection.
#[derive(Debug)]
pub(crate) struct LogThreshold(AtomicU8);

impl LogThreshold {
    /// Until the client says otherwise, `info` and above are sent.
    pub(crate) fn new() -> Self {
        Self(AtomicU8::new(level_rank(LoggingLevel::Info)))
    }

    /// A threshold for one request that chose `level` itself.
    pub(crate) fn at(level: LoggingLevel) -> Self {
        Self(AtomicU8::new(level_rank(level)))
    }

    /// A threshold that lets nothing through.
    pub(crate) fn off() -> Self {
        Self(AtomicU8::new(u8::MAX))
    }

    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(level_rank(level), Ordering::Relaxed);
    }

    pub(crate) fn allows(&self, level: LoggingLevel) -> bool {
        level_rank(level) >= self.0.load(Ordering::Relaxed)
    }
}

fn level_rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// One call's view of the connected client.
pub(crate) struct RmcpClientPeer {
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
    threshold: Arc<LogThreshold>,
    capabilities: Option<ClientCapabilities>,
}

impl RmcpClientPeer {
    pub(crate) fn new(
        peer: Peer<RoleServer>,
        progress_token: Option<ProgressToken>,
        threshold: Arc<LogThreshold>,
        capabilities: Option<ClientCapabilities>,
    ) -> Self {
        Self {
            peer,
            progress_token,
            threshold,
            capabilities,
        }
    }
}

#[async_trait]
impl ClientPeer for RmcpClientPeer {
    async fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) {
        // Without a token the client did not ask for progress.
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = ProgressNotificationParam::new(token.clone(), progress);
        if let Some(total) = total {
            params = params.with_total(total);
        }
        if let Some(message) = message {
            params = params.with_message(message);
        }
        if let Err(e) = self.peer.notify_progress(params).await {
            tracing::debug!(error = %e, "progress notification not delivered");
        }
    }

    async fn log(&self, level: LoggingLevel, logger: Option<String>, data: serde_json::Value) {
        if !self.threshold.allows(level) {
            return;
        }
        let mut params = LoggingMessageNotificationParam::new(level, data);
        params.logger = logger;
        if let Err(e) = self.peer.notify_logging_message(params).await {
            tracing::debug!(error = %e, "log notification not delivered");
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|caps| caps.sampling.is_some());
        if !supported {
            return Err(ToolError::new(
                "the client does not support sampling (no `sampling` capability)",
            ));
        }
        self.peer
            .create_message(params)
            .await
            .map_err(|e| ToolError::new(format!("sampling request failed: {e}")))
    }

    async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, ToolError> {
        let supported = self
            .capabilities
            .as_ref()
            .is_some_and(|caps| caps.elicitation.is_some());
        if !supported {
            return Err(ToolError::new(
                "the client does not support elicitation (no `elicitation` capability)",
            ));
        }
        self.peer
            .create_elicitation(params)
            .await
            .map_err(|e| ToolError::new(format!("elicitation request failed: {e}")))
    }

    fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.capabilities.clone()
    }
}
