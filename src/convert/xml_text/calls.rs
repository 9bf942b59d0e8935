//! Calls and results in the XML tag format: the assistant's calls written
//! back as text, and each result as a `<tool_result>` element.
//!
//! Every piece of data (a name, a parameter name, a value, a result) is
//! written with `&`, `<` and `>` as `&amp;`, `&lt;` and `&gt;`
//! ([`escape_into`]), so that none can open or close a tag; the detector reads
//! the values back with `DetectConfig::xml_entities`. A name that is not a tag
//! name stays inert text: it cannot be read as a tag.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::super::content::{is_error, plain_text};
use crate::core::{JsonObject, ToolCall};

/// Appends `text` with `&`, `<` and `>` written as `&amp;`, `&lt;` and
/// `&gt;`: unambiguous (an `&` in the text is always written `&amp;`), and
/// read back by decoding XML's predefined entities.
pub(crate) fn escape_into(text: &str, out: &mut String) {
    let mut rest = text;
    while let Some(at) = rest.find(['&', '<', '>']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            _ => "&gt;",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// The result of one call as the text of the next user message:
/// `<tool_result name="NAME">` + the result as text + `</tool_result>`, with
/// `error="true"` on errors. The text is escaped ([`escape_into`]), so that
/// nothing in it can close the element or open another.
pub(crate) fn result_text(call: &ToolCall, result: &CallToolResult) -> String {
    let text = plain_text(result);
    let name = quick_xml::escape::escape(call.name.as_str());
    let error = if is_error(result) {
        " error=\"true\""
    } else {
        ""
    };
    let mut out = String::with_capacity(text.len() + name.len() + 48);
    out.push_str("<tool_result name=\"");
    out.push_str(&name);
    out.push('"');
    out.push_str(error);
    out.push_str(">\n");
    escape_into(&text, &mut out);
    out.push_str("\n</tool_result>");
    out
}

/// The assistant's turn as text: the text before the calls, then each call in
/// the XML tag format ([`write_call`]).
pub(crate) fn assistant_text(text: &str, calls: &[ToolCall]) -> String {
    let mut out = String::from(text);
    for call in calls {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        write_call(&call.name, &call.arguments, &mut out);
    }
    out
}

/// One call in the XML tag format: `<NAME>`, one `<KEY>VALUE</KEY>` line per
/// argument, `</NAME>`. A string value is its text, any other value its JSON
/// text, both escaped; a string that starts or ends with a newline is written
/// between two more, which the detector strips.
pub(super) fn write_call(name: &str, arguments: &JsonObject, out: &mut String) {
    out.push('<');
    escape_into(name, out);
    out.push_str(">\n");
    for (key, value) in arguments {
        out.push('<');
        escape_into(key, out);
        out.push('>');
        match value {
            Value::String(s) if s.starts_with('\n') || s.ends_with('\n') => {
                out.push('\n');
                escape_into(s, out);
                out.push('\n');
            }
            Value::String(s) => escape_into(s, out),
            other => escape_into(&other.to_string(), out),
        }
        out.push_str("</");
        escape_into(key, out);
        out.push_str(">\n");
    }
    out.push_str("</");
    escape_into(name, out);
    out.push('>');
}
