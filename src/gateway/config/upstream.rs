//! `UpstreamConfig`: one upstream server and how it is reached (a child process
//! over stdio, `StdioTransport`, or a Streamable HTTP endpoint, `HttpTransport`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::gateway::naming::{NamingConfig, PrefixMode};

/// One upstream server.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UpstreamConfig {
    /// The key under `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: UpstreamTransport,
    /// Timeout of its calls, overriding the gateway default (`timeout_secs`).
    pub timeout: Option<Duration>,
    /// How long connecting may take, overriding the gateway default
    /// (`connect_timeout_secs`).
    pub connect_timeout: Option<Duration>,
    /// How often the connection is checked with a ping, overriding the
    /// gateway default (`ping_interval_secs`).
    pub ping_interval: Option<Duration>,
    /// The prefix of its tools' names, overriding the naming mode
    /// (`prefix`; `""` means no prefix).
    pub prefix: Option<String>,
}

impl UpstreamConfig {
    /// An upstream reached by `transport`, with default settings.
    pub fn new(name: impl Into<String>, transport: UpstreamTransport) -> Self {
        Self {
            name: name.into(),
            transport,
            timeout: None,
            connect_timeout: None,
            ping_interval: None,
            prefix: None,
        }
    }

    /// Sets the name prefix of its tools (`""` for none).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Sets the timeout of its calls.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets how long connecting may take.
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = Some(timeout);
        self
    }

    /// Sets how often the connection is checked with a ping.
    pub fn with_ping_interval(mut self, interval: Duration) -> Self {
        self.ping_interval = Some(interval);
        self
    }

    /// The prefix its tools get under `naming`.
    pub fn effective_prefix(&self, naming: &NamingConfig) -> Option<String> {
        match (&self.prefix, naming.prefix) {
            (Some(p), _) if p.is_empty() => None,
            (Some(p), _) => Some(p.clone()),
            (None, PrefixMode::ServerName) => Some(self.name.clone()),
            (None, PrefixMode::None) => None,
        }
    }
}

/// How an upstream is reached.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UpstreamTransport {
    /// A child process speaking MCP over stdin/stdout.
    Stdio(StdioTransport),
    /// A Streamable HTTP endpoint.
    Http(HttpTransport),
}

/// A child process speaking MCP over stdio.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct StdioTransport {
    /// The program (looked up on `PATH` unless it contains a `/`).
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables added to the inherited environment.
    pub env: BTreeMap<String, String>,
    /// Its working directory (the gateway's when `None`).
    pub cwd: Option<PathBuf>,
}

impl StdioTransport {
    /// Runs `command` with `args`.
    pub fn new(
        command: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// Adds an environment variable.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Sets the working directory.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
}

/// A Streamable HTTP endpoint. `Debug` hides header values and the token.
#[derive(Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct HttpTransport {
    /// The endpoint URL.
    pub url: String,
    /// Headers sent with every request.
    pub headers: BTreeMap<String, String>,
    /// A bearer token, sent as `Authorization: Bearer …`.
    pub bearer_token: Option<String>,
}

impl HttpTransport {
    /// The endpoint at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: BTreeMap::new(),
            bearer_token: None,
        }
    }

    /// Adds a header.
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Sets the bearer token.
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        self.bearer_token = Some(token.into());
        self
    }
}

impl fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<&String> = self.headers.keys().collect();
        f.debug_struct("HttpTransport")
            .field("url", &self.url)
            .field("headers", &header_names)
            .field(
                "bearer_token",
                &self.bearer_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}
