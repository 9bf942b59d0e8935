#!/usr/bin/env bash
# Builds the detector fuzz targets (fuzz/, its own workspace) with libFuzzer
# coverage on the stable toolchain (the flags cargo-fuzz passes with `-s none`),
# then runs each target for SECONDS (default 60) from the seed corpus.
# Usage: .ci/fuzz-detect.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  # Every target fuzz/Cargo.toml declares.
  mapfile -t targets < <(sed -n 's/^name = "\(detect_[a-z0-9_]*\)"$/\1/p' Cargo.toml)
fi
triple="$(rustc -vV | sed -n 's/^host: //p')"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --target "$triple" --bins
# Seeds: the bundled mixed input plus every dialect vector's input (a seed byte first).
mkdir -p corpus/seed-dialects
python3 - <<'PY'
import glob, json, os
for path in glob.glob("../tests/data/dialects/*.json"):
    stem = os.path.basename(path)[:-5]
    for i, case in enumerate(json.load(open(path, encoding="utf-8"))):
        seed = (0x23 if case.get("start_in_reasoning") else 0x03).to_bytes(1, "big")
        with open(f"corpus/seed-dialects/{stem}-{i}", "wb") as f:
            f.write(seed + case["input"].encode("utf-8"))
PY
# Every target runs; each one's whole output is kept in artifacts/TARGET.log,
# and a failing target shows its panic message. The exit status is 1 if any failed.
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" artifacts
  echo "== $t"
  if "$CARGO_TARGET_DIR/$triple/release/$t" "corpus/$t" corpus/seed corpus/seed-dialects \
    -max_total_time="$secs" -artifact_prefix="artifacts/$t-" -print_final_stats=1 \
    > "artifacts/$t.log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "artifacts/$t.log" || true
  else
    failed+=("$t")
    grep -E -A3 'panicked at|^SUMMARY|^artifact_prefix|Test unit written' "artifacts/$t.log" || tail -n 20 "artifacts/$t.log"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed: ${failed[*]}"
  exit 1
fi
