//! The caller's tools, in any of the accepted shapes, as the crate's types.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use serde_json::{Map, Value};

use toolrouter::rmcp::model::Tool;
use toolrouter::{JsonObject, ToolCatalog, ToolShape};

use crate::json::to_json;

/// One tool of the caller's list, as an MCP `tools/list` entry (`name`,
/// `description`, `inputSchema`). OpenAI Chat entries
/// (`{"type": "function", "function": {...}}`) and flat Responses entries
/// (`{"type": "function", "name", "parameters"}`) are read too.
pub(crate) fn mcp_entry(entry: &Value, i: usize) -> PyResult<JsonObject> {
    let Some(obj) = entry.as_object() else {
        return Err(PyTypeError::new_err(format!("tool {i} is not a dict")));
    };
    let inner = obj
        .get("function")
        .and_then(Value::as_object)
        .unwrap_or(obj);
    let Some(name) = inner.get("name").and_then(Value::as_str) else {
        return Err(PyValueError::new_err(format!("tool {i} has no name")));
    };
    let schema = inner
        .get("inputSchema")
        .or_else(|| inner.get("parameters"))
        .or_else(|| inner.get("input_schema"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(|| {
            let mut m = Map::new();
            m.insert("type".into(), Value::String("object".into()));
            m
        });
    let mut out = Map::new();
    out.insert("name".into(), Value::String(name.to_owned()));
    if let Some(d) = inner.get("description").filter(|d| d.is_string()) {
        out.insert("description".into(), d.clone());
    }
    out.insert("inputSchema".into(), Value::Object(schema));
    Ok(out)
}

pub(crate) fn tool_entries(tools: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<JsonObject>> {
    let Some(tools) = tools else {
        return Ok(Vec::new());
    };
    let value = to_json(tools, 0)?;
    let list = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        // A whole `tools/list` result.
        Value::Object(mut obj) => match obj.remove("tools") {
            Some(Value::Array(list)) => list,
            _ => {
                return Err(PyTypeError::new_err(
                    "tools must be a list of tool dicts (or a tools/list result)",
                ));
            }
        },
        _ => return Err(PyTypeError::new_err("tools must be a list of tool dicts")),
    };
    list.iter()
        .enumerate()
        .map(|(i, e)| mcp_entry(e, i))
        .collect()
}

pub(crate) fn catalog(entries: &[JsonObject]) -> ToolCatalog {
    let empty = JsonObject::new();
    let mut catalog = ToolCatalog::new();
    for entry in entries {
        let name = entry.get("name").and_then(Value::as_str).unwrap_or("");
        let schema = entry
            .get("inputSchema")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        catalog.insert(name, ToolShape::from_input_schema(schema));
    }
    catalog
}

pub(crate) fn rmcp_tools(entries: Vec<JsonObject>) -> PyResult<Vec<Tool>> {
    entries
        .into_iter()
        .map(|e| {
            serde_json::from_value::<Tool>(Value::Object(e))
                .map_err(|err| PyValueError::new_err(err.to_string()))
        })
        .collect()
}
