//! Meituan LongCat-Flash: Hermes with its own tags,
//! `<longcat_tool_call>\n{"name": "NAME", "arguments": {...}}\n</longcat_tool_call>`.
//! Several blocks in a row are parallel calls; the end tag inside a JSON string
//! does not end the call.

use crate::core::WireFormat;

use super::super::format::{Probe, ProbeContext, TextFormat};
use super::super::json_list::{Body, ListSpec, probe_list};

const OPEN: &str = "<longcat_tool_call>";

static SPEC: ListSpec = ListSpec::name_arguments(
    WireFormat::LongCat,
    Body::Objects { separator: None },
    Some("</longcat_tool_call>"),
);

/// The LongCat dialect.
pub(crate) struct LongCat;

impl TextFormat for LongCat {
    fn start_bytes(&self) -> &'static [u8] {
        b"<"
    }

    fn probe(&self, input: &str, cx: &ProbeContext<'_>) -> Probe {
        probe_list(input, OPEN, true, &SPEC, cx)
    }
}
