//! An app embedding toolrouter: register tools at start-up, feed a provider
//! stream, use the results for the next request.
//!
//! `cargo run --example embed` replays a bundled OpenAI-compatible stream in which
//! a model without a tool parser wrote Hermes `<tool_call>` blocks into its text.

use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;
use toolrouter::providers::Wire;
use toolrouter::{
    BuiltinsConfig, DetectEvent, Dialect, Hub, RouteEvent, ToolError, TypedToolBuilder,
};

/// Arguments of our own tool.
#[derive(Deserialize, JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // 1. Register tools once: the built-ins and one of our own.
    let hub = Hub::global();
    toolrouter::register_builtins(hub.registry(), &BuiltinsConfig::new("."))?;
    TypedToolBuilder::new("greet", "Greets someone")
        .register(hub.registry(), |args: Greet, _ctx| async move {
            Ok::<_, ToolError>(format!("Hello, {}!", args.name))
        })?;

    // 2. Declare them to the provider in its own dialect.
    let tools = hub.registry().definitions();
    let declared = Dialect::OpenAiChat.declare(&tools);
    println!(
        "declared {} tools",
        declared.value.as_array().map_or(0, Vec::len)
    );

    // 3. Feed the provider's bytes as they arrive (here: a recorded response,
    //    cut into 16-byte pieces as a network would).
    let body = std::fs::read("examples/streams/qwen-hermes.sse")?;
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        body.chunks(16).map(|c| Ok(c.to_vec())).collect();
    let mut events = hub
        .router()
        .route(Wire::OpenAiChat, futures::stream::iter(pieces));
    let mut outcome = toolrouter::TurnOutcome::new(Wire::OpenAiChat);
    while let Some(event) = events.next().await {
        match &event {
            RouteEvent::Detect(DetectEvent::Text { text }) => print!("{text}"),
            RouteEvent::Detect(DetectEvent::CallEnd { call, .. }) => {
                println!("\n→ {} {:?}", call.name, call.arguments)
            }
            RouteEvent::ToolResult { name, result, .. } => {
                println!("← {name}: {:?}", result.content.first())
            }
            _ => {}
        }
        outcome.push(&event);
    }

    // 4. The next request's messages, in the provider's dialect.
    for message in outcome.follow_up() {
        println!("{message}");
    }
    Ok(())
}
