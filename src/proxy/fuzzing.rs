//! The doors' request readers without a server, for the fuzz targets only
//! (compiled with `--cfg fuzzing`, not part of the API): each reads a body
//! as its door does and gives the body that would go to an
//! OpenAI-compatible upstream, or the status of the refusal.

use toolrouter_providers::Wire;

use super::anthropic::read_messages_request;
use super::request::{ChatRequest, UpstreamShape};
use super::responses::{ItemStore, read_responses_request};

const OPENAI: UpstreamShape = UpstreamShape {
    wire: Wire::OpenAiChat,
    text_tools: false,
    max_request_bytes: super::DEFAULT_MAX_REQUEST_BYTES,
    constrain: None,
};

/// The Chat Completions door (`POST /v1/chat/completions`).
pub fn read_chat(body: &[u8]) -> Result<Vec<u8>, u16> {
    let read = ChatRequest::read(body.to_vec()).map_err(|e| e.status.as_u16())?;
    OPENAI.body(&read.body).map_err(|e| e.status.as_u16())
}

/// The Anthropic Messages door (`POST /v1/messages`).
pub fn read_messages(body: &[u8]) -> Result<Vec<u8>, u16> {
    let read = read_messages_request(body).map_err(|e| e.status.as_u16())?;
    OPENAI.body(&read).map_err(|e| e.status.as_u16())
}

/// The Responses door (`POST /v1/responses`), with no items kept (every
/// `item_reference` is refused).
pub fn read_responses(body: &[u8]) -> Result<Vec<u8>, u16> {
    let read =
        read_responses_request(body, &ItemStore::default()).map_err(|e| e.status.as_u16())?;
    OPENAI.body(&read).map_err(|e| e.status.as_u16())
}
