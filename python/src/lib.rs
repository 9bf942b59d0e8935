//! `toolrouter._toolrouter`: the extension module behind the `toolrouter`
//! Python package. It is thin on purpose: the detector and the converters of
//! the `toolrouter` crate do the work; this file only moves values between
//! Python objects and the crate's types (docs/python.md).
//!
//! Nothing here panics on input: every conversion returns a Python exception.

use std::sync::{Arc, Mutex, PoisonError};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

use toolrouter::rmcp::model::{CallToolResult, ContentBlock, Tool};
use toolrouter::{
    DetectConfig, Dialect, EventBatch, EventRef, JsonObject, ToolCall, ToolCatalog, ToolShape,
    WireFormat,
};

/// Deltas (and whole texts) at least this long are processed with the GIL
/// released; below it, releasing and taking it back costs more than it frees.
const DETACH_BYTES: usize = 16 * 1024;

/// The deepest JSON nesting converted between Python and JSON values.
const MAX_DEPTH: usize = 512;

// ---------------------------------------------------------------------------
// Event classes

// Text, Reasoning and ArgsDelta, the events of nearly every delta, hold
// Python strings made straight from the detector's `&str`: one allocation per
// event, and reading the attribute copies nothing.

/// Visible text, released once it can no longer open a call.
#[pyclass(frozen, get_all, module = "toolrouter")]
struct Text {
    text: Py<PyString>,
}

/// Reasoning ("thinking") text, never part of the visible text.
#[pyclass(frozen, get_all, module = "toolrouter")]
struct Reasoning {
    text: Py<PyString>,
}

/// A call has begun and its name is known.
#[pyclass(frozen, get_all, module = "toolrouter", eq)]
#[derive(PartialEq)]
struct CallStart {
    index: usize,
    id: String,
    name: String,
    format: String,
}

/// More of a call's arguments JSON text.
#[pyclass(frozen, get_all, module = "toolrouter")]
struct ArgsDelta {
    index: usize,
    fragment: Py<PyString>,
}

/// A call is complete; `arguments` is a dict.
#[pyclass(frozen, get_all, module = "toolrouter")]
struct CallEnd {
    index: usize,
    id: String,
    name: String,
    arguments: Py<PyDict>,
    format: String,
}

/// Markup that did not become a call; its raw text was given back as `Text`.
#[pyclass(frozen, get_all, module = "toolrouter", eq)]
#[derive(PartialEq)]
struct Malformed {
    kind: String,
    message: String,
    raw: String,
    format: String,
}

fn quote(s: &str) -> String {
    // Python-ish repr of a string; JSON escaping is close enough and never fails.
    serde_json::to_string(s).unwrap_or_default()
}

#[pymethods]
impl Malformed {
    #[new]
    fn new(kind: String, message: String, raw: String, format: String) -> Self {
        Self {
            kind,
            message,
            raw,
            format,
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "Malformed(kind={}, message={}, raw={})",
            quote(&self.kind),
            quote(&self.message),
            quote(&self.raw)
        )
    }
}

fn py_str_eq(py: Python<'_>, a: &Py<PyString>, b: &Py<PyString>) -> PyResult<bool> {
    Ok(a.bind(py).to_str()? == b.bind(py).to_str()?)
}

fn py_str_repr(py: Python<'_>, s: &Py<PyString>) -> PyResult<String> {
    Ok(quote(s.bind(py).to_str()?))
}

#[pymethods]
impl Text {
    #[new]
    fn new(text: Py<PyString>) -> Self {
        Self { text }
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Text({})", py_str_repr(py, &self.text)?))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        match other.cast::<Text>() {
            Ok(o) => py_str_eq(py, &self.text, &o.get().text),
            Err(_) => Ok(false),
        }
    }
}

#[pymethods]
impl Reasoning {
    #[new]
    fn new(text: Py<PyString>) -> Self {
        Self { text }
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Reasoning({})", py_str_repr(py, &self.text)?))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        match other.cast::<Reasoning>() {
            Ok(o) => py_str_eq(py, &self.text, &o.get().text),
            Err(_) => Ok(false),
        }
    }
}

#[pymethods]
impl CallStart {
    #[new]
    fn new(index: usize, id: String, name: String, format: String) -> Self {
        Self {
            index,
            id,
            name,
            format,
        }
    }
    fn __repr__(&self) -> String {
        format!(
            "CallStart(index={}, id={}, name={}, format={})",
            self.index,
            quote(&self.id),
            quote(&self.name),
            quote(&self.format)
        )
    }
}

#[pymethods]
impl ArgsDelta {
    #[new]
    fn new(index: usize, fragment: Py<PyString>) -> Self {
        Self { index, fragment }
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ArgsDelta(index={}, fragment={})",
            self.index,
            py_str_repr(py, &self.fragment)?
        ))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        match other.cast::<ArgsDelta>() {
            Ok(o) => Ok(
                self.index == o.get().index && py_str_eq(py, &self.fragment, &o.get().fragment)?
            ),
            Err(_) => Ok(false),
        }
    }
}

#[pymethods]
impl CallEnd {
    #[new]
    #[pyo3(signature = (index, id, name, arguments, format = "open_ai_chat".to_owned()))]
    #[pyo3(text_signature = "(index, id, name, arguments, format='open_ai_chat')")]
    fn new(index: usize, id: String, name: String, arguments: Py<PyDict>, format: String) -> Self {
        Self {
            index,
            id,
            name,
            arguments,
            format,
        }
    }
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let args = self.arguments.bind(py).repr()?;
        Ok(format!(
            "CallEnd(index={}, id={}, name={}, arguments={args})",
            self.index,
            quote(&self.id),
            quote(&self.name)
        ))
    }
    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<CallEnd>() else {
            return Ok(false);
        };
        let other = other.get();
        Ok(self.index == other.index
            && self.id == other.id
            && self.name == other.name
            && self.format == other.format
            && self.arguments.bind(py).eq(other.arguments.bind(py))?)
    }
}

// ---------------------------------------------------------------------------
// JSON <-> Python

fn to_json(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("value nested too deeply"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(PyValueError::new_err("integer out of JSON's 64-bit range"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| PyValueError::new_err("NaN and infinity are not JSON"));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key = k
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err("JSON object keys must be str"))?
                .to_str()?
                .to_owned();
            map.insert(key, to_json(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l.iter().map(|v| to_json(&v, depth + 1)).collect();
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().map(|v| to_json(&v, depth + 1)).collect();
    }
    // Pydantic models (vLLM's request objects) and other mappings.
    if let Ok(dump) = obj.call_method0("model_dump") {
        return to_json(&dump, depth + 1);
    }
    Err(PyTypeError::new_err(format!(
        "cannot convert {} to JSON",
        obj.get_type().name()?
    )))
}

fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => object_to_py(py, map)?.into_any(),
    })
}

fn object_to_py<'py>(py: Python<'py>, map: &JsonObject) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in map {
        dict.set_item(k, to_py(py, v)?)?;
    }
    Ok(dict)
}

// ---------------------------------------------------------------------------
// Tools

/// One tool of the caller's list, as an MCP `tools/list` entry (`name`,
/// `description`, `inputSchema`). OpenAI Chat entries
/// (`{"type": "function", "function": {...}}`) and flat Responses entries
/// (`{"type": "function", "name", "parameters"}`) are read too.
fn mcp_entry(entry: &Value, i: usize) -> PyResult<JsonObject> {
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

fn tool_entries(tools: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<JsonObject>> {
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

fn catalog(entries: &[JsonObject]) -> ToolCatalog {
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

fn rmcp_tools(entries: Vec<JsonObject>) -> PyResult<Vec<Tool>> {
    entries
        .into_iter()
        .map(|e| {
            serde_json::from_value::<Tool>(Value::Object(e))
                .map_err(|err| PyValueError::new_err(err.to_string()))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Detector

fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The `formats` argument: `"auto"`, one format name, or a list of names.
#[derive(FromPyObject)]
enum Formats {
    One(String),
    Many(Vec<String>),
}

impl Formats {
    fn auto() -> Self {
        Formats::One(String::from("auto"))
    }
}

fn detect_config(
    formats: &Formats,
    start_in_reasoning: bool,
    reasoning_anywhere: bool,
    max_call_bytes: Option<usize>,
) -> PyResult<DetectConfig> {
    let mut config = match formats {
        Formats::One(s) if s == "auto" => DetectConfig::default(),
        Formats::One(s) => DetectConfig::only(s.parse::<WireFormat>().map_err(value_err)?),
        Formats::Many(names) => {
            let mut list = Vec::with_capacity(names.len());
            for n in names {
                if n == "auto" {
                    list.extend_from_slice(toolrouter::DEFAULT_TEXT_FORMATS);
                } else {
                    list.push(n.parse::<WireFormat>().map_err(value_err)?);
                }
            }
            DetectConfig {
                formats: list,
                ..DetectConfig::default()
            }
        }
    };
    if let Some(f) = config
        .formats
        .iter()
        .find(|f| !f.is_text_embedded() && **f != WireFormat::Think)
    {
        return Err(PyValueError::new_err(format!(
            "`{}` is a structured API format, not one a model writes in text",
            f.as_str()
        )));
    }
    config.start_in_reasoning = start_in_reasoning;
    config.reasoning_anywhere = reasoning_anywhere;
    if let Some(max) = max_call_bytes {
        config.max_call_bytes = max;
    }
    Ok(config)
}

fn event_to_py<'py>(py: Python<'py>, event: EventRef<'_>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let text = |s: &str| PyString::new(py, s).unbind();
    Ok(Some(match event {
        EventRef::ArgsDelta { index, fragment } => Bound::new(
            py,
            ArgsDelta {
                index,
                fragment: text(fragment),
            },
        )?
        .into_any(),
        EventRef::Text { text: t } => Bound::new(py, Text { text: text(t) })?.into_any(),
        EventRef::Reasoning { text: t } => Bound::new(py, Reasoning { text: text(t) })?.into_any(),
        EventRef::CallStart {
            index,
            id,
            name,
            format,
        } => Bound::new(
            py,
            CallStart {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
                format: format.as_str().to_owned(),
            },
        )?
        .into_any(),
        EventRef::CallEnd { index, call } => Bound::new(
            py,
            CallEnd {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: object_to_py(py, &call.arguments)?.unbind(),
                format: call.format.as_str().to_owned(),
            },
        )?
        .into_any(),
        EventRef::Malformed { diagnostic } => {
            let kind = match serde_json::to_value(diagnostic.kind) {
                Ok(Value::String(s)) => s,
                _ => String::from("invalid"),
            };
            Bound::new(
                py,
                Malformed {
                    kind,
                    message: diagnostic.message.clone(),
                    raw: diagnostic.raw.clone(),
                    format: diagnostic.format.as_str().to_owned(),
                },
            )?
            .into_any()
        }
        // `EventRef` is non-exhaustive: a future event kind is skipped until
        // this module knows it.
        #[allow(unreachable_patterns)]
        _ => return Ok(None),
    }))
}

/// The batch's events as a list; the batch is left empty.
fn events_to_list<'py>(py: Python<'py>, batch: &mut EventBatch) -> PyResult<Bound<'py, PyList>> {
    let list = match batch.len() {
        0 => PyList::empty(py),
        1 => match batch
            .get(0)
            .map(|e| event_to_py(py, e))
            .transpose()?
            .flatten()
        {
            Some(obj) => PyList::new(py, [obj])?,
            None => PyList::empty(py),
        },
        _ => {
            let list = PyList::empty(py);
            for event in batch.iter() {
                if let Some(obj) = event_to_py(py, event)? {
                    list.append(obj)?;
                }
            }
            list
        }
    };
    batch.clear();
    Ok(list)
}

/// The streaming detector: feed it text deltas, get events back.
#[pyclass(module = "toolrouter")]
struct StreamDetector {
    // A pyclass must be `Sync`; the detector is only `Send`. Every method
    // takes `&mut self`, so the mutex is reached with `get_mut`, never locked.
    detector: Mutex<toolrouter::StreamDetector>,
    events: EventBatch,
    finished: bool,
}

#[pymethods]
impl StreamDetector {
    #[new]
    #[pyo3(signature = (tools = None, formats = Formats::auto(), *, start_in_reasoning = false, reasoning_anywhere = false, max_call_bytes = None))]
    #[pyo3(
        text_signature = "(tools=None, formats='auto', *, start_in_reasoning=False, reasoning_anywhere=False, max_call_bytes=None)"
    )]
    fn new(
        tools: Option<&Bound<'_, PyAny>>,
        formats: Formats,
        start_in_reasoning: bool,
        reasoning_anywhere: bool,
        max_call_bytes: Option<usize>,
    ) -> PyResult<Self> {
        let config = detect_config(
            &formats,
            start_in_reasoning,
            reasoning_anywhere,
            max_call_bytes,
        )?;
        let catalog = Arc::new(catalog(&tool_entries(tools)?));
        Ok(Self {
            detector: Mutex::new(toolrouter::StreamDetector::new(catalog, config)),
            events: EventBatch::new(),
            finished: false,
        })
    }

    /// Feeds the next delta; returns the events it decided.
    fn feed<'py>(&mut self, py: Python<'py>, delta: &str) -> PyResult<Bound<'py, PyList>> {
        if self.finished {
            return Err(PyValueError::new_err("feed after finish"));
        }
        let detector = self
            .detector
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        let events = &mut self.events;
        if delta.len() >= DETACH_BYTES {
            py.detach(|| detector.feed(delta, events));
        } else {
            detector.feed(delta, events);
        }
        events_to_list(py, &mut self.events)
    }

    /// Ends the stream: flushes held text and reports unfinished calls.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if !self.finished {
            self.finished = true;
            let detector = self
                .detector
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner);
            detector.finish(&mut self.events);
        }
        events_to_list(py, &mut self.events)
    }

    /// How many calls have started so far.
    #[getter]
    fn calls_started(&mut self) -> usize {
        let detector = self
            .detector
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        detector.calls_started()
    }
}

/// Detects every call in a whole response: `feed(text)` then `finish()`.
#[pyfunction]
#[pyo3(signature = (text, tools = None, formats = Formats::auto(), *, start_in_reasoning = false, reasoning_anywhere = false, max_call_bytes = None))]
#[pyo3(
    text_signature = "(text, tools=None, formats='auto', *, start_in_reasoning=False, reasoning_anywhere=False, max_call_bytes=None)"
)]
fn parse<'py>(
    py: Python<'py>,
    text: &str,
    tools: Option<&Bound<'py, PyAny>>,
    formats: Formats,
    start_in_reasoning: bool,
    reasoning_anywhere: bool,
    max_call_bytes: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let config = detect_config(
        &formats,
        start_in_reasoning,
        reasoning_anywhere,
        max_call_bytes,
    )?;
    let catalog = Arc::new(catalog(&tool_entries(tools)?));
    let run = move || {
        let mut detector = toolrouter::StreamDetector::new(catalog, config);
        let mut events = EventBatch::new();
        detector.feed(text, &mut events);
        detector.finish(&mut events);
        events
    };
    let mut events = if text.len() >= DETACH_BYTES {
        py.detach(run)
    } else {
        run()
    };
    events_to_list(py, &mut events)
}

/// Returns an empty list: the floor of a call into this module, for the
/// benchmark's comparison of `feed`'s overhead.
#[pyfunction]
fn _noop<'py>(py: Python<'py>, delta: &str) -> Bound<'py, PyList> {
    let _ = delta;
    PyList::empty(py)
}

// ---------------------------------------------------------------------------
// Converters

fn dialect(name: &str) -> PyResult<Dialect> {
    name.parse::<Dialect>().map_err(value_err)
}

/// The tools declared in `dialect`: the request's `tools` value (a string,
/// the system-prompt section, for `xml_text`).
#[pyfunction]
#[pyo3(signature = (tools, dialect_name, *, strict = false))]
fn declare<'py>(
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

fn call_from_py(obj: &Bound<'_, PyAny>) -> PyResult<ToolCall> {
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

fn result_from_py(obj: &Bound<'_, PyAny>) -> PyResult<CallToolResult> {
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
fn result_message<'py>(
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
fn follow_up<'py>(
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
fn formats() -> (Vec<&'static str>, Vec<&'static str>) {
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
fn dialects() -> Vec<&'static str> {
    Dialect::ALL.iter().map(|d| d.as_str()).collect()
}

/// The extension module.
#[pymodule]
fn _toolrouter(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Text>()?;
    m.add_class::<Reasoning>()?;
    m.add_class::<CallStart>()?;
    m.add_class::<ArgsDelta>()?;
    m.add_class::<CallEnd>()?;
    m.add_class::<Malformed>()?;
    m.add_class::<StreamDetector>()?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(_noop, m)?)?;
    m.add_function(wrap_pyfunction!(declare, m)?)?;
    m.add_function(wrap_pyfunction!(result_message, m)?)?;
    m.add_function(wrap_pyfunction!(follow_up, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(dialects, m)?)?;
    Ok(())
}
