//! Unit tests of key files: formats, limits, errors and permissions.
#![allow(clippy::unwrap_used)]

use super::*;

const HEX_A: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn write(dir: &tempfile::TempDir, name: &str, text: &[u8], mode: u32) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = mode;
    path
}

#[test]
fn hex_and_base64_lines_give_the_same_key_and_comments_are_skipped() {
    let expected: Vec<u8> = (0u8..32).collect();
    // The same 32 bytes in standard base64, padded, and URL-safe, unpadded.
    let text = format!(
        "# current\n\n  {HEX_A}  \nAAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n\
         base64:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8\nhex:{HEX_A}\n"
    );
    let keys = StateKeys::parse(&text, "test").unwrap();
    assert_eq!(keys.count(), 4);
    assert!(keys.keys().iter().all(|k| *k == expected));
}

#[test]
fn bad_lines_are_named_with_their_line_and_never_echo_the_key() {
    let short = "00112233445566778899aabbccddeeff";
    let err = StateKeys::parse(&format!("{HEX_A}\n# old\n{short}\n"), "keys.txt").unwrap_err();
    let message = err.to_string();
    assert!(message.starts_with("keys.txt, line 3: the key is 16 bytes, at least 32"));
    assert!(!message.contains(short), "{message}");

    let err = StateKeys::parse("not a key!\n", "keys.txt").unwrap_err();
    assert_eq!(err.to_string(), "keys.txt, line 1: neither hex nor base64");
    let err = StateKeys::parse(&format!("hex:{HEX_A}0\n"), "k").unwrap_err();
    assert_eq!(err.to_string(), "k, line 1: not hex digits");
    let err = StateKeys::parse("# only a comment\n\n", "k").unwrap_err();
    assert_eq!(err.to_string(), "k: no key in it");
    let many = format!("{HEX_A}\n").repeat(MAX_KEYS + 1);
    let err = StateKeys::parse(&many, "k").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("k, line {}: more than 16 keys", MAX_KEYS + 1)
    );
    let long = "ab".repeat(MAX_KEY_BYTES + 1);
    assert!(
        StateKeys::parse(&long, "k")
            .unwrap_err()
            .to_string()
            .contains("at most 1024")
    );
    assert!(StateKeys::new(vec![7u8; 31]).is_err());
    assert_eq!(StateKeys::new(vec![7u8; 32]).unwrap().count(), 1);
}

#[test]
fn a_key_file_is_read_and_hostile_files_are_refused_with_their_name() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(&dir, "good", format!("{HEX_A}\n").as_bytes(), 0o600);
    assert_eq!(StateKeys::load(&good).unwrap().count(), 1);

    let big = write(&dir, "big", &vec![b'#'; 20_000], 0o600);
    let message = StateKeys::load(&big).unwrap_err().to_string();
    assert!(message.starts_with(&format!("state key file {}: 20000 bytes", big.display())));

    let binary = write(&dir, "binary", &[0xff, 0xfe, 0x00], 0o600);
    let message = StateKeys::load(&binary).unwrap_err().to_string();
    assert!(message.ends_with("not UTF-8 text"), "{message}");

    let missing = dir.path().join("missing");
    let message = StateKeys::load(&missing).unwrap_err().to_string();
    assert!(message.contains("missing: cannot open"), "{message}");

    let message = StateKeys::load(dir.path()).unwrap_err().to_string();
    assert!(message.ends_with("not a regular file"), "{message}");

    let short = write(&dir, "short", b"\n00112233\n", 0o600);
    let message = StateKeys::load(&short).unwrap_err().to_string();
    assert!(
        message.contains("short, line 2: the key is 4 bytes"),
        "{message}"
    );
}

#[cfg(unix)]
#[test]
fn a_key_file_every_user_can_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let open = write(&dir, "open", format!("{HEX_A}\n").as_bytes(), 0o644);
    let message = StateKeys::load(&open).unwrap_err().to_string();
    assert!(message.contains("mode 644"), "{message}");
    let group = write(&dir, "group", format!("{HEX_A}\n").as_bytes(), 0o640);
    assert!(StateKeys::load(&group).is_ok());
}

#[test]
fn debug_shows_no_key() {
    let keys = StateKeys::parse(HEX_A, "k").unwrap();
    assert_eq!(format!("{keys:?}"), "StateKeys { keys: 1 }");
}
