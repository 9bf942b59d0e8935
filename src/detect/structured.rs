//! Structured provider calls (OpenAI `tool_calls` deltas, Anthropic `tool_use`
//! blocks, …) entering the detector's event stream: `structured_start`,
//! `structured_args` and `structured_end` share the detector's call index
//! sequence. Kept apart so that they can leave the detector as one file and
//! its field ([`StreamDetector`]'s `structured`).

use std::collections::HashMap;

use crate::core::{DetectEvent, Diagnostic, DiagnosticKind, JsonObject, WireFormat};

use super::batch::EventBatch;
use super::detector::StreamDetector;
use super::json_call::is_json_whitespace;
use super::json_value::parse_arguments;
use super::output::EventOutput;
use super::sink::{call_id, finished_call};

/// The structured calls in progress, by the provider's key.
pub(crate) type StructuredCalls = HashMap<u64, StructuredCall>;

/// A structured (provider-side) call in progress.
#[derive(Debug)]
pub(crate) struct StructuredCall {
    index: usize,
    id: String,
    name: String,
    format: WireFormat,
    args: String,
    over_limit: bool,
}

impl StreamDetector {
    /// A structured provider call begins (`key` is the provider's own handle,
    /// e.g. the OpenAI `tool_calls` index or the Anthropic content block index).
    /// A key still open is ended first.
    pub fn structured_start(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: &str,
        format: WireFormat,
        out: &mut impl EventOutput,
    ) {
        out.run(self, |detector, batch| {
            detector.structured_start_batch(key, id, name, format, batch)
        });
    }

    fn structured_start_batch(
        &mut self,
        key: u64,
        id: Option<&str>,
        name: &str,
        format: WireFormat,
        out: &mut EventBatch,
    ) {
        if self.structured.contains_key(&key) {
            self.structured_end_batch(key, out);
        }
        let index = self.next_index;
        self.next_index += 1;
        let id = call_id(id);
        out.push_start(index, &id, name, format);
        self.structured.insert(
            key,
            StructuredCall {
                index,
                id,
                name: name.to_owned(),
                format,
                args: String::new(),
                over_limit: false,
            },
        );
    }

    /// More argument text of a structured call; unknown keys are ignored.
    pub fn structured_args(&mut self, key: u64, fragment: &str, out: &mut impl EventOutput) {
        out.run(self, |detector, batch| {
            detector.structured_args_batch(key, fragment, batch)
        });
    }

    fn structured_args_batch(&mut self, key: u64, fragment: &str, out: &mut EventBatch) {
        let max = self.config.max_call_bytes;
        let Some(call) = self.structured.get_mut(&key) else {
            tracing::debug!(key, "arguments for a structured call that is not open");
            return;
        };
        if call.over_limit || fragment.is_empty() {
            return;
        }
        if call.args.len() + fragment.len() > max {
            call.over_limit = true;
            return;
        }
        call.args.push_str(fragment);
        // Each provider piece is its own event (no merging: floor `MAX`).
        out.push_args(call.index, fragment, usize::MAX);
    }

    /// A structured call is complete. Empty or whitespace-only arguments mean
    /// `{}`; arguments that are not a JSON object give a `Malformed` diagnostic
    /// (no text is returned for structured calls).
    pub fn structured_end(&mut self, key: u64, out: &mut impl EventOutput) {
        out.run(self, |detector, batch| {
            detector.structured_end_batch(key, batch)
        });
    }

    fn structured_end_batch(&mut self, key: u64, out: &mut EventBatch) {
        let Some(call) = self.structured.remove(&key) else {
            return;
        };
        let malformed = |kind, message: String, call: StructuredCall| DetectEvent::Malformed {
            diagnostic: Diagnostic {
                kind,
                format: call.format,
                name: Some(call.name),
                message,
                raw: call.args,
            },
        };
        if call.over_limit {
            let message = format!(
                "structured arguments exceed {} bytes",
                self.config.max_call_bytes
            );
            out.push(malformed(DiagnosticKind::LimitExceeded, message, call));
            return;
        }
        let arguments = if is_json_whitespace(&call.args) {
            out.push_args(call.index, "{}", usize::MAX);
            JsonObject::new()
        } else {
            match parse_arguments(&call.args) {
                Ok(args) => args,
                Err(e) => {
                    let message = format!("arguments are not a json object: {e}");
                    out.push(malformed(DiagnosticKind::Invalid, message, call));
                    return;
                }
            }
        };
        out.push(DetectEvent::CallEnd {
            index: call.index,
            call: Box::new(finished_call(call.id, call.name, arguments, call.format)),
        });
    }

    /// At end of stream: a `Malformed` diagnostic for each structured call
    /// left open, in call order.
    pub(super) fn finish_structured(&mut self, out: &mut EventBatch) {
        let mut open: Vec<StructuredCall> = self.structured.drain().map(|(_, c)| c).collect();
        open.sort_by_key(|c| c.index);
        for call in open {
            out.push(DetectEvent::Malformed {
                diagnostic: Diagnostic {
                    kind: DiagnosticKind::Unfinished,
                    format: call.format,
                    name: Some(call.name),
                    message: format!(
                        "structured call {} ended before its arguments were closed",
                        call.id
                    ),
                    raw: call.args,
                },
            });
        }
    }
}
