//! Unit tests of "did you mean": the suggestions and the work they cost.

use super::*;

/// `expect`: the first suggestions, best first.
fn check(wanted: &str, names: &[&str], expect: &[&str]) {
    let got = closest_names(wanted, names.iter().copied());
    assert!(got.len() <= MAX_SUGGESTIONS);
    if expect.is_empty() {
        assert!(got.is_empty(), "{wanted}: {got:?}");
    }
    assert_eq!(
        &got[..expect.len().min(got.len())],
        expect,
        "{wanted}: {got:?}"
    );
}

const TOOLS: &[&str] = &[
    "calculate",
    "list_files",
    "read_file",
    "search_files",
    "write_to_file",
];

#[test]
fn suggestions() {
    check("read_fil", TOOLS, &["read_file"]);
    check("READ_FILE", TOOLS, &["read_file"]);
    check("read_filee", TOOLS, &["read_file"]);
    check("file", TOOLS, &["list_files", "read_file", "search_files"]);
    check("write_to", TOOLS, &["write_to_file"]);
    check("calcualte", TOOLS, &["calculate"]);
    check("zzzzzzzzzzzz", TOOLS, &[]);
    check("", TOOLS, &[]);
}

#[test]
fn distance_matches_the_full_table() {
    let words = [
        "",
        "a",
        "ab",
        "kitten",
        "sitting",
        "flaw",
        "lawn",
        "read_file",
        "raed_flie",
    ];
    for a in words {
        for b in words {
            let full = strsim::levenshtein(a, b);
            for bound in 0..10 {
                let got = bounded_distance(a.as_bytes(), b.as_bytes(), bound, &mut 0);
                assert_eq!(got, (full <= bound).then_some(full), "{a} {b} {bound}");
            }
        }
    }
}

fn thousand_tools() -> Vec<String> {
    (0..1000)
        .map(|i| format!("tool_{i:04}_{}", "x".repeat(i % 40)))
        .collect()
}

/// A 1 MB name against 1,000 tools is refused without a
/// single comparison.
#[test]
fn huge_name_is_not_compared() {
    let tools = thousand_tools();
    let wanted = "t".repeat(1 << 20);
    let ranking = rank_names(&wanted, tools.iter().map(String::as_str));
    assert!(ranking.names.is_empty());
    assert_eq!((ranking.n_compared, ranking.n_cells), (0, 0));
}

/// The longest name that is still compared costs at most len · (2·bound + 1)
/// cells per tool, and only tools of a near length are compared at all.
#[test]
fn work_is_bounded_by_length_and_band() {
    let tools = thousand_tools();
    let wanted = "q".repeat(MAX_COMPARED_LEN);
    let ranking = rank_names(&wanted, tools.iter().map(String::as_str));
    let bound = MAX_COMPARED_LEN / 2;
    assert!(ranking.n_compared < tools.len());
    assert!(ranking.n_cells <= ranking.n_compared * MAX_COMPARED_LEN * (2 * bound + 1));
    assert!(ranking.names.len() <= MAX_SUGGESTIONS);
    // A short name: the length filter skips most of the thousand.
    let ranking = rank_names("tool_0001", tools.iter().map(String::as_str));
    assert!(ranking.n_compared <= 300, "{}", ranking.n_compared);
    assert_eq!(ranking.names.len(), MAX_SUGGESTIONS);
}
