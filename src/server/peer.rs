//! `RmcpClientPeer`: the [`ClientPeer`] a handler sees when its call came from an
//! MCP client, over rmcp's `Peer<RoleServer>` (or, for a call the HTTP transport
//! answers itself, over that request's own response stream).
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use async_trait::async_trait;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam,
    ProgressNotification, ProgressNotificationParam, ProgressToken, ServerJsonRpcMessage,
    ServerNotification,
};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::registry::{ClientPeer, ToolError};

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

/// Where the notifications of a call the HTTP transport answers itself go: the
/// messages its response writes before the result. Put in the request's
/// extensions, it replaces rmcp's peer for that call's progress and log
/// notifications (see `http_direct`).
///
/// Messages are boxed: the channel allocates its first block of 32 slots up
/// front, and most calls send nothing, so the block holds pointers rather
/// than 32 whole messages.
#[derive(Debug, Clone)]
pub(crate) struct NotificationSink(mpsc::UnboundedSender<Box<ServerJsonRpcMessage>>);

impl NotificationSink {
    pub(crate) fn new(sender: mpsc::UnboundedSender<Box<ServerJsonRpcMessage>>) -> Self {
        Self(sender)
    }

    fn send(&self, notification: ServerNotification) -> bool {
        self.0
            .send(Box::new(ServerJsonRpcMessage::notification(notification)))
            .is_ok()
    }
}

/// One call's view of the connected client.
pub(crate) struct RmcpClientPeer {
    peer: Peer<RoleServer>,
    /// Set when the call's notifications go to its own response stream
    /// rather than through `peer`.
    sink: Option<NotificationSink>,
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
            sink: None,
            progress_token,
            threshold,
            capabilities,
        }
    }

    /// Sends this call's notifications to `sink` instead of through the peer.
    pub(crate) fn with_sink(mut self, sink: Option<NotificationSink>) -> Self {
        self.sink = sink;
        self
    }

    /// Whether a server-to-client request of `capability` (`sampling`,
    /// `elicitation`) may be sent: the client declared it (`declared`), and
    /// the request has rmcp's peer to send it by. A call answered on the
    /// direct HTTP path has none that can carry it (the transport routes such
    /// calls to rmcp when the client declares sampling or elicitation).
    fn may_ask(
        &self,
        capability: &str,
        declared: impl FnOnce(&ClientCapabilities) -> bool,
    ) -> Result<(), ToolError> {
        if !self.capabilities.as_ref().is_some_and(declared) {
            return Err(ToolError::new(format!(
                "the client does not support {capability} (no `{capability}` capability)"
            )));
        }
        if self.sink.is_some() {
            return Err(ToolError::new(format!(
                "{capability} is unavailable: this stateless HTTP request cannot carry a server-to-client request"
            )));
        }
        Ok(())
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
        if let Some(sink) = &self.sink {
            if !sink.send(ServerNotification::ProgressNotification(
                ProgressNotification::new(params),
            )) {
                tracing::debug!("progress notification not delivered: the response is gone");
            }
        } else if let Err(e) = self.peer.notify_progress(params).await {
            tracing::debug!(error = %e, "progress notification not delivered");
        }
    }

    async fn log(&self, level: LoggingLevel, logger: Option<String>, data: serde_json::Value) {
        if !self.threshold.allows(level) {
            return;
        }
        let mut params = LoggingMessageNotificationParam::new(level, data);
        params.logger = logger;
        if let Some(sink) = &self.sink {
            if !sink.send(ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(params),
            )) {
                tracing::debug!("log notification not delivered: the response is gone");
            }
        } else if let Err(e) = self.peer.notify_logging_message(params).await {
            tracing::debug!(error = %e, "log notification not delivered");
        }
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        self.may_ask("sampling", |caps| caps.sampling.is_some())?;
        self.peer
            .create_message(params)
            .await
            .map_err(|e| ToolError::new(format!("sampling request failed: {e}")))
    }

    async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, ToolError> {
        self.may_ask("elicitation", |caps| caps.elicitation.is_some())?;
        self.peer
            .create_elicitation(params)
            .await
            .map_err(|e| ToolError::new(format!("elicitation request failed: {e}")))
    }

    fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.capabilities.clone()
    }
}
