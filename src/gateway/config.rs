//! Gateway configuration: the `mcpServers` JSON that Claude Desktop, Cursor and VS Code
//! write, and `toolrouter.toml` (the same servers plus toolrouter's own settings).
//!
//! Both formats are read into a JSON value and walked by one reader, so every error
//! names the file, the dotted key and the problem.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use super::error::ConfigError;
use super::naming::{NamingConfig, PrefixMode};

/// Everything a configuration file sets.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct GatewayConfig {
    /// The upstream MCP servers (disabled ones left out), in file order for
    /// JSON and in name order for TOML.
    pub upstreams: Vec<UpstreamConfig>,
    /// Gateway-wide settings.
    pub settings: GatewaySettings,
    /// Which built-in tools are on (`builtins = [...]` in TOML); `None` when the
    /// file does not say, so the caller's default applies.
    pub builtins: Option<Vec<String>>,
    /// The workspace directory built-in tools work in (TOML `workspace`),
    /// resolved against the file's directory.
    pub workspace: Option<PathBuf>,
}

/// Gateway-wide settings (TOML only; a `mcpServers` JSON file gets the defaults).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct GatewaySettings {
    /// Default timeout of a call to an upstream tool (`timeout_secs`).
    pub timeout: Option<Duration>,
    /// How long connecting (spawn, handshake, first `tools/list`) may take.
    pub connect_timeout: Duration,
    /// How upstream tools are named in the registry (`[namespace]`).
    pub naming: NamingConfig,
    /// Longer tool descriptions are cut to this many characters.
    pub max_description_chars: usize,
    /// An upstream advertising more tools than this is refused.
    pub max_tools_per_upstream: usize,
    /// Restart delays after an upstream dies (`[restart]`).
    pub restart: RestartPolicy,
}

impl Default for GatewaySettings {
    fn default() -> Self {
        Self {
            timeout: None,
            connect_timeout: Duration::from_secs(30),
            naming: NamingConfig::default(),
            max_description_chars: 2048,
            max_tools_per_upstream: 1000,
            restart: RestartPolicy::default(),
        }
    }
}

/// Exponential backoff between reconnection attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// The delay before the first retry; doubled on every failed attempt.
    pub initial_backoff: Duration,
    /// The longest delay.
    pub max_backoff: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            initial_backoff: Duration::from_millis(200),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RestartPolicy {
    /// The delay before retry number `attempt` (0-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(31)).unwrap_or(u32::MAX);
        self.initial_backoff
            .checked_mul(factor)
            .unwrap_or(self.max_backoff)
            .min(self.max_backoff)
    }
}

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

impl GatewayConfig {
    /// Reads a configuration file: TOML when the name ends in `.toml`, else
    /// `mcpServers` JSON.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })?;
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
        {
            Self::from_toml_str(&text, path)
        } else {
            Self::from_json_str(&text, path)
        }
    }

    /// Reads `mcpServers` JSON (`{"mcpServers": {name: {...}}}`, or VS Code's
    /// `{"servers": {...}}`). `path` names the file in errors and anchors a
    /// relative `cwd`.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let value: Value = serde_json::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_owned(),
            format: "JSON",
            message: e.to_string(),
        })?;
        Reader::new(path, false).read(value)
    }

    /// Reads `toolrouter.toml`.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<Self, ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError::Syntax {
            path: path.to_owned(),
            format: "TOML",
            message: e.to_string().trim_end().to_owned(),
        })?;
        let value = serde_json::to_value(table).map_err(|e| ConfigError::Syntax {
            path: path.to_owned(),
            format: "TOML",
            message: e.to_string(),
        })?;
        Reader::new(path, true).read(value)
    }
}

/// Walks the parsed file. `strict` (TOML) rejects unknown keys; JSON files are
/// shared with other programs, whose keys are ignored.
struct Reader<'a> {
    path: &'a Path,
    base: PathBuf,
    strict: bool,
}

const TOP_KEYS: &[&str] = &[
    "mcpServers",
    "servers",
    "workspace",
    "builtins",
    "timeout_secs",
    "connect_timeout_secs",
    "namespace",
    "limits",
    "restart",
];
const SERVER_KEYS: &[&str] = &[
    "type",
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "bearer_token",
    "bearer_token_env",
    "timeout_secs",
    "prefix",
    "disabled",
];

impl<'a> Reader<'a> {
    fn new(path: &'a Path, strict: bool) -> Self {
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Self { path, base, strict }
    }

    fn invalid(&self, key: impl Into<String>, problem: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            key: key.into(),
            problem: problem.into(),
        }
    }

    fn read(&self, value: Value) -> Result<GatewayConfig, ConfigError> {
        let Value::Object(top) = value else {
            return Err(self.invalid("(top level)", "expected an object"));
        };
        if self.strict {
            self.reject_unknown(&top, TOP_KEYS, "")?;
        }
        let (servers_key, servers) = match (top.get("mcpServers"), top.get("servers")) {
            (Some(s), _) => ("mcpServers", s),
            (None, Some(s)) => ("servers", s),
            (None, None) if self.strict => ("mcpServers", &Value::Null),
            (None, None) => {
                return Err(self.invalid("mcpServers", "missing: no MCP servers are configured"));
            }
        };
        let mut config = GatewayConfig::default();
        match servers {
            Value::Null => {}
            Value::Object(servers) => {
                for (name, entry) in servers {
                    let key = format!("{servers_key}.{name}");
                    if let Some(upstream) = self.server(name, &key, entry)? {
                        config.upstreams.push(upstream);
                    }
                }
            }
            _ => return Err(self.invalid(servers_key, "expected a table of servers by name")),
        }
        if self.strict {
            self.settings(&top, &mut config)?;
        }
        Ok(config)
    }

    fn reject_unknown(
        &self,
        table: &Map<String, Value>,
        known: &[&str],
        prefix: &str,
    ) -> Result<(), ConfigError> {
        match table.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(self.invalid(
                format!("{prefix}{k}"),
                format!("unknown key (expected one of: {})", known.join(", ")),
            )),
            None => Ok(()),
        }
    }

    fn server(
        &self,
        name: &str,
        key: &str,
        entry: &Value,
    ) -> Result<Option<UpstreamConfig>, ConfigError> {
        if name.trim().is_empty() {
            return Err(self.invalid(key, "a server name must not be empty"));
        }
        let Value::Object(entry) = entry else {
            return Err(self.invalid(key, "expected an object with `command` or `url`"));
        };
        if self.strict {
            self.reject_unknown(entry, SERVER_KEYS, &format!("{key}."))?;
        }
        if self.opt_bool(entry, key, "disabled")? == Some(true) {
            return Ok(None);
        }
        let kind = self.opt_str(entry, key, "type")?;
        let has_url = entry.contains_key("url");
        let has_command = entry.contains_key("command");
        let transport = match (kind.as_deref(), has_command, has_url) {
            (Some("sse"), _, _) => {
                return Err(self.invalid(
                    format!("{key}.type"),
                    "the legacy SSE transport is not supported; use the server's Streamable HTTP endpoint (`\"type\": \"http\"`)",
                ));
            }
            (_, true, true) => {
                return Err(self.invalid(
                    key,
                    "set either `command` (stdio) or `url` (HTTP), not both",
                ));
            }
            (Some("stdio") | None, true, false) => {
                UpstreamTransport::Stdio(self.stdio(entry, key)?)
            }
            (Some("http" | "streamable-http" | "streamableHttp") | None, false, true) => {
                UpstreamTransport::Http(self.http(entry, key)?)
            }
            (Some("stdio"), false, _) => {
                return Err(self.invalid(
                    format!("{key}.command"),
                    "missing: a stdio server needs `command`",
                ));
            }
            (Some("http" | "streamable-http" | "streamableHttp"), _, false) => {
                return Err(
                    self.invalid(format!("{key}.url"), "missing: an HTTP server needs `url`")
                );
            }
            (Some(other), _, _) => {
                return Err(self.invalid(
                    format!("{key}.type"),
                    format!("unknown transport `{other}` (expected `stdio` or `http`)"),
                ));
            }
            (None, false, false) => {
                return Err(self.invalid(key, "missing `command` (stdio) or `url` (HTTP)"));
            }
        };
        let timeout = self.opt_secs(entry, key, "timeout_secs")?;
        let prefix = self.opt_str(entry, key, "prefix")?;
        Ok(Some(UpstreamConfig {
            name: name.to_owned(),
            transport,
            timeout,
            prefix,
        }))
    }

    fn stdio(&self, entry: &Map<String, Value>, key: &str) -> Result<StdioTransport, ConfigError> {
        let command = self.opt_str(entry, key, "command")?.unwrap_or_default();
        if command.trim().is_empty() {
            return Err(self.invalid(format!("{key}.command"), "must not be empty"));
        }
        let args = match entry.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(self.invalid(format!("{key}.args[{i}]"), "expected a string")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(self.invalid(format!("{key}.args"), "expected an array of strings"));
            }
        };
        let env = self.string_map(entry, key, "env")?;
        let cwd = self
            .opt_str(entry, key, "cwd")?
            .map(|cwd| self.base.join(cwd));
        Ok(StdioTransport {
            command,
            args,
            env,
            cwd,
        })
    }

    fn http(&self, entry: &Map<String, Value>, key: &str) -> Result<HttpTransport, ConfigError> {
        let url = self.opt_str(entry, key, "url")?.unwrap_or_default();
        match reqwest::Url::parse(&url) {
            Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => {}
            Ok(parsed) => {
                return Err(self.invalid(
                    format!("{key}.url"),
                    format!("scheme `{}` is not http or https", parsed.scheme()),
                ));
            }
            Err(e) => return Err(self.invalid(format!("{key}.url"), format!("not a URL: {e}"))),
        }
        let headers = self.string_map(entry, key, "headers")?;
        for (name, value) in &headers {
            if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(
                    self.invalid(format!("{key}.headers.{name}"), "not a valid header name")
                );
            }
            if http::HeaderValue::from_str(value).is_err() {
                return Err(
                    self.invalid(format!("{key}.headers.{name}"), "not a valid header value")
                );
            }
        }
        for reserved in ["accept", "mcp-session-id", "last-event-id"] {
            if let Some(name) = headers.keys().find(|n| n.eq_ignore_ascii_case(reserved)) {
                return Err(self.invalid(
                    format!("{key}.headers.{name}"),
                    "set by the MCP transport itself",
                ));
            }
        }
        let mut bearer_token = self.opt_str(entry, key, "bearer_token")?;
        if let Some(var) = self.opt_str(entry, key, "bearer_token_env")? {
            if bearer_token.is_some() {
                return Err(self.invalid(
                    format!("{key}.bearer_token_env"),
                    "set either `bearer_token` or `bearer_token_env`, not both",
                ));
            }
            match std::env::var(&var) {
                Ok(token) => bearer_token = Some(token),
                Err(_) => {
                    return Err(self.invalid(
                        format!("{key}.bearer_token_env"),
                        format!("environment variable `{var}` is not set"),
                    ));
                }
            }
        }
        if bearer_token.is_some()
            && let Some(name) = headers
                .keys()
                .find(|n| n.eq_ignore_ascii_case("authorization"))
        {
            return Err(self.invalid(
                format!("{key}.headers.{name}"),
                "set either an `Authorization` header or a bearer token, not both",
            ));
        }
        Ok(HttpTransport {
            url,
            headers,
            bearer_token,
        })
    }

    fn settings(
        &self,
        top: &Map<String, Value>,
        config: &mut GatewayConfig,
    ) -> Result<(), ConfigError> {
        let settings = &mut config.settings;
        settings.timeout = self.opt_secs(top, "", "timeout_secs")?;
        if let Some(t) = self.opt_secs(top, "", "connect_timeout_secs")? {
            settings.connect_timeout = t;
        }
        config.workspace = self
            .opt_str(top, "", "workspace")?
            .map(|w| self.base.join(w));
        config.builtins = match top.get("builtins") {
            None => None,
            Some(Value::Array(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Value::String(s) => Ok(s.clone()),
                        _ => Err(self.invalid(format!("builtins[{i}]"), "expected a tool name")),
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Some(_) => return Err(self.invalid("builtins", "expected an array of tool names")),
        };
        if let Some(ns) = self.opt_table(top, "namespace")? {
            self.reject_unknown(ns, &["separator", "prefix"], "namespace.")?;
            if let Some(sep) = self.opt_str(ns, "namespace", "separator")? {
                if !sep
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
                {
                    return Err(self.invalid(
                        "namespace.separator",
                        "may only contain ASCII letters, digits, `_` and `-` (the tool-name rule)",
                    ));
                }
                settings.naming.separator = sep;
            }
            if let Some(mode) = self.opt_str(ns, "namespace", "prefix")? {
                settings.naming.prefix = match mode.as_str() {
                    "server" => PrefixMode::ServerName,
                    "none" => PrefixMode::None,
                    _ => {
                        return Err(self.invalid(
                            "namespace.prefix",
                            format!("unknown mode `{mode}` (expected `server` or `none`)"),
                        ));
                    }
                };
            }
        }
        if let Some(limits) = self.opt_table(top, "limits")? {
            self.reject_unknown(
                limits,
                &["max_description_chars", "max_tools_per_upstream"],
                "limits.",
            )?;
            if let Some(n) = self.opt_count(limits, "limits", "max_description_chars")? {
                settings.max_description_chars = n;
            }
            if let Some(n) = self.opt_count(limits, "limits", "max_tools_per_upstream")? {
                settings.max_tools_per_upstream = n;
            }
        }
        if let Some(restart) = self.opt_table(top, "restart")? {
            self.reject_unknown(
                restart,
                &["initial_backoff_ms", "max_backoff_ms"],
                "restart.",
            )?;
            if let Some(ms) = self.opt_count(restart, "restart", "initial_backoff_ms")? {
                settings.restart.initial_backoff = Duration::from_millis(ms as u64);
            }
            if let Some(ms) = self.opt_count(restart, "restart", "max_backoff_ms")? {
                settings.restart.max_backoff = Duration::from_millis(ms as u64);
            }
        }
        Ok(())
    }

    fn full_key(parent: &str, field: &str) -> String {
        if parent.is_empty() {
            field.to_owned()
        } else {
            format!("{parent}.{field}")
        }
    }

    fn opt_str(
        &self,
        table: &Map<String, Value>,
        parent: &str,
        field: &str,
    ) -> Result<Option<String>, ConfigError> {
        match table.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(self.invalid(Self::full_key(parent, field), "expected a string")),
        }
    }

    fn opt_bool(
        &self,
        table: &Map<String, Value>,
        parent: &str,
        field: &str,
    ) -> Result<Option<bool>, ConfigError> {
        match table.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.invalid(Self::full_key(parent, field), "expected true or false")),
        }
    }

    fn opt_secs(
        &self,
        table: &Map<String, Value>,
        parent: &str,
        field: &str,
    ) -> Result<Option<Duration>, ConfigError> {
        match table.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(secs) if secs > 0.0 && secs <= 86_400.0 => {
                    Ok(Some(Duration::from_secs_f64(secs)))
                }
                _ => Err(self.invalid(
                    Self::full_key(parent, field),
                    "expected a number of seconds above 0 and at most 86400",
                )),
            },
            Some(_) => Err(self.invalid(
                Self::full_key(parent, field),
                "expected a number of seconds",
            )),
        }
    }

    fn opt_count(
        &self,
        table: &Map<String, Value>,
        parent: &str,
        field: &str,
    ) -> Result<Option<usize>, ConfigError> {
        match table.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => match n.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n > 0 => Ok(Some(n)),
                _ => Err(self.invalid(
                    Self::full_key(parent, field),
                    "expected a positive whole number",
                )),
            },
            Some(_) => Err(self.invalid(
                Self::full_key(parent, field),
                "expected a positive whole number",
            )),
        }
    }

    fn opt_table<'v>(
        &self,
        table: &'v Map<String, Value>,
        field: &str,
    ) -> Result<Option<&'v Map<String, Value>>, ConfigError> {
        match table.get(field) {
            None => Ok(None),
            Some(Value::Object(t)) => Ok(Some(t)),
            Some(_) => Err(self.invalid(field, "expected a table")),
        }
    }

    fn string_map(
        &self,
        table: &Map<String, Value>,
        parent: &str,
        field: &str,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
        match table.get(field) {
            None | Some(Value::Null) => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(self.invalid(format!("{parent}.{field}.{k}"), "expected a string")),
                })
                .collect(),
            Some(_) => Err(self.invalid(
                Self::full_key(parent, field),
                "expected an object of strings",
            )),
        }
    }
}
