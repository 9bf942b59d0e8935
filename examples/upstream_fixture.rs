//! A small MCP server over stdio for the gateway tests: paginated and dynamic
//! tools, a slow tool with progress, and deliberately malformed tool lists.
//!
//! `upstream_fixture [serve]` runs the rmcp server with these tools:
//! `echo {text}`, `slow {seconds}` (progress every 100 ms, stops when cancelled),
//! `cancellations` (how many `slow` calls were cancelled), `pid` (its process
//! id), `add_tool {name}` / `remove_tool {name}` (change the list and send
//! `notifications/tools/list_changed`). `tools/list` pages hold two tools each,
//! so clients must follow cursors.
//!
//! `upstream_fixture malformed-json` answers `tools/list` with a tool without
//! `inputSchema`; `upstream_fixture malformed-schema` with a tool whose
//! `inputSchema` is not an object schema; `upstream_fixture endless-pages` with
//! page after page, never a last one. These speak raw JSON-RPC.

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// `slow` calls stopped by `notifications/cancelled`.
static CANCELLATIONS: AtomicU32 = AtomicU32::new(0);

#[derive(Clone, Default)]
struct Fixture {
    extra: Arc<Mutex<BTreeSet<String>>>,
}

fn schema(value: Value) -> Arc<serde_json::Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(serde_json::Map::new()),
    }
}

fn text(s: impl Into<String>) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(s.into())]))
}

impl Fixture {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![
            Tool::new(
                "echo",
                "Echoes `text`.",
                schema(
                    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
                ),
            ),
            Tool::new(
                "slow",
                "Sleeps `seconds`, reporting progress every 100 ms.",
                schema(
                    json!({"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}),
                ),
            ),
            Tool::new(
                "freeze",
                "Stops the whole server answering anything, for good (a frozen upstream).",
                schema(json!({"type": "object"})),
            ),
            Tool::new(
                "pid",
                "Returns the process id.",
                schema(json!({"type": "object"})),
            ),
            Tool::new(
                "cancellations",
                "How many `slow` calls were cancelled by the client.",
                schema(json!({"type": "object"})),
            ),
            Tool::new(
                "add_tool",
                "Adds a tool named `name` and announces the change.",
                schema(
                    json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                ),
            ),
            Tool::new(
                "remove_tool",
                "Removes the added tool `name` and announces the change.",
                schema(
                    json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                ),
            ),
        ];
        let extra = self.extra.lock().map(|e| e.clone()).unwrap_or_default();
        for name in extra {
            tools.push(Tool::new(
                name,
                "An added tool.",
                schema(json!({"type": "object"})),
            ));
        }
        tools
    }
}

fn arg_str(request: &CallToolRequestParams, key: &str) -> Result<String, ErrorData> {
    request
        .arguments
        .as_ref()
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorData::invalid_params(format!("`{key}` must be a string"), None))
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("upstream-fixture", "0.1.0"))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = self.tools();
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let end = (start + 2).min(tools.len());
        let page = tools
            .get(start..end)
            .map(<[Tool]>::to_vec)
            .unwrap_or_default();
        let mut result = ListToolsResult::with_all_items(page);
        result.next_cursor = (end < tools.len()).then(|| end.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        match request.name.as_ref() {
            "echo" => Ok(text(arg_str(&request, "text")?)),
            "pid" => Ok(text(std::process::id().to_string())),
            "freeze" => {
                // The runtime has one thread: blocking it stops every answer,
                // pings included, while the process and its pipes stay open.
                loop {
                    std::thread::sleep(Duration::from_secs(3600));
                }
            }
            "cancellations" => Ok(text(CANCELLATIONS.load(Ordering::SeqCst).to_string())),
            "slow" => {
                let seconds = request
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get("seconds"))
                    .and_then(Value::as_f64)
                    .unwrap_or(1.0);
                let steps = (seconds * 10.0).ceil().max(1.0) as u32;
                let token = context.meta.get_progress_token();
                for step in 1..=steps {
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(100)) => {}
                        _ = context.ct.cancelled() => {
                            eprintln!("fixture: slow cancelled at step {step}");
                            CANCELLATIONS.fetch_add(1, Ordering::SeqCst);
                            return Ok(text("cancelled"));
                        }
                    }
                    if let Some(token) = &token {
                        let _ = context
                            .peer
                            .notify_progress(
                                ProgressNotificationParam::new(token.clone(), f64::from(step))
                                    .with_total(f64::from(steps)),
                            )
                            .await;
                    }
                }
                Ok(text(format!("slept {seconds} seconds")))
            }
            "add_tool" | "remove_tool" => {
                let name = arg_str(&request, "name")?;
                if let Ok(mut extra) = self.extra.lock() {
                    if request.name == "add_tool" {
                        extra.insert(name.clone());
                    } else {
                        extra.remove(&name);
                    }
                }
                let _ = context.peer.notify_tool_list_changed().await;
                Ok(text(format!("{} {name}", request.name)))
            }
            other => {
                let known = self
                    .extra
                    .lock()
                    .map(|e| e.contains(other))
                    .unwrap_or(false);
                if known {
                    Ok(text(format!("{other} ran")))
                } else {
                    Err(ErrorData::invalid_params(
                        format!("unknown tool `{other}`"),
                        None,
                    ))
                }
            }
        }
    }
}

/// Answers JSON-RPC on stdin/stdout by hand; `tools_page(params)` answers `tools/list`.
fn serve_raw(tools_page: impl Fn(&Value) -> Value) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let result = match message.get("method").and_then(Value::as_str) {
            Some("initialize") => json!({
                "protocolVersion": message["params"]["protocolVersion"].clone(),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "malformed-fixture", "version": "0.1.0"}
            }),
            Some("tools/list") => tools_page(&message["params"]),
            Some("ping") => json!({}),
            _ => {
                let reply = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}});
                writeln!(stdout, "{reply}")?;
                stdout.flush()?;
                continue;
            }
        };
        writeln!(
            stdout,
            "{}",
            json!({"jsonrpc": "2.0", "id": id, "result": result})
        )?;
        stdout.flush()?;
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow_free::Result {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "serve".to_owned());
    match mode.as_str() {
        "serve" => {
            let service = Fixture::default()
                .serve(rmcp::transport::stdio())
                .await
                .map_err(|e| e.to_string())?;
            service.waiting().await.map_err(|e| e.to_string())?;
        }
        "malformed-json" => serve_raw(|_| {
            json!({"tools": [
                {"name": "fine", "inputSchema": {"type": "object"}},
                {"name": "no_schema", "description": "lacks inputSchema"}
            ]})
        })
        .map_err(|e| e.to_string())?,
        "malformed-schema" => serve_raw(|_| {
            json!({"tools": [
                {"name": "fine", "inputSchema": {"type": "object"}},
                {"name": "not_object", "inputSchema": {"type": "string"}}
            ]})
        })
        .map_err(|e| e.to_string())?,
        // Reads every request and answers none, `initialize` included.
        "mute" => {
            for line in std::io::stdin().lock().lines() {
                line.map_err(|e| e.to_string())?;
            }
        }
        // Page after page, one new tool each, never a last page.
        "endless-pages" => serve_raw(|params| {
            let n: u64 = params["cursor"]
                .as_str()
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            json!({
                "tools": [{"name": format!("t{n}"), "inputSchema": {"type": "object"}}],
                "nextCursor": (n + 1).to_string()
            })
        })
        .map_err(|e| e.to_string())?,
        other => return Err(format!("unknown mode `{other}`")),
    }
    Ok(())
}

/// Errors as plain strings; examples need no error crate.
mod anyhow_free {
    pub(crate) type Result = std::result::Result<(), String>;
}
