//! `--constrain`: a grammar of the request's tools, in the dialect the
//! proxy teaches (`--text-tools`, the XML tag convention), sent with the
//! request to a server that samples only what the grammar allows
//! (llama.cpp, vLLM, SGLang: the profile's `grammar`). A server that refuses
//! the grammar gets the request once more without it (`send` in
//! `conversation.rs`). What is sent to each server: `docs/constrain.md`.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde_json::{Map, Value};
use toolrouter_providers::ProviderProfile;

use super::error::ApiError;
use super::text_tools::function_tools;
use crate::core::WireFormat;
use crate::grammar::{GrammarCache, GrammarOptions, GrammarServer, GrammarTool, ToolChoice};

/// When the proxy sends a grammar with a request (`--constrain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Constrain {
    /// Never.
    Off,
    /// When the request's `tool_choice` is `required` or names a tool: the
    /// answer is then calls only, each one valid.
    #[default]
    Auto,
    /// Also for `tool_choice` `auto` (or none): free text, or calls that are
    /// valid once begun.
    Always,
}

impl Constrain {
    /// Every mode, as `--constrain` spells them.
    pub const ALL: [Constrain; 3] = [Self::Off, Self::Auto, Self::Always];

    /// Its name (`off`, `auto`, `always`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Auto => "auto",
            Self::Always => "always",
        }
    }
}

impl fmt::Display for Constrain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Constrain {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|mode| mode.name() == name)
            .ok_or_else(|| {
                format!(
                    "unknown --constrain mode `{}` (known: off, auto, always)",
                    crate::core::echo(name)
                )
            })
    }
}

/// The grammars built so far, kept by their tools and choice.
const CACHE_CAPACITY: usize = 64;

/// How one proxy constrains its requests: the server kind, the mode, and
/// the grammars built so far (shared by the workers).
#[derive(Debug)]
pub(crate) struct ConstrainPlan {
    server: GrammarServer,
    mode: Constrain,
    cache: GrammarCache,
}

impl ConstrainPlan {
    /// The plan of a proxy in front of `profile`: `None` when it sends no
    /// grammar (`--constrain off`, no `--text-tools`, or a server that takes
    /// none).
    pub(crate) fn new(
        mode: Constrain,
        profile: &ProviderProfile,
        text_tools: bool,
    ) -> Option<Arc<Self>> {
        if mode == Constrain::Off {
            return None;
        }
        let server = profile.grammar.as_deref()?.parse::<GrammarServer>().ok();
        match (server, text_tools) {
            (Some(server), true) => Some(Arc::new(Self {
                server,
                mode,
                cache: GrammarCache::new(CACHE_CAPACITY),
            })),
            (server, _) => {
                if mode == Constrain::Always {
                    let why = if server.is_none() {
                        "the upstream's profile takes no grammar"
                    } else {
                        "only --text-tools requests are constrained (the server otherwise \
                         applies its own template's constraint)"
                    };
                    tracing::warn!(provider = %profile.name, "--constrain always: no grammar is sent: {why}");
                }
                None
            }
        }
    }

    /// How `chat` (a Chat Completions request, before `--text-tools`
    /// rewrites it) is constrained, or `None` when it is not: it has no
    /// function tool, its `tool_choice` is `none` (or `auto` when the mode is
    /// `auto`), it carries a grammar field of its own, or its tools give no
    /// grammar (one is then logged).
    pub(crate) fn constraint(&self, chat: &Map<String, Value>) -> Option<Constraint> {
        let own = self
            .server
            .fields()
            .iter()
            .any(|key| chat.get(*key).is_some_and(|v| !v.is_null()));
        if own {
            return None;
        }
        let choice = match chat.get("tool_choice") {
            Some(Value::String(choice)) if choice == "required" => ToolChoice::Required,
            Some(Value::String(choice)) if choice == "none" => return None,
            Some(Value::Object(choice)) => {
                let name = choice
                    .get("function")
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)?;
                ToolChoice::Named(name.to_owned())
            }
            _ if self.mode == Constrain::Always => ToolChoice::Auto,
            _ => return None,
        };
        let tools = function_tools(chat);
        if tools.is_empty() {
            return None;
        }
        let named: Vec<GrammarTool<'_>> = tools
            .iter()
            .map(|tool| GrammarTool::new(&tool.name, &tool.input_schema))
            .collect();
        let mut options = GrammarOptions::new(choice);
        options.parallel_tool_calls = chat.get("parallel_tool_calls") != Some(&Value::Bool(false));
        let grammar = match self.cache.get_or_build(&named, WireFormat::Xml, &options) {
            Ok(grammar) => grammar,
            Err(e) => {
                tracing::warn!(error = %e, "--constrain: no grammar for the request's tools; sent unconstrained");
                return None;
            }
        };
        // An assistant turn the client prefilled with the opening of a call:
        // the grammar starts where the prefill stops, and the detector reads
        // the opening before the answer.
        let prefill = prefilled(chat);
        if let Some(prefill) = &prefill
            && let Some(resumed) = grammar.gbnf_after(prefill)
        {
            // llama.cpp's chat route answers with the prefill and what follows
            // it, so its detector reads the opening anyway; the others answer
            // with what follows only.
            let opened = (self.server != GrammarServer::LlamaCpp)
                .then(|| prefill[resumed.call_start..].to_owned());
            return Some(Constraint {
                fields: self.server.gbnf_fields(resumed.gbnf),
                opened,
                completion: None,
            });
        }
        // A lazy grammar on llama.cpp: its chat endpoint would put its own
        // template's laziness over ours, so the request goes to `/completions`
        // with a prompt templated by `/apply-template`, and the chat request
        // with the whole grammar stands by. A prefilled turn stays on the chat
        // route, which answers with the prefill, as llama.cpp does.
        let completion =
            (self.server == GrammarServer::LlamaCpp && grammar.is_lazy() && prefill.is_none())
                .then(|| grammar.completion_fields());
        Some(Constraint {
            fields: grammar.chat_fields(self.server),
            opened: None,
            completion,
        })
    }
}

/// How one request is constrained ([`ConstrainPlan::constraint`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Constraint {
    /// The fields added to the Chat Completions request.
    pub(crate) fields: Map<String, Value>,
    /// The end of a prefilled assistant turn that opens a call, on a server
    /// whose answer continues it without repeating it: the detector reads it
    /// first.
    pub(crate) opened: Option<String>,
    /// llama.cpp with a lazy grammar: the fields of a `/completions` request
    /// (`grammar`, `grammar_lazy`, `grammar_triggers`), sent with the prompt
    /// `/apply-template` makes of the messages, before the chat request.
    pub(crate) completion: Option<Map<String, Value>>,
}

/// The text of the request's last message when it is the assistant's: a
/// turn the client began for the model to continue.
fn prefilled(chat: &Map<String, Value>) -> Option<String> {
    let last = chat.get("messages")?.as_array()?.last()?;
    if last.get("role").and_then(Value::as_str) != Some("assistant") {
        return None;
    }
    let text = match last.get("content")? {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// Whether an upstream's error answer may be its refusal of the grammar
/// (a request it could not take: `400`, `422`, or `500`, which llama.cpp
/// answers for a grammar it fails to parse), so that the request is worth
/// sending once more without it.
pub(crate) fn may_refuse_grammar(error: &ApiError) -> bool {
    matches!(error.status.as_u16(), 400 | 422 | 500)
}

#[cfg(test)]
mod tests;
