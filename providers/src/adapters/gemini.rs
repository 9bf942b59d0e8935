//! Gemini and Vertex AI `streamGenerateContent?alt=sse`: whole `functionCall` parts,
//! `thought: true` parts, Vertex `partialArgs` streaming, blocked prompts.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::driver::{FrameHandler, unreadable_frame};
use super::stream_end::StreamEnd;
use super::{KeyAlloc, error_message, str_field, take_str};
use crate::delta::{CallKey, ProviderDelta, StopReason, Usage, as_u64, object_text};

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
    end: StreamEnd,
}

/// A `GenerateContentResponse`, read with a typed skeleton: the envelope
/// (`modelVersion`, `responseId`, `createTime`, ...) is skipped; parts stay `Value`s.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResponseIn {
    #[serde(default)]
    candidates: Option<Vec<CandidateIn>>,
    #[serde(default)]
    prompt_feedback: Option<Value>,
    #[serde(default)]
    usage_metadata: Option<UsageIn>,
    #[serde(default)]
    error: Option<Value>,
}

/// Token counts (sent on every chunk; only the last is used).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageIn {
    #[serde(default)]
    prompt_token_count: Option<Value>,
    #[serde(default)]
    candidates_token_count: Option<Value>,
    #[serde(default)]
    total_token_count: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CandidateIn {
    #[serde(default)]
    content: Option<ContentIn>,
    #[serde(default)]
    finish_reason: Option<Value>,
}

#[derive(Deserialize)]
struct ContentIn {
    #[serde(default)]
    parts: Option<Vec<PartIn>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartIn {
    #[serde(default)]
    text: Option<Value>,
    #[serde(default)]
    thought: Option<Value>,
    #[serde(default)]
    function_call: Option<Value>,
    #[serde(default)]
    thought_signature: Option<Value>,
}

impl FrameHandler for GeminiFrames {
    fn on_data(&mut self, _event: &str, data: &[u8], out: &mut Vec<ProviderDelta>) {
        match serde_json::from_slice::<ResponseIn>(data) {
            Ok(response) => self.on_response(response, out),
            // An error may come as a one-element array rather than an object.
            Err(err) => match serde_json::from_slice::<Vec<ResponseIn>>(data) {
                Ok(responses) => {
                    for response in responses {
                        self.on_response(response, out);
                    }
                }
                Err(_) => out.push(unreadable_frame(data, &err)),
            },
        }
    }

    fn on_end(&mut self, out: &mut Vec<ProviderDelta>) {
        self.abandon_streamed(out);
        self.end
            .report_cut("stream ended before a finishReason", out);
    }

    /// Gemini's stream has no end marker: it ends with its bytes.
    fn is_done(&self) -> bool {
        false
    }
}

impl GeminiFrames {
    fn on_response(&mut self, response: ResponseIn, out: &mut Vec<ProviderDelta>) {
        if let Some(err) = response.error.filter(|e| !e.is_null()) {
            self.end.errored = true;
            self.abandon_streamed(out);
            out.push(ProviderDelta::provider_error(error_message(&err)));
            return;
        }
        let candidate = response.candidates.and_then(|c| c.into_iter().next());
        if let Some(candidate) = candidate {
            let parts = candidate.content.and_then(|c| c.parts);
            for part in parts.into_iter().flatten() {
                self.on_part(part, out);
            }
            if let Some(Value::String(reason)) = candidate.finish_reason
                && !reason.is_empty()
            {
                let stop = finish_reason(&reason);
                if stop == StopReason::EndTurn {
                    self.close_streamed(out);
                } else {
                    self.abandon_streamed(out);
                }
                if let Some(usage) = &response.usage_metadata {
                    out.push(ProviderDelta::Usage(usage_of(usage)));
                }
                self.on_finish(stop, &reason, out);
            }
        } else if let Some(block) = response
            .prompt_feedback
            .as_ref()
            .and_then(|f| str_field(f, "blockReason"))
        {
            self.on_finish(StopReason::ContentFilter, block, out);
        }
    }

    fn on_part(&mut self, part: PartIn, out: &mut Vec<ProviderDelta>) {
        if let Some(text) = take_str(part.text) {
            if part.thought.as_ref().and_then(Value::as_bool) == Some(true) {
                out.push(ProviderDelta::Reasoning(text));
            } else {
                out.push(ProviderDelta::Text(text));
            }
        }
        let signature = take_str(part.thought_signature);
        let Some(Value::Object(call)) = part.function_call else {
            if let Some(sig) = signature {
                out.push(ProviderDelta::Signature {
                    key: None,
                    signature: sig,
                });
            }
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
            if let Some(sig) = signature {
                out.push(ProviderDelta::Signature {
                    key: Some(key),
                    signature: sig,
                });
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

    /// A streamed call cut off (by a limit, an error or the end of the stream): its
    /// arguments so far are handed on, but it is never ended, so never run.
    fn abandon_streamed(&mut self, out: &mut Vec<ProviderDelta>) {
        if let Some(call) = self.streamed.take() {
            out.push(ProviderDelta::ToolCallArgs {
                key: call.key,
                fragment: object_text(&call.args),
            });
        }
    }

    fn close_streamed(&mut self, out: &mut Vec<ProviderDelta>) {
        if let Some(call) = self.streamed.take() {
            emit_whole(call.key, &call.args, out);
        }
    }

    fn on_finish(&mut self, stop: StopReason, raw: &str, out: &mut Vec<ProviderDelta>) {
        if !self.end.finished {
            self.end.finished = true;
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

fn usage_of(usage: &UsageIn) -> Usage {
    Usage {
        input_tokens: as_u64(usage.prompt_token_count.as_ref()),
        output_tokens: as_u64(usage.candidates_token_count.as_ref()),
        total_tokens: as_u64(usage.total_token_count.as_ref()),
    }
}
