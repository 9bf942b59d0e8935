//! The event classes `feed`, `finish` and `parse` return.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

// Text, Reasoning and ArgsDelta, the events of nearly every delta, hold
// Python strings made straight from the detector's `&str`: one allocation per
// event, and reading the attribute copies nothing.

/// Visible text, released once it can no longer open a call.
#[pyclass(frozen, get_all, module = "toolrouter")]
pub(crate) struct Text {
    pub(crate) text: Py<PyString>,
}

/// Reasoning ("thinking") text, never part of the visible text.
#[pyclass(frozen, get_all, module = "toolrouter")]
pub(crate) struct Reasoning {
    pub(crate) text: Py<PyString>,
}

/// A call has begun and its name is known.
#[pyclass(frozen, get_all, module = "toolrouter", eq)]
#[derive(PartialEq)]
pub(crate) struct CallStart {
    pub(crate) index: usize,
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) format: String,
}

/// More of a call's arguments JSON text.
#[pyclass(frozen, get_all, module = "toolrouter")]
pub(crate) struct ArgsDelta {
    pub(crate) index: usize,
    pub(crate) fragment: Py<PyString>,
}

/// A call is complete; `arguments` is a dict.
#[pyclass(frozen, get_all, module = "toolrouter")]
pub(crate) struct CallEnd {
    pub(crate) index: usize,
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: Py<PyDict>,
    pub(crate) format: String,
}

/// Markup that did not become a call; its raw text was given back as `Text`.
#[pyclass(frozen, get_all, module = "toolrouter", eq)]
#[derive(PartialEq)]
pub(crate) struct Malformed {
    pub(crate) kind: String,
    pub(crate) message: String,
    pub(crate) raw: String,
    pub(crate) format: String,
}

pub(crate) fn quote(s: &str) -> String {
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

pub(crate) fn py_str_eq(py: Python<'_>, a: &Py<PyString>, b: &Py<PyString>) -> PyResult<bool> {
    Ok(a.bind(py).to_str()? == b.bind(py).to_str()?)
}

pub(crate) fn py_str_repr(py: Python<'_>, s: &Py<PyString>) -> PyResult<String> {
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
    #[pyo3(signature = (index, id, name, arguments, format = "openai-chat".to_owned()))]
    #[pyo3(text_signature = "(index, id, name, arguments, format='openai-chat')")]
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
