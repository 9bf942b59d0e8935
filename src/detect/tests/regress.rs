//! Inputs the fuzz targets found, one test each.

use super::*;

/// Feeds `input` whole and in `step`-byte deltas; both must agree.
fn agree(input: &str, step: usize) {
    agree_with(input, step, DetectConfig::default());
}

fn agree_with(input: &str, step: usize, config: DetectConfig) {
    let (whole, regions) = run_pieces(&[input], config.clone());
    conserved(input, &whole.text, &regions);
    let mut pieces = Vec::new();
    let mut pos = 0;
    while pos < input.len() {
        let mut end = (pos + step).min(input.len());
        while !input.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&input[pos..end]);
        pos = end;
    }
    let (mut split, _) = run_pieces(&pieces, config);
    let mut whole = whole;
    split.ids.clear();
    whole.ids.clear();
    assert_eq!(split, whole, "step {step}");
}

#[test]
fn fuzz_crash_1_long_fence_info_line() {
    let data = include_bytes!("fuzz_crash_1.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, 4);
}

#[test]
fn fuzz_crash_2_fence_longer_than_the_look_ahead() {
    let data = include_bytes!("fuzz_crash_2.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, usize::from(data[0] % 17) + 1);
    let fence = format!("\n{}\n<ls></ls>", "`".repeat(300));
    agree(&fence, 1);
    agree(&fence, 7);
}

#[test]
fn fuzz_crash_3() {
    let data = include_bytes!("fuzz_crash_3.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree(&input, usize::from(data[0] % 17) + 1);
}

#[test]
fn fuzz_crash_4() {
    let data = include_bytes!("fuzz_crash_4.bin");
    let input = String::from_utf8_lossy(&data[1..]);
    agree_with(
        &input,
        usize::from(data[0] % 17) + 1,
        DetectConfig::only(WireFormat::JsonToolUse),
    );
}
