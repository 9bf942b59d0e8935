//! `ChatError`: why a conversation or an endpoint cannot be built.

/// Why a conversation or an endpoint cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChatError {
    /// The wire cannot be spoken by a plain HTTP client.
    #[error("the {wire} wire is not supported for live chat: {reason}")]
    UnsupportedWire {
        /// The wire's name.
        wire: &'static str,
        /// Why, and what to do instead.
        reason: &'static str,
    },
    /// The base URL still has a `{placeholder}` (a profile's per-account part).
    #[error("the base URL `{url}` has a placeholder to fill in; pass the real URL with --base-url")]
    BaseUrlPlaceholder {
        /// The URL.
        url: String,
    },
    /// The base URL is not an `http://` or `https://` URL.
    #[error("the base URL `{url}` is not an http:// or https:// URL")]
    InvalidBaseUrl {
        /// The URL.
        url: String,
    },
    /// The model name cannot go into a URL path.
    #[error("the model name `{model}` cannot go into the request URL")]
    InvalidModel {
        /// The model name.
        model: String,
    },
}
