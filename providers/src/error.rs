//! Errors of this crate: the few failures an adapter cannot turn into an error delta.

/// A failure that stops an adapter for good.
///
/// Bad frames, provider errors and cut streams are not errors of this kind: they come
/// out as [`ProviderDelta::Error`](crate::ProviderDelta::Error) and the adapter goes on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdapterError {
    /// A binary event-stream prelude failed its checksum or gave impossible lengths:
    /// frame boundaries cannot be found again.
    #[error("event stream lost frame sync: {reason}")]
    LostSync {
        /// What was wrong with the prelude.
        reason: String,
    },
}

/// A profile name or wire name that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown provider or wire name `{name}`")]
pub struct UnknownName {
    /// The name that was looked up.
    pub name: String,
}
