//! Unit tests of the bounded quotes of caller input.

use super::*;

fn check(text: &str, expect: &str) {
    assert_eq!(echo(text).to_string(), expect);
    assert_eq!(echo_display(&text), expect);
}

#[test]
fn short_text_is_quoted_whole() {
    check("", "");
    check("read_file", "read_file");
    check(&"a".repeat(ECHO_LIMIT), &"a".repeat(ECHO_LIMIT));
}

#[test]
fn long_text_is_cut_and_sized() {
    check(
        &"a".repeat(15_728_640),
        &format!("{}… (15,728,640 bytes)", "a".repeat(ECHO_LIMIT)),
    );
    check(
        &"b".repeat(ECHO_LIMIT + 1),
        &format!("{}… (257 bytes)", "b".repeat(ECHO_LIMIT)),
    );
}

#[test]
fn cut_is_at_a_char_boundary() {
    // 255 ASCII bytes then a 3-byte char straddling the limit.
    let text = format!("{}€€", "a".repeat(ECHO_LIMIT - 1));
    check(
        &text,
        &format!("{}… (261 bytes)", "a".repeat(ECHO_LIMIT - 1)),
    );
}

#[test]
fn display_pieces_are_counted_not_kept() {
    struct Pieces;
    impl Display for Pieces {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            for _ in 0..1000 {
                f.write_str("0123456789")?;
            }
            Ok(())
        }
    }
    let quoted = echo_display(&Pieces);
    assert!(quoted.ends_with("… (10,000 bytes)"), "{quoted}");
    assert!(quoted.len() < ECHO_LIMIT + 32);
}

#[test]
fn byte_counts_have_separators() {
    for (n, expect) in [
        (0, "0"),
        (999, "999"),
        (1000, "1,000"),
        (1_048_576, "1,048,576"),
    ] {
        let mut out = String::new();
        write_byte_count(&mut out, n).expect("writing to a String");
        assert_eq!(out, expect);
    }
}
