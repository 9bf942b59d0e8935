//! Gemini and Vertex AI `streamGenerateContent?alt=sse`: whole `functionCall` parts,
//! `thought: true` parts, Vertex `partialArgs` streaming, blocked prompts.

use serde_json::{Map, Value};

use super::driver::FrameHandler;
use super::openai_chat::error_message;
use super::{KeyAlloc, str_field};
use crate::delta::{CallKey, ErrorKind, ProviderDelta, StopReason, Usage, as_u64, object_text};

/// A Vertex call whose arguments arrive as `partialArgs` (`willContinue: true`).
#[derive(Debug)]
struct StreamedCall {
    key: CallKey,
    args: Map<String, Value>,
}

/// Frame handler for `GenerateContentResponse` chunks.
#[derive(Debug, Default)]
pub(crate) struct GeminiFrames {
    keys: KeyAlloc,
    streamed: Option<StreamedCall>,
    finished: bool,
    errored: bool,
}

impl FrameHandler for GeminiFrames {
    fn on_frame(&mut self, _event: &str, json: Value, out: &mut Vec<ProviderDelta>) {
        // An error may come as the whole frame or as a one-element array.
        let json = match json {
            Value::Array(mut a) if a.len() == 1 => a.remove(0),
            other => other,
        };
        if let Some(err) = json.get("error").filter(|e| !e.is_null()) {
            self.errored = true;
            out.push(ProviderDelta::provider_error(error_message(err)));
            return;
        }
        let candidate = json
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|c| c.first());
        if let Some(candidate) = candidate {
            if let Some(parts) = candidate
                .pointer("/content/parts")
                .and_then(Value::as_array)
            {
                for part in parts {
                    self.on_part(part, out);
                }
            }
            if let Some(reason) = str_field(candidate, "finishReason") {
                self.close_streamed(out);
                if let Some(usage) = json.get("usageMetadata") {
                    out.push(ProviderDelta::Usage(usage_of(usage)));
                }
                self.on_finish(finish_reason(reason), reason, out);
            }
        } else if let Some(block) = json
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            self.on_finish(StopReason::ContentFilter, block, out);
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: "stream ended before a finishReason".to_owned(),
            });
        }
    }
}

impl GeminiFrames {
    fn on_part(&mut self, part: &Value, out: &mut Vec<ProviderDelta>) {
        if let Some(text) = str_field(part, "text") {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                out.push(ProviderDelta::Reasoning(text.to_owned()));
            } else {
                out.push(ProviderDelta::Text(text.to_owned()));
            }
        }
        let Some(call) = part.get("functionCall").and_then(Value::as_object) else {
            return;
        };
        let will_continue = call.get("willContinue").and_then(Value::as_bool) == Some(true);
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
        if let Some(name) = name {
            // A new call closes a streamed one still open.
            self.close_streamed(out);
            let key = self.keys.next();
            out.push(ProviderDelta::ToolCallStart {
                key,
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|i| !i.is_empty())
                    .map(str::to_owned),
                name: name.to_owned(),
            });
            let mut args = call
                .get("args")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            if let Some(partial) = call.get("partialArgs").and_then(Value::as_array) {
                apply_partial_args(&mut args, partial);
            }
            if will_continue {
                self.streamed = Some(StreamedCall { key, args });
            } else {
                emit_whole(key, &args, out);
            }
            return;
        }
        if let Some(streamed) = &mut self.streamed {
            if let Some(partial) = call.get("partialArgs").and_then(Value::as_array) {
                apply_partial_args(&mut streamed.args, partial);
            }
            if !will_continue {
                self.close_streamed(out);
            }
        }
    }

    fn close_streamed(&mut self, out: &mut Vec<ProviderDelta>) {
        if let Some(call) = self.streamed.take() {
            emit_whole(call.key, &call.args, out);
        }
    }

    fn on_finish(&mut self, stop: StopReason, raw: &str, out: &mut Vec<ProviderDelta>) {
        if !self.finished {
            self.finished = true;
            out.push(ProviderDelta::finish(stop, raw));
        }
    }
}

fn emit_whole(key: CallKey, args: &Map<String, Value>, out: &mut Vec<ProviderDelta>) {
    out.push(ProviderDelta::ToolCallArgs {
        key,
        fragment: object_text(args),
    });
    out.push(ProviderDelta::ToolCallEnd { key });
}

/// Applies Vertex `partialArgs`: each entry names a JSON path (`$.a.b`, `$.list[0]`)
/// and one typed value; string values continue the string already at that path.
fn apply_partial_args(args: &mut Map<String, Value>, partial: &[Value]) {
    for entry in partial {
        let Some(path) = entry.get("jsonPath").and_then(Value::as_str) else {
            continue;
        };
        let value = if let Some(s) = entry.get("stringValue").and_then(Value::as_str) {
            PartialValue::Str(s)
        } else if let Some(n) = entry.get("numberValue") {
            PartialValue::Whole(n.clone())
        } else if let Some(b) = entry.get("boolValue") {
            PartialValue::Whole(b.clone())
        } else if entry.get("nullValue").is_some() {
            PartialValue::Whole(Value::Null)
        } else {
            continue;
        };
        let Some(slot) = path_slot(args, path) else {
            continue;
        };
        match (value, slot) {
            (PartialValue::Str(s), Value::String(existing)) => existing.push_str(s),
            (PartialValue::Str(s), slot) => *slot = Value::String(s.to_owned()),
            (PartialValue::Whole(v), slot) => *slot = v,
        }
    }
}

enum PartialValue<'a> {
    Str(&'a str),
    Whole(Value),
}

/// Finds or creates the value at a `$.a.b[0]` path.
fn path_slot<'a>(root: &'a mut Map<String, Value>, path: &str) -> Option<&'a mut Value> {
    let rest = path.strip_prefix('$')?;
    let mut segments = Vec::new();
    let mut chars = rest;
    while !chars.is_empty() {
        if let Some(r) = chars.strip_prefix('.') {
            let end = r.find(['.', '[']).unwrap_or(r.len());
            segments.push(Segment::Key(&r[..end]));
            chars = &r[end..];
        } else if let Some(r) = chars.strip_prefix('[') {
            let end = r.find(']')?;
            let inner = &r[..end];
            match inner.parse::<usize>() {
                Ok(i) => segments.push(Segment::Index(i)),
                Err(_) => segments.push(Segment::Key(inner.trim_matches(['\'', '"']))),
            }
            chars = &r[end + 1..];
        } else {
            return None;
        }
    }
    let (first, more) = segments.split_first()?;
    let Segment::Key(k) = first else { return None };
    let mut cur = root.entry(k.to_string()).or_insert(Value::Null);
    for seg in more {
        cur = match seg {
            Segment::Key(k) => {
                if !cur.is_object() {
                    *cur = Value::Object(Map::new());
                }
                cur.as_object_mut()?
                    .entry(k.to_string())
                    .or_insert(Value::Null)
            }
            Segment::Index(i) => {
                if !cur.is_array() {
                    *cur = Value::Array(Vec::new());
                }
                let arr = cur.as_array_mut()?;
                if *i > arr.len() + 1024 {
                    return None;
                }
                while arr.len() <= *i {
                    arr.push(Value::Null);
                }
                &mut arr[*i]
            }
        };
    }
    Some(cur)
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

fn finish_reason(reason: &str) -> StopReason {
    match reason {
        "STOP" | "FINISH_REASON_UNSPECIFIED" | "LANGUAGE" => StopReason::EndTurn,
        "MAX_TOKENS" => StopReason::MaxTokens,
        "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY" => {
            StopReason::ContentFilter
        }
        _ => StopReason::Error, // MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, OTHER, ...
    }
}

fn usage_of(usage: &Value) -> Usage {
    Usage {
        input_tokens: as_u64(usage.get("promptTokenCount")),
        output_tokens: as_u64(usage.get("candidatesTokenCount")),
        total_tokens: as_u64(usage.get("totalTokenCount")),
    }
}
