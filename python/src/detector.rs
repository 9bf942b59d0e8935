//! `StreamDetector` and `parse`.

use std::sync::{Arc, Mutex, PoisonError};

use pyo3::PyTraverseError;
use pyo3::exceptions::PyValueError;
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};
use serde_json::Value;

use toolrouter::{DetectConfig, EventBatch, EventRef, WireFormat};

use crate::events::{ArgsDelta, CallEnd, CallStart, Malformed, Reasoning, Text};
use crate::json::object_to_py;
use crate::tools::{catalog, tool_entries};

/// Deltas (and whole texts) at least this long are processed with the GIL
/// released; below it, releasing and taking it back costs more than it frees.
const DETACH_BYTES: usize = 16 * 1024;

pub(crate) fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The `formats` argument: `"auto"`, one format name, or a list of names.
#[derive(FromPyObject)]
pub(crate) enum Formats {
    One(String),
    Many(Vec<String>),
}

impl Formats {
    fn auto() -> Self {
        Formats::One(String::from("auto"))
    }
}

pub(crate) fn detect_config(
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

pub(crate) fn event_to_py<'py>(
    py: Python<'py>,
    event: EventRef<'_>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
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
pub(crate) fn events_to_list<'py>(
    py: Python<'py>,
    batch: &mut EventBatch,
) -> PyResult<Bound<'py, PyList>> {
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

/// `feed`'s list of one event: the list it returned last, refilled, when the
/// detector holds the only reference to it (so no one can see the change) and
/// it still has one item; otherwise a new list, kept as the spare. Most deltas decide one event, and
/// most callers let go of the list (if not of its last event) before the next
/// `feed`: this saves allocating and freeing a list and its item array per
/// delta. The events themselves stay new, `frozen` objects.
fn one_event_list<'py>(
    py: Python<'py>,
    spare: &mut Option<Py<PyList>>,
    event: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    if let Some(list) = spare {
        let list = list.bind(py);
        // The reference count is exact: the module does not declare itself
        // free-threading safe, so it always runs under the GIL.
        #[allow(deprecated)]
        let free = list.get_refcnt() == 1;
        if free && list.len() == 1 {
            list.set_item(0, event)?;
            return Ok(list.clone());
        }
    }
    let list = PyList::new(py, [event])?;
    *spare = Some(list.clone().unbind());
    Ok(list)
}

/// The streaming detector: feed it text deltas, get events back.
#[pyclass(module = "toolrouter")]
pub(crate) struct StreamDetector {
    // A pyclass must be `Sync`; the detector is only `Send`. Every method
    // takes `&mut self`, so the mutex is reached with `get_mut`, never locked.
    pub(crate) detector: Mutex<toolrouter::StreamDetector>,
    pub(crate) events: EventBatch,
    pub(crate) finished: bool,
    spare: Option<Py<PyList>>,
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
            spare: None,
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
        let one = match (self.events.len(), self.events.get(0)) {
            (1, Some(event)) => match event_to_py(py, event)? {
                Some(obj) => Some(one_event_list(py, &mut self.spare, obj)?),
                None => None,
            },
            _ => None,
        };
        match one {
            Some(list) => {
                self.events.clear();
                Ok(list)
            }
            None => events_to_list(py, &mut self.events),
        }
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

    // The spare list is the only reference the detector holds; a caller can
    // append the detector to it, so the collector must see it.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.spare)
    }

    fn __clear__(&mut self) {
        self.spare = None;
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
pub(crate) fn parse<'py>(
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
pub(crate) fn _noop<'py>(py: Python<'py>, delta: &str) -> Bound<'py, PyList> {
    let _ = delta;
    PyList::empty(py)
}
