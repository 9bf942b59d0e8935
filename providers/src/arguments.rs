//! `ArgumentsRule`: when a structured call's argument text makes a runnable call.
//!
//! One rule for every path that assembles a provider's argument fragments (the
//! providers-only [`TurnCollector`](crate::TurnCollector) and the root crate's
//! router): blank means `{}`, anything else must be one JSON object, and the text
//! is bounded.

use serde_json::{Map, Value};

/// The default bound on a call's argument text: 16 MiB, as the detector's
/// `DetectConfig::max_call_bytes`.
pub const DEFAULT_MAX_ARGUMENT_BYTES: usize = 16 * 1024 * 1024;

/// The rule a structured call's argument text must meet to make a runnable call.
///
/// - blank text (JSON whitespace only: space, tab, CR, LF; or nothing) means `{}`;
/// - anything else must parse as one JSON object;
/// - the text is at most [`max_bytes`](Self::max_bytes) long.
///
/// ```
/// use toolrouter_providers::{ArgumentsError, ArgumentsRule};
///
/// let rule = ArgumentsRule::default();
/// assert_eq!(rule.read(" \n").unwrap().len(), 0);
/// assert_eq!(rule.read(r#"{"a":1}"#).unwrap()["a"], 1);
/// assert!(matches!(rule.read("[1]"), Err(ArgumentsError::NotObject { .. })));
/// assert!(matches!(rule.read("\u{2028}"), Err(ArgumentsError::InvalidJson { .. })));
/// let small = ArgumentsRule::with_max_bytes(4);
/// assert!(matches!(small.read(r#"{"a":1}"#), Err(ArgumentsError::TooLarge { .. })));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgumentsRule {
    max_bytes: usize,
}

/// Why argument text does not make a runnable call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArgumentsError {
    /// The text is longer than the rule allows.
    #[error("arguments exceed {max} bytes")]
    TooLarge {
        /// The rule's bound.
        max: usize,
    },
    /// The text is JSON, but not an object.
    #[error("arguments are not a json object: {message}")]
    NotObject {
        /// `serde_json`'s message.
        message: String,
    },
    /// The text is not JSON.
    #[error("arguments are not valid json: {message}")]
    InvalidJson {
        /// `serde_json`'s message.
        message: String,
    },
}

/// A call's argument text as it streams in, bounded by an [`ArgumentsRule`]: once a
/// fragment would take it over the bound, it stops growing and stays over the limit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgumentsText {
    text: String,
    over_limit: bool,
}

impl Default for ArgumentsRule {
    fn default() -> Self {
        Self::with_max_bytes(DEFAULT_MAX_ARGUMENT_BYTES)
    }
}

impl ArgumentsRule {
    /// The rule with a bound of `max_bytes` on the argument text.
    pub fn with_max_bytes(max_bytes: usize) -> Self {
        Self { max_bytes }
    }

    /// The bound on the argument text, in bytes.
    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    /// Whether `raw` is blank: JSON whitespace only (space, tab, CR, LF), or empty.
    pub fn is_blank(raw: &str) -> bool {
        raw.bytes()
            .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    }

    /// Reads `raw` with `serde_json`.
    pub fn read(&self, raw: &str) -> Result<Map<String, Value>, ArgumentsError> {
        self.read_with(raw, |raw| serde_json::from_str(raw))
    }

    /// Reads `raw` with `parse`, a reader that gives `serde_json`'s answer for a
    /// JSON object (`serde_json::from_str::<Map<String, Value>>`, or a faster one
    /// with the same answers).
    pub fn read_with(
        &self,
        raw: &str,
        parse: impl FnOnce(&str) -> Result<Map<String, Value>, serde_json::Error>,
    ) -> Result<Map<String, Value>, ArgumentsError> {
        if raw.len() > self.max_bytes {
            return Err(ArgumentsError::TooLarge {
                max: self.max_bytes,
            });
        }
        if Self::is_blank(raw) {
            return Ok(Map::new());
        }
        parse(raw).map_err(|e| {
            let message = e.to_string();
            if e.is_data() {
                ArgumentsError::NotObject { message }
            } else {
                ArgumentsError::InvalidJson { message }
            }
        })
    }
}

impl ArgumentsError {
    /// `serde_json`'s message, for text that is not a JSON object.
    pub fn serde_message(&self) -> Option<&str> {
        match self {
            ArgumentsError::NotObject { message } | ArgumentsError::InvalidJson { message } => {
                Some(message)
            }
            ArgumentsError::TooLarge { .. } => None,
        }
    }
}

impl ArgumentsText {
    /// No text yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends `fragment` if the text stays within `rule`'s bound; says whether it
    /// did. Once a fragment did not fit, nothing more is taken.
    pub fn push(&mut self, fragment: &str, rule: &ArgumentsRule) -> bool {
        if self.over_limit {
            return false;
        }
        if self.text.len() + fragment.len() > rule.max_bytes {
            self.over_limit = true;
            return false;
        }
        self.text.push_str(fragment);
        true
    }

    /// The text taken so far (up to the bound).
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether a fragment did not fit.
    pub fn is_over_limit(&self) -> bool {
        self.over_limit
    }

    /// Reads the text under `rule` with `parse` (see [`ArgumentsRule::read_with`]):
    /// text that stopped growing at the bound is [`ArgumentsError::TooLarge`].
    pub fn read_with(
        &self,
        rule: &ArgumentsRule,
        parse: impl FnOnce(&str) -> Result<Map<String, Value>, serde_json::Error>,
    ) -> Result<Map<String, Value>, ArgumentsError> {
        if self.over_limit {
            return Err(ArgumentsError::TooLarge {
                max: rule.max_bytes,
            });
        }
        rule.read_with(&self.text, parse)
    }

    /// The text, given up.
    pub fn into_string(self) -> String {
        self.text
    }
}
