//! `toolrouter._toolrouter`: the extension module behind the `toolrouter`
//! Python package. It is thin on purpose: the detector and the converters of
//! the `toolrouter` crate do the work; this file only moves values between
//! Python objects and the crate's types (docs/python.md): `events` (the event
//! classes), `detector` (`StreamDetector`, `parse`), `convert` (the
//! converters), `tools` (the tool lists callers give) and `json` (values
//! between Python and JSON).
//!
//! Nothing here panics on input: every conversion returns a Python exception.

use pyo3::prelude::*;

mod convert;
mod detector;
mod events;
mod json;
mod tools;

use convert::{declare, dialects, follow_up, formats, result_message};
use detector::{_noop, StreamDetector, parse};
use events::{ArgsDelta, CallEnd, CallStart, Malformed, Reasoning, Text};

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
