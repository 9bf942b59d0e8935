//! `McpServer`: the rmcp `ServerHandler` that serves a [`Hub`]'s tools,
//! resources and prompts to one MCP connection.
//!
//! Every `tools/call` goes through the hub's executor, exactly like a call found
//! in a model stream. One `McpServer` value serves one connection (stdio, or one
//! Streamable HTTP session): it holds that client's log level, its resource
//! subscriptions and the tasks that forward registry changes to it.
#![allow(deprecated)]

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CompletionInfo,
    CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse, Implementation,
    InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Reference, ResultType, ServerCapabilities,
    ServerConfig, SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer, SubscriptionContext};
use tokio::task::JoinHandle;

use super::options::ServerOptions;
use super::peer::{LogThreshold, NotificationSink, RmcpClientPeer};
use super::state::StateSigner;
use crate::core::echo;
use crate::exec::ExecError;
use crate::hub::Hub;
use crate::registry::{
    PromptError, PromptRequest, ResourceChange, ResourceError, RoundEnd, ToolContext,
};

/// The MCP server for one connection. Build one per connection with
/// [`McpServer::new`]; the transports in this module do that for you.
#[derive(Debug, Clone)]
pub struct McpServer {
    hub: Hub,
    shared: Arc<Shared>,
    connection: Arc<Connection>,
}

/// Told of each Streamable HTTP session once its client has sent
/// `notifications/initialized`: the request's HTTP parts (which carry the
/// session id), the session's server and its peer.
pub(crate) type SessionHook =
    Arc<dyn Fn(&http::request::Parts, &McpServer, &Peer<RoleServer>) + Send + Sync>;

/// What every connection of one server shares.
pub(crate) struct Shared {
    options: ServerOptions,
    signer: Option<StateSigner>,
    session_hook: Option<SessionHook>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("options", &self.options)
            .field("signer", &self.signer)
            .field("session_hook", &self.session_hook.is_some())
            .finish()
    }
}

impl Shared {
    pub(crate) fn new(options: ServerOptions) -> Arc<Self> {
        Self::with_hook(options, None)
    }

    /// Like [`Shared::new`], with `hook` told of each initialized HTTP session.
    pub(crate) fn with_hook(
        options: ServerOptions,
        session_hook: Option<SessionHook>,
    ) -> Arc<Self> {
        let signer = match &options.state_keys {
            Some(keys) => Some(StateSigner::with_keys(keys)),
            None => StateSigner::generate(),
        };
        Arc::new(Self {
            options,
            signer,
            session_hook,
        })
    }
}

/// What one connection remembers.
#[derive(Debug)]
struct Connection {
    log_threshold: Arc<LogThreshold>,
    subscribed: Arc<Mutex<HashSet<String>>>,
    forwarders: Mutex<Vec<JoinHandle<()>>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        let forwarders = self.forwarders.get_mut().unwrap_or_else(|p| p.into_inner());
        for task in forwarders.drain(..) {
            task.abort();
        }
    }
}

impl McpServer {
    /// A server for one connection over `hub`.
    pub fn new(hub: Hub, options: ServerOptions) -> Self {
        Self::with_shared(hub, Shared::new(options))
    }

    pub(crate) fn with_shared(hub: Hub, shared: Arc<Shared>) -> Self {
        Self {
            hub,
            shared,
            connection: Arc::new(Connection {
                log_threshold: Arc::new(LogThreshold::new()),
                subscribed: Arc::new(Mutex::new(HashSet::new())),
                forwarders: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The hub this server serves.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    fn capabilities() -> ServerCapabilities {
        ServerCapabilities::builder()
            .enable_logging()
            .enable_completions()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_tools()
            .enable_tool_list_changed()
            .build()
    }

    /// Starts the tasks that tell this client about registry changes.
    fn start_forwarders(&self, peer: Peer<RoleServer>) {
        let mut forwarders = self
            .connection
            .forwarders
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !forwarders.is_empty() {
            return;
        }
        let mut tools = self.hub.registry().subscribe();
        let tools_peer = peer.clone();
        forwarders.push(tokio::spawn(async move {
            loop {
                match tools.recv().await {
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
                if tools_peer.notify_tool_list_changed().await.is_err() {
                    return;
                }
            }
        }));
        let mut prompts = self.hub.prompts().subscribe();
        let prompts_peer = peer.clone();
        forwarders.push(tokio::spawn(async move {
            loop {
                match prompts.recv().await {
                    Ok(()) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                }
                if prompts_peer.notify_prompt_list_changed().await.is_err() {
                    return;
                }
            }
        }));
        let mut resources = self.hub.resources().subscribe();
        let subscribed = self.connection.subscribed.clone();
        forwarders.push(tokio::spawn(async move {
            loop {
                let sent = match resources.recv().await {
                    Ok(ResourceChange::Updated(uri)) => {
                        let wanted = subscribed
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .contains(&uri);
                        if !wanted {
                            continue;
                        }
                        peer.notify_resource_updated(
                            rmcp::model::ResourceUpdatedNotificationParam::new(uri),
                        )
                        .await
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        peer.notify_resource_list_changed().await
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                if sent.is_err() {
                    return;
                }
            }
        }));
    }
}

impl McpServer {
    /// Checks an echoed `requestState` and gives back what the handler stored.
    fn open_state(&self, state: Option<String>) -> Result<Option<String>, McpError> {
        let Some(state) = state else {
            return Ok(None);
        };
        let signer = self.shared.signer.as_ref().ok_or_else(|| {
            McpError::internal_error("request state cannot be checked: no signing key", None)
        })?;
        match signer.verify(&state) {
            Some(payload) => Ok(Some(payload.to_owned())),
            None => Err(McpError::invalid_params(
                "requestState integrity check failed: it was not issued by this server or was altered",
                None,
            )),
        }
    }

    /// Signs the `requestState` a handler put in an `input_required` result.
    fn seal_state(&self, mut result: InputRequiredResult) -> Result<InputRequiredResult, McpError> {
        if let Some(state) = result.request_state.take() {
            let signer = self.shared.signer.as_ref().ok_or_else(|| {
                McpError::internal_error("request state cannot be signed: no signing key", None)
            })?;
            result.request_state = Some(signer.sign(&state));
        }
        Ok(result)
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(Self::capabilities());
        info.server_info = Implementation::new(
            self.shared.options.name.clone(),
            self.shared.options.version.clone(),
        );
        info.instructions = self.shared.options.instructions.clone();
        info
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(hook) = &self.shared.session_hook
            && let Some(parts) = context.extensions.get::<http::request::Parts>()
        {
            hook(parts, self, &context.peer);
        }
        self.start_forwarders(context.peer);
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.connection.log_threshold.set(request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let cursor = request.and_then(|r| r.cursor);
        if let Some(cursor) = &cursor
            && cursor.is_empty()
        {
            return Err(McpError::invalid_params("invalid cursor", None));
        }
        if let Some(gate) = &self.shared.options.list_gate {
            gate.wait().await;
        }
        let page = self
            .hub
            .registry()
            .page(cursor.as_deref(), self.shared.options.page_size);
        let tools: Vec<Tool> = page
            .tools
            .iter()
            .map(|t| (**t.definition()).clone())
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = page.next_cursor;
        Ok(result)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.hub
            .registry()
            .get(name)
            .map(|t| (**t.definition()).clone())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        // Protocol 2026-07-28 has no session: a request logs only at the level
        // its own `_meta` asks for. Older sessions use `logging/setLevel`.
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let log_threshold = match context.meta.log_level() {
            Some(level) => Arc::new(LogThreshold::at(level)),
            None if stateless => Arc::new(LogThreshold::off()),
            None => self.connection.log_threshold.clone(),
        };
        let peer = RmcpClientPeer::new(
            context.peer.clone(),
            context.meta.get_progress_token(),
            log_threshold,
            context.client_capabilities(),
        )
        .with_sink(context.extensions.get::<NotificationSink>().cloned());
        let ctx = ToolContext::new(context.id.to_string(), name.clone())
            .with_cancellation(context.ct.clone())
            .with_peer(Arc::new(peer))
            .with_input_responses(
                request.input_responses,
                self.open_state(request.request_state)?,
            );
        let input_slot = ctx.clone();
        let args = request.arguments.unwrap_or_default();
        match self.hub.executor().try_execute(&name, args, ctx).await {
            Ok(mut result) => match input_slot.take_round_end() {
                Some(RoundEnd::InputRequired(input_required)) => Ok(
                    CallToolResponse::InputRequired(self.seal_state(input_required)?),
                ),
                Some(RoundEnd::MissingCapability(required)) => {
                    Err(McpError::missing_required_client_capability(required))
                }
                None => {
                    result.result_type.get_or_insert(ResultType::COMPLETE);
                    Ok(CallToolResponse::Complete(result))
                }
            },
            Err(e @ ExecError::UnknownTool { .. }) => {
                let ExecError::UnknownTool { suggestions, .. } = &e;
                Err(McpError::invalid_params(
                    e.to_string(),
                    Some(serde_json::json!({ "suggestions": suggestions })),
                ))
            }
        }
    }

    /// rmcp hands over a request it could not read as one of its own: a known
    /// method whose params do not fit (`tools/call` with array arguments) is
    /// -32602, anything else -32601, its name quoted bounded. A method that
    /// protocol 2026-07-28 removed is unknown to a request of that revision.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        Err(super::bad_input::custom_request_error(
            &request.method,
            request.params.as_ref(),
            stateless,
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(
            self.hub.resources().list(),
        ))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        Ok(ListResourceTemplatesResult::with_all_items(
            self.hub.resources().list_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        match self.hub.resources().read(&request.uri).await {
            Ok(contents) => Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
                contents,
            ))),
            Err(e @ ResourceError::NotFound(_)) => Err(McpError::resource_not_found(
                e.to_string(),
                Some(serde_json::json!({ "uri": echo(&request.uri).to_string() })),
            )),
            Err(e) => Err(McpError::internal_error(e.to_string(), None)),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if !self.hub.resources().contains(&request.uri) {
            return Err(McpError::resource_not_found(
                format!("resource not found: {}", echo(&request.uri)),
                Some(serde_json::json!({ "uri": echo(&request.uri).to_string() })),
            ));
        }
        self.connection
            .subscribed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.connection
            .subscribed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let sink = context.sink().clone();
        let accepted = context.accepted().clone();
        let mut tools = self.hub.registry().subscribe();
        let mut prompts = self.hub.prompts().subscribe();
        let mut resources = self.hub.resources().subscribe();
        loop {
            let sent = tokio::select! {
                _ = context.cancelled() => return Ok(()),
                Ok(_) = tools.recv(), if accepted.tools_list_changed == Some(true) => {
                    sink.notify_tool_list_changed().await
                }
                Ok(()) = prompts.recv(), if accepted.prompts_list_changed == Some(true) => {
                    sink.notify_prompt_list_changed().await
                }
                Ok(change) = resources.recv() => match change {
                    ResourceChange::Updated(uri) => {
                        let wanted = accepted
                            .resource_subscriptions
                            .as_ref()
                            .is_some_and(|uris| uris.contains(&uri));
                        if !wanted { continue; }
                        sink.notify_resource_updated(uri).await
                    }
                    _ if accepted.resources_list_changed == Some(true) => {
                        sink.notify_resource_list_changed().await
                    }
                    _ => continue,
                },
            };
            if sent.is_err() {
                return Ok(());
            }
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(self.hub.prompts().list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let mut prompt_request = PromptRequest::new(request.arguments.unwrap_or_default());
        prompt_request.input_responses = request.input_responses;
        prompt_request.request_state = self.open_state(request.request_state)?;
        match self.hub.prompts().get(&request.name, prompt_request).await {
            Ok(GetPromptResponse::InputRequired(input)) => {
                Ok(GetPromptResponse::InputRequired(self.seal_state(input)?))
            }
            Ok(GetPromptResponse::Complete(mut result)) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(GetPromptResponse::Complete(result))
            }
            Ok(response) => Ok(response),
            Err(e @ (PromptError::NotFound(_) | PromptError::MissingArgument { .. })) => {
                Err(McpError::invalid_params(e.to_string(), None))
            }
            Err(e) => Err(McpError::internal_error(e.to_string(), None)),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let values = match &request.r#ref {
            Reference::Prompt(prompt) => self.hub.prompts().complete(
                &prompt.name,
                &request.argument.name,
                &request.argument.value,
            ),
            _ => Vec::new(),
        };
        let mut values = values;
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let mut info =
            CompletionInfo::new(values).map_err(|e| McpError::internal_error(e, None))?;
        info.total = u32::try_from(total).ok();
        info.has_more = Some(total > CompletionInfo::MAX_VALUES);
        Ok(CompleteResult::new(info))
    }
}
