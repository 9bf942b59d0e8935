//! The registry and hub through the public API: the three ways to register,
//! concurrency, change notifications, validation.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::support::text_of;
use rmcp::model::{CallToolResult, ContentBlock, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolrouter::{
    Hub, JsonObject, RegistryChange, ToolContext, ToolHandler, ToolRegistry, ToolSource,
};
use toolrouter::{ToolError, TypedToolBuilder, tool_from_list_entry};

fn schema(v: serde_json::Value) -> Arc<JsonObject> {
    Arc::new(v.as_object().cloned().expect("object schema"))
}

struct Upper;

#[async_trait::async_trait]
impl ToolHandler for Upper {
    async fn call(&self, args: JsonObject, _ctx: ToolContext) -> Result<CallToolResult, ToolError> {
        let s = args
            .get("s")
            .and_then(|v| v.as_str())
            .ok_or_else(|| ToolError::new("missing `s`"))?;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            s.to_uppercase(),
        )]))
    }
}

#[tokio::test]
async fn a_schema_and_a_trait_object_handler() {
    let registry = ToolRegistry::new();
    let def = Tool::new(
        "upper",
        "Upper-cases a string",
        schema(json!({"type":"object","properties":{"s":{"type":"string"}},"required":["s"]})),
    );
    registry.register(def, Arc::new(Upper)).expect("register");
    let tool = registry.get("upper").expect("registered");
    assert_eq!(tool.source(), &ToolSource::Local);
    let args = json!({"s": "abc"}).as_object().cloned().expect("object");
    let out = tool
        .handler()
        .expect("handler")
        .call(args, ToolContext::new("c1", "upper"))
        .await
        .expect("runs");
    assert_eq!(text_of(&out), "ABC");
}

#[tokio::test]
async fn a_closure_handler() {
    let registry = ToolRegistry::new();
    let def = Tool::new("len", "Length", schema(json!({"type":"object"})));
    registry
        .register_fn(def, |args, ctx| async move {
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "{}:{}",
                ctx.call_id(),
                args.len()
            ))]))
        })
        .expect("register");
    let args = json!({"a": 1, "b": 2})
        .as_object()
        .cloned()
        .expect("object");
    let out = registry
        .get("len")
        .and_then(|t| t.handler().cloned())
        .expect("handler")
        .call(args, ToolContext::new("call_9", "len"))
        .await
        .expect("runs");
    assert_eq!(text_of(&out), "call_9:2");
}

/// Where to look.
#[derive(Debug, Deserialize, JsonSchema)]
struct WeatherArgs {
    /// The city.
    city: String,
    /// Temperature unit.
    #[serde(default)]
    unit: Option<Unit>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Weather {
    city: String,
    degrees: i32,
}

#[tokio::test]
async fn a_typed_tool_derives_schemas_and_deserializes_arguments() {
    let registry = ToolRegistry::new();
    TypedToolBuilder::new("get_weather", "Current weather")
        .title("Weather")
        .annotations(ToolAnnotations::new().read_only(true))
        .register(&registry, |args: WeatherArgs, _ctx| async move {
            let degrees = if args.unit == Some(Unit::Fahrenheit) {
                68
            } else {
                20
            };
            Ok::<_, ToolError>(Weather {
                city: args.city,
                degrees,
            })
        })
        .expect("register");
    let tool = registry.get("get_weather").expect("registered");
    let def = tool.definition();
    assert_eq!(def.title.as_deref(), Some("Weather"));
    let input = serde_json::Value::Object((*def.input_schema).clone());
    assert_eq!(input["type"], "object");
    assert_eq!(input["properties"]["city"]["type"], "string");
    assert_eq!(input["required"], json!(["city"]));
    let output = def
        .output_schema
        .as_ref()
        .expect("object output gets a schema");
    assert_eq!(output["properties"]["degrees"]["type"], "integer");

    // The derived schema is what validation uses.
    let (_, verdict) = tool
        .validator()
        .validate(json!({"unit": "kelvin"}).as_object().cloned().expect("obj"));
    let msg = verdict.expect_err("city missing and unit not in the enum");
    assert!(msg.contains("\"city\" is a required property"), "{msg}");
    assert!(msg.contains("`/unit`"), "{msg}");

    let args = json!({"city": "Paris", "unit": "fahrenheit"})
        .as_object()
        .cloned()
        .expect("obj");
    let out = tool
        .handler()
        .expect("handler")
        .call(args, ToolContext::new("c", "get_weather"))
        .await
        .expect("runs");
    assert_eq!(
        out.structured_content,
        Some(json!({"city": "Paris", "degrees": 68}))
    );
    assert_eq!(text_of(&out), r#"{"city":"Paris","degrees":68}"#);
}

#[test]
fn a_tools_list_entry_registers_schema_only() {
    let registry = ToolRegistry::new();
    let entry = json!({
        "name": "search_docs",
        "description": "Search the docs",
        "inputSchema": {"type":"object","properties":{"q":{"type":"string"}}}
    });
    registry
        .register_schema_only(tool_from_list_entry(&entry).expect("valid"))
        .expect("register");
    let tool = registry.get("search_docs").expect("registered");
    assert_eq!(tool.source(), &ToolSource::SchemaOnly);
    assert!(tool.handler().is_none());
    assert!(registry.catalog().contains("search_docs"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_register_remove_and_list_lose_no_update() {
    let registry = Arc::new(ToolRegistry::new());
    let mut rx = registry.subscribe();
    let v0 = registry.version();
    // 8 x 20 adds + 80 removals = 240 changes: within the channel's 256 slots, so
    // the receiver sees every one without draining concurrently.
    let n_tasks = 8;
    let per_task = 20;
    let mut tasks = Vec::new();
    for t in 0..n_tasks {
        let registry = registry.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..per_task {
                let name = format!("t{t}_{i}");
                let def = Tool::new(name.clone(), "d", schema(json!({"type":"object"})));
                registry.register_schema_only(def).expect("register");
                // Readers interleave with writers.
                let listed = registry.list();
                assert!(listed.windows(2).all(|w| w[0].name() < w[1].name()));
                // Every odd tool is removed again.
                if i % 2 == 1 {
                    assert!(registry.remove(&name).is_some());
                }
                tokio::task::yield_now().await;
            }
        }));
    }
    for task in tasks {
        task.await.expect("task");
    }
    let expected: BTreeSet<String> = (0..n_tasks)
        .flat_map(|t| (0..per_task).step_by(2).map(move |i| format!("t{t}_{i}")))
        .collect();
    let listed: BTreeSet<String> = registry
        .list()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(registry.len(), expected.len());
    let catalog = registry.catalog();
    assert_eq!(catalog.len(), expected.len());
    assert_eq!(registry.version(), v0 + (n_tasks * per_task * 3 / 2) as u64);

    // One notification per change: adds for all, removals for the odd ones.
    let (mut added, mut removed) = (0, 0);
    while let Ok(change) = rx.try_recv() {
        match change {
            RegistryChange::Added(_) => added += 1,
            RegistryChange::Removed(_) => removed += 1,
            other => panic!("unexpected change {other:?}"),
        }
    }
    assert_eq!(added, n_tasks * per_task);
    assert_eq!(removed, n_tasks * per_task / 2);
}

#[test]
fn the_global_hub_is_one_instance_and_new_hubs_are_isolated() {
    let a = Hub::global();
    let b = Hub::global();
    assert!(a.ptr_eq(b));
    let isolated = Hub::new();
    assert!(!isolated.ptr_eq(a));
    let def = Tool::new("only_here", "d", schema(json!({"type":"object"})));
    isolated
        .registry()
        .register_schema_only(def)
        .expect("register");
    assert!(isolated.registry().contains("only_here"));
    assert!(!Hub::global().registry().contains("only_here"));

    let shared = Arc::new(ToolRegistry::new());
    let h1 = Hub::builder().registry(shared.clone()).build();
    let h2 = Hub::builder().registry(shared).build();
    let def = Tool::new("both", "d", schema(json!({"type":"object"})));
    h1.registry().register_schema_only(def).expect("register");
    assert!(h2.registry().contains("both"));
}
