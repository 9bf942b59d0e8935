#![allow(clippy::unwrap_used)]

use serde_json::{Map, Value, json};

use super::*;
use toolrouter_providers::find_profile;

impl ConstrainPlan {
    /// The fields a request gets.
    fn fields(&self, chat: &Map<String, Value>) -> Option<Map<String, Value>> {
        self.constraint(chat).map(|c| c.fields)
    }
}

fn plan(mode: Constrain, provider: &str) -> Option<Arc<ConstrainPlan>> {
    ConstrainPlan::new(mode, find_profile(provider).unwrap().profile, true)
}

/// A request with the weather and time tools, and `extra` fields.
fn chat(extra: Value) -> Map<String, Value> {
    let mut chat = json!({
        "model": "m",
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "parameters": {
                "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
            {"type": "function", "function": {"name": "get_time", "parameters": {
                "type": "object", "properties": {"zone": {"type": "string"}}}}}
        ]
    });
    let chat = chat.as_object_mut().unwrap();
    chat.extend(extra.as_object().unwrap().clone());
    chat.clone()
}

#[test]
fn a_plan_needs_a_mode_a_grammar_server_and_text_tools() {
    assert!(plan(Constrain::Auto, "llamacpp").is_some());
    assert!(plan(Constrain::Always, "vllm").is_some());
    assert!(plan(Constrain::Auto, "sglang").is_some());
    assert!(plan(Constrain::Off, "llamacpp").is_none());
    // Hosted APIs never get a grammar.
    assert!(plan(Constrain::Always, "openai").is_none());
    assert!(plan(Constrain::Always, "lmstudio").is_none());
    // Without --text-tools the server applies its own template's constraint.
    let llamacpp = find_profile("llamacpp").unwrap().profile;
    assert!(ConstrainPlan::new(Constrain::Always, llamacpp, false).is_none());
}

#[test]
fn required_and_named_choices_are_constrained_and_auto_only_when_always() {
    let auto = plan(Constrain::Auto, "llamacpp").unwrap();
    let fields = auto
        .fields(&chat(json!({"tool_choice": "required"})))
        .unwrap();
    let gbnf = fields["grammar"].as_str().unwrap();
    assert!(gbnf.starts_with("root ::= "), "{gbnf}");
    assert!(gbnf.contains("get_weather") && gbnf.contains("get_time"));
    // A named tool: the grammar calls that tool only.
    let named = json!({"tool_choice": {"type": "function", "function": {"name": "get_time"}}});
    let fields = auto.fields(&chat(named)).unwrap();
    let gbnf = fields["grammar"].as_str().unwrap();
    assert!(
        gbnf.contains("get_time") && !gbnf.contains("get_weather"),
        "{gbnf}"
    );
    // `auto`, absent and `none` are not constrained in `auto` mode.
    assert!(auto.fields(&chat(json!({"tool_choice": "auto"}))).is_none());
    assert!(auto.fields(&chat(json!({}))).is_none());
    assert!(auto.fields(&chat(json!({"tool_choice": "none"}))).is_none());
    // `always`: `auto` gets the whole grammar on llama.cpp (free text, then
    // calls), a structural tag on vLLM; `none` is still not constrained.
    let always = plan(Constrain::Always, "llamacpp").unwrap();
    let fields = always.fields(&chat(json!({}))).unwrap();
    assert_ne!(
        fields["grammar"],
        auto.fields(&chat(json!({"tool_choice": "required"})))
            .unwrap()["grammar"]
    );
    assert!(
        always
            .fields(&chat(json!({"tool_choice": "none"})))
            .is_none()
    );
    let vllm = plan(Constrain::Always, "vllm").unwrap();
    let fields = vllm.fields(&chat(json!({"tool_choice": "auto"}))).unwrap();
    assert_eq!(fields["response_format"]["type"], "structural_tag");
}

#[test]
fn a_lazy_grammar_on_llamacpp_goes_to_its_completions_route() {
    let always = plan(Constrain::Always, "llamacpp").unwrap();
    let lazy = always.constraint(&chat(json!({}))).unwrap();
    let completion = lazy.completion.unwrap();
    assert_eq!(completion["grammar_lazy"], true);
    assert_eq!(
        completion["grammar_triggers"],
        json!([{"type": 1, "value": "<get_weather>"}, {"type": 1, "value": "<get_time>"}])
    );
    // From a trigger on: the grammar starts with a call.
    let gbnf = completion["grammar"].as_str().unwrap();
    assert!(gbnf.starts_with("root ::= call"), "{gbnf}");
    // The chat request that stands by carries the whole grammar.
    assert_ne!(lazy.fields["grammar"], completion["grammar"]);
    // Not lazy, or not llama.cpp: the chat route only.
    let required = always
        .constraint(&chat(json!({"tool_choice": "required"})))
        .unwrap();
    assert_eq!(required.completion, None);
    let vllm = plan(Constrain::Always, "vllm").unwrap();
    assert_eq!(vllm.constraint(&chat(json!({}))).unwrap().completion, None);
}

#[test]
fn a_prefilled_call_opening_is_resumed_in_every_mode_that_constrains() {
    let prefill = |content: Value, extra: Value| {
        let mut request = chat(extra);
        request["messages"]
            .as_array_mut()
            .unwrap()
            .push(json!({"role": "assistant", "content": content}));
        request
    };
    for (mode, extra) in [
        (Constrain::Always, json!({})),
        (Constrain::Auto, json!({"tool_choice": "required"})),
    ] {
        let plan = plan(mode, "llamacpp").unwrap();
        let resumed = plan
            .constraint(&prefill(
                json!("Let me check. <get_weather>"),
                extra.clone(),
            ))
            .unwrap();
        // llama.cpp answers with the prefill: nothing to read first.
        assert_eq!(resumed.opened, None);
        assert_eq!(resumed.completion, None);
        // The grammar goes on after the tag: no trigger again, no free text,
        // the weather call first (then, in parallel, any call).
        let gbnf = resumed.fields["grammar"].as_str().unwrap();
        let root = gbnf.lines().next().unwrap();
        assert!(
            root.starts_with("root ::= \"\\n\" get-weather-args \"</get_weather>\""),
            "{gbnf}"
        );
        // Content given as parts reads the same.
        let parts = json!([{"type": "text", "text": "Let me check. "}, {"type": "text", "text": "<get_weather>"}]);
        assert_eq!(
            plan.constraint(&prefill(parts, extra.clone())).unwrap(),
            resumed
        );
        // A prefill that opens no call is no resumption.
        let plain = plan
            .constraint(&prefill(json!("Let me check."), extra))
            .unwrap();
        let gbnf = plain.fields["grammar"].as_str().unwrap();
        assert!(!gbnf.starts_with("root ::= \"\\n\""), "{gbnf}");
    }
    // Any prefill keeps llama.cpp on its chat route.
    let always = plan(Constrain::Always, "llamacpp").unwrap();
    let plain = always
        .constraint(&prefill(json!("Well,"), json!({})))
        .unwrap();
    assert_eq!(plain.completion, None);
    assert!(plain.fields["grammar"].is_string());
    // `auto` mode leaves `tool_choice: auto` alone, prefilled or not.
    let auto = plan(Constrain::Auto, "llamacpp").unwrap();
    assert!(
        auto.constraint(&prefill(json!("<get_weather>"), json!({})))
            .is_none()
    );
    // vLLM and SGLang get the rest as their GBNF field.
    let vllm = plan(Constrain::Always, "vllm").unwrap();
    let resumed = vllm
        .constraint(&prefill(json!("<get_time>"), json!({})))
        .unwrap();
    assert!(resumed.fields["structured_outputs"]["grammar"].is_string());
    assert_eq!(resumed.opened.as_deref(), Some("<get_time>"));
}

#[test]
fn a_request_with_a_grammar_of_its_own_or_no_tools_is_left_alone() {
    let auto = plan(Constrain::Auto, "llamacpp").unwrap();
    let own = json!({"tool_choice": "required", "grammar": "root ::= \"x\""});
    assert!(auto.fields(&chat(own)).is_none());
    let own = json!({"tool_choice": "required", "response_format": {"type": "json_object"}});
    assert!(auto.fields(&chat(own)).is_none());
    // A null field is no grammar.
    let null = json!({"tool_choice": "required", "grammar": null});
    assert!(auto.fields(&chat(null)).is_some());
    let mut bare = chat(json!({"tool_choice": "required"}));
    bare.remove("tools");
    assert!(auto.fields(&bare).is_none());
    // vLLM's own fields are vLLM's.
    let vllm = plan(Constrain::Auto, "vllm").unwrap();
    let own = json!({"tool_choice": "required", "structured_outputs": {"json": {}}});
    assert!(vllm.fields(&chat(own)).is_none());
}

#[test]
fn parallel_calls_follow_the_request() {
    let auto = plan(Constrain::Auto, "sglang").unwrap();
    let one = auto
        .fields(&chat(
            json!({"tool_choice": "required", "parallel_tool_calls": false}),
        ))
        .unwrap();
    let many = auto
        .fields(&chat(json!({"tool_choice": "required"})))
        .unwrap();
    assert_ne!(one["ebnf"], many["ebnf"]);
    // The same request again is the grammar kept.
    let again = auto
        .fields(&chat(json!({"tool_choice": "required"})))
        .unwrap();
    assert_eq!(many, again);
    assert_eq!(auto.cache.len(), 2);
}

#[test]
fn modes_read_back_from_their_names() {
    for mode in Constrain::ALL {
        assert_eq!(mode.name().parse::<Constrain>(), Ok(mode));
    }
    assert_eq!(
        "sometimes".parse::<Constrain>().unwrap_err(),
        "unknown --constrain mode `sometimes` (known: off, auto, always)"
    );
    assert!(may_refuse_grammar(&ApiError::bad_request("x", None)));
}
