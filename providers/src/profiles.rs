//! Provider profiles: one TOML file per provider under `profiles/`, embedded at build time.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::adapters::Wire;
use crate::error::UnknownName;

/// What toolrouter knows about one provider: its wire protocol, the text formats its
/// models may write calls in, its tool limits, where its key lives, and its quirks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderProfile {
    /// Short lowercase name (`"openai"`, `"llamacpp"`).
    pub name: String,
    /// Name for humans (`"llama.cpp server"`).
    pub display_name: String,
    /// The wire adapter its streaming endpoint needs.
    pub wire: Wire,
    /// Other names that find this profile.
    #[serde(default)]
    pub aliases: Vec<String>,
    /// Names that find this profile with another wire (`openai-responses`).
    #[serde(default)]
    pub wire_aliases: BTreeMap<String, Wire>,
    /// The environment variable holding the API key, if the provider takes one.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The default base URL (`{placeholders}` for per-account parts).
    pub base_url: String,
    /// Text formats the provider's models may write tool calls in, as the root
    /// crate's `WireFormat` names (`"hermes"`, `"qwen3-coder"`, `"mistral"`,
    /// `"llama3-json"`, `"xml"`, ...); the router enables them on top of the
    /// detector's defaults (which matters for the dialects that are off by
    /// default, such as `"phi4-mini"`). Empty when calls only come structured.
    #[serde(default)]
    pub text_formats: Vec<String>,
    /// The kind of server that takes a grammar with a request, as the root
    /// crate's `GrammarServer` names it (`"llamacpp"`, `"vllm"`,
    /// `"sglang"`): the proxy's `--constrain` sends grammars only to these.
    /// None for hosted APIs.
    #[serde(default)]
    pub grammar: Option<String>,
    /// Anything else worth knowing.
    #[serde(default)]
    pub notes: Option<String>,
    /// Tool-name and schema limits.
    pub limits: ToolLimits,
    /// Known quirks of its stream.
    #[serde(default)]
    pub quirks: Vec<Quirk>,
}

/// Tool-name and schema limits of a provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolLimits {
    /// A regex every tool name must match.
    pub tool_name_pattern: String,
    /// The longest tool name accepted.
    pub tool_name_max_len: usize,
    /// The most tools one request may declare, if documented.
    #[serde(default)]
    pub max_tools: Option<usize>,
    /// Restrictions on parameter schemas, in words.
    #[serde(default)]
    pub schema_notes: Vec<String>,
}

/// One known quirk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quirk {
    /// Stable kebab-case id (`"index-missing"`).
    pub id: String,
    /// What happens on the wire.
    pub note: String,
}

/// A profile found by name, with the wire that name asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileMatch {
    /// The profile.
    pub profile: &'static ProviderProfile,
    /// The wire to read: the profile's own, or the one a wire alias names.
    pub wire: Wire,
}

const SOURCES: &[(&str, &str)] = &[
    ("anthropic.toml", include_str!("../profiles/anthropic.toml")),
    (
        "azure-openai.toml",
        include_str!("../profiles/azure-openai.toml"),
    ),
    ("bedrock.toml", include_str!("../profiles/bedrock.toml")),
    ("deepseek.toml", include_str!("../profiles/deepseek.toml")),
    ("fireworks.toml", include_str!("../profiles/fireworks.toml")),
    ("gemini.toml", include_str!("../profiles/gemini.toml")),
    ("groq.toml", include_str!("../profiles/groq.toml")),
    ("llamacpp.toml", include_str!("../profiles/llamacpp.toml")),
    ("lmstudio.toml", include_str!("../profiles/lmstudio.toml")),
    ("mistral.toml", include_str!("../profiles/mistral.toml")),
    ("ollama.toml", include_str!("../profiles/ollama.toml")),
    (
        "openai-compatible.toml",
        include_str!("../profiles/openai-compatible.toml"),
    ),
    ("openai.toml", include_str!("../profiles/openai.toml")),
    (
        "openrouter.toml",
        include_str!("../profiles/openrouter.toml"),
    ),
    ("sglang.toml", include_str!("../profiles/sglang.toml")),
    ("together.toml", include_str!("../profiles/together.toml")),
    ("vertex.toml", include_str!("../profiles/vertex.toml")),
    ("vllm.toml", include_str!("../profiles/vllm.toml")),
    ("xai.toml", include_str!("../profiles/xai.toml")),
];

/// Every embedded profile, sorted by name.
pub fn profiles() -> &'static [ProviderProfile] {
    static PROFILES: OnceLock<Vec<ProviderProfile>> = OnceLock::new();
    PROFILES.get_or_init(|| {
        let mut all: Vec<ProviderProfile> = SOURCES
            .iter()
            .map(|(file, text)| {
                toml::from_str(text).unwrap_or_else(|e| {
                    // The files are part of the crate and a test parses every one.
                    panic!("embedded profile {file} is invalid: {e}")
                })
            })
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        all
    })
}

/// Finds a profile by its name, an alias, or a wire alias (case-insensitive). The
/// fixture prefixes all resolve: `openai-chat`, `openai-responses`, `anthropic`,
/// `gemini`, `vertex`, `ollama`, `bedrock`, `mistral`, `openai-compat`.
pub fn find_profile(name: &str) -> Result<ProfileMatch, UnknownName> {
    let all = profiles();
    let eq = |s: &str| s.eq_ignore_ascii_case(name);
    if let Some(p) = all.iter().find(|p| eq(&p.name)) {
        return Ok(ProfileMatch {
            profile: p,
            wire: p.wire,
        });
    }
    if let Some(p) = all.iter().find(|p| p.aliases.iter().any(|a| eq(a))) {
        return Ok(ProfileMatch {
            profile: p,
            wire: p.wire,
        });
    }
    for p in all {
        if let Some((_, wire)) = p.wire_aliases.iter().find(|(a, _)| eq(a)) {
            return Ok(ProfileMatch {
                profile: p,
                wire: *wire,
            });
        }
    }
    Err(UnknownName {
        name: name.to_owned(),
    })
}

impl ProviderProfile {
    /// Whether the profile lists the quirk `id`.
    pub fn has_quirk(&self, id: &str) -> bool {
        self.quirks.iter().any(|q| q.id == id)
    }

    /// The API key from the environment, if the profile names a variable and it is set.
    pub fn api_key_from_env(&self) -> Option<String> {
        std::env::var(self.api_key_env.as_deref()?)
            .ok()
            .filter(|k| !k.is_empty())
    }
}

impl ProfileMatch {
    /// A new adapter for this match's wire.
    pub fn adapter(&self) -> Box<dyn crate::WireAdapter> {
        self.wire.adapter()
    }
}
