//! `Wire` (the protocol names), `AdapterConfig` and the `WireAdapter` trait every adapter implements.

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::driver::{NdjsonAdapter, SseAdapter};
use super::{anthropic, bedrock, gemini, ollama, openai_chat, openai_responses};
use crate::delta::ProviderDelta;
use crate::error::{AdapterError, UnknownName};

/// A provider wire protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Wire {
    /// OpenAI Chat Completions SSE, and every OpenAI-compatible server (Mistral,
    /// DeepSeek, Groq, vLLM, ...).
    #[serde(rename = "openai-chat")]
    OpenAiChat,
    /// OpenAI Responses API SSE.
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Anthropic Messages SSE.
    Anthropic,
    /// Gemini / Vertex AI `streamGenerateContent?alt=sse`.
    Gemini,
    /// Ollama native `/api/chat` NDJSON.
    Ollama,
    /// Bedrock ConverseStream, binary event stream or JSON lines (told apart by content).
    Bedrock,
}

/// Limits shared by every adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdapterConfig {
    /// The longest SSE line, NDJSON line or event-stream frame accepted, in bytes.
    /// Longer ones are dropped with an [`ErrorKind::TooLarge`](crate::ErrorKind) delta.
    pub max_frame_bytes: usize,
}

impl Default for AdapterConfig {
    fn default() -> Self {
        AdapterConfig {
            max_frame_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Turns one provider's raw response bytes into [`ProviderDelta`]s.
///
/// Feed the bytes as they arrive, cut anywhere (inside a frame, a `\r\n` or a UTF-8
/// character); then call [`finish`](Self::finish) once at end of stream. Every byte is
/// examined once, up to the wire's end marker ([`is_done`](Self::is_done)).
/// Malformed input never panics: a bad frame gives an [`ProviderDelta::Error`]
/// and the adapter goes on with the next one.
pub trait WireAdapter: Send {
    /// The protocol this adapter reads.
    fn wire(&self) -> Wire;

    /// Feeds the next chunk of bytes, pushing the deltas it completes onto `out`.
    ///
    /// Fails only if the stream cannot be read any further (a corrupt binary prelude);
    /// deltas pushed before the failure stay valid.
    fn feed(&mut self, chunk: &[u8], out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError>;

    /// Ends the stream: flushes a last unterminated frame and reports a stream that
    /// ended before the provider said it had finished
    /// ([`ErrorKind::Truncated`](crate::ErrorKind::Truncated)).
    fn finish(&mut self, out: &mut Vec<ProviderDelta>) -> Result<(), AdapterError>;

    /// Feeds one frame the caller decoded itself, past the framing: an SSE
    /// event's `event:` name (`""` when it has none) and `data:` (Chat
    /// Completions, Responses, Anthropic, Gemini), an NDJSON line with the
    /// name `""` (Ollama), a Bedrock event as a JSON line (`""`,
    /// `{"contentBlockDelta": {...}}`) or as its `:event-type` and bare body.
    /// For clients that hand out each frame's text (a typed client's raw
    /// frame, a chunk it re-serialized); frames fed after the end marker are
    /// ignored, as bytes are.
    fn feed_frame(&mut self, event: &str, data: &[u8], out: &mut Vec<ProviderDelta>);

    /// Whether the wire's end marker has been read: `data: [DONE]` (OpenAI
    /// Chat Completions), `message_stop` (Anthropic), `response.completed`,
    /// `response.incomplete` or `response.failed` (Responses), the `done: true`
    /// line (Ollama), the `metadata` event after `messageStop` (Bedrock).
    /// The answer is then complete: bytes fed after the marker are ignored,
    /// and the caller need not wait for the byte stream's own end (an
    /// upstream may keep its connection open). Gemini's stream has no such
    /// marker; it ends with its bytes.
    fn is_done(&self) -> bool {
        false
    }

    /// [`feed`](Self::feed), returning the deltas.
    fn feed_vec(&mut self, chunk: &[u8]) -> Result<Vec<ProviderDelta>, AdapterError> {
        let mut out = Vec::new();
        self.feed(chunk, &mut out)?;
        Ok(out)
    }

    /// [`finish`](Self::finish), returning the deltas.
    fn finish_vec(&mut self) -> Result<Vec<ProviderDelta>, AdapterError> {
        let mut out = Vec::new();
        self.finish(&mut out)?;
        Ok(out)
    }
}

impl Wire {
    /// Every wire protocol.
    pub const ALL: [Wire; 6] = [
        Wire::OpenAiChat,
        Wire::OpenAiResponses,
        Wire::Anthropic,
        Wire::Gemini,
        Wire::Ollama,
        Wire::Bedrock,
    ];

    /// The kebab-case name (`"openai-chat"`, `"bedrock"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Wire::OpenAiChat => "openai-chat",
            Wire::OpenAiResponses => "openai-responses",
            Wire::Anthropic => "anthropic",
            Wire::Gemini => "gemini",
            Wire::Ollama => "ollama",
            Wire::Bedrock => "bedrock",
        }
    }

    /// A new adapter for this protocol with default limits.
    pub fn adapter(self) -> Box<dyn WireAdapter> {
        self.adapter_with(AdapterConfig::default())
    }

    /// A new adapter for this protocol.
    pub fn adapter_with(self, config: AdapterConfig) -> Box<dyn WireAdapter> {
        match self {
            Wire::OpenAiChat => Box::new(SseAdapter::new(
                Wire::OpenAiChat,
                config,
                openai_chat::OpenAiChatFrames::default(),
            )),
            Wire::OpenAiResponses => Box::new(SseAdapter::new(
                Wire::OpenAiResponses,
                config,
                openai_responses::ResponsesFrames::default(),
            )),
            Wire::Anthropic => Box::new(SseAdapter::new(
                Wire::Anthropic,
                config,
                anthropic::AnthropicFrames::default(),
            )),
            Wire::Gemini => Box::new(SseAdapter::new(
                Wire::Gemini,
                config,
                gemini::GeminiFrames::default(),
            )),
            Wire::Ollama => Box::new(NdjsonAdapter::new(
                Wire::Ollama,
                config,
                ollama::OllamaFrames::default(),
            )),
            Wire::Bedrock => Box::new(bedrock::BedrockAdapter::new(config)),
        }
    }
}

impl std::fmt::Display for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Wire {
    type Err = UnknownName;

    /// Accepts the canonical names of [`Wire::as_str`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Wire::ALL
            .into_iter()
            .find(|w| w.as_str().eq_ignore_ascii_case(s))
            .ok_or_else(|| UnknownName { name: s.to_owned() })
    }
}
