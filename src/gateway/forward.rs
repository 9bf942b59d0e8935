//! `ForwardingHandler`: the `ToolHandler` of an upstream tool. It sends the call to
//! the upstream under the tool's real name, relays progress, passes cancellation
//! on, and turns a dead connection into an error at once.

use std::sync::Arc;

use async_trait::async_trait;
use futures::{FutureExt, StreamExt};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleClient};

use super::upstream::UpstreamShared;
use crate::core::JsonObject;
use crate::registry::ToolContext;
use crate::registry::{ToolError, ToolHandler};

/// Forwards calls of one upstream tool.
pub(crate) struct ForwardingHandler {
    upstream: Arc<UpstreamShared>,
    upstream_name: String,
}

impl ForwardingHandler {
    pub(crate) fn new(upstream: Arc<UpstreamShared>, upstream_name: &str) -> Self {
        Self {
            upstream,
            upstream_name: upstream_name.to_owned(),
        }
    }
}

#[async_trait]
impl ToolHandler for ForwardingHandler {
    async fn call(&self, args: JsonObject, ctx: ToolContext) -> Result<CallToolResult, ToolError> {
        let server = self.upstream.name();
        let Some(live) = self.upstream.live() else {
            return Err(ToolError::new(format!(
                "upstream `{server}` is not connected ({}); try again shortly",
                self.upstream.state()
            )));
        };
        // Only tools the upstream currently advertises are ever called.
        if !self.upstream.advertises(&self.upstream_name) {
            return Err(ToolError::new(format!(
                "upstream `{server}` no longer advertises `{}`",
                self.upstream_name
            )));
        }
        let params = CallToolRequestParams::new(self.upstream_name.clone()).with_arguments(args);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = live
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.failed(e))?;
        let mut progress = live.progress.subscribe(handle.progress_token.clone()).await;
        let mut guard = CancelOnDrop {
            upstream: self.upstream.clone(),
            peer: live.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = handle.await_response();
        tokio::pin!(response);
        let outcome = loop {
            tokio::select! {
                biased;
                result = &mut response => break result,
                _ = live.closed.cancelled() => break Err(ServiceError::TransportClosed),
                _ = ctx.cancelled() => {
                    guard.cancel("cancelled by the caller").await;
                    return Err(ToolError::new(format!(
                        "call to upstream `{server}` cancelled"
                    )));
                }
                Some(p) = progress.next() => {
                    ctx.progress(p.progress, p.total, p.message).await;
                }
            }
        };
        guard.id = None;
        // rmcp hands each notification to its own task, so progress sent just
        // before the result may still be on its way: relay what has arrived.
        tokio::task::yield_now().await;
        while let Some(Some(p)) = progress.next().now_or_never() {
            ctx.progress(p.progress, p.total, p.message).await;
        }
        match outcome {
            Ok(ServerResult::CallToolResult(result)) => Ok(result),
            Ok(ServerResult::InputRequiredResult(_)) => Err(ToolError::new(format!(
                "upstream `{server}` asked for client input (input_required), which the gateway does not relay"
            ))),
            Ok(ServerResult::CreateTaskResult(_)) => Err(ToolError::new(format!(
                "upstream `{server}` answered with a task, which the gateway does not relay"
            ))),
            Ok(_) => Err(ToolError::new(format!(
                "upstream `{server}` answered tools/call with an unexpected result"
            ))),
            Err(e) => Err(self.failed(e)),
        }
    }
}

impl ForwardingHandler {
    /// The error of a failed request; a transport failure makes the supervisor
    /// check the connection.
    fn failed(&self, error: ServiceError) -> ToolError {
        if matches!(
            error,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        ) {
            self.upstream.suspect();
        }
        service_error(self.upstream.name(), error)
    }
}

fn service_error(server: &str, error: ServiceError) -> ToolError {
    match error {
        ServiceError::TransportClosed => ToolError::new(format!(
            "upstream `{server}` closed the connection during the call; it is being restarted"
        )),
        ServiceError::McpError(e) => ToolError::new(format!("upstream `{server}`: {}", e.message)),
        other => ToolError::new(format!("upstream `{server}`: {other}")),
    }
}

/// Sends `notifications/cancelled` for a request still in flight when the call
/// is cancelled or its future dropped (an executor timeout drops it). A
/// dropped call also makes the supervisor ping the upstream: a frozen one is
/// restarted after the first call that timed out, not left to time out every
/// call after it.
struct CancelOnDrop {
    upstream: Arc<UpstreamShared>,
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl CancelOnDrop {
    async fn cancel(&mut self, reason: &str) {
        if let Some(id) = self.id.take() {
            let _ = self
                .peer
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some(reason.to_owned()),
                ))
                .await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        self.upstream.suspect();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(
                    Some(id),
                    Some("the caller stopped waiting".to_owned()),
                ))
                .await;
        });
    }
}
