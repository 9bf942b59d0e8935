//! How upstream tools are named in the registry: `server__tool` by default, always
//! within the portable 64-character name rule.
//!
//! Characters outside the rule become `_`; a name that would be too long keeps
//! its head and ends in `_` plus 8 hex digits of a stable hash of the server and
//! the tool's real name, so the same upstream tool always gets the same name.

use crate::registry::MAX_TOOL_NAME_LEN;

/// Whether upstream tools get a prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PrefixMode {
    /// `server<sep>tool`, with the server's configured name (the default).
    #[default]
    ServerName,
    /// The tool's own name; collisions between servers are then likelier.
    None,
}

/// The naming rule of upstream tools.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct NamingConfig {
    /// Between prefix and tool name; `__` by default.
    pub separator: String,
    /// Whether tools get a prefix.
    pub prefix: PrefixMode,
}

impl Default for NamingConfig {
    fn default() -> Self {
        Self {
            separator: "__".to_owned(),
            prefix: PrefixMode::ServerName,
        }
    }
}

impl NamingConfig {
    /// Sets the separator.
    pub fn with_separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }

    /// Sets the prefix mode.
    pub fn with_prefix(mut self, prefix: PrefixMode) -> Self {
        self.prefix = prefix;
        self
    }
}

/// Length of the hash suffix: `_` and 8 hex digits.
const HASH_SUFFIX_LEN: usize = 9;

/// The registry name of upstream tool `tool`, given the upstream's effective
/// prefix (`None` for none) and the separator. The result always passes
/// `validate_tool_name` unless `tool` and `prefix` are both empty.
pub fn public_tool_name(prefix: Option<&str>, separator: &str, tool: &str) -> String {
    let mut name = String::with_capacity(prefix.map_or(0, str::len) + separator.len() + tool.len());
    if let Some(prefix) = prefix {
        push_sanitized(&mut name, prefix);
        push_sanitized(&mut name, separator);
    }
    push_sanitized(&mut name, tool);
    if name.len() <= MAX_TOOL_NAME_LEN {
        return name;
    }
    // Every byte is ASCII after sanitising, so any cut is a char boundary.
    name.truncate(MAX_TOOL_NAME_LEN - HASH_SUFFIX_LEN);
    let hash = fnv1a64(prefix.unwrap_or("").as_bytes(), tool.as_bytes());
    name.push('_');
    name.push_str(&format!("{:08x}", (hash >> 32) as u32 ^ hash as u32));
    name
}

fn push_sanitized(out: &mut String, text: &str) {
    out.extend(text.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '_'
        }
    }));
}

/// FNV-1a over `a`, a 0 byte, then `b`: stable across builds and platforms,
/// unlike `std`'s hasher.
fn fnv1a64(a: &[u8], b: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for &byte in a.iter().chain(std::iter::once(&0u8)).chain(b) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(PRIME);
    }
    hash
}
