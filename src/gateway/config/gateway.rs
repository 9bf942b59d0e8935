//! `GatewayConfig`: everything a configuration file sets, and the gateway-wide
//! settings (`GatewaySettings`, `RestartPolicy`) with their defaults.

use std::path::PathBuf;
use std::time::Duration;

use super::UpstreamConfig;
use crate::gateway::naming::NamingConfig;

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
    /// How often a connected upstream is checked with a ping
    /// (`ping_interval_secs`); one that does not answer within
    /// `ping_timeout` is restarted.
    pub ping_interval: Duration,
    /// How long a ping may take (`ping_timeout_secs`). A ping is also sent
    /// at once when a call fails at the transport or its caller stops
    /// waiting (a call timeout).
    pub ping_timeout: Duration,
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
            ping_interval: Duration::from_secs(30),
            ping_timeout: Duration::from_secs(5),
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
