//! `ServerOptions`: how the MCP server presents itself (name, version,
//! instructions), how it pages `tools/list`, and the keys that sign
//! multi-round request state.

use super::list_gate::ListGate;
use super::state_keys::StateKeys;

/// How the server presents itself.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// Optional `instructions` for the client's model.
    pub instructions: Option<String>,
    /// At most this many tools per `tools/list` page.
    pub page_size: usize,
    /// `tools/list` answers wait at this gate until it opens (upstream
    /// servers still connecting); everything else is served at once.
    pub list_gate: Option<ListGate>,
    /// The keys that sign multi-round `requestState`; `None` makes a random
    /// key per server, which only that process can verify.
    pub state_keys: Option<StateKeys>,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            name: "toolrouter".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            instructions: None,
            page_size: 100,
            list_gate: None,
            state_keys: None,
        }
    }
}

impl ServerOptions {
    /// Sets the server's name and version.
    pub fn with_identity(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = name.into();
        self.version = version.into();
        self
    }

    /// Sets the `instructions`.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Makes `tools/list` answers wait until `gate` opens.
    pub fn with_list_gate(mut self, gate: ListGate) -> Self {
        self.list_gate = Some(gate);
        self
    }

    /// Signs `requestState` with `keys` instead of a random per-process key,
    /// so that processes sharing them accept each other's states.
    pub fn with_state_keys(mut self, keys: StateKeys) -> Self {
        self.state_keys = Some(keys);
        self
    }

    /// Sets the `tools/list` page size (at least 1).
    pub fn with_page_size(mut self, page_size: usize) -> Self {
        self.page_size = page_size.max(1);
        self
    }
}
