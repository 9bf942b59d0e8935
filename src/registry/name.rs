//! The portable tool-name rule: the strictest of the providers' rules.

use super::error::RegistryError;

/// The longest name every provider accepts.
pub const MAX_TOOL_NAME_LEN: usize = 64;

// "Did you mean" compares an unknown tool's name up to this long.
const _: () = assert!(MAX_TOOL_NAME_LEN <= crate::core::MAX_COMPARED_LEN);

/// The rule, as error messages state it.
pub const TOOL_NAME_RULE: &str = "names must be 1 to 64 characters of ASCII letters, digits, `_` or `-` (the strictest rule common to OpenAI, Anthropic, Gemini and Bedrock)";

/// Checks a tool name against [`TOOL_NAME_RULE`].
pub fn validate_tool_name(name: &str) -> Result<(), RegistryError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_TOOL_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(RegistryError::InvalidName {
            name: name.to_owned(),
            rule: TOOL_NAME_RULE,
        })
    }
}
