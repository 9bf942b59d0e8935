//! Every recorded stream in `../shared/fixtures/streams/` must give its `.expect.json`,
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
        for (how, cuts) in chunkings {
            let mut actual = summarise(&deltas_split(wire, &bytes, &cuts)).to_json();
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
