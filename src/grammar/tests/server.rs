#![allow(clippy::unwrap_used)]

//! The request fields each server kind reads a grammar from.

use serde_json::json;

use crate::core::WireFormat;
use crate::grammar::{GrammarOptions, GrammarServer, GrammarTool, ToolChoice, build_grammar};

fn weather(choice: ToolChoice) -> crate::grammar::ToolGrammar {
    let schema = json!({"type": "object", "properties": {"city": {"type": "string"}},
                        "required": ["city"]});
    let schema = schema.as_object().unwrap().clone();
    let tools = [GrammarTool::new("get_weather", &schema)];
    build_grammar(&tools, WireFormat::Hermes, &GrammarOptions::new(choice)).unwrap()
}

#[test]
fn server_names_read_back_and_unknown_ones_say_which_exist() {
    for server in GrammarServer::ALL {
        assert_eq!(server.name().parse::<GrammarServer>(), Ok(server));
    }
    let error = "ollama".parse::<GrammarServer>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "unknown grammar server `ollama` (known: llamacpp, vllm, sglang)"
    );
}

#[test]
fn a_grammar_that_is_not_lazy_goes_in_each_servers_own_field() {
    let grammar = weather(ToolChoice::Required);
    let gbnf = grammar.gbnf();
    let llama = grammar.chat_fields(GrammarServer::LlamaCpp);
    assert_eq!(llama.len(), 1);
    assert_eq!(llama["grammar"], gbnf.as_str());
    let vllm = grammar.chat_fields(GrammarServer::Vllm);
    assert_eq!(vllm.len(), 1);
    assert_eq!(vllm["structured_outputs"], json!({ "grammar": gbnf }));
    let sglang = grammar.chat_fields(GrammarServer::Sglang);
    assert_eq!(sglang.len(), 1);
    assert_eq!(sglang["ebnf"], gbnf.as_str());
    // Each server's fields are among those it reads a grammar from.
    for server in GrammarServer::ALL {
        for key in grammar.chat_fields(server).keys() {
            assert!(server.fields().contains(&key.as_str()), "{server}: {key}");
        }
    }
    // Not lazy: `/completion` takes the grammar alone.
    let completion = grammar.completion_fields();
    assert_eq!(completion.len(), 1);
    assert_eq!(completion["grammar"], gbnf.as_str());
}

#[test]
fn a_lazy_grammar_is_whole_on_llama_cpps_chat_endpoint_and_a_structural_tag_elsewhere() {
    let grammar = weather(ToolChoice::Auto);
    assert!(grammar.is_lazy());
    let llama = grammar.chat_fields(GrammarServer::LlamaCpp);
    assert_eq!(llama["grammar"], grammar.gbnf_whole().as_str());
    assert_ne!(grammar.gbnf_whole(), grammar.gbnf());
    for server in [GrammarServer::Vllm, GrammarServer::Sglang] {
        let fields = grammar.chat_fields(server);
        assert_eq!(fields.len(), 1);
        assert_eq!(fields["response_format"]["type"], "structural_tag");
        assert_eq!(
            fields["response_format"]["format"]["type"],
            "triggered_tags"
        );
    }
    // `/completion`: the grammar from the trigger on, lazy, Hermes's one
    // trigger as a word (llama.cpp's trigger type 1).
    let completion = grammar.completion_fields();
    assert_eq!(completion["grammar"], grammar.gbnf().as_str());
    assert_eq!(completion["grammar_lazy"], true);
    assert_eq!(
        completion["grammar_triggers"],
        json!([{ "type": 1, "value": "<tool_call>" }])
    );
}

#[test]
fn the_self_hosted_profiles_name_their_grammar_server_and_hosted_apis_none() {
    for profile in toolrouter_providers::profiles() {
        let server = profile.grammar.as_deref().map(str::parse::<GrammarServer>);
        let want = match profile.name.as_str() {
            "llamacpp" => Some(GrammarServer::LlamaCpp),
            "vllm" => Some(GrammarServer::Vllm),
            "sglang" => Some(GrammarServer::Sglang),
            _ => None,
        };
        assert_eq!(server, want.map(Ok), "{}", profile.name);
    }
}
