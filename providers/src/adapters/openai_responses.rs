//! OpenAI Responses API SSE: output items, `response.function_call_arguments.delta`, reasoning summaries.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::driver::{FrameHandler, parse_frame};
use super::stream_end::StreamEnd;
use super::{KeyAlloc, args_text, error_message, str_field};
use crate::delta::{CallKey, ProviderDelta, StopReason, Usage, as_u64};

/// A function call item, found again by its `item_id` or `output_index`.
#[derive(Debug)]
struct CallItem {
    key: CallKey,
    got_args: bool,
    ended: bool,
}

/// Frame handler for Responses events.
#[derive(Debug, Default)]
pub(crate) struct ResponsesFrames {
    keys: KeyAlloc,
    calls: Vec<CallItem>,
    /// The first call of each item id.
    by_item_id: HashMap<String, usize>,
    /// The latest call of each output index.
    by_output_index: HashMap<u64, usize>,
    end: StreamEnd,
}

/// An event, read with a typed skeleton: the `response` snapshot carried by
/// `response.created`/`completed`/... (the whole output so far) is cut down to the
/// four fields used.
#[derive(Deserialize)]
struct EventIn<'a> {
    #[serde(default, rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(default)]
    delta: Option<Value>,
    #[serde(default)]
    item_id: Option<Value>,
    #[serde(default)]
    output_index: Option<Value>,
    #[serde(default)]
    item: Option<Value>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(default)]
    message: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    response: Option<ResponseIn>,
}

#[derive(Deserialize)]
struct ResponseIn {
    #[serde(default)]
    status: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    incomplete_details: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
}

impl FrameHandler for ResponsesFrames {
    fn on_data(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        let Some(ev) = parse_frame::<EventIn>(data, out) else {
            return;
        };
        self.on_event(event, &ev, out);
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        self.end
            .report_cut("stream ended before response.completed", out);
    }

    fn is_done(&self) -> bool {
        self.end.done
    }
}

/// A leaf's string, if it is a non-empty one.
fn leaf_str(v: &Option<Value>) -> Option<&str> {
    v.as_ref()?.as_str().filter(|s| !s.is_empty())
}

impl ResponsesFrames {
    fn on_event(&mut self, event: &str, ev: &EventIn<'_>, out: &mut Vec<ProviderDelta>) {
        match ev.kind.as_deref().unwrap_or(event) {
            "response.output_text.delta" => {
                if let Some(d) = leaf_str(&ev.delta) {
                    out.push(ProviderDelta::Text(d.to_owned()));
                }
            }
            "response.refusal.delta" => {
                if let Some(d) = leaf_str(&ev.delta) {
                    out.push(ProviderDelta::Refusal(d.to_owned()));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(d) = leaf_str(&ev.delta) {
                    out.push(ProviderDelta::Reasoning(d.to_owned()));
                }
            }
            "response.output_item.added" => self.on_item_added(ev, out),
            "response.function_call_arguments.delta" => {
                if let Some(i) = self.find(ev)
                    && let Some(d) = leaf_str(&ev.delta)
                {
                    let call = &mut self.calls[i];
                    call.got_args = true;
                    out.push(ProviderDelta::ToolCallArgs {
                        key: call.key,
                        fragment: d.to_owned(),
                    });
                }
            }
            "response.function_call_arguments.done" => {
                // Only used when no delta carried the arguments.
                if let Some(i) = self.find(ev)
                    && !self.calls[i].got_args
                    && let Some(args) = leaf_str(&ev.arguments)
                {
                    let call = &mut self.calls[i];
                    call.got_args = true;
                    out.push(ProviderDelta::ToolCallArgs {
                        key: call.key,
                        fragment: args.to_owned(),
                    });
                }
            }
            "response.output_item.done" => self.on_item_done(ev, out),
            "response.completed" => self.on_response_end(ev, StopReason::EndTurn, out),
            "response.incomplete" => {
                let reason = ev
                    .response
                    .as_ref()
                    .and_then(|r| r.incomplete_details.as_ref())
                    .and_then(|d| str_field(d, "reason"))
                    .unwrap_or("");
                let stop = match reason {
                    "content_filter" => StopReason::ContentFilter,
                    _ => StopReason::MaxTokens,
                };
                self.on_response_end(ev, stop, out);
            }
            "response.failed" => {
                if !self.end.errored {
                    let msg = ev
                        .response
                        .as_ref()
                        .and_then(|r| r.error.as_ref())
                        .filter(|e| !e.is_null())
                        .map(error_message)
                        .unwrap_or_else(|| "response failed".to_owned());
                    self.end.errored = true;
                    out.push(ProviderDelta::provider_error(msg));
                }
                self.on_response_end(ev, StopReason::Error, out);
            }
            "error" => {
                self.end.errored = true;
                let msg = match ev.error.as_ref().filter(|e| !e.is_null()) {
                    Some(e) => error_message(e),
                    None => leaf_str(&ev.message).unwrap_or("provider error").to_owned(),
                };
                out.push(ProviderDelta::provider_error(msg));
            }
            _ => {}
        }
    }

    fn on_item_added(&mut self, ev: &EventIn<'_>, out: &mut Vec<ProviderDelta>) {
        let Some(item) = &ev.item else { return };
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            return;
        }
        let key = self.keys.next();
        out.push(ProviderDelta::ToolCallStart {
            key,
            id: str_field(item, "call_id").map(str::to_owned),
            name: str_field(item, "name").unwrap_or("").to_owned(),
        });
        let args = args_text(item.get("arguments"));
        let got_args = !args.is_empty();
        if got_args {
            out.push(ProviderDelta::ToolCallArgs {
                key,
                fragment: args,
            });
        }
        let at = self.calls.len();
        if let Some(id) = str_field(item, "id") {
            self.by_item_id.entry(id.to_owned()).or_insert(at);
        }
        if let Some(index) = ev.output_index.as_ref().and_then(Value::as_u64) {
            self.by_output_index.insert(index, at);
        }
        self.calls.push(CallItem {
            key,
            got_args,
            ended: false,
        });
    }

    fn on_item_done(&mut self, ev: &EventIn<'_>, out: &mut Vec<ProviderDelta>) {
        let Some(item) = &ev.item else { return };
        let item_type = item.get("type").and_then(Value::as_str).unwrap_or("");
        if item_type == "function_call" {
            let status = item.get("status").and_then(Value::as_str);
            if let Some(i) = self.find(ev)
                && status != Some("incomplete")
                && !self.calls[i].ended
            {
                let call = &mut self.calls[i];
                if !call.got_args
                    && let Some(args) = str_field(item, "arguments")
                {
                    call.got_args = true;
                    out.push(ProviderDelta::ToolCallArgs {
                        key: call.key,
                        fragment: args.to_owned(),
                    });
                }
                call.ended = true;
                out.push(ProviderDelta::ToolCallEnd { key: call.key });
            }
        } else if item_type.ends_with("_call") {
            // Hosted tools (web_search_call, file_search_call, code_interpreter_call,
            // mcp_call, ...) run on OpenAI's side.
            let arguments = item
                .get("action")
                .or_else(|| item.get("arguments"))
                .cloned()
                .unwrap_or_else(|| Value::Object(Default::default()));
            let arguments = match arguments {
                Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                other => other,
            };
            out.push(ProviderDelta::ServerToolCall {
                id: str_field(item, "id").map(str::to_owned),
                name: str_field(item, "name").unwrap_or(item_type).to_owned(),
                arguments,
            });
        }
    }

    fn on_response_end(
        &mut self,
        ev: &EventIn<'_>,
        stop: StopReason,
        out: &mut Vec<ProviderDelta>,
    ) {
        // `response.completed`, `.incomplete` and `.failed` end the stream.
        self.end.done = true;
        if self.end.finished {
            return;
        }
        self.end.finished = true;
        let response = ev.response.as_ref();
        if let Some(usage) = response
            .and_then(|r| r.usage.as_ref())
            .filter(|u| u.is_object())
        {
            out.push(ProviderDelta::Usage(Usage {
                input_tokens: as_u64(usage.get("input_tokens")),
                output_tokens: as_u64(usage.get("output_tokens")),
                total_tokens: as_u64(usage.get("total_tokens")),
            }));
        }
        let raw = response
            .and_then(|r| leaf_str(&r.status))
            .unwrap_or(stop.as_str());
        out.push(ProviderDelta::finish(stop, raw));
    }

    fn find(&self, ev: &EventIn<'_>) -> Option<usize> {
        let item_id =
            leaf_str(&ev.item_id).or_else(|| ev.item.as_ref().and_then(|i| str_field(i, "id")));
        if let Some(id) = item_id
            && let Some(&i) = self.by_item_id.get(id)
        {
            return Some(i);
        }
        let index = ev.output_index.as_ref().and_then(Value::as_u64)?;
        self.by_output_index.get(&index).copied()
    }
}
