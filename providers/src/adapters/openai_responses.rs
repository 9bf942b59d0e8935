//! OpenAI Responses API SSE: output items, `response.function_call_arguments.delta`, reasoning summaries.

use serde_json::Value;

use super::driver::FrameHandler;
use super::openai_chat::error_message;
use super::{KeyAlloc, args_text, str_field};
use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage, as_u64};

/// A function call item, found again by its `output_index` or `item_id`.
#[derive(Debug)]
struct CallItem {
    key: CallKey,
    output_index: Option<u64>,
    item_id: Option<String>,
    got_args: bool,
    ended: bool,
}

/// Frame handler for Responses events.
#[derive(Debug, Default)]
pub(crate) struct ResponsesFrames {
    keys: KeyAlloc,
    calls: Vec<CallItem>,
    finished: bool,
    errored: bool,
}

impl FrameHandler for ResponsesFrames {
    fn on_frame(&mut self, event: &str, json: Value, out: &mut Vec<ProviderDelta>) {
        let kind = json.get("type").and_then(Value::as_str).unwrap_or(event);
        match kind {
            "response.output_text.delta" => {
                if let Some(d) = str_field(&json, "delta") {
                    out.push(ProviderDelta::Text(d.to_owned()));
                }
            }
            "response.refusal.delta" => {
                if let Some(d) = str_field(&json, "delta") {
                    out.push(ProviderDelta::Refusal(d.to_owned()));
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if let Some(d) = str_field(&json, "delta") {
                    out.push(ProviderDelta::Reasoning(d.to_owned()));
                }
            }
            "response.output_item.added" => self.on_item_added(&json, out),
            "response.function_call_arguments.delta" => {
                if let Some(i) = self.find(&json)
                    && let Some(d) = str_field(&json, "delta")
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
                if let Some(i) = self.find(&json)
                    && !self.calls[i].got_args
                    && let Some(args) = str_field(&json, "arguments")
                {
                    let call = &mut self.calls[i];
                    call.got_args = true;
                    out.push(ProviderDelta::ToolCallArgs {
                        key: call.key,
                        fragment: args.to_owned(),
                    });
                }
            }
            "response.output_item.done" => self.on_item_done(&json, out),
            "response.completed" => self.on_response_end(&json, StopReason::EndTurn, out),
            "response.incomplete" => {
                let reason = json
                    .pointer("/response/incomplete_details/reason")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let stop = match reason {
                    "content_filter" => StopReason::ContentFilter,
                    _ => StopReason::MaxTokens,
                };
                self.on_response_end(&json, stop, out);
            }
            "response.failed" => {
                if !self.errored {
                    let msg = json
                        .pointer("/response/error")
                        .filter(|e| !e.is_null())
                        .map(error_message)
                        .unwrap_or_else(|| "response failed".to_owned());
                    self.errored = true;
                    out.push(ProviderDelta::provider_error(msg));
                }
                self.on_response_end(&json, StopReason::Error, out);
            }
            "error" => {
                self.errored = true;
                let msg = match json.get("error").filter(|e| !e.is_null()) {
                    Some(e) => error_message(e),
                    None => str_field(&json, "message")
                        .unwrap_or("provider error")
                        .to_owned(),
                };
                out.push(ProviderDelta::provider_error(msg));
            }
            _ => {}
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: "stream ended before response.completed".to_owned(),
            });
        }
    }
}

impl ResponsesFrames {
    fn on_item_added(&mut self, json: &Value, out: &mut Vec<ProviderDelta>) {
        let Some(item) = json.get("item") else { return };
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
        self.calls.push(CallItem {
            key,
            output_index: json.get("output_index").and_then(Value::as_u64),
            item_id: str_field(item, "id").map(str::to_owned),
            got_args,
            ended: false,
        });
    }

    fn on_item_done(&mut self, json: &Value, out: &mut Vec<ProviderDelta>) {
        let Some(item) = json.get("item") else { return };
        let item_type = item.get("type").and_then(Value::as_str).unwrap_or("");
        if item_type == "function_call" {
            let status = item.get("status").and_then(Value::as_str);
            if let Some(i) = self.find(json)
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

    fn on_response_end(&mut self, json: &Value, stop: StopReason, out: &mut Vec<ProviderDelta>) {
        if self.finished {
            return;
        }
        self.finished = true;
        if let Some(usage) = json.pointer("/response/usage").filter(|u| u.is_object()) {
            out.push(ProviderDelta::Usage(Usage {
                input_tokens: as_u64(usage.get("input_tokens")),
                output_tokens: as_u64(usage.get("output_tokens")),
                total_tokens: as_u64(usage.get("total_tokens")),
            }));
        }
        let raw = json
            .pointer("/response/status")
            .and_then(Value::as_str)
            .unwrap_or(stop.as_str());
        out.push(ProviderDelta::finish(stop, raw));
    }

    fn find(&self, json: &Value) -> Option<usize> {
        let item_id = str_field(json, "item_id")
            .or_else(|| json.get("item").and_then(|i| str_field(i, "id")));
        if let Some(id) = item_id
            && let Some(i) = self
                .calls
                .iter()
                .position(|c| c.item_id.as_deref() == Some(id))
        {
            return Some(i);
        }
        let index = json.get("output_index").and_then(Value::as_u64)?;
        self.calls
            .iter()
            .rposition(|c| c.output_index == Some(index))
    }
}
