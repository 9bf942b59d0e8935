//! Ollama native `/api/chat` NDJSON: whole calls with object arguments, `thinking`, error lines.

use serde::Deserialize;
use serde_json::Value;

use super::driver::{FrameHandler, parse_frame};
use super::stream_end::StreamEnd;
use super::{KeyAlloc, args_text, error_message, id_field, str_field, take_str};
use crate::delta::{ProviderDelta, StopReason, Usage, as_u64};

/// Frame handler for `/api/chat` lines.
#[derive(Debug, Default)]
pub(crate) struct OllamaFrames {
    keys: KeyAlloc,
    end: StreamEnd,
}

/// A line, read with a typed skeleton (`model`, `created_at` and the durations are
/// skipped).
#[derive(Deserialize)]
struct LineIn {
    #[serde(default)]
    error: Option<Value>,
    #[serde(default)]
    message: Option<MessageIn>,
    #[serde(default)]
    done: Option<Value>,
    #[serde(default)]
    done_reason: Option<Value>,
    #[serde(default)]
    prompt_eval_count: Option<Value>,
    #[serde(default)]
    eval_count: Option<Value>,
}

#[derive(Deserialize)]
struct MessageIn {
    #[serde(default)]
    content: Option<Value>,
    #[serde(default)]
    thinking: Option<Value>,
    #[serde(default)]
    tool_calls: Option<Vec<Value>>,
}

impl FrameHandler for OllamaFrames {
    fn on_data(&mut self, _event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        let Some(line) = parse_frame::<LineIn>(data, out) else {
            return;
        };
        self.on_line(line, out);
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        self.end.report_cut("stream ended before a done line", out);
    }

    fn is_done(&self) -> bool {
        self.end.done
    }
}

impl OllamaFrames {
    fn on_line(&mut self, line: LineIn, out: &mut Vec<ProviderDelta>) {
        if let Some(err) = line.error.filter(|e| !e.is_null()) {
            self.end.errored = true;
            out.push(ProviderDelta::provider_error(error_message(&err)));
            return;
        }
        if let Some(msg) = line.message {
            if let Some(t) = take_str(msg.thinking) {
                out.push(ProviderDelta::Reasoning(t));
            }
            if let Some(t) = take_str(msg.content) {
                out.push(ProviderDelta::Text(t));
            }
            if let Some(calls) = &msg.tool_calls {
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
        if line.done.as_ref().and_then(Value::as_bool) == Some(true) && !self.end.finished {
            self.end.finished = true;
            self.end.done = true;
            out.push(ProviderDelta::Usage(Usage {
                input_tokens: as_u64(line.prompt_eval_count.as_ref()),
                output_tokens: as_u64(line.eval_count.as_ref()),
                total_tokens: None,
            }));
            let reason = match &line.done_reason {
                Some(Value::String(r)) if !r.is_empty() => r.as_str(),
                _ => "stop",
            };
            let stop = match reason {
                "length" => StopReason::MaxTokens,
                _ => StopReason::EndTurn,
            };
            out.push(ProviderDelta::finish(stop, reason));
        }
    }
}
