//! What a lossy conversion reports: notes about dropped or rewritten schema parts.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

/// What happened to one part of a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NoteKind {
    /// A keyword the target does not accept was removed.
    Dropped,
    /// A construct was rewritten into an equivalent or wider one the target accepts.
    Rewritten,
    /// OpenAI strict mode cannot express the schema: the tool is declared
    /// without `strict` and with its original schema.
    StrictFallback,
}

/// One change a converter made to a tool's schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConversionNote {
    /// The tool.
    pub tool: String,
    /// JSON pointer inside the tool's `inputSchema` (`""` for the root).
    pub path: String,
    /// What happened.
    pub kind: NoteKind,
    /// A human-readable explanation.
    pub detail: String,
}

impl fmt::Display for ConversionNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.kind {
            NoteKind::Dropped => "dropped",
            NoteKind::Rewritten => "rewritten",
            NoteKind::StrictFallback => "strict fallback",
        };
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{} {path}: {kind}: {}", self.tool, self.detail)
    }
}

/// Tool declarations in one dialect, with the notes of what was lost on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Declarations {
    /// The JSON the provider expects (for most dialects the `tools` array).
    pub value: Value,
    /// What was dropped or rewritten; empty when the conversion was exact.
    pub notes: Vec<ConversionNote>,
}

/// Collects notes for one tool while a schema is walked.
#[derive(Debug)]
pub(crate) struct NoteSink<'a> {
    tool: &'a str,
    notes: Vec<ConversionNote>,
}

impl<'a> NoteSink<'a> {
    pub(crate) fn new(tool: &'a str) -> Self {
        Self {
            tool,
            notes: Vec::new(),
        }
    }

    pub(crate) fn push(&mut self, path: &str, kind: NoteKind, detail: impl Into<String>) {
        self.notes.push(ConversionNote {
            tool: self.tool.to_owned(),
            path: path.to_owned(),
            kind,
            detail: detail.into(),
        });
    }

    pub(crate) fn into_notes(self) -> Vec<ConversionNote> {
        self.notes
    }
}

/// Appends one segment to a JSON pointer, escaping `~` and `/`.
pub(crate) fn child_path(path: &str, segment: &str) -> String {
    let escaped = segment.replace('~', "~0").replace('/', "~1");
    format!("{path}/{escaped}")
}
