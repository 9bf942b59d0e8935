//! `GrammarServer`: the model servers that take a grammar with a request,
//! and the fields each one reads it from ([`ToolGrammar::chat_fields`],
//! [`ToolGrammar::completion_fields`]). What each server does with them, and
//! its limits: `docs/constrain.md`.

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value, json};

use super::build::ToolGrammar;

/// A kind of model server that constrains its output by a grammar sent with
/// the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum GrammarServer {
    /// llama.cpp's `llama-server` (and llama-cpp-python's server, which
    /// reads the same `grammar` field): GBNF.
    LlamaCpp,
    /// vLLM: GBNF through `structured_outputs.grammar` (its xgrammar
    /// backend), a structural tag through `response_format`.
    Vllm,
    /// SGLang: GBNF through `ebnf`, a structural tag through
    /// `response_format`.
    Sglang,
}

impl GrammarServer {
    /// Every kind, in the order of the docs' table.
    pub const ALL: [GrammarServer; 3] = [Self::LlamaCpp, Self::Vllm, Self::Sglang];

    /// Its name, as provider profiles spell it (`llamacpp`, `vllm`,
    /// `sglang`).
    pub fn name(self) -> &'static str {
        match self {
            Self::LlamaCpp => "llamacpp",
            Self::Vllm => "vllm",
            Self::Sglang => "sglang",
        }
    }

    /// The request fields that carry a grammar on this server: a request
    /// that already holds one of them constrains itself, and is left alone.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Self::LlamaCpp => &["grammar", "json_schema", "response_format"],
            Self::Vllm => &[
                "structured_outputs",
                "guided_grammar",
                "guided_json",
                "guided_regex",
                "guided_choice",
                "response_format",
            ],
            Self::Sglang => &["ebnf", "regex", "json_schema", "response_format"],
        }
    }
}

impl GrammarServer {
    /// The fields that carry a GBNF grammar (not lazy) in a Chat Completions
    /// request to this server: llama.cpp's `grammar`, vLLM's
    /// `structured_outputs.grammar`, SGLang's `ebnf`.
    pub fn gbnf_fields(self, gbnf: String) -> Map<String, Value> {
        let mut fields = Map::new();
        match self {
            Self::LlamaCpp => fields.insert("grammar".to_owned(), Value::String(gbnf)),
            Self::Vllm => {
                fields.insert("structured_outputs".to_owned(), json!({ "grammar": gbnf }))
            }
            Self::Sglang => fields.insert("ebnf".to_owned(), Value::String(gbnf)),
        };
        fields
    }
}

impl fmt::Display for GrammarServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of a server name that is none of [`GrammarServer::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownGrammarServer(pub String);

impl fmt::Display for UnknownGrammarServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown grammar server `{}` (known: llamacpp, vllm, sglang)",
            crate::core::echo(&self.0)
        )
    }
}

impl std::error::Error for UnknownGrammarServer {}

impl FromStr for GrammarServer {
    type Err = UnknownGrammarServer;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|server| server.name() == name)
            .ok_or_else(|| UnknownGrammarServer(name.to_owned()))
    }
}

impl ToolGrammar {
    /// The fields to add to a Chat Completions request so that `server`
    /// samples only what this grammar allows.
    ///
    /// | server | not lazy | lazy ([`ToolGrammar::is_lazy`]) |
    /// |---|---|---|
    /// | llama.cpp | `grammar`: [`gbnf`](Self::gbnf) | `grammar`: [`gbnf_whole`](Self::gbnf_whole) (its chat endpoint sets `grammar_lazy` itself; see [`completion_fields`](Self::completion_fields)) |
    /// | vLLM | `structured_outputs: {grammar}` | `response_format`: [`structural_tag`](Self::structural_tag) |
    /// | SGLang | `ebnf` | `response_format`: the structural tag |
    pub fn chat_fields(&self, server: GrammarServer) -> Map<String, Value> {
        match (server, self.is_lazy()) {
            (GrammarServer::LlamaCpp, true) => server.gbnf_fields(self.gbnf_whole()),
            (GrammarServer::Vllm | GrammarServer::Sglang, true) => {
                let mut fields = Map::new();
                fields.insert("response_format".to_owned(), self.structural_tag());
                fields
            }
            (_, false) => server.gbnf_fields(self.gbnf()),
        }
    }

    /// The fields of llama.cpp's `/completion` request (a prompt already
    /// templated, as `/apply-template` gives it): the grammar, and for a
    /// lazy one `grammar_lazy` with its triggers as words (type 1), so that
    /// free text is sampled unconstrained until a trigger.
    pub fn completion_fields(&self) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("grammar".to_owned(), Value::String(self.gbnf()));
        if self.is_lazy() {
            fields.insert("grammar_lazy".to_owned(), Value::Bool(true));
            let triggers: Vec<Value> = self
                .triggers()
                .iter()
                .map(|word| json!({ "type": 1, "value": word }))
                .collect();
            fields.insert("grammar_triggers".to_owned(), Value::Array(triggers));
        }
        fields
    }
}
