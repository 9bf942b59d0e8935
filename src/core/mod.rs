//! Plain data shared by every layer: calls, formats, detector events, the tool
//! catalog, and the error of a name that names none of them.
//!
//! Nothing here does I/O or knows about MCP transports; parsers and converters
//! depend on these types and on nothing else of the crate.

mod call;
mod catalog;
mod echo;
mod event;
mod format;
mod redact;
mod suggest;
mod unknown_name;
mod xml_name;

pub use call::{JsonObject, ToolCall, new_call_id};
pub use catalog::{ParamType, ToolCatalog, ToolShape};
pub(crate) use echo::{echo, echo_display, write_byte_count};
pub use event::{DetectEvent, Diagnostic, DiagnosticKind};
pub use format::WireFormat;
pub(crate) use format::for_each_format;
pub(crate) use redact::{without_userinfo, without_userinfo_in};
pub(crate) use suggest::{MAX_COMPARED_LEN, closest_names};
pub use unknown_name::UnknownNameError;
pub(crate) use xml_name::{MAX_XML_NAME, is_xml_name_byte, is_xml_tag_name};
