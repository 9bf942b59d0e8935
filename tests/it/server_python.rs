//! The embedded MCP server with the official Python SDK (`mcp` on PyPI) as the
//! client: progress and log notifications reach it, over Streamable HTTP.
#![allow(clippy::unwrap_used)]
#![allow(deprecated)]

use std::process::Command;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, LoggingLevel, Tool};
use serde_json::{Value, json};
use toolrouter::{HttpOptions, Hub, JsonObject, ServerOptions, ToolContext, serve_http};

use crate::support::ext::python_with_mcp;

/// Calls `work` with a progress callback and a log level, then prints what
/// arrived as one JSON line.
const SCRIPT: &str = r#"
import json, sys
import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main(url):
    logs, progress = [], []
    async def on_log(params):
        logs.append({"level": str(getattr(params.level, "value", params.level)), "data": params.data})
    async def on_progress(value, total, message):
        progress.append([value, total, message])
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1], logging_callback=on_log, log_level="debug") as session:
            await session.initialize()
            try:
                await session.set_logging_level("debug")
            except Exception:
                pass  # 2026-07-28 sessions carry the level per request instead
            result = await session.call_tool("work", {}, progress_callback=on_progress)
            await anyio.sleep(0.2)
            text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
            print(json.dumps({"text": text, "logs": logs, "progress": progress}))

anyio.run(main, sys.argv[1])
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_log_notifications_reach_the_python_sdk() {
    let python = python_with_mcp();
    let hub = Hub::new();
    let schema = Arc::new(match json!({ "type": "object" }) {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    });
    hub.registry()
        .register_fn(
            Tool::new("work", "reports as it goes", schema),
            |_, ctx: ToolContext| async move {
                ctx.log(LoggingLevel::Info, json!("starting")).await;
                for step in [1.0, 2.0, 3.0] {
                    ctx.progress(step, Some(3.0), Some(format!("step {step}")))
                        .await;
                }
                ctx.log(LoggingLevel::Debug, json!({ "detail": "done" }))
                    .await;
                Ok(CallToolResult::success(vec![ContentBlock::text("worked")]))
            },
        )
        .unwrap();
    let server = serve_http(
        hub,
        ServerOptions::default(),
        HttpOptions::new("127.0.0.1:0".parse().unwrap()),
    )
    .await
    .unwrap();
    let url = server.url();
    let mut command = Command::new(python);
    command.arg("-c").arg(SCRIPT).arg(url);
    let report = crate::support::run_json_client(command).await;
    assert_eq!(report["text"], "worked");
    assert_eq!(
        report["progress"],
        json!([
            [1.0, 3.0, "step 1"],
            [2.0, 3.0, "step 2"],
            [3.0, 3.0, "step 3"]
        ])
    );
    assert_eq!(
        report["logs"],
        json!([
            { "level": "info", "data": "starting" },
            { "level": "debug", "data": { "detail": "done" } }
        ])
    );
    server.shutdown().await.unwrap();
}
