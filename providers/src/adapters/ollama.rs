//! Ollama native `/api/chat` NDJSON: whole calls with object arguments, `thinking`, error lines.

use serde_json::Value;

use super::driver::FrameHandler;
use super::openai_chat::error_message;
use super::{KeyAlloc, args_text, id_field, str_field};
use crate::delta::{ErrorKind, ProviderDelta, StopReason, Usage, as_u64};

/// Frame handler for `/api/chat` lines.
#[derive(Debug, Default)]
pub(crate) struct OllamaFrames {
    keys: KeyAlloc,
    finished: bool,
    errored: bool,
}

impl FrameHandler for OllamaFrames {
    fn on_frame(&mut self, _event: &str, json: Value, out: &mut Vec<ProviderDelta>) {
        if let Some(err) = json.get("error").filter(|e| !e.is_null()) {
            self.errored = true;
            out.push(ProviderDelta::provider_error(error_message(err)));
            return;
        }
        if let Some(msg) = json.get("message") {
            if let Some(t) = str_field(msg, "thinking") {
                out.push(ProviderDelta::Reasoning(t.to_owned()));
            }
            if let Some(t) = str_field(msg, "content") {
                out.push(ProviderDelta::Text(t.to_owned()));
            }
            if let Some(calls) = msg.get("tool_calls").and_then(Value::as_array) {
                for call in calls {
                    let func = call.get("function").unwrap_or(&Value::Null);
                    let key = self.keys.next();
                    out.push(ProviderDelta::ToolCallStart {
                        key,
                        id: id_field(call, "id"),
                        name: str_field(func, "name").unwrap_or("").to_owned(),
                    });
                    let args = args_text(func.get("arguments"));
                    if !args.is_empty() {
                        out.push(ProviderDelta::ToolCallArgs {
                            key,
                            fragment: args,
                        });
                    }
                    out.push(ProviderDelta::ToolCallEnd { key });
                }
            }
        }
        if json.get("done").and_then(Value::as_bool) == Some(true) && !self.finished {
            self.finished = true;
            out.push(ProviderDelta::Usage(Usage {
                input_tokens: as_u64(json.get("prompt_eval_count")),
                output_tokens: as_u64(json.get("eval_count")),
                total_tokens: None,
            }));
            let reason = str_field(&json, "done_reason").unwrap_or("stop");
            let stop = match reason {
                "length" => StopReason::MaxTokens,
                _ => StopReason::EndTurn,
            };
            out.push(ProviderDelta::finish(stop, reason));
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: "stream ended before a done line".to_owned(),
            });
        }
    }
}
