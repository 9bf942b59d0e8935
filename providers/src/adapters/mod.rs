//! Wire adapters: one per provider wire protocol, all behind [`WireAdapter`].

mod anthropic;
mod bedrock;
mod driver;
mod fields;
mod gemini;
mod json_close;
mod ollama;
mod openai_chat;
mod openai_responses;
mod stream_end;
mod wire;

pub(crate) use fields::{
    KeyAlloc, args_text, error_message, id_field, messages_stop_reason, str_field, take_str,
};
pub use wire::{AdapterConfig, Wire, WireAdapter};
