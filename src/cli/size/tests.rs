//! Unit tests of sizes: what parses, to how many bytes, and how defaults show.

use super::*;

/// `text` parses to `expect` bytes, or fails with a message containing it.
fn check(text: &str, expect: Result<u64, &str>) {
    match (parse_size::<u64>(text), expect) {
        (Ok(bytes), Ok(expect)) => assert_eq!(bytes, expect, "{text}"),
        (Err(error), Err(expect)) => assert!(error.contains(expect), "{text}: {error}"),
        (got, expect) => panic!("{text}: {got:?}, expected {expect:?}"),
    }
}

#[test]
fn sizes_parse_with_or_without_a_unit() {
    check("16MiB", Ok(16 * 1024 * 1024));
    check("16 MiB", Ok(16 * 1024 * 1024));
    check("16mib", Ok(16 * 1024 * 1024));
    check("16777216", Ok(16 * 1024 * 1024));
    check("512 KiB", Ok(512 * 1024));
    check("1GiB", Ok(1024 * 1024 * 1024));
    check("7 B", Ok(7));
    check("0", Ok(0));
    for bad in [
        "",
        "MiB",
        "16 MB",
        "16M",
        "-1",
        "1.5MiB",
        "16  MiB x",
        " 16",
    ] {
        check(bad, Err("is not a size"));
    }
    check("99999999999 GiB", Err("more bytes"));
    assert!(parse_size::<u8>("1 KiB").is_err_and(|e| e.contains("more bytes")));
}

#[test]
fn sizes_show_in_the_largest_unit_that_divides_them() {
    assert_eq!(show_size(16usize << 20), "16MiB");
    assert_eq!(show_size(64u64 << 20), "64MiB");
    assert_eq!(show_size(4096u64), "4KiB");
    assert_eq!(show_size(3u64 << 30), "3GiB");
    assert_eq!(show_size(1536u64), "1536B");
    assert_eq!(show_size(1000u64), "1000B");
    assert_eq!(show_size(0u64), "0B");
    for bytes in [0u64, 1, 1000, 4096, 16 << 20, 3 << 30] {
        check(&show_size(bytes), Ok(bytes));
    }
}
