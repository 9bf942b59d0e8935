//! `StreamEnd`: whether a provider said its turn was over, whether its wire's
//! end marker came, and the truncation error every adapter reports the same
//! way when the provider said neither.

use crate::delta::{ErrorKind, ProviderDelta};

/// How a provider stream ended, as far as the adapter has seen: a finish (the
/// provider's stop) or a provider error. Neither by the end of the bytes means
/// the stream was cut.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct StreamEnd {
    /// The provider gave its stop (a `Finish` went out).
    pub(crate) finished: bool,
    /// The provider reported an error.
    pub(crate) errored: bool,
    /// The wire's end marker was read (`data: [DONE]`, `message_stop`,
    /// `response.completed`, …): the answer is over, and whatever follows it
    /// is not read.
    pub(crate) done: bool,
}

impl StreamEnd {
    /// At the end of the bytes: a `Truncated` error saying `message`, unless the
    /// provider finished or failed.
    pub(crate) fn report_cut(&self, message: &str, out: &mut Vec<ProviderDelta>) {
        if !self.finished && !self.errored {
            out.push(ProviderDelta::Error {
                kind: ErrorKind::Truncated,
                message: message.to_owned(),
            });
        }
    }
}
