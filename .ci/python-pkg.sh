#!/usr/bin/env bash
# Builds the Python package (python/) the way a user installs it
# (`pip install ./python`), and runs its pytest suite, the vLLM plugin's tests
# included, against the vLLM release from PyPI.
#
# The venv is target/ext/pypkg (or $TOOLROUTER_EXT_DIR/pypkg). vLLM's recipe:
# `pip install --no-deps vllm==VERSION` plus python/tests/vllm-requirements.txt
# (torch from PyPI with its CUDA libraries: `import vllm` imports torch). That
# is several GB of wheels, 6.7 GB installed and 2–3 minutes of pip here;
# TOOLROUTER_SKIP_VLLM=1 leaves it out (the plugin's tests then skip, loudly).
#
# The extension is built with the dev profile: the tests need no optimised
# build, and the repository's debug dependencies are already in target/.
# python/bench/bench.py wants `pip install ./python` (release) instead.
set -euo pipefail
cd "$(dirname "$0")/.."
ext_dir="${TOOLROUTER_EXT_DIR:-$PWD/target/ext}"
venv="$ext_dir/pypkg"
vllm_version="0.33.0"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
mkdir -p "$ext_dir"

echo "== python package: clippy and fmt of the extension crate (python/)"
cargo fmt --manifest-path python/Cargo.toml -- --check
cargo clippy --manifest-path python/Cargo.toml --all-targets --locked -- -D warnings

if [ ! -x "$venv/bin/python3" ]; then
  python3 -m venv "$venv"
fi
py="$venv/bin/python3"
pip=("$py" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" "pytest>=7" "mypy>=1.10"

if [ "${TOOLROUTER_SKIP_VLLM:-0}" != "1" ]; then
  if ! "$py" -c "import vllm.tool_parsers" 2>/dev/null; then
    echo "== python package: installing vLLM $vllm_version (parser classes, CPU only) into $venv ($(df -h --output=avail "$ext_dir" | tail -1 | tr -d ' ') free)"
    start=$SECONDS
    # --no-cache-dir: the wheels (GBs, torch's CUDA libraries) are not kept
    # a second time in pip's cache beside the venv.
    "${pip[@]}" --no-cache-dir -r python/tests/vllm-requirements.txt
    "${pip[@]}" --no-cache-dir --no-deps "vllm==$vllm_version"
    echo "== python package: vLLM installed in $((SECONDS - start)) s, venv $(du -sh "$venv" | cut -f1)"
  fi
else
  echo "== python package: TOOLROUTER_SKIP_VLLM=1: vLLM's plugin tests will be SKIPPED"
fi

echo "== python package: pip install ./python"
start=$SECONDS
MATURIN_PEP517_ARGS="--profile dev" "${pip[@]}" --force-reinstall --no-deps ./python
echo "== python package: built and installed in $((SECONDS - start)) s"

echo "== python package: the benchmark's workloads at 1 KB (a check that both sides parse them; figures from a dev build mean nothing)"
"$py" python/bench/bench.py --sizes 1K

echo "== python package: the type stubs against the built module (mypy's stubtest)"
(cd "$ext_dir" && "$py" -m mypy.stubtest toolrouter._toolrouter)

echo "== python package: pytest"
# From outside python/, so that the installed package is the one imported.
repo=$PWD
cd "$ext_dir"
"$py" -m pytest -q -p no:cacheprovider "$repo/python/tests"
