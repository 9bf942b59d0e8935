//! `Conversation`: one client request's answer, which may take several
//! upstream turns. Without server-side tools it is one [`UpstreamTurn`].
//!
//! With server-side tools (`ProxyOptions::server_tools`: the tools of the
//! gateway's MCP servers and the built-ins), their definitions join the
//! request's tools, upstream and in the detector. A call to one of them is
//! never shown to the client: when a turn ends having made such calls and no
//! call to a client tool, the proxy runs them through the hub's executor (the
//! same path an MCP client's `tools/call` takes), appends the assistant's turn
//! and the results to the conversation, and asks the upstream again, streaming
//! the next turn's text into the same client answer. `max_steps` bounds the
//! rounds. A turn that also calls a client tool goes back to the client as it
//! is: the server calls of that turn are not run (the client cannot send their
//! results), and a line is logged. A server-side call that breaks (arguments
//! that are not one JSON object, or over `--max-call-bytes`) is answered to
//! the model as an `isError` result, as the executor answers arguments that
//! do not fit the tool's schema: the model sees why and may call again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use toolrouter_providers::{AdapterConfig, ErrorKind, StopReason, Usage};

use super::chat_json::ChatJson;
use super::constrain::may_refuse_grammar;
use super::error::ApiError;
use super::handlers::{ProxyState, read_off_thread};
use super::meta::ChunkMeta;
use super::record::RequestRecord;
use super::turn::UpstreamTurn;
use super::upstream::AnswerStream;
use crate::convert::Dialect;
use crate::core::{DetectEvent, Diagnostic, ToolCall, ToolCatalog, ToolShape, WireFormat};
use crate::router::{RouteEvent, RouteSession};

/// The most text of one turn kept for the assistant message of a follow-up.
const MAX_TURN_TEXT: usize = 1 << 20;

/// A request's answer, over as many upstream turns as server-side tools take.
pub(crate) struct Conversation {
    turn: UpstreamTurn,
    state: Arc<ProxyState>,
    /// The Chat Completions body, extended by each server-side round; empty
    /// without server-side tools (nothing sends it again). Shared with the
    /// blocking thread that writes a large one for the upstream.
    body: Arc<ChatJson>,
    catalog: Arc<ToolCatalog>,
    client_key: Option<String>,
    /// The server-side tools' names (empty: no server-side tools).
    server_names: HashSet<String>,
    steps: usize,
    round: Round,
    /// The usage of the turns before this one, summed.
    usage_before: Usage,
    scratch: Vec<RouteEvent>,
}

/// A server-side call begun in the current turn.
struct StartedCall {
    id: String,
    name: String,
    format: WireFormat,
    ended: bool,
}

/// What the current turn did, for its follow-up.
#[derive(Default)]
struct Round {
    text: String,
    /// Its server-side calls by route index (those not ended yet are open).
    server_started: HashMap<usize, StartedCall>,
    /// The finished server-side calls.
    server_calls: Vec<ToolCall>,
    /// The server-side calls that broke, with why: answered as errors.
    broken: Vec<(ToolCall, String)>,
    client_called: bool,
    /// Its latest usage (an upstream may report it more than once a turn).
    usage: Usage,
}

impl Conversation {
    /// Sends the first turn upstream. `body` is the Chat Completions request
    /// and `catalog` its tools; the server-side tools are added to both.
    pub(crate) async fn start(
        state: Arc<ProxyState>,
        mut body: ChatJson,
        mut catalog: ToolCatalog,
        client_key: Option<String>,
        record: &mut RequestRecord,
    ) -> Result<Self, ApiError> {
        let server_names = add_server_tools(&state, &mut body, &mut catalog)?;
        if state.server_tools.is_some() {
            record.with_server_tools();
        }
        let catalog = Arc::new(catalog);
        let mut body = Arc::new(body);
        let turn = send(&state, &body, &catalog, client_key.as_deref(), record).await?;
        if server_names.is_empty() {
            body = Arc::default();
        }
        Ok(Self {
            turn,
            state,
            body,
            catalog,
            client_key,
            server_names,
            steps: 0,
            round: Round::default(),
            usage_before: Usage::default(),
            scratch: Vec::new(),
        })
    }

    /// Reads the next piece of the answer and appends the events the client
    /// sees; `false` once the answer has ended.
    pub(crate) async fn next(&mut self, out: &mut Vec<RouteEvent>) -> bool {
        if self.server_names.is_empty() {
            return self.turn.next(out).await;
        }
        let mut events = std::mem::take(&mut self.scratch);
        let more = self.turn.next(&mut events).await;
        let mut follow_up = false;
        for event in events.drain(..) {
            follow_up |= self.route(event, out);
        }
        self.scratch = events;
        if follow_up {
            self.follow_up(out).await;
            return true;
        }
        more
    }

    /// Sorts one event: server-side calls are kept back, usage is summed over
    /// the turns, and the end of a turn that only called server-side tools
    /// starts a follow-up (`true`) instead of reaching the client.
    fn route(&mut self, event: RouteEvent, out: &mut Vec<RouteEvent>) -> bool {
        match event {
            RouteEvent::Detect(DetectEvent::CallStart {
                index,
                id,
                name,
                format,
            }) if self.server_names.contains(&name) => {
                let call = StartedCall {
                    id,
                    name,
                    format,
                    ended: false,
                };
                self.round.server_started.insert(index, call);
            }
            RouteEvent::Detect(DetectEvent::ArgsDelta { index, .. })
                if self.round.server_started.contains_key(&index) => {}
            RouteEvent::Detect(DetectEvent::CallEnd { index, call })
                if self.round.server_started.contains_key(&index) =>
            {
                if let Some(started) = self.round.server_started.get_mut(&index) {
                    started.ended = true;
                }
                self.round.server_calls.push(*call);
            }
            RouteEvent::Detect(DetectEvent::Malformed { ref diagnostic })
                if self.round.break_server_call(diagnostic) => {}
            RouteEvent::Detect(DetectEvent::CallStart { .. }) => {
                self.round.client_called = true;
                out.push(event);
            }
            RouteEvent::Detect(DetectEvent::Text { ref text }) => {
                if self.round.text.len() + text.len() <= MAX_TURN_TEXT {
                    self.round.text.push_str(text);
                }
                out.push(event);
            }
            RouteEvent::Usage { usage } => {
                let mut total = self.usage_before.clone();
                add_usage(&mut total, &usage);
                self.round.usage = usage;
                out.push(RouteEvent::Usage { usage: total });
            }
            RouteEvent::Finish {
                stop, error: None, ..
            } if stop != StopReason::MaxTokens
                && self.round.called_server()
                && !self.round.client_called =>
            {
                return true;
            }
            RouteEvent::Finish { .. } if self.round.called_server() => {
                tracing::info!(
                    calls = self.round.server_calls.len() + self.round.broken.len(),
                    "a turn that also called a client tool, or was cut, ends with server-side calls not run"
                );
                out.push(event);
            }
            other => out.push(other),
        }
        false
    }

    /// Runs the round's server-side calls and sends the next turn; a failure
    /// ends the answer with an error.
    async fn follow_up(&mut self, out: &mut Vec<RouteEvent>) {
        let round = std::mem::take(&mut self.round);
        add_usage(&mut self.usage_before, &round.usage);
        if self.steps >= self.state.max_steps {
            fail(
                out,
                format!(
                    "the model kept calling server-side tools: the proxy's limit of {} rounds (--max-steps) was reached",
                    self.state.max_steps
                ),
            );
            return;
        }
        self.steps += 1;
        let Some(hub) = self.state.server_tools.as_ref() else {
            return;
        };
        let started = Instant::now();
        let results =
            futures::future::join_all(round.server_calls.iter().map(|c| hub.execute(c))).await;
        let mut record = self.turn.record().detach();
        record.tools_ran(round.server_calls.len(), started.elapsed());
        if !self
            .body
            .get("messages")
            .is_some_and(|m| super::raw_json::kind(m) == super::raw_json::Kind::Array)
        {
            fail(out, "the request has no messages to continue".to_owned());
            return;
        }
        let (broken, why): (Vec<ToolCall>, Vec<CallToolResult>) = round
            .broken
            .into_iter()
            .map(|(call, why)| (call, CallToolResult::error(vec![ContentBlock::text(why)])))
            .unzip();
        let calls: Vec<ToolCall> = round.server_calls.into_iter().chain(broken).collect();
        let mut messages = Dialect::OpenAiChat.assistant_turn(&round.text, &calls);
        let pairs: Vec<_> = calls.iter().zip(results.iter().chain(why.iter())).collect();
        messages.extend(Dialect::OpenAiChat.result_messages(&pairs));
        if let Err(error) = Arc::make_mut(&mut self.body).extend_array("messages", &messages) {
            fail(out, api_message(&error));
            return;
        }
        match send(
            &self.state,
            &self.body,
            &self.catalog,
            self.client_key.as_deref(),
            &mut record,
        )
        .await
        {
            Ok(turn) => self.turn = turn,
            Err(error) => {
                *self.turn.record() = record;
                fail(out, api_message(&error));
            }
        }
    }

    /// The answer's metadata as far as it is known.
    pub(crate) fn meta(&self, fallback_model: &str) -> ChunkMeta {
        self.turn.meta(fallback_model)
    }

    /// The request's log.
    pub(crate) fn record(&mut self) -> &mut RequestRecord {
        self.turn.record()
    }
}

impl Round {
    /// Whether the turn called server-side tools (its calls completed or
    /// broke).
    fn called_server(&self) -> bool {
        !self.server_calls.is_empty() || !self.broken.is_empty()
    }

    /// A `Malformed` diagnostic: when it is the break of a server-side call
    /// still open (its tool and dialect), that call is kept to be answered as
    /// an error (`true`: the client does not see the diagnostic, which is not
    /// about its calls).
    fn break_server_call(&mut self, diagnostic: &Diagnostic) -> bool {
        let Some(name) = diagnostic.name.as_deref() else {
            return false;
        };
        let open = self
            .server_started
            .iter_mut()
            .filter(|(_, c)| !c.ended && c.name == name && c.format == diagnostic.format)
            .min_by_key(|(index, _)| **index);
        let Some((_, call)) = open else {
            return false;
        };
        call.ended = true;
        let why = format!(
            "invalid arguments for tool `{name}`: {} (the call was not run)",
            diagnostic.message
        );
        let call = ToolCall::new(call.id.clone(), name, None, call.format);
        self.broken.push((call, why));
        true
    }
}

/// The message of an error answer.
fn api_message(error: &ApiError) -> String {
    error
        .error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("the upstream refused the follow-up request")
        .to_owned()
}

/// Ends the client's answer with an error.
fn fail(out: &mut Vec<RouteEvent>, message: String) {
    out.push(RouteEvent::ProviderError {
        kind: ErrorKind::Provider,
        message: message.clone(),
    });
    out.push(RouteEvent::Finish {
        stop: StopReason::Error,
        error: Some(message),
        partial_calls: Vec::new(),
    });
}

/// Sends `body` upstream and routes its answer. A large body is written
/// for the upstream on a blocking thread, as it was read.
async fn send(
    state: &ProxyState,
    body: &Arc<ChatJson>,
    catalog: &Arc<ToolCatalog>,
    client_key: Option<&str>,
    record: &mut RequestRecord,
) -> Result<UpstreamTurn, ApiError> {
    let model = body.get_str("model").unwrap_or_default();
    let shape = state.shape();
    let shared = Arc::clone(body);
    let shaped = read_off_thread(body.text_len(), move || shape.shaped(&shared)).await?;
    let mut answer = None;
    if let Some(lazy) = shaped.completion {
        match state
            .upstream
            .post_lazy_completion(lazy, client_key, record)
            .await
        {
            Ok(bytes) => answer = Some(bytes),
            Err(refused) if may_refuse_grammar(&refused) || refused.status == 404 => {
                tracing::warn!(
                    status = refused.status.as_u16(),
                    error = %api_message(&refused),
                    "the upstream refused the lazy grammar at /apply-template and /completions (--constrain always); sent to its chat route with the whole grammar"
                );
            }
            Err(error) => return Err(error),
        }
    }
    let bytes = match answer {
        Some(bytes) => bytes,
        None => match state
            .upstream
            .post_chat(&model, shaped.body, client_key, record)
            .await
        {
            Err(refused) if shaped.constrained && may_refuse_grammar(&refused) => {
                // Once more without the grammar: the server may not take it.
                tracing::warn!(
                    status = refused.status.as_u16(),
                    error = %api_message(&refused),
                    "the upstream refused the request with its grammar (--constrain); sent again without it"
                );
                let mut shape = state.shape();
                shape.constrain = None;
                let shared = Arc::clone(body);
                let sent = read_off_thread(body.text_len(), move || shape.body(&shared)).await?;
                state
                    .upstream
                    .post_chat(&model, sent, client_key, record)
                    .await?
            }
            answer => answer?,
        },
    };
    // The opening of a call the client prefilled: the answer goes on from
    // it, so the detector reads it first, as the upstream's own first chunk.
    let bytes = match shaped.opened {
        Some(opened) => {
            let chunk =
                serde_json::json!({"choices": [{"index": 0, "delta": {"content": opened}}]});
            let frame = bytes::Bytes::from(format!("data: {chunk}\n\n"));
            let first: AnswerStream = Box::pin(futures::stream::iter([Ok(frame)]));
            Box::pin(first.chain(bytes))
        }
        None => bytes,
    };
    let session = RouteSession::with_adapter_config(
        state.wire,
        Arc::clone(catalog),
        state.detect.clone(),
        AdapterConfig::default(),
    );
    Ok(UpstreamTurn::new(
        bytes,
        session,
        state.max_turn_bytes,
        record.detach(),
    ))
}

/// Adds the server-side tools the request does not declare itself to its
/// `tools` and to `catalog`; their names.
fn add_server_tools(
    state: &ProxyState,
    body: &mut ChatJson,
    catalog: &mut ToolCatalog,
) -> Result<HashSet<String>, ApiError> {
    let Some(hub) = state.server_tools.as_ref() else {
        return Ok(HashSet::new());
    };
    let tools: Vec<_> = hub
        .registry()
        .definitions()
        .into_iter()
        .filter(|tool| !catalog.contains(&tool.name))
        .collect();
    if tools.is_empty() {
        return Ok(HashSet::new());
    }
    for tool in &tools {
        catalog.insert(&tool.name, ToolShape::from_input_schema(&tool.input_schema));
    }
    let declared = Dialect::OpenAiChat.declare(&tools).value;
    let declared = declared.as_array().map_or(&[][..], Vec::as_slice);
    body.extend_array("tools", declared)?;
    Ok(tools
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect())
}

/// Adds `more` to the running total.
fn add_usage(total: &mut Usage, more: &Usage) {
    let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0).saturating_add(b.unwrap_or(0))),
    };
    total.input_tokens = add(total.input_tokens, more.input_tokens);
    total.output_tokens = add(total.output_tokens, more.output_tokens);
    total.total_tokens = add(total.total_tokens, more.total_tokens);
}
