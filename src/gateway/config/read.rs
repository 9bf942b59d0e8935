//! Reading a configuration file: `GatewayConfig::load`, `from_json_str` and
//! `from_toml_str`, and the checks of what the values mean (one transport per
//! server, URLs, headers, the namespace rule).
//!
//! Both formats are parsed into a JSON value, then read into the shapes of
//! `file.rs` with `serde_path_to_error`, which knows the key of a failing value,
//! so every error names the file, the dotted key and the problem.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::file::{
    Deferred, JsonFile, LimitsTable, NamespaceTable, RestartTable, ServerEntry, ServerTable, Table,
    TomlFile,
};
use super::{GatewayConfig, HttpTransport, StdioTransport, UpstreamConfig, UpstreamTransport};
use crate::gateway::error::ConfigError;
use crate::gateway::naming::PrefixMode;

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
        let reader = Reader::new(path, Format::Json);
        let Table(file): Table<JsonFile> = reader.read("", value)?;
        let Some((key, servers)) = chosen_servers(file.mcp_servers, file.servers) else {
            return Err(reader.invalid("mcpServers", "missing: no MCP servers are configured"));
        };
        let mut config = GatewayConfig::default();
        reader.servers(key, servers, &mut config)?;
        Ok(config)
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
        let reader = Reader::new(path, Format::Toml);
        let Table(mut file): Table<TomlFile> = reader.read("", value)?;
        let mut config = GatewayConfig::default();
        let servers = chosen_servers(
            std::mem::take(&mut file.mcp_servers),
            std::mem::take(&mut file.servers),
        );
        if let Some((key, servers)) = servers {
            reader.servers(key, servers, &mut config)?;
        }
        reader.settings(file, &mut config)?;
        Ok(config)
    }
}

/// `mcpServers` if the file has it, else VS Code's `servers`.
fn chosen_servers(mcp_servers: Deferred, servers: Deferred) -> Option<(&'static str, Value)> {
    match (mcp_servers, servers) {
        (Deferred::Present(value), _) => Some(("mcpServers", value)),
        (Deferred::Absent, Deferred::Present(value)) => Some(("servers", value)),
        (Deferred::Absent, Deferred::Absent) => None,
    }
}

/// Which file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// `mcpServers` JSON, shared with other programs: keys toolrouter does not
    /// know are theirs and are skipped.
    Json,
    /// `toolrouter.toml`: an unknown key is refused.
    Toml,
}

/// Reads the parts of one file, naming it in errors.
struct Reader<'a> {
    path: &'a Path,
    /// The file's directory, which relative paths start from.
    base: PathBuf,
    format: Format,
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, format: Format) -> Self {
        let base = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Self { path, base, format }
    }

    fn invalid(&self, key: impl Into<String>, problem: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            key: key.into(),
            problem: problem.into(),
        }
    }

    /// Reads `value`, found at the dotted key `at` (`""` for the whole file),
    /// as a `T`.
    fn read<T: DeserializeOwned>(&self, at: &str, value: Value) -> Result<T, ConfigError> {
        serde_path_to_error::deserialize(value).map_err(|e| self.read_error(at, &e))
    }

    fn read_error(
        &self,
        at: &str,
        error: &serde_path_to_error::Error<serde_json::Error>,
    ) -> ConfigError {
        let inner = if error.path().iter().next().is_some() {
            error.path().to_string()
        } else {
            String::new()
        };
        let key = match (at.is_empty(), inner.is_empty()) {
            (true, true) => "(top level)".to_owned(),
            (true, false) => inner,
            (false, true) => at.to_owned(),
            (false, false) if inner.starts_with('[') => format!("{at}{inner}"),
            (false, false) => format!("{at}.{inner}"),
        };
        self.invalid(key, problem(&error.inner().to_string()))
    }

    /// Reads the servers under `key` into `config.upstreams`, leaving out
    /// disabled ones.
    fn servers(
        &self,
        key: &str,
        servers: Value,
        config: &mut GatewayConfig,
    ) -> Result<(), ConfigError> {
        let ServerTable(servers) = self.read(key, servers)?;
        let known = match self.format {
            Format::Json => struct_fields::<ServerEntry>(),
            Format::Toml => &[],
        };
        for (name, entry) in servers {
            let key = format!("{key}.{name}");
            if name.trim().is_empty() {
                return Err(self.invalid(key, "a server name must not be empty"));
            }
            if let Some(upstream) = self.server(name, &key, entry, known)? {
                config.upstreams.push(upstream);
            }
        }
        Ok(())
    }

    /// One server's entry; `None` when it is disabled. For JSON, `known` are
    /// the keys kept; the others belong to other programs.
    fn server(
        &self,
        name: String,
        key: &str,
        mut entry: Value,
        known: &[&str],
    ) -> Result<Option<UpstreamConfig>, ConfigError> {
        if let (Format::Json, Value::Object(fields)) = (self.format, &mut entry) {
            fields.retain(|field, _| known.contains(&field.as_str()));
        }
        // A disabled server is left out before its values are checked; only
        // an unknown key in it is refused, as in any other entry.
        let disabled = entry.get("disabled") == Some(&Value::Bool(true));
        // The transport is chosen by which keys are there, even as `null`.
        let (has_command, has_url) = (entry.get("command").is_some(), entry.get("url").is_some());
        let entry: ServerEntry = match serde_path_to_error::deserialize(entry) {
            Ok(Table(entry)) => entry,
            Err(e) if disabled && !is_unknown_key(&e.inner().to_string()) => return Ok(None),
            Err(e) => return Err(self.read_error(key, &e)),
        };
        if entry.disabled.is_some_and(|flag| flag.0) {
            return Ok(None);
        }
        let transport = match (entry.kind.as_deref(), has_command, has_url) {
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
                UpstreamTransport::Stdio(self.stdio(&entry, key)?)
            }
            (Some("http" | "streamable-http" | "streamableHttp") | None, false, true) => {
                UpstreamTransport::Http(self.http(&entry, key)?)
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
        Ok(Some(UpstreamConfig {
            name,
            transport,
            timeout: entry.timeout_secs.map(|s| s.0),
            connect_timeout: entry.connect_timeout_secs.map(|s| s.0),
            ping_interval: entry.ping_interval_secs.map(|s| s.0),
            prefix: entry.prefix,
        }))
    }

    fn stdio(&self, entry: &ServerEntry, key: &str) -> Result<StdioTransport, ConfigError> {
        let command = entry.command.clone().unwrap_or_default();
        if command.trim().is_empty() {
            return Err(self.invalid(format!("{key}.command"), "must not be empty"));
        }
        Ok(StdioTransport {
            command,
            args: entry.args.as_ref().map(|a| a.0.clone()).unwrap_or_default(),
            env: entry.env.as_ref().map(|e| e.0.clone()).unwrap_or_default(),
            cwd: entry.cwd.as_ref().map(|cwd| self.base.join(cwd)),
        })
    }

    fn http(&self, entry: &ServerEntry, key: &str) -> Result<HttpTransport, ConfigError> {
        let url = entry.url.clone().unwrap_or_default();
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
        let headers = entry
            .headers
            .as_ref()
            .map(|h| h.0.clone())
            .unwrap_or_default();
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
        let mut bearer_token = entry.bearer_token.clone();
        if let Some(var) = &entry.bearer_token_env {
            if bearer_token.is_some() {
                return Err(self.invalid(
                    format!("{key}.bearer_token_env"),
                    "set either `bearer_token` or `bearer_token_env`, not both",
                ));
            }
            match std::env::var(var) {
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

    /// The gateway-wide settings of `toolrouter.toml`.
    fn settings(&self, file: TomlFile, config: &mut GatewayConfig) -> Result<(), ConfigError> {
        let settings = &mut config.settings;
        settings.timeout = file.timeout_secs.map(|s| s.0);
        if let Some(t) = file.connect_timeout_secs {
            settings.connect_timeout = t.0;
        }
        if let Some(t) = file.ping_interval_secs {
            settings.ping_interval = t.0;
        }
        if let Some(t) = file.ping_timeout_secs {
            settings.ping_timeout = t.0;
        }
        config.workspace = file.workspace.map(|w| self.base.join(w));
        config.builtins = file
            .builtins
            .map(|names| names.0.into_iter().map(|name| name.0).collect());
        if let Some(Table(NamespaceTable { separator, prefix })) = file.namespace {
            if let Some(sep) = separator {
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
            if let Some(mode) = prefix {
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
        if let Some(Table(LimitsTable {
            max_description_chars,
            max_tools_per_upstream,
        })) = file.limits
        {
            if let Some(n) = max_description_chars {
                settings.max_description_chars = n.0;
            }
            if let Some(n) = max_tools_per_upstream {
                settings.max_tools_per_upstream = n.0;
            }
        }
        if let Some(Table(RestartTable {
            initial_backoff_ms,
            max_backoff_ms,
        })) = file.restart
        {
            if let Some(ms) = initial_backoff_ms {
                settings.restart.initial_backoff = Duration::from_millis(ms.0 as u64);
            }
            if let Some(ms) = max_backoff_ms {
                settings.restart.max_backoff = Duration::from_millis(ms.0 as u64);
            }
        }
        Ok(())
    }
}

/// The problem part of an error: serde's `invalid type: integer `3`, expected a
/// string` becomes `expected a string`, and its `unknown field `x`, expected one
/// of `a`, `b`` becomes `unknown key (expected one of: a, b)`; our own messages
/// stay as they are.
fn problem(message: &str) -> String {
    if let Some(rest) = message.strip_prefix("invalid type: ")
        && let Some(at) = rest.rfind(", expected ")
    {
        return rest[at + 2..].to_owned();
    }
    if is_unknown_key(message) {
        // serde lists the known fields after the unknown one as `a`, `b` or `c`;
        // the unknown one may hold anything, the field names never a backtick.
        let known = message
            .rfind("`, expected ")
            .map(|at| &message[at + 2..])
            .unwrap_or("");
        let names: Vec<&str> = known.split('`').skip(1).step_by(2).collect();
        return format!("unknown key (expected one of: {})", names.join(", "));
    }
    message.to_owned()
}

fn is_unknown_key(message: &str) -> bool {
    message.starts_with("unknown field `")
}

/// The keys of a struct that derives `Deserialize`, as serde's derive lists
/// them (so a JSON entry keeps exactly the keys `ServerEntry` reads).
fn struct_fields<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    // The probe always fails once it has seen the field list.
    let _ = T::deserialize(FieldProbe(&mut fields));
    fields
}

/// A deserializer that only records the field list a struct asks for.
struct FieldProbe<'a>(&'a mut &'static [&'static str]);

impl<'de> serde::Deserializer<'de> for FieldProbe<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("fields recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map
        enum identifier ignored_any
    }
}
