//! The converters: `declare`, `result_message`, `follow_up`.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use serde_json::Value;

use toolrouter::rmcp::model::{CallToolResult, ContentBlock};
use toolrouter::{Dialect, JsonObject, ToolCall, WireFormat};

use crate::detector::value_err;
use crate::events::CallEnd;
use crate::json::{to_json, to_py};
use crate::tools::{rmcp_tools, tool_entries};

pub(crate) fn dialect(name: &str) -> PyResult<Dialect> {
    name.parse::<Dialect>().map_err(value_err)
}

/// The tools declared in `dialect`: the request's `tools` value (a string,
/// the system-prompt section, for `xml-text`).
#[pyfunction]
#[pyo3(signature = (tools, dialect_name, *, strict = false))]
pub(crate) fn declare<'py>(
    py: Python<'py>,
    tools: &Bound<'py, PyAny>,
    dialect_name: &str,
    strict: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let d = dialect(dialect_name)?;
    let tools = rmcp_tools(tool_entries(Some(tools))?)?;
    let declared = if strict {
        d.declare_strict(&tools)
    } else {
        d.declare(&tools)
    };
    to_py(py, &declared.value)
}

pub(crate) fn call_from_py(obj: &Bound<'_, PyAny>) -> PyResult<ToolCall> {
    if let Ok(end) = obj.cast::<CallEnd>() {
        let end = end.get();
        let args = match to_json(end.arguments.bind(obj.py()).as_any(), 0)? {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        };
        let format = end.format.parse().unwrap_or(WireFormat::OpenAiChat);
        return Ok(ToolCall::new(
            end.id.clone(),
            end.name.clone(),
            Some(args),
            format,
        ));
    }
    let Value::Object(mut m) = to_json(obj, 0)? else {
        return Err(PyTypeError::new_err(
            "a call is a CallEnd or a dict with id, name and arguments",
        ));
    };
    // An OpenAI Chat `tool_calls` entry nests name and arguments in `function`.
    if let Some(Value::Object(f)) = m.remove("function") {
        for (k, v) in f {
            m.entry(k).or_insert(v);
        }
    }
    let id = m
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let Some(name) = m.get("name").and_then(Value::as_str).map(str::to_owned) else {
        return Err(PyValueError::new_err("a call needs a name"));
    };
    let arguments = match m.remove("arguments") {
        None | Some(Value::Null) => JsonObject::new(),
        Some(Value::Object(a)) => a,
        Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(a)) => a,
            _ => {
                return Err(PyValueError::new_err(
                    "a call's arguments string must hold a JSON object",
                ));
            }
        },
        Some(_) => return Err(PyValueError::new_err("a call's arguments must be a dict")),
    };
    let format = m
        .get("format")
        .and_then(Value::as_str)
        .and_then(|f| f.parse().ok())
        .unwrap_or(WireFormat::OpenAiChat);
    Ok(ToolCall::new(id, name, Some(arguments), format))
}

pub(crate) fn result_from_py(obj: &Bound<'_, PyAny>) -> PyResult<CallToolResult> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(CallToolResult::success(vec![ContentBlock::text(
            s.to_str()?.to_owned(),
        )]));
    }
    serde_json::from_value::<CallToolResult>(to_json(obj, 0)?).map_err(value_err)
}

/// The messages that carry one call's result back to the model in `dialect`.
#[pyfunction]
#[pyo3(signature = (call, result, dialect_name))]
pub(crate) fn result_message<'py>(
    py: Python<'py>,
    call: &Bound<'py, PyAny>,
    result: &Bound<'py, PyAny>,
    dialect_name: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let d = dialect(dialect_name)?;
    let call = call_from_py(call)?;
    let result = result_from_py(result)?;
    let messages = d.result_messages(&[(&call, &result)]);
    to_py(py, &Value::Array(messages))
}

/// The messages to append to a conversation after a turn that made `calls`:
/// the assistant's turn (its `text` and the calls) then the results, in `dialect`.
#[pyfunction]
#[pyo3(signature = (calls, results, dialect_name, *, text = ""))]
pub(crate) fn follow_up<'py>(
    py: Python<'py>,
    calls: &Bound<'py, PyAny>,
    results: &Bound<'py, PyAny>,
    dialect_name: &str,
    text: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let d = dialect(dialect_name)?;
    let calls = calls
        .try_iter()?
        .map(|c| call_from_py(&c?))
        .collect::<PyResult<Vec<_>>>()?;
    let results = results
        .try_iter()?
        .map(|r| result_from_py(&r?))
        .collect::<PyResult<Vec<_>>>()?;
    if calls.len() != results.len() {
        return Err(PyValueError::new_err(format!(
            "{} calls but {} results",
            calls.len(),
            results.len()
        )));
    }
    let mut messages = d.assistant_turn(text, &calls);
    let pairs: Vec<(&ToolCall, &CallToolResult)> = calls.iter().zip(results.iter()).collect();
    messages.extend(d.result_messages(&pairs));
    to_py(py, &Value::Array(messages))
}

/// The names of every text format the detector knows, and of the default set.
#[pyfunction]
pub(crate) fn formats() -> (Vec<&'static str>, Vec<&'static str>) {
    let all = WireFormat::ALL
        .iter()
        .filter(|f| f.is_text_embedded() || **f == WireFormat::Think)
        .map(|f| f.as_str())
        .collect();
    let auto = toolrouter::DEFAULT_TEXT_FORMATS
        .iter()
        .map(|f| f.as_str())
        .collect();
    (all, auto)
}

/// The names of the converter dialects.
#[pyfunction]
pub(crate) fn dialects() -> Vec<&'static str> {
    Dialect::ALL.iter().map(|d| d.as_str()).collect()
}
