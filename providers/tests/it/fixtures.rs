//! Every recorded stream in `tests/data/streams/` must give its `.expect.json`,
//! fed whole, one byte at a time, and in random pieces.

use serde_json::Value;
use toolrouter_providers::find_profile;

use crate::support::{Rng, deltas_split, fixtures_dir, summarise};

/// Ids the wire does not carry are made up downstream: compare only where the
/// expectation names one.
fn mask_ids(actual: &mut Value, expected: &Value) {
    for list in ["calls", "partial_calls", "server_calls"] {
        let (Some(a), Some(e)) = (
            actual.get_mut(list).and_then(Value::as_array_mut),
            expected.get(list).and_then(Value::as_array),
        ) else {
            continue;
        };
        for (a, e) in a.iter_mut().zip(e) {
            if e.get("id") == Some(&Value::Null)
                && let Some(obj) = a.as_object_mut()
            {
                obj.insert("id".into(), Value::Null);
            }
        }
    }
}

#[test]
fn every_fixture_matches_its_expectation_in_any_chunking() {
    let dir = fixtures_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".expect.json") && !n.ends_with(".md"))
        .collect();
    names.sort();
    assert!(names.len() >= 60, "only {} fixtures found", names.len());

    let mut failures = Vec::new();
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let expect_path = dir.join(format!("{name}.expect.json"));
        let Ok(expect_text) = std::fs::read_to_string(&expect_path) else {
            failures.push(format!("{name}: no .expect.json"));
            continue;
        };
        let expected: Value = serde_json::from_str(&expect_text).unwrap();
        let prefix = name.split('.').next().unwrap();
        let wire = match find_profile(prefix) {
            Ok(m) => m.wire,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };

        let mut chunkings: Vec<(String, Vec<usize>)> = vec![
            ("whole".into(), vec![]),
            ("byte-by-byte".into(), (1..bytes.len()).collect()),
        ];
        let mut rng = Rng::new(name.len() as u64 * 7919 + bytes.len() as u64);
        for (i, max_piece) in [3, 17, 64, 301].into_iter().enumerate() {
            chunkings.push((
                format!("random#{i} (pieces <= {max_piece})"),
                rng.cuts(bytes.len(), max_piece),
            ));
        }
        let whole = deltas_split(wire, &bytes, &[]);
        for (how, cuts) in chunkings {
            let deltas = deltas_split(wire, &bytes, &cuts);
            // Framing hides the chunking completely: the very same deltas come out.
            if deltas != whole {
                failures.push(format!(
                    "{name} fed {how}: deltas differ from feeding it whole"
                ));
                break;
            }
            let mut actual = summarise(&deltas).to_json();
            mask_ids(&mut actual, &expected);
            if actual != expected {
                failures.push(format!(
                    "{name} fed {how}:\n  expected {expected}\n  actual   {actual}"
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A stream cut anywhere keeps a prefix of the text and never yields a runnable call
/// that differs from the real one: cut-off calls are partial, never guessed.
#[test]
fn every_fixture_cut_short_anywhere_keeps_text_and_never_invents_calls() {
    let dir = fixtures_dir();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".expect.json") && !n.ends_with(".md"))
        .collect();
    names.sort();
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(format!("{name}.expect.json"))).unwrap(),
        )
        .unwrap();
        let wire = find_profile(name.split('.').next().unwrap()).unwrap().wire;
        let step = (bytes.len() / 60).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let mut adapter = wire.adapter();
            let mut out = Vec::new();
            adapter.feed(&bytes[..cut], &mut out).unwrap();
            adapter.finish(&mut out).unwrap();
            let summary = summarise(&out);
            let full_text = expected["text"].as_str().unwrap();
            assert!(
                full_text.starts_with(&summary.text),
                "{name} cut at {cut}: text {:?}",
                summary.text
            );
            let mut actual = summary.to_json();
            mask_ids(&mut actual, &expected);
            let got_calls = actual["calls"].as_array().unwrap();
            let want_calls = expected["calls"].as_array().unwrap();
            assert!(
                got_calls.len() <= want_calls.len(),
                "{name} cut at {cut}: {actual}"
            );
            for got in got_calls {
                // Calls may complete out of opening order (interleaved streams), so
                // look each one up rather than zip. Made-up ids are masked already
                // when the expectation has none at that position; mask them all
                // when the wire carries no ids.
                let mut got = got.clone();
                if want_calls.iter().all(|w| w["id"].is_null()) {
                    got["id"] = Value::Null;
                }
                assert!(
                    want_calls.contains(&got),
                    "{name} cut at {cut}: runnable call {got} is not one of the real calls"
                );
            }
            if summary.stop.as_str() == "error" && expected["stop"] != "error" {
                assert!(
                    summary.error.is_some(),
                    "{name} cut at {cut}: stop error without a message"
                );
            }
        }
    }
}
