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

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rmcp::model::{
    CallToolResult, ClientCapabilities, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, InputRequiredResult,
    InputResponses, LoggingLevel,
};
use tokio_util::sync::CancellationToken;

use super::error::ToolError;

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
    /// What the client said it supports, when known.
    fn client_capabilities(&self) -> Option<ClientCapabilities> {
        None
    }
}

/// Per-call context handed to every handler.
#[derive(Clone)]
pub struct ToolContext {
    call_id: String,
    tool_name: String,
    cancel: CancellationToken,
    peer: Option<Arc<dyn ClientPeer>>,
    input: Option<Arc<InputRound>>,
}

/// The multi-round (`input_required`, protocol 2026-07-28) state of one call:
/// what the client answered, and what the handler asks for next.
#[derive(Debug, Default)]
struct InputRound {
    responses: Option<InputResponses>,
    request_state: Option<String>,
    required: Mutex<Option<RoundEnd>>,
}

/// How a handler asked the server to end this round instead of with its result.
#[derive(Debug, Clone)]
pub(crate) enum RoundEnd {
    /// Answer `resultType: "input_required"`.
    InputRequired(InputRequiredResult),
    /// Answer the protocol error for a capability the client did not declare.
    MissingCapability(ClientCapabilities),
}

/// The user's answer to an elicitation, as a handler receives it.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation {
    /// The user submitted the form; the content matches the requested schema.
    Accept(serde_json::Map<String, serde_json::Value>),
    /// The user explicitly declined.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
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
            input: None,
        }
    }

    /// Attaches the answers and state a client sent back after an
    /// `input_required` result (protocol 2026-07-28 multi-round requests).
    pub fn with_input_responses(
        mut self,
        responses: Option<InputResponses>,
        request_state: Option<String>,
    ) -> Self {
        self.input = Some(Arc::new(InputRound {
            responses,
            request_state,
            required: Mutex::new(None),
        }));
        self
    }

    /// The client's answer to the input request named `key`, on a retried call.
    pub fn input_response(&self, key: &str) -> Option<&serde_json::Value> {
        self.input.as_ref()?.responses.as_ref()?.get(key)
    }

    /// The keys the client answered on a retried call, if it answered any.
    pub fn input_response_keys(&self) -> Option<Vec<String>> {
        let responses = self.input.as_ref()?.responses.as_ref()?;
        (!responses.is_empty()).then(|| responses.keys().cloned().collect())
    }

    /// The opaque state echoed back by the client on a retried call.
    pub fn request_state(&self) -> Option<&str> {
        self.input.as_ref()?.request_state.as_deref()
    }

    /// Ends this round asking the client for input (`resultType:
    /// "input_required"`); the client retries the call with the answers, which
    /// [`input_response`](Self::input_response) then returns. Return the value
    /// this gives from the handler. Only calls that came from an MCP client can
    /// do this; elsewhere it is an error.
    pub fn require_input(&self, request: InputRequiredResult) -> Result<CallToolResult, ToolError> {
        let Some(round) = &self.input else {
            return Err(ToolError::new(
                "input_required results need an MCP client: this call has none",
            ));
        };
        *round.required.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(RoundEnd::InputRequired(request));
        Ok(CallToolResult::success(Vec::new()))
    }

    /// Checks that the client declared every capability set in `required`
    /// (sampling, elicitation, roots). If it did not, the call fails; over MCP
    /// the client gets the protocol's missing-capability error (-32021).
    pub fn require_client_capabilities(
        &self,
        required: ClientCapabilities,
    ) -> Result<(), ToolError> {
        let declared = self.client_capabilities().unwrap_or_default();
        let mut missing = Vec::new();
        if required.sampling.is_some() && declared.sampling.is_none() {
            missing.push("sampling");
        }
        if required.elicitation.is_some() && declared.elicitation.is_none() {
            missing.push("elicitation");
        }
        if required.roots.is_some() && declared.roots.is_none() {
            missing.push("roots");
        }
        if missing.is_empty() {
            return Ok(());
        }
        if let Some(round) = &self.input {
            *round.required.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(RoundEnd::MissingCapability(required));
        }
        Err(ToolError::new(format!(
            "the client did not declare the {} capability this tool needs",
            missing.join(" and ")
        )))
    }

    /// Takes how the handler asked to end this round, if it did.
    pub(crate) fn take_round_end(&self) -> Option<RoundEnd> {
        let round = self.input.as_ref()?;
        round
            .required
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
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

    /// What the calling client supports (sampling, elicitation, roots), when
    /// the call came from an MCP client that said so.
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.peer.as_ref()?.client_capabilities()
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

    /// Asks the user to fill a form: `schema` must be the restricted flat
    /// object schema of MCP elicitation (primitive properties only); it is
    /// checked before anything is sent. Accepted content is checked against it.
    pub async fn elicit_form(
        &self,
        message: impl Into<String>,
        schema: serde_json::Value,
    ) -> Result<Elicitation, ToolError> {
        let checked: ElicitationSchema = serde_json::from_value(schema.clone()).map_err(|e| {
            ToolError::new(format!(
                "invalid elicitation schema (MCP allows a flat object of string, number, integer, boolean and enum properties): {e}"
            ))
        })?;
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: message.into(),
            requested_schema: checked,
        };
        let result = self.elicit(params).await?;
        match result.action {
            ElicitationAction::Decline => Ok(Elicitation::Decline),
            ElicitationAction::Cancel => Ok(Elicitation::Cancel),
            ElicitationAction::Accept => {
                let content = match result.content {
                    Some(serde_json::Value::Object(map)) => map,
                    None => serde_json::Map::new(),
                    Some(other) => {
                        return Err(ToolError::new(format!(
                            "the client accepted the elicitation with non-object content: {other}"
                        )));
                    }
                };
                let schema = match schema {
                    serde_json::Value::Object(map) => map,
                    _ => serde_json::Map::new(),
                };
                let validator = super::validate::ArgumentValidator::compile(&schema)
                    .map_err(|e| ToolError::new(format!("invalid elicitation schema: {e}")))?;
                let (content, verdict) = validator.validate(content);
                verdict.map_err(|e| {
                    ToolError::new(format!(
                        "the client's elicitation answer does not match the schema: {e}"
                    ))
                })?;
                Ok(Elicitation::Accept(content))
            }
            other => Err(ToolError::new(format!(
                "unsupported elicitation action {other:?}"
            ))),
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
