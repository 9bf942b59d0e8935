//! Unit tests of signed request state.
#![allow(clippy::unwrap_used)]

use super::*;

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
