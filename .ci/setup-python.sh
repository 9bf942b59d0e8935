#!/usr/bin/env bash
# Installs the Python `mcp` SDK into a venv at target/ext/py (or
# $TOOLROUTER_EXT_DIR/py), the interpreter tests/it/support/ext.rs and
# .ci/mcp.sh use, under the same lock file ext.rs takes.
set -euo pipefail
cd "$(dirname "$0")/.."
ext_dir="${TOOLROUTER_EXT_DIR:-$PWD/target/ext}"
venv="$ext_dir/py"
mkdir -p "$ext_dir"
(
  exec 9>"$ext_dir/.lock"
  if command -v flock >/dev/null; then flock 9; fi
  if ! "$venv/bin/python3" -c "import mcp" 2>/dev/null; then
    echo "== python: installing the mcp SDK into $venv"
    python3 -m venv "$venv"
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "mcp>=1.20"
  fi
)
"$venv/bin/python3" -c "import mcp, importlib.metadata as m; print('== python: mcp', m.version('mcp'), 'ready in $venv')"
