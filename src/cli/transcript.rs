//! The readable transcript of routed events, shared by `route` and `chat`:
//! text as it streams, one line per call, result, error and stop.

use rmcp::model::{CallToolResult, ContentBlock};
use toolrouter::{DetectEvent, RouteEvent};

/// The readable transcript: text as it streams, one line per call and result.
#[derive(Default)]
pub(crate) struct Transcript {
    mid_line: bool,
}

impl Transcript {
    /// Writes a whole line, ending any text line first.
    pub(crate) fn line(&mut self, out: &mut impl std::io::Write, line: &str) -> Result<(), String> {
        if self.mid_line {
            writeln!(out).map_err(|e| e.to_string())?;
            self.mid_line = false;
        }
        writeln!(out, "{line}").map_err(|e| e.to_string())
    }

    /// Writes one event; `started` is when the turn began.
    pub(crate) fn write(
        &mut self,
        out: &mut impl std::io::Write,
        event: &RouteEvent,
        started: std::time::Instant,
    ) -> Result<(), String> {
        let at = started.elapsed().as_secs_f64() * 1000.0;
        match event {
            RouteEvent::Detect(DetectEvent::Text { text }) => {
                write!(out, "{text}").map_err(|e| e.to_string())?;
                self.mid_line = !text.ends_with('\n');
                Ok(())
            }
            RouteEvent::Detect(DetectEvent::Reasoning { text }) => {
                self.line(out, &format!("[thinking] {text}"))
            }
            RouteEvent::Refusal { text } => self.line(out, &format!("[refusal] {text}")),
            RouteEvent::Detect(DetectEvent::CallEnd { index, call }) => self.line(
                out,
                &format!(
                    "→ call #{index} {} {} [{}, id {}] at {at:.1} ms",
                    call.name,
                    serde_json::Value::Object(call.arguments.clone()),
                    call.format,
                    call.id
                ),
            ),
            RouteEvent::Detect(DetectEvent::Malformed { diagnostic }) => self.line(
                out,
                &format!(
                    "! {} ({:?}): {}",
                    diagnostic.format, diagnostic.kind, diagnostic.message
                ),
            ),
            RouteEvent::ServerCall {
                name, arguments, ..
            } => self.line(out, &format!("· provider ran {name} {arguments}")),
            RouteEvent::ProviderError { kind, message } => {
                self.line(out, &format!("! provider error ({kind:?}): {message}"))
            }
            RouteEvent::Finish { stop, .. } => {
                self.line(out, &format!("■ stop: {} at {at:.1} ms", stop.as_str()))
            }
            RouteEvent::ToolResult {
                index,
                name,
                result,
                elapsed_ms,
                ..
            } => self.line(
                out,
                &format!(
                    "← result #{index} {name}{} ({elapsed_ms} ms): {}",
                    if result.is_error == Some(true) {
                        " [error]"
                    } else {
                        ""
                    },
                    result_text(result)
                ),
            ),
            _ => Ok(()),
        }
    }

    /// Ends a text line left open.
    pub(crate) fn close(&mut self, out: &mut impl std::io::Write) -> Result<(), String> {
        if self.mid_line {
            writeln!(out).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}

fn result_text(result: &CallToolResult) -> String {
    let mut text = String::new();
    for block in &result.content {
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            _ => text.push_str("[non-text content]"),
        }
    }
    const MAX: usize = 400;
    if text.len() > MAX {
        let mut cut = MAX;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text.replace('\n', "\\n")
}
