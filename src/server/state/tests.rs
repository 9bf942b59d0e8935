//! Unit tests of signed request state.
#![allow(clippy::unwrap_used)]

use super::*;

const OLD: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const NEW: &str = "2222222222222222222222222222222222222222222222222222222222222222";

fn signer(text: &str) -> StateSigner {
    StateSigner::with_keys(&StateKeys::parse(text, "test").unwrap())
}

#[test]
fn signed_state_round_trips_and_tampering_is_caught() {
    let signer = StateSigner::generate().unwrap();
    let signed = signer.sign(r#"{"round":1}"#);
    assert_eq!(signer.verify(&signed), Some(r#"{"round":1}"#));
    assert_eq!(signer.verify(&format!("{signed}-TAMPERED")), None);
    assert_eq!(signer.verify(r#"{"round":1}"#), None);
    let other = StateSigner::generate().unwrap();
    assert_eq!(other.verify(&signed), None);
}

#[test]
fn two_signers_from_one_key_file_verify_each_others_states() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keys");
    std::fs::write(&path, format!("{NEW}\n{OLD}\n")).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    let a = StateSigner::with_keys(&StateKeys::load(&path).unwrap());
    let b = StateSigner::with_keys(&StateKeys::load(&path).unwrap());
    let signed = a.sign("state");
    assert_eq!(b.verify(&signed), Some("state"));
    assert_eq!(a.verify(&b.sign("other")), Some("other"));
    assert_eq!(StateSigner::generate().unwrap().verify(&signed), None);
}

#[test]
fn rotation_signs_with_the_first_key_and_still_verifies_the_old_one() {
    let before = signer(OLD);
    let during = signer(&format!("{NEW}\n{OLD}\n"));
    let after = signer(NEW);
    let old_state = before.sign("round 1");
    assert_eq!(during.verify(&old_state), Some("round 1"));
    let new_state = during.sign("round 2");
    // Signed with the new key: the old-only signer refuses it, the new one takes it.
    assert_eq!(before.verify(&new_state), None);
    assert_eq!(after.verify(&new_state), Some("round 2"));
    assert_eq!(new_state, after.sign("round 2"));
    // Once the old key is dropped, its states are refused.
    assert_eq!(after.verify(&old_state), None);
}
