#!/usr/bin/env bash
# Builds the fuzz targets (fuzz/, its own workspace) with libFuzzer coverage on
# the stable toolchain (the flags cargo-fuzz passes with `-s none`, and
# `--cfg fuzzing`, which also compiles the library's fuzzing entry points),
# then runs each target for SECONDS (default 60) from its seed corpus.
# Usage: .ci/fuzz.sh [SECONDS] [TARGET...]   (no TARGET: every target
# fuzz/Cargo.toml declares; .ci/fuzz-detect.sh runs the detector ones)
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^name = "\([a-z0-9_]*\)"$/\1/p' Cargo.toml)
fi
declared="$(sed -n 's/^name = "\([a-z0-9_]*\)"$/\1/p' Cargo.toml)"
for t in "${targets[@]}"; do
  if ! grep -qx "$t" <<<"$declared"; then
    echo "unknown fuzz target: $t (fuzz/Cargo.toml declares: $(echo $declared))" >&2
    exit 2
  fi
done
triple="$(rustc -vV | sed -n 's/^host: //p')"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
  -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
cargo build --release --target "$triple" --bins
# Generated seeds (not committed): every dialect vector's input, a seed byte
# first, for the detectors; every recorded provider stream, a byte naming its
# wire first, for provider_framing.
mkdir -p corpus/seed-dialects corpus/seed-streams
python3 - <<'PY'
import glob, json, os
for path in glob.glob("../tests/data/dialects/*.json"):
    stem = os.path.basename(path)[:-5]
    for i, case in enumerate(json.load(open(path, encoding="utf-8"))):
        seed = (0x23 if case.get("start_in_reasoning") else 0x03).to_bytes(1, "big")
        with open(f"corpus/seed-dialects/{stem}-{i}", "wb") as f:
            f.write(seed + case["input"].encode("utf-8"))
# The index of each fixture's wire in `Wire::ALL`, by the fixture's provider.
wires = {"openai-chat": 0, "openai-compat": 0, "mistral": 0, "openai-responses": 1,
         "anthropic": 2, "gemini": 3, "vertex": 3, "ollama": 4, "bedrock": 5}
for path in glob.glob("../tests/data/streams/*"):
    name = os.path.basename(path)
    wire = wires.get(name.split(".")[0])
    if wire is None or name.endswith(".json") or name.endswith(".md"):
        continue
    data = open(path, "rb").read()
    if len(data) > 16384:
        continue
    for step in (0, 3):
        with open(f"corpus/seed-streams/{name}-{step}", "wb") as f:
            f.write(bytes([wire | (step << 4)]) + data)
PY
# The seed directories of a target: the detectors share theirs; any other
# target has corpus/seed-TARGET (committed), and provider_framing the streams.
seeds() {
  case "$1" in
    detect_*) echo corpus/seed corpus/seed-dialects ;;
    provider_framing) echo corpus/seed-provider_framing corpus/seed-streams ;;
    *) [ -d "corpus/seed-$1" ] && echo "corpus/seed-$1" || true ;;
  esac
}
# Every target runs; each one's whole output is kept in artifacts/TARGET.log,
# and a failing target shows its panic message. The exit status is 1 if any failed.
failed=()
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t" artifacts
  echo "== $t"
  # shellcheck disable=SC2046
  if "$CARGO_TARGET_DIR/$triple/release/$t" "corpus/$t" $(seeds "$t") \
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
