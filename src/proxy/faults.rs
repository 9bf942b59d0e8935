//! `Faults`: when a client's stream must end with an error event, decided the
//! same way for every front door's writer (`ChunkWriter`, `EventWriter`,
//! `ResponseWriter`): a shown call that broke, a call the stream ended
//! inside, an upstream that said it failed, a frame of the upstream's that
//! had to be dropped (the answer would go on without what it held). Each
//! writer only writes the event in its own shape.

use toolrouter_providers::{ErrorKind, StopReason};

use super::error::UPSTREAM_ERROR;
use crate::core::{Diagnostic, DiagnosticKind};

/// Why the stream fails: its message and the error `code`.
pub(crate) type Failure = (String, &'static str);

/// The error `code` of a turn that failed with a stream error of `kind`.
pub(crate) fn error_code(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Truncated => "upstream_truncated",
        ErrorKind::Provider => UPSTREAM_ERROR,
        ErrorKind::TooLarge => "upstream_frame_too_large",
        _ => "upstream_malformed",
    }
}

/// Whether a stream error of `kind` fails the answer at once, and how: the
/// upstream's own error (nothing more will come), or a frame the adapter
/// dropped (over the frame limit, not UTF-8, not a frame it can read: what it
/// held is lost, so the answer cannot end as a success). A cut stream is
/// `None`: the turn's `Finish` follows at once, and says it.
pub(crate) fn stream_failure(kind: ErrorKind, message: &str) -> Option<Failure> {
    match kind {
        _ if !fails_at_once(kind) => None,
        ErrorKind::Provider => Some((message.to_owned(), UPSTREAM_ERROR)),
        _ => Some((
            format!("the upstream's stream could not be read: {message}"),
            error_code(kind),
        )),
    }
}

/// Whether a stream error of `kind` fails the answer at once
/// ([`stream_failure`]).
pub(crate) fn fails_at_once(kind: ErrorKind) -> bool {
    kind != ErrorKind::Truncated
}

/// What a stream has seen go wrong so far.
#[derive(Debug, Default)]
pub(crate) struct Faults {
    /// The first stream error's kind, for the error event's `code`.
    error_kind: Option<ErrorKind>,
    /// Why a shown call was cut off (the detector's `Unfinished`).
    cut_call: Option<String>,
    /// Text after a cut call is its markup given back: not the client's text.
    hold_text: bool,
}

impl Faults {
    /// Whether text is now held back (it follows a cut call).
    pub(crate) fn holds_text(&self) -> bool {
        self.hold_text
    }

    /// A `Malformed` diagnostic. `open` names the shown call of its dialect
    /// that has not ended, the one that broke; without one it is markup that
    /// is no call, whose text follows as text. A call the stream ended inside
    /// waits for the stop (`length` finishes it); any other break fails now.
    pub(crate) fn malformed(
        &mut self,
        open: Option<&str>,
        diagnostic: &Diagnostic,
    ) -> Option<Failure> {
        let Some(open) = open else {
            tracing::debug!(message = %diagnostic.message, "markup that is no call");
            return None;
        };
        let why = format!(
            "the model's call to `{open}` did not complete: {}",
            diagnostic.message
        );
        if diagnostic.kind == DiagnosticKind::Unfinished {
            self.cut_call = Some(why);
            self.hold_text = true;
            None
        } else {
            Some((why, "incomplete_tool_call"))
        }
    }

    /// An error in the upstream's stream: when the upstream said it failed,
    /// or one of its frames was dropped, the stream fails now
    /// ([`stream_failure`]).
    pub(crate) fn provider_error(&mut self, kind: ErrorKind, message: String) -> Option<Failure> {
        self.error_kind.get_or_insert(kind);
        let failure = stream_failure(kind, &message);
        if failure.is_none() {
            tracing::debug!(?kind, %message, "upstream stream error");
        }
        failure
    }

    /// At the turn's end: a failed turn, or a shown call (`open`) that never
    /// ended unless the token limit cut it.
    pub(crate) fn at_finish(
        &mut self,
        stop: StopReason,
        error: Option<String>,
        open: Option<&str>,
    ) -> Option<Failure> {
        if stop == StopReason::Error {
            let code = self.error_kind.map_or(UPSTREAM_ERROR, error_code);
            let message = error.unwrap_or_else(|| "the upstream's answer failed".to_owned());
            return Some((message, code));
        }
        let open = open.filter(|_| stop != StopReason::MaxTokens)?;
        let why = self
            .cut_call
            .take()
            .unwrap_or_else(|| format!("the model's call to `{open}` did not complete"));
        Some((why, "incomplete_tool_call"))
    }
}
