//! The neutral tool call: what every dialect is parsed into and every converter starts from.

use serde::{Deserialize, Serialize};

use super::format::WireFormat;

/// A JSON object (`serde_json::Map<String, Value>`), the type of tool arguments.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// A finished tool call, independent of the dialect it was written in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The call id: the provider's own where the wire carries one, else generated
    /// by [`new_call_id`].
    pub id: String,
    /// The tool name as the model wrote it.
    pub name: String,
    /// The arguments object (`{}` when the model gave none).
    pub arguments: JsonObject,
    /// The dialect the call was found in.
    pub format: WireFormat,
}

impl ToolCall {
    /// Creates a call; `arguments` defaults to `{}` when `None`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: Option<JsonObject>,
        format: WireFormat,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.unwrap_or_default(),
            format,
        }
    }
}

/// A fresh call id of the form `call_` followed by 24 alphanumeric characters,
/// for dialects whose calls carry none.
pub fn new_call_id() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::with_capacity(29);
    out.push_str("call_");
    // Six symbols from each of four chunks of random bits, two chunks per v4
    // UUID: the low half's 62 bits below the variant, and the high half's 60
    // bits around the version nibble (bits 12..16). 62^6 < 2^36, so with 24 or
    // more bits to spare the symbols are as good as uniform. (u64 arithmetic,
    // not u128, which is a library call per division.)
    for _ in 0..2 {
        let (high, low) = uuid::Uuid::new_v4().as_u64_pair();
        let high = ((high >> 16) << 12) | (high & 0xFFF);
        for mut bits in [low & ((1u64 << 62) - 1), high] {
            for _ in 0..6 {
                let idx = (bits % ALPHABET.len() as u64) as usize;
                bits /= ALPHABET.len() as u64;
                out.push(char::from(ALPHABET[idx]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_have_the_documented_shape_and_differ() {
        let a = new_call_id();
        let b = new_call_id();
        assert_eq!(a.len(), 29);
        assert!(a.starts_with("call_"));
        assert!(a[5..].bytes().all(|c| c.is_ascii_alphanumeric()));
        assert_ne!(a, b);
    }

    #[test]
    fn every_position_of_a_call_id_varies() {
        let ids: Vec<String> = (0..64).map(|_| new_call_id()).collect();
        for pos in 5..29 {
            let first = ids[0].as_bytes()[pos];
            assert!(
                ids.iter().any(|id| id.as_bytes()[pos] != first),
                "position {pos} never changes"
            );
        }
    }

    #[test]
    fn call_id_symbols_are_spread_evenly() {
        // 48 000 symbols: about 774 of each of the 62; a spread this wide
        // (six standard deviations) fails by chance about once in 10^7 runs.
        let mut counts = [0usize; 128];
        for _ in 0..2000 {
            for c in new_call_id()[5..].bytes() {
                counts[usize::from(c)] += 1;
            }
        }
        for c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" {
            let n = counts[usize::from(*c)];
            assert!(
                (609..=939).contains(&n),
                "{} appears {n} times",
                char::from(*c)
            );
        }
    }
}
