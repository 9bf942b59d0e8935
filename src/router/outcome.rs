//! `TurnOutcome`: a routed turn, collected — the normalised summary, the results
//! in call order, and the follow-up messages for the next request.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use toolrouter_providers::{PartialCall, StopReason, Usage, Wire};

use super::event::RouteEvent;
use crate::convert::Dialect;
use crate::core::{DetectEvent, Diagnostic, ToolCall};

/// A call and, once it has run, its result.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The call's index in the turn (the order calls were opened).
    pub index: usize,
    /// The call.
    pub call: ToolCall,
    /// Its result, `None` until it has run (or when it was never run).
    pub result: Option<CallToolResult>,
    /// How long it ran, in milliseconds.
    pub elapsed_ms: Option<u64>,
}

/// Everything one turn came to.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// The wire the turn came over; its dialect is the follow-up's.
    pub wire: Wire,
    /// Visible text.
    pub text: String,
    /// Reasoning text.
    pub reasoning: String,
    /// Finished calls in the order they were opened (not the order they
    /// finished), with their results.
    pub calls: Vec<CallResult>,
    /// The normalised stop reason (`end_turn` until the stream finished).
    pub stop: StopReason,
    /// The first provider error.
    pub error: Option<String>,
    /// Calls that were cut off, never run: structured calls, then calls in
    /// the text (whose unfinished markup is also in `text`).
    pub partial_calls: Vec<PartialCall>,
    /// Calls the provider ran itself.
    pub server_calls: Vec<Value>,
    /// Diagnostics for markup that did not become a call.
    pub diagnostics: Vec<Diagnostic>,
    /// The last token counts.
    pub usage: Option<Usage>,
    /// Whether the provider stream has finished.
    pub finished: bool,
}

impl TurnOutcome {
    /// An empty outcome of a turn on `wire`.
    pub fn new(wire: Wire) -> Self {
        Self {
            wire,
            text: String::new(),
            reasoning: String::new(),
            calls: Vec::new(),
            stop: StopReason::EndTurn,
            error: None,
            partial_calls: Vec::new(),
            server_calls: Vec::new(),
            diagnostics: Vec::new(),
            usage: None,
            finished: false,
        }
    }

    /// Collects the events of a turn on `wire`.
    pub fn from_events<'a>(wire: Wire, events: impl IntoIterator<Item = &'a RouteEvent>) -> Self {
        let mut outcome = Self::new(wire);
        for event in events {
            outcome.push(event);
        }
        outcome
    }

    /// Folds one event in.
    pub fn push(&mut self, event: &RouteEvent) {
        match event {
            RouteEvent::Detect(DetectEvent::Text { text }) => self.text.push_str(text),
            RouteEvent::Detect(DetectEvent::Reasoning { text }) => self.reasoning.push_str(text),
            RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => {
                // Calls can finish out of order (interleaved fragments); keep
                // them in the order they were opened.
                let at = self.calls.partition_point(|c| c.index < *index);
                self.calls.insert(
                    at,
                    CallResult {
                        index: *index,
                        call: (**call).clone(),
                        result: None,
                        elapsed_ms: None,
                    },
                );
            }
            RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => {
                self.diagnostics.push(diagnostic.clone())
            }
            RouteEvent::ServerCall {
                id,
                name,
                arguments,
            } => self
                .server_calls
                .push(json!({"id": id, "name": name, "arguments": arguments})),
            RouteEvent::Usage { usage } => self.usage = Some(usage.clone()),
            RouteEvent::Finish {
                stop,
                error,
                partial_calls,
            } => {
                self.stop = *stop;
                self.error = error.clone();
                self.partial_calls = partial_calls.clone();
                self.finished = true;
            }
            RouteEvent::ToolResult {
                id,
                result,
                elapsed_ms,
                ..
            } => {
                if let Some(slot) = self.calls.iter_mut().find(|c| &c.call.id == id) {
                    slot.result = Some(result.clone());
                    slot.elapsed_ms = Some(*elapsed_ms);
                }
            }
            RouteEvent::Refusal { .. }
            | RouteEvent::ProviderError { .. }
            | RouteEvent::Detect(_) => {}
        }
    }

    /// The finished calls, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.calls.iter().map(|c| c.call.clone()).collect()
    }

    /// The summary with the keys of the fixtures' expectation schema (`text`,
    /// `calls`, `stop`, and `reasoning`, `error`, `partial_calls`,
    /// `server_calls` where they apply) plus `results` (one entry per call, in
    /// call order: the MCP `CallToolResult`, or `null` if it has not run).
    pub fn summary(&self) -> Value {
        let calls: Vec<Value> = self
            .calls
            .iter()
            .map(|c| json!({"id": c.call.id, "name": c.call.name, "arguments": c.call.arguments}))
            .collect();
        let results: Vec<Value> = self
            .calls
            .iter()
            .map(|c| match &c.result {
                Some(r) => serde_json::to_value(r).unwrap_or(Value::Null),
                None => Value::Null,
            })
            .collect();
        let mut out = serde_json::Map::new();
        out.insert("text".into(), Value::String(self.text.clone()));
        out.insert("calls".into(), Value::Array(calls));
        out.insert("stop".into(), Value::String(self.stop.as_str().to_owned()));
        if !self.reasoning.is_empty() {
            out.insert("reasoning".into(), Value::String(self.reasoning.clone()));
        }
        if let Some(message) = &self.error {
            out.insert("error".into(), json!({ "message": message }));
        }
        if !self.partial_calls.is_empty() {
            out.insert(
                "partial_calls".into(),
                serde_json::to_value(&self.partial_calls).unwrap_or(Value::Null),
            );
        }
        if !self.server_calls.is_empty() {
            out.insert(
                "server_calls".into(),
                Value::Array(self.server_calls.clone()),
            );
        }
        out.insert("results".into(), Value::Array(results));
        Value::Object(out)
    }

    /// The messages to append to the conversation for the next request, in the
    /// dialect of the turn's wire: the assistant turn that carried the calls,
    /// then the results of every call that ran. Empty when the turn made no call.
    pub fn follow_up(&self) -> Vec<Value> {
        self.follow_up_in(Dialect::for_wire(self.wire))
    }

    /// As [`follow_up`](Self::follow_up), in another `dialect` (e.g.
    /// [`Dialect::XmlText`] when the tools were taught in the text).
    pub fn follow_up_in(&self, dialect: Dialect) -> Vec<Value> {
        if self.calls.is_empty() {
            return Vec::new();
        }
        let calls = self.tool_calls();
        let mut messages = dialect.assistant_turn(&self.text, &calls);
        let ran: Vec<(&ToolCall, &CallToolResult)> = self
            .calls
            .iter()
            .filter_map(|c| c.result.as_ref().map(|r| (&c.call, r)))
            .collect();
        messages.extend(dialect.result_messages(&ran));
        messages
    }
}
