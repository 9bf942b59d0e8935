//! `toolrouter chat`: the real loop against a live endpoint. Send the
//! conversation with the tools declared in the provider's dialect, stream the
//! answer through the router (calls run as soon as they are complete), send the
//! results back, and repeat until a turn makes no call or the step limit is hit.

use std::io::{Read as _, Write as _};
use std::time::{Duration, Instant};

use clap::Args;
use futures::StreamExt;
use serde_json::json;
use toolrouter::providers::find_profile;
use toolrouter::providers::{ProviderProfile, Wire};
use toolrouter::rmcp::model::Tool;
use toolrouter::{
    Constrain, Conversation, GrammarOptions, GrammarServer, GrammarTool, ToolChoice, ToolMode,
    WireFormat, build_grammar, endpoint,
};
use toolrouter::{Hub, RouteEvent, TurnOutcome};

use super::help::examples;
use super::names::PROVIDER;
use super::setup::{ToolSetupArgs, Upstreams, with_tools};
use super::transcript::Transcript;

/// The help's examples.
const EXAMPLES: &str = r#"
  # Ask OpenAI (OPENAI_API_KEY), running its calls with the built-in tools
  toolrouter chat --provider openai --model gpt-4.1-mini --prompt "What is in src/?"
  # A local vLLM server; the prompt on stdin
  echo "Sum 19 and 23" | toolrouter chat --provider vllm --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B
  # A model without tool support: the tools taught in the system prompt
  toolrouter chat --provider ollama --model llama3.2 --text-tools --prompt "List the files"
"#;

/// Arguments of `toolrouter chat`.
#[derive(Debug, Args)]
#[command(after_help = examples(EXAMPLES))]
pub(crate) struct ChatArgs {
    /// The provider: a profile (its name or one of its other names) or a wire
    /// a profile offers (`openai-responses`); its key variable is read.
    /// Bedrock is refused: its requests need AWS SigV4 signing.
    #[arg(long, value_name = "NAME", value_parser = PROVIDER)]
    provider: String,
    /// The API base URL (default: the profile's). Anthropic and Gemini bases
    /// may end with or without their version segment (`/v1`, `/v1beta`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model.
    #[arg(long, value_name = "M")]
    model: String,
    /// The user's message (default: read from stdin).
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    /// The system prompt.
    #[arg(long, value_name = "TEXT")]
    system: Option<String>,
    /// The most requests to send (each turn that makes calls takes one more).
    #[arg(long, value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_steps: u32,
    /// The most tokens per turn (given: sent on every wire; not given:
    /// Anthropic's required `max_tokens` is 4096).
    #[arg(long, value_name = "N")]
    max_tokens: Option<u32>,
    /// The sampling temperature (default: the server's).
    #[arg(long, value_name = "T")]
    temperature: Option<f64>,
    /// Give up on a response that sends nothing for this many seconds (the
    /// turn is then reported as a cut stream).
    #[arg(long, value_name = "SECS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..))]
    read_timeout: u64,
    /// Where the tools come from (built-ins, `--tools`, `--config` upstreams).
    #[command(flatten)]
    setup: ToolSetupArgs,
    /// Detector options.
    #[command(flatten)]
    detect: super::detect_args::DetectArgs,
    /// Teach the tools in the system prompt (XML tags in the text) instead of
    /// declaring them, for endpoints that serve a model without tool support.
    #[arg(long)]
    text_tools: bool,
    /// The calls the first answer must make: `auto`, `required`, `none`, or
    /// a tool's name. Later answers are `auto`, so that the loop can end.
    #[arg(long, value_name = "CHOICE", default_value = "auto")]
    tool_choice: String,
    /// With --text-tools, on a server that takes a grammar (the llamacpp,
    /// vllm and sglang profiles): send the grammar of the tools when the
    /// turn's choice asks for calls (`auto`), also for `auto` (`always`), or
    /// never (`off`).
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = ["off", "auto", "always"])]
    constrain: String,
    /// Print JSON Lines: one `{"type":"request",...}` line per request, then
    /// that turn's events.
    #[arg(long)]
    json: bool,
}

/// Runs the command.
pub(crate) fn run(args: ChatArgs) -> Result<(), String> {
    with_tools(&args.setup, Upstreams::Wait, async |setup| {
        chat(&args, &setup.hub).await
    })
}

async fn chat(args: &ChatArgs, hub: &Hub) -> Result<(), String> {
    let found = find_profile(&args.provider).map_err(|e| e.to_string())?;
    let mut conversation = Conversation::new(found.wire, &args.model).map_err(|e| e.to_string())?;
    if let Some(max_tokens) = args.max_tokens {
        conversation = conversation.with_max_tokens(max_tokens);
    }
    if let Some(temperature) = args.temperature {
        conversation = conversation.with_temperature(temperature);
    }
    let base_url = args
        .base_url
        .clone()
        .unwrap_or_else(|| found.profile.base_url.clone());
    let api_key = found.profile.api_key_from_env();
    let endpoint = endpoint(
        &found.profile.name,
        found.wire,
        &base_url,
        &args.model,
        api_key.as_deref(),
    )
    .map_err(|e| e.to_string())?;

    let prompt = match &args.prompt {
        Some(prompt) => prompt.clone(),
        None => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| format!("cannot read the prompt from stdin: {e}"))?;
            text
        }
    };
    if prompt.trim().is_empty() {
        return Err("no prompt: pass --prompt TEXT or write it on stdin".to_owned());
    }

    let tools: Vec<Tool> = hub.registry().definitions();
    let first_choice = tool_choice(&args.tool_choice, &tools)?;
    if found.wire == Wire::Ollama && !args.text_tools && first_choice != ToolChoice::Auto {
        return Err(format!(
            "--tool-choice {}: Ollama's API has no tool_choice (try --text-tools on a server that takes a grammar)",
            args.tool_choice
        ));
    }
    let constrain: Constrain = args.constrain.parse()?;
    let grammar_server = grammar_server(found.profile, args.text_tools, constrain);
    let mode = if args.text_tools {
        ToolMode::InText
    } else {
        ToolMode::Declared
    };
    conversation = conversation.with_tools(tools.clone(), mode);
    if let Some(system) = &args.system {
        conversation = conversation.with_system(system.clone());
    }
    for note in conversation.declarations().notes {
        eprintln!("toolrouter: note: {note}");
    }
    conversation.push_user(&prompt);

    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(Duration::from_secs(args.read_timeout))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let mut detect = args.detect.config(
        toolrouter::DetectConfig::default(),
        &found.profile.text_formats,
    )?;
    // `--text-tools` writes values with XML entities and teaches the model to.
    detect.xml_entities |= args.text_tools;
    let router = hub.router().detect_config(detect);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut transcript = Transcript::default();

    for step in 1..=args.max_steps {
        let choice = if step == 1 {
            first_choice.clone()
        } else {
            ToolChoice::Auto
        };
        let grammar = match grammar_server {
            Some(server) if choice != ToolChoice::None => {
                constrained_fields(server, &tools, &choice, constrain)?
            }
            _ => serde_json::Map::new(),
        };
        conversation.set_extra_fields(grammar);
        conversation.set_tool_choice(choice);
        let body = serde_json::to_vec(&conversation.request_body()).map_err(|e| e.to_string())?;
        if args.json {
            let line = json!({"type": "request", "step": step, "url": endpoint.url});
            writeln!(out, "{line}").map_err(|e| e.to_string())?;
        } else {
            transcript.line(&mut out, &format!("▶ turn {step}: POST {}", endpoint.url))?;
        }
        out.flush().map_err(|e| e.to_string())?;

        let mut request = client.post(&endpoint.url).body(body);
        for (name, value) in &endpoint.headers {
            request = request.header(*name, value);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("cannot reach {}: {e}", endpoint.url))?;
        let status = response.status();
        if !status.is_success() {
            let text = response
                .text()
                .await
                .unwrap_or_else(|e| format!("(the body could not be read: {e})"));
            return Err(format!("{} answered {status}: {text}", endpoint.url));
        }

        let started = Instant::now();
        let mut events = router.route(found.wire, response.bytes_stream());
        let mut outcome = TurnOutcome::new(found.wire);
        let mut stream_error = None;
        while let Some(event) = events.next().await {
            outcome.push(&event);
            if let RouteEvent::ProviderError { message, .. } = &event {
                stream_error.get_or_insert_with(|| message.clone());
            }
            if args.json {
                let line = serde_json::to_string(&event).map_err(|e| e.to_string())?;
                writeln!(out, "{line}").map_err(|e| e.to_string())?;
            } else {
                transcript.write(&mut out, &event, started)?;
            }
            out.flush().map_err(|e| e.to_string())?;
        }
        transcript.close(&mut out)?;
        if let Some(error) = stream_error.or_else(|| outcome.error.clone()) {
            return Err(format!("turn {step}: the provider stream failed: {error}"));
        }
        if outcome.calls.is_empty() && !outcome.partial_calls.is_empty() {
            let names: Vec<&str> = outcome
                .partial_calls
                .iter()
                .map(|c| match c.name.as_str() {
                    "" => "a tool not yet named",
                    name => name,
                })
                .collect();
            return Err(format!(
                "turn {step}: the model's call to {} was cut off (stop: {}) and was not run",
                names.join(", "),
                outcome.stop.as_str()
            ));
        }
        conversation.record_turn(&outcome);
        if outcome.calls.is_empty() {
            return Ok(());
        }
    }
    Err(format!(
        "stopped after {} requests: the model was still calling tools (raise --max-steps)",
        args.max_steps
    ))
}

/// `--tool-choice`: `auto`, `required`, `none`, or one of `tools` by name.
fn tool_choice(choice: &str, tools: &[Tool]) -> Result<ToolChoice, String> {
    Ok(match choice {
        "auto" => ToolChoice::Auto,
        "required" => ToolChoice::Required,
        "none" => ToolChoice::None,
        name if tools.iter().any(|t| t.name == name) => ToolChoice::Named(name.to_owned()),
        other => {
            let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
            return Err(format!(
                "--tool-choice {other}: no such tool (auto, required, none, or one of: {})",
                names.join(", ")
            ));
        }
    })
}

/// The server a grammar goes to (`--constrain`): only with `--text-tools`,
/// on a profile that names one.
fn grammar_server(
    profile: &ProviderProfile,
    text_tools: bool,
    constrain: Constrain,
) -> Option<GrammarServer> {
    if !text_tools || constrain == Constrain::Off {
        return None;
    }
    profile.grammar.as_deref()?.parse().ok()
}

/// The grammar fields of a turn whose choice is `choice`: none for `auto`
/// unless `--constrain always`.
fn constrained_fields(
    server: GrammarServer,
    tools: &[Tool],
    choice: &ToolChoice,
    constrain: Constrain,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    if tools.is_empty() || (*choice == ToolChoice::Auto && constrain != Constrain::Always) {
        return Ok(serde_json::Map::new());
    }
    let named: Vec<GrammarTool<'_>> = tools
        .iter()
        .map(|t| GrammarTool::new(&t.name, &t.input_schema))
        .collect();
    let grammar = build_grammar(
        &named,
        WireFormat::Xml,
        &GrammarOptions::new(choice.clone()),
    )
    .map_err(|e| format!("--constrain: no grammar for the tools: {e}"))?;
    Ok(grammar.chat_fields(server))
}
