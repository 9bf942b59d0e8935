//! `TurnOutcome`: a routed turn, collected — the normalised summary, the results
//! in call order, and the follow-up messages for the next request.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use toolrouter_providers::{ErrorKind, PartialCall, StopReason, Usage, Wire};

use super::event::RouteEvent;
use crate::convert::Dialect;
use crate::core::{DetectEvent, Diagnostic, DiagnosticKind, ToolCall, echo};

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
    /// The turn's error: the first provider error, or the byte stream's.
    pub error: Option<String>,
    /// Every error the stream reported, in order (the provider's, a frame
    /// that could not be read, the byte stream breaking).
    pub stream_errors: Vec<(ErrorKind, String)>,
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
            stream_errors: Vec::new(),
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
                index,
                id,
                result,
                elapsed_ms,
                ..
            } => {
                // The calls are in index order: the result's call is found
                // by its index, and by its id only where indexes repeat.
                let at = self.calls.partition_point(|c| c.index < *index);
                let slot = match self.calls.get(at) {
                    Some(c) if c.index == *index && &c.call.id == id => Some(at),
                    _ => self.calls.iter().position(|c| &c.call.id == id),
                };
                if let Some(slot) = slot.and_then(|at| self.calls.get_mut(at)) {
                    slot.result = Some(result.clone());
                    slot.elapsed_ms = Some(*elapsed_ms);
                }
            }
            RouteEvent::ProviderError { kind, message } => {
                self.stream_errors.push((*kind, message.clone()))
            }
            RouteEvent::Refusal { .. }
            | RouteEvent::CallSignature { .. }
            | RouteEvent::Detect(_) => {}
        }
    }

    /// The finished calls, in order.
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.calls.iter().map(|c| c.call.clone()).collect()
    }

    /// Whether the turn ended in an error: stop `error` (a provider error, a
    /// stream that ended before the provider finished), or a turn error.
    pub fn ended_in_error(&self) -> bool {
        self.stop == StopReason::Error || self.error.is_some()
    }

    /// The summary with the keys of the fixtures' expectation schema (`text`,
    /// `calls`, `stop`, and `reasoning`, `error`, `partial_calls`,
    /// `server_calls` where they apply) plus `results` (one entry per call, in
    /// call order: the MCP `CallToolResult`, or `null` if it has not run) and,
    /// where there are any, `errors`.
    ///
    /// Each partial call has a `reason`: `cut_off` (the stream ended inside
    /// it), `over_limit` (its arguments exceeded the call size limit),
    /// `invalid_arguments` (they are not one JSON object). A call written in
    /// the text that went over the size limit is given back as text and is
    /// listed here too, its markup cut to a few hundred bytes. `errors` lists,
    /// in order, every error of the stream (`{"source": "stream", "kind",
    /// "message"}`) and every diagnostic of markup that did not become a call
    /// and is not a partial call (`{"source": "detector", "kind", "format",
    /// "name", "message"}`).
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
        let (partial_calls, errors) = self.partial_calls_and_errors();
        if !partial_calls.is_empty() {
            out.insert("partial_calls".into(), Value::Array(partial_calls));
        }
        if !self.server_calls.is_empty() {
            out.insert(
                "server_calls".into(),
                Value::Array(self.server_calls.clone()),
            );
        }
        out.insert("results".into(), Value::Array(results));
        if !errors.is_empty() {
            out.insert("errors".into(), Value::Array(errors));
        }
        Value::Object(out)
    }

    /// The summary's `partial_calls` (with their reasons) and `errors`. A
    /// partial call's reason is the kind of the diagnostic its markup or
    /// arguments were reported with.
    fn partial_calls_and_errors(&self) -> (Vec<Value>, Vec<Value>) {
        let mut used = vec![false; self.diagnostics.len()];
        let mut partial_calls: Vec<Value> = self
            .partial_calls
            .iter()
            .map(|call| {
                let found = self.diagnostics.iter().enumerate().position(|(at, d)| {
                    !used[at]
                        && d.raw == call.raw_arguments
                        && (d.kind == DiagnosticKind::Unfinished
                            || d.name.as_deref() == Some(call.name.as_str()))
                });
                let reason = match found {
                    Some(at) => {
                        used[at] = true;
                        partial_reason(self.diagnostics[at].kind)
                    }
                    None => "cut_off",
                };
                let mut entry = serde_json::to_value(call).unwrap_or(Value::Null);
                if let Value::Object(map) = &mut entry {
                    map.insert("reason".into(), Value::String(reason.to_owned()));
                }
                entry
            })
            .collect();
        let mut errors: Vec<Value> = self
            .stream_errors
            .iter()
            .map(|(kind, message)| {
                json!({"source": "stream", "kind": kind, "message": echo(message).to_string()})
            })
            .collect();
        for (at, diagnostic) in self.diagnostics.iter().enumerate() {
            if used[at] {
                continue;
            }
            if diagnostic.kind == DiagnosticKind::LimitExceeded {
                // A call in the text over the size limit: given back as text.
                partial_calls.push(json!({
                    "id": null,
                    "name": diagnostic.name.clone().unwrap_or_default(),
                    "raw_arguments": echo(&diagnostic.raw).to_string(),
                    "reason": "over_limit",
                }));
            } else {
                errors.push(json!({
                    "source": "detector",
                    "kind": diagnostic.kind,
                    "format": diagnostic.format,
                    "name": diagnostic.name,
                    "message": echo(&diagnostic.message).to_string(),
                }));
            }
        }
        (partial_calls, errors)
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

/// The summary's name for why a call was not completed.
fn partial_reason(kind: DiagnosticKind) -> &'static str {
    match kind {
        DiagnosticKind::Unfinished => "cut_off",
        DiagnosticKind::LimitExceeded => "over_limit",
        DiagnosticKind::Invalid => "invalid_arguments",
        DiagnosticKind::UnknownTool => "unknown_tool",
    }
}
