//! Unit tests of registration, listing, validation and suggestions.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool};
use serde_json::json;

use super::*;
use crate::core::JsonObject;
use crate::registry::validate::ArgumentValidator;

fn obj(v: serde_json::Value) -> JsonObject {
    match v {
        serde_json::Value::Object(m) => m,
        _ => panic!("test schema must be an object"),
    }
}

fn tool(name: &str) -> Tool {
    Tool::new(
        name.to_owned(),
        "test tool",
        Arc::new(obj(json!({"type":"object"}))),
    )
}

fn echo_registry(names: &[&str]) -> ToolRegistry {
    let registry = ToolRegistry::new();
    for name in names {
        registry
            .register_fn(tool(name), |args, _ctx| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    serde_json::Value::Object(args).to_string(),
                )]))
            })
            .expect("register");
    }
    registry
}

#[test]
fn names_follow_the_portable_rule() {
    for ok in ["a", "read_file", "get-weather", "A1_b-2", &"x".repeat(64)] {
        assert!(validate_tool_name(ok).is_ok(), "{ok}");
    }
    for bad in [
        "",
        "has space",
        "dot.name",
        "ünï",
        "slash/x",
        &"x".repeat(65),
    ] {
        let err = validate_tool_name(bad).expect_err(bad);
        let msg = err.to_string();
        assert!(msg.contains("1 to 64 characters"), "{msg}");
        assert!(msg.contains(&format!("`{bad}`")), "{msg}");
    }
}

#[test]
fn schemas_must_be_object_schemas() {
    let registry = ToolRegistry::new();
    let bad = Tool::new("t", "d", Arc::new(obj(json!({"type":"string"}))));
    let err = registry
        .register_schema_only(bad)
        .expect_err("not an object");
    assert!(matches!(
        err,
        RegistryError::InvalidSchema { which: "input", .. }
    ));
    let broken = Tool::new(
        "t",
        "d",
        Arc::new(obj(
            json!({"type":"object","properties":{"a":{"type":"nonsense"}}}),
        )),
    );
    assert!(registry.register_schema_only(broken).is_err());
    assert!(registry.is_empty());
}

#[test]
fn list_is_sorted_and_pages_walk_everything_once() {
    let registry = echo_registry(&["delta", "alpha", "echo", "charlie", "bravo"]);
    let names: Vec<String> = registry
        .list()
        .iter()
        .map(|t| t.name().to_owned())
        .collect();
    assert_eq!(names, ["alpha", "bravo", "charlie", "delta", "echo"]);

    let first = registry.page(None, 2);
    assert_eq!(first.tools.len(), 2);
    assert_eq!(first.next_cursor.as_deref(), Some("bravo"));
    let second = registry.page(first.next_cursor.as_deref(), 2);
    assert_eq!(
        second.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["charlie", "delta"]
    );
    let third = registry.page(second.next_cursor.as_deref(), 2);
    assert_eq!(
        third.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["echo"]
    );
    assert_eq!(third.next_cursor, None);
}

#[test]
fn a_page_cursor_survives_removal_of_its_tool() {
    let registry = echo_registry(&["a", "b", "c", "d"]);
    let first = registry.page(None, 2);
    registry.remove("b");
    let second = registry.page(first.next_cursor.as_deref(), 2);
    assert_eq!(
        second.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
        ["c", "d"]
    );
}

#[test]
fn replace_and_remove_report_changes() {
    let registry = echo_registry(&[]);
    let mut rx = registry.subscribe();
    let v0 = registry.version();
    assert_eq!(
        registry.register_schema_only(tool("x")).expect("add"),
        RegistryChange::Added("x".into())
    );
    assert_eq!(
        registry.register_schema_only(tool("x")).expect("replace"),
        RegistryChange::Replaced("x".into())
    );
    assert!(registry.remove("x").is_some());
    assert!(registry.remove("x").is_none());
    assert_eq!(rx.try_recv().ok(), Some(RegistryChange::Added("x".into())));
    assert_eq!(
        rx.try_recv().ok(),
        Some(RegistryChange::Replaced("x".into()))
    );
    assert_eq!(
        rx.try_recv().ok(),
        Some(RegistryChange::Removed("x".into()))
    );
    assert!(
        rx.try_recv().is_err(),
        "removing an absent tool is no change"
    );
    assert_eq!(registry.version(), v0 + 3);
}

#[test]
fn insert_new_refuses_to_shadow() {
    let registry = echo_registry(&["x"]);
    let dup = RegisteredTool::new(tool("x"), None).expect("valid");
    assert_eq!(
        registry.insert_new(dup),
        Err(RegistryError::Duplicate("x".into()))
    );
    assert!(
        registry
            .get("x")
            .and_then(|t| t.handler().cloned())
            .is_some()
    );
}

#[test]
fn catalog_follows_the_registry() {
    let registry = echo_registry(&["read_file"]);
    assert!(registry.catalog().contains("read_file"));
    registry.remove("read_file");
    assert!(!registry.catalog().contains("read_file"));
}

#[test]
fn validation_names_path_and_rule() {
    let schema = obj(json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "opts": {"type": "object", "properties": {"depth": {"type": "integer", "minimum": 0}}}
        },
        "required": ["path"]
    }));
    let validator = ArgumentValidator::compile(&schema).expect("compiles");

    let (_, ok) = validator.validate(obj(json!({"path": "a", "opts": {"depth": 2}})));
    assert_eq!(ok, Ok(()));

    let (args, err) = validator.validate(obj(json!({"path": "a", "opts": {"depth": -1}})));
    let msg = err.expect_err("negative depth");
    assert!(msg.contains("`/opts/depth`"), "{msg}");
    assert!(msg.contains("minimum"), "{msg}");
    assert_eq!(
        args.get("path"),
        Some(&json!("a")),
        "arguments are handed back"
    );

    let (_, err) = validator.validate(obj(json!({"opts": {}})));
    let msg = err.expect_err("missing path");
    assert!(msg.contains("\"path\" is a required property"), "{msg}");
    assert!(msg.contains("required"), "{msg}");
}

#[test]
fn suggestions_prefer_close_names() {
    let registry = echo_registry(&["read_file", "write_to_file", "list_files", "calculate"]);
    assert_eq!(registry.suggest("read_fil"), ["read_file"]);
    assert_eq!(registry.suggest("readfile")[0], "read_file");
    assert_eq!(registry.suggest("list_file")[0], "list_files");
    assert!(registry.suggest("zzzzzzzzzzzz").is_empty());
}

#[test]
fn list_entries_become_definitions() {
    let entry = json!({
        "name": "get_weather",
        "title": "Weather",
        "description": "Current weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "annotations": {"readOnlyHint": true}
    });
    let def = tool_from_list_entry(&entry).expect("valid entry");
    assert_eq!(def.name, "get_weather");
    assert_eq!(def.title.as_deref(), Some("Weather"));
    assert_eq!(
        def.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    let bad = json!({"name": "bad name", "inputSchema": {"type": "object"}});
    assert!(matches!(
        tool_from_list_entry(&bad),
        Err(RegistryError::InvalidName { .. })
    ));
    assert!(matches!(
        tool_from_list_entry(&json!({"inputSchema": {}})),
        Err(RegistryError::InvalidDefinition(_))
    ));
}

#[test]
fn definitions_are_the_registered_tools_in_name_order() {
    let registry = echo_registry(&["b_tool", "a_tool"]);
    let names: Vec<String> = registry
        .definitions()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names, ["a_tool", "b_tool"]);
    assert_eq!(registry.definitions()[0], tool("a_tool"));
}
