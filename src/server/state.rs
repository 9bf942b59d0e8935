//! `StateSigner`: integrity protection for the opaque `requestState` of
//! multi-round (`input_required`) results.
//!
//! The protocol lets a server keep a call's state in the client between rounds;
//! the client must echo it unchanged. A client could alter it, so every state
//! the server hands out is signed with HMAC-SHA256, and a state that fails the
//! check is refused before any handler sees it. The key is made at start-up
//! unless [`StateKeys`] are given, which several processes can share; of
//! several keys the first signs and every one verifies (rotation).

use ring::hmac;
use ring::rand::SystemRandom;

use super::state_keys::StateKeys;

/// Signs and checks request states.
#[derive(Debug)]
pub(crate) struct StateSigner {
    /// Never empty; the first signs.
    keys: Vec<hmac::Key>,
}

const TAG_HEX_LEN: usize = 64;

impl StateSigner {
    /// A signer with a fresh random key; `None` if the system has no randomness.
    pub(crate) fn generate() -> Option<Self> {
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &SystemRandom::new()).ok()?;
        Some(Self { keys: vec![key] })
    }

    /// A signer with the given keys: the first signs, every one verifies.
    pub(crate) fn with_keys(keys: &StateKeys) -> Self {
        Self {
            keys: keys
                .keys()
                .iter()
                .map(|key| hmac::Key::new(hmac::HMAC_SHA256, key))
                .collect(),
        }
    }

    /// `tag.payload`, the tag being the hex HMAC of the payload.
    pub(crate) fn sign(&self, payload: &str) -> String {
        let Some(key) = self.keys.first() else {
            // Not reached: both constructors make at least one key.
            return String::new();
        };
        let tag = hmac::sign(key, payload.as_bytes());
        let mut out = String::with_capacity(TAG_HEX_LEN + 1 + payload.len());
        for byte in tag.as_ref() {
            out.push_str(&format!("{byte:02x}"));
        }
        out.push('.');
        out.push_str(payload);
        out
    }

    /// The payload of a state this signer made, or `None` if it was altered.
    pub(crate) fn verify<'a>(&self, signed: &'a str) -> Option<&'a str> {
        let (tag_hex, payload) = signed.split_once('.')?;
        if tag_hex.len() != TAG_HEX_LEN {
            return None;
        }
        let mut tag = [0u8; TAG_HEX_LEN / 2];
        for (i, byte) in tag.iter_mut().enumerate() {
            *byte = u8::from_str_radix(tag_hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        self.keys
            .iter()
            .any(|key| hmac::verify(key, payload.as_bytes(), &tag).is_ok())
            .then_some(payload)
    }
}

#[cfg(test)]
mod tests;
