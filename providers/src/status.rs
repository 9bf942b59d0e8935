//! `TurnStatus`: what only the provider knows about a turn — its stop, its first
//! error, whether it failed, its token counts.

use crate::delta::{ErrorKind, ProviderDelta, StopReason, Usage};

/// The provider's side of a turn, folded from its deltas: the stop it gave, the
/// first error, whether the provider itself reported an error, the last token counts.
///
/// It knows nothing of calls: whoever assembles the calls counts the completed ones
/// and asks for the normalised [`stop`](Self::stop).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnStatus {
    finish: Option<(StopReason, String)>,
    provider_error: bool,
    error: Option<String>,
    usage: Option<Usage>,
}

impl TurnStatus {
    /// Nothing seen yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes in one delta; only `Finish`, `Usage` and `Error` matter here.
    pub fn push(&mut self, delta: &ProviderDelta) {
        match delta {
            ProviderDelta::Finish { stop, raw } => self.finish = Some((*stop, raw.clone())),
            ProviderDelta::Usage(u) => self.usage = Some(u.clone()),
            ProviderDelta::Error { kind, message } => {
                if *kind == ErrorKind::Provider {
                    self.provider_error = true;
                }
                if self.error.is_none() {
                    self.error = Some(message.clone());
                }
            }
            _ => {}
        }
    }

    /// The normalised stop, given how many client calls completed: `error` after a
    /// provider error or when no finish came; else the provider's stop, where a
    /// natural stop with at least one completed call becomes `tool_use`.
    pub fn stop(&self, n_completed: usize) -> StopReason {
        match &self.finish {
            _ if self.provider_error => StopReason::Error,
            Some((stop, _)) => stop.with_completed_calls(n_completed),
            None => StopReason::Error,
        }
    }

    /// The first error of the stream, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Whether the provider itself reported an error.
    pub fn provider_error(&self) -> bool {
        self.provider_error
    }

    /// The provider's own word for the stop, if it gave one.
    pub fn raw_stop(&self) -> Option<&str> {
        self.finish.as_ref().map(|(_, raw)| raw.as_str())
    }

    /// The last token counts reported.
    pub fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
    }
}
