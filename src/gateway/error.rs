//! Errors of the gateway: reading its configuration (`ConfigError`) and reaching an
//! upstream server (`UpstreamError`).

use std::path::PathBuf;

/// Why a configuration file could not be used. Every variant names the file;
/// `Invalid` also names the key (a dotted path such as `mcpServers.fs.args[1]`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid JSON or TOML.
    #[error("{}: not valid {format}: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// `JSON` or `TOML`.
        format: &'static str,
        /// The parser's message (with line and column).
        message: String,
    },
    /// A key holds a value toolrouter cannot use.
    #[error("{}: `{key}`: {problem}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The key, as a dotted path from the top of the file.
        key: String,
        /// What is wrong with it.
        problem: String,
    },
}

impl ConfigError {
    /// The file the error is about.
    pub fn path(&self) -> &std::path::Path {
        match self {
            ConfigError::Read { path, .. }
            | ConfigError::Syntax { path, .. }
            | ConfigError::Invalid { path, .. } => path,
        }
    }

    /// The offending key, for `Invalid`.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// Why an upstream server could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpstreamError {
    /// The process could not be started or the URL could not be reached.
    #[error("upstream `{server}`: cannot connect: {reason}")]
    Connect {
        /// The upstream's configured name.
        server: String,
        /// What failed.
        reason: String,
    },
    /// The MCP handshake or a request failed.
    #[error("upstream `{server}`: {reason}")]
    Protocol {
        /// The upstream's configured name.
        server: String,
        /// What failed.
        reason: String,
    },
    /// The upstream's `tools/list` is malformed; the upstream is refused until it
    /// is restarted by a new configuration.
    #[error("malformed tools list from upstream `{server}`: {reason}")]
    MalformedToolList {
        /// The upstream's configured name.
        server: String,
        /// Every problem found, `; `-separated.
        reason: String,
    },
}

impl UpstreamError {
    /// Whether retrying cannot help (the upstream answered, but unusably).
    pub fn is_refusal(&self) -> bool {
        matches!(self, UpstreamError::MalformedToolList { .. })
    }
}
