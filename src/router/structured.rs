//! `StructuredCalls`: the one home of a routed turn's structured provider calls.
//!
//! The detector parses text only; the calls a provider sends beside the text are
//! assembled here. Each fragment is copied once (into the text read at the end;
//! the `ArgsDelta` event takes the provider's own string), and the text is read
//! once, under the same [`ArgumentsRule`] as the providers-only path. What this
//! module decided (completed, malformed, unfinished) is also what the turn's
//! `partial_calls` and stop are made of. A fragment finds its call by key in
//! constant time, however many calls the turn holds.

use std::collections::HashMap;

use toolrouter_providers::{ArgumentsError, ArgumentsRule, ArgumentsText, CallKey, PartialCall};

use super::event::RouteEvent;
use crate::core::{
    DetectEvent, Diagnostic, DiagnosticKind, ToolCall, WireFormat, echo, new_call_id,
};
use crate::detect::parse_arguments;

/// A turn's structured calls, in the order they were opened.
#[derive(Debug)]
pub(super) struct StructuredCalls {
    rule: ArgumentsRule,
    format: WireFormat,
    calls: Vec<StructuredCall>,
    /// The latest call opened under each key.
    by_key: HashMap<CallKey, usize>,
    n_completed: usize,
}

/// One structured call.
#[derive(Debug)]
struct StructuredCall {
    key: CallKey,
    index: usize,
    /// The id in the events: the provider's, or generated.
    id: String,
    /// What the provider gave as id, for a partial call's report.
    given: GivenId,
    name: String,
    args: ArgumentsText,
    state: CallState,
}

/// Where a structured call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallState {
    /// Taking fragments. -> Completed (ended, arguments read), Broken (ended with
    /// arguments that break the rule, or the stream ended first).
    Open,
    /// A `CallEnd` went out; its id and name moved into it.
    Completed,
    /// A `Malformed` went out: the call is partial.
    Broken,
}

/// The id the provider gave a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GivenId {
    /// None: the id in the events was generated.
    None,
    /// An empty string: the id in the events was generated.
    Empty,
    /// The id in the events.
    Same,
}

impl StructuredCalls {
    /// No calls yet; arguments read under `rule`, calls reported in `format`.
    pub(super) fn new(rule: ArgumentsRule, format: WireFormat) -> Self {
        Self {
            rule,
            format,
            calls: Vec::new(),
            by_key: HashMap::new(),
            n_completed: 0,
        }
    }

    /// A call opens under `key` (a call still open under it ends first) with the
    /// index `next_index` gives; the `signature` sent with it, if any, goes
    /// out just before its `CallStart`.
    pub(super) fn start(
        &mut self,
        key: CallKey,
        id: Option<String>,
        name: String,
        signature: Option<String>,
        next_index: impl FnOnce() -> usize,
        out: &mut Vec<RouteEvent>,
    ) {
        self.end(key, out);
        let index = next_index();
        if let Some(signature) = signature {
            out.push(RouteEvent::CallSignature { index, signature });
        }
        let (id, given) = match id {
            Some(id) if !id.is_empty() => (id, GivenId::Same),
            Some(_) => (new_call_id(), GivenId::Empty),
            None => (new_call_id(), GivenId::None),
        };
        out.push(
            DetectEvent::CallStart {
                index,
                id: id.clone(),
                name: name.clone(),
                format: self.format,
            }
            .into(),
        );
        self.by_key.insert(key, self.calls.len());
        self.calls.push(StructuredCall {
            key,
            index,
            id,
            given,
            name,
            args: ArgumentsText::new(),
            state: CallState::Open,
        });
    }

    /// A signature for the call opened under `key`, sent apart from its start;
    /// ignored when no call was opened under it.
    pub(super) fn sign(&mut self, key: CallKey, signature: String, out: &mut Vec<RouteEvent>) {
        match self.latest(key).map(|at| &self.calls[at]) {
            Some(call) => out.push(RouteEvent::CallSignature {
                index: call.index,
                signature,
            }),
            None => tracing::debug!(key = key.0, "a signature for a call never opened"),
        }
    }

    /// More argument text of the call open under `key`; other keys are ignored.
    /// Each fragment that fits is its own `ArgsDelta`.
    pub(super) fn args(&mut self, key: CallKey, fragment: String, out: &mut Vec<RouteEvent>) {
        let rule = self.rule;
        let Some(call) = self.open_mut(key) else {
            tracing::debug!(
                key = key.0,
                "arguments for a structured call that is not open"
            );
            return;
        };
        if fragment.is_empty() || !call.args.push(&fragment, &rule) {
            return;
        }
        out.push(
            DetectEvent::ArgsDelta {
                index: call.index,
                fragment: fragment.into(),
            }
            .into(),
        );
    }

    /// The provider ended the call under `key`: a `CallEnd` (blank arguments
    /// stream a `{}` first) or a `Malformed` diagnostic.
    pub(super) fn end(&mut self, key: CallKey, out: &mut Vec<RouteEvent>) {
        let (rule, format) = (self.rule, self.format);
        let Some(call) = self.open_mut(key) else {
            return;
        };
        match call.args.read_with(&rule, parse_arguments) {
            Ok(arguments) => {
                if arguments.is_empty() && ArgumentsRule::is_blank(call.args.as_str()) {
                    out.push(
                        DetectEvent::ArgsDelta {
                            index: call.index,
                            fragment: "{}".into(),
                        }
                        .into(),
                    );
                }
                call.state = CallState::Completed;
                let index = call.index;
                let id = std::mem::take(&mut call.id);
                let name = std::mem::take(&mut call.name);
                let call = ToolCall::new(id, name, Some(arguments), format);
                out.push(
                    DetectEvent::CallEnd {
                        index,
                        call: Box::new(call),
                    }
                    .into(),
                );
                self.n_completed += 1;
            }
            Err(e) => {
                let (kind, message) = match e {
                    ArgumentsError::TooLarge { max } => (
                        DiagnosticKind::LimitExceeded,
                        format!("structured arguments exceed {max} bytes"),
                    ),
                    e => (
                        DiagnosticKind::Invalid,
                        format!(
                            "arguments are not a json object: {}",
                            echo(e.serde_message().unwrap_or_default())
                        ),
                    ),
                };
                call.state = CallState::Broken;
                out.push(call.malformed(kind, message, format));
            }
        }
    }

    /// The stream ended: every call still open is reported unfinished.
    pub(super) fn finish(&mut self, out: &mut Vec<RouteEvent>) {
        let format = self.format;
        for call in self.calls.iter_mut() {
            if call.state == CallState::Open {
                call.state = CallState::Broken;
                let message = format!(
                    "structured call {} ended before its arguments were closed",
                    call.id
                );
                out.push(call.malformed(DiagnosticKind::Unfinished, message, format));
            }
        }
    }

    /// How many calls completed (a `CallEnd` went out).
    pub(super) fn n_completed(&self) -> usize {
        self.n_completed
    }

    /// Every call that did not complete, in the order they were opened.
    pub(super) fn partial_calls(&self) -> Vec<PartialCall> {
        self.calls
            .iter()
            .filter(|c| c.state != CallState::Completed)
            .map(|c| PartialCall {
                id: match c.given {
                    GivenId::None => None,
                    GivenId::Empty => Some(String::new()),
                    GivenId::Same => Some(c.id.clone()),
                },
                name: c.name.clone(),
                raw_arguments: c.args.as_str().to_owned(),
            })
            .collect()
    }

    /// The call open under `key`, if any.
    fn open_mut(&mut self, key: CallKey) -> Option<&mut StructuredCall> {
        let at = self.latest(key)?;
        self.calls
            .get_mut(at)
            .filter(|c| c.state == CallState::Open)
    }

    /// The position of the latest call opened under `key`.
    fn latest(&self, key: CallKey) -> Option<usize> {
        // Most fragments are for the call opened last.
        match self.calls.last() {
            Some(last) if last.key == key => Some(self.calls.len() - 1),
            _ => self.by_key.get(&key).copied(),
        }
    }
}

impl StructuredCall {
    fn malformed(&self, kind: DiagnosticKind, message: String, format: WireFormat) -> RouteEvent {
        DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind,
                format,
                name: Some(self.name.clone()),
                message,
                raw: self.args.as_str().to_owned(),
            },
        }
        .into()
    }
}
