//! Property tests: any bytes, cut anywhere, never panic; any cut of a real stream
//! gives the same deltas as the whole stream.

use proptest::prelude::*;
use toolrouter_providers::{Wire, find_profile};

use crate::support::{deltas_split, fixtures_dir};

fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".expect.json") && !n.ends_with(".md"))
        .collect();
    names.sort();
    names
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), cut in 0usize..600, wire_idx in 0usize..6) {
        let wire = Wire::ALL[wire_idx];
        let mut adapter = wire.adapter();
        let mut out = Vec::new();
        let cut = cut.min(bytes.len());
        let _ = adapter.feed(&bytes[..cut], &mut out);
        let _ = adapter.feed(&bytes[cut..], &mut out);
        let _ = adapter.finish(&mut out);
        let mut c = toolrouter_providers::TurnCollector::new();
        c.extend(&out);
        let _ = c.finish().to_json();
    }

    #[test]
    fn mutated_fixtures_never_panic(idx in 0usize..1000, flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8), piece in 1usize..64) {
        let names = fixture_names();
        let name = &names[idx % names.len()];
        let mut bytes = std::fs::read(fixtures_dir().join(name)).unwrap();
        for (at, byte) in flips {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        let wire = find_profile(name.split('.').next().unwrap()).unwrap().wire;
        let mut adapter = wire.adapter();
        let mut out = Vec::new();
        for chunk in bytes.chunks(piece) {
            if adapter.feed(chunk, &mut out).is_err() {
                break;
            }
        }
        let _ = adapter.finish(&mut out);
        let mut c = toolrouter_providers::TurnCollector::new();
        c.extend(&out);
        let _ = c.finish();
    }

    #[test]
    fn any_cut_of_a_fixture_gives_the_same_deltas(idx in 0usize..1000, cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12)) {
        let names = fixture_names();
        let name = &names[idx % names.len()];
        let bytes = std::fs::read(fixtures_dir().join(name)).unwrap();
        let wire = find_profile(name.split('.').next().unwrap()).unwrap().wire;
        let mut cuts: Vec<usize> = cuts.into_iter().map(|i| i.index(bytes.len() + 1)).collect();
        cuts.sort_unstable();
        prop_assert_eq!(deltas_split(wire, &bytes, &cuts), deltas_split(wire, &bytes, &[]), "{}", name);
    }
}
