#!/usr/bin/env bash
# Installs the Python SDKs the tests drive into a venv at target/ext/py (or
# $TOOLROUTER_EXT_DIR/py), the interpreter tests/it/support/ext.rs and
# .ci/mcp.sh use, under the same lock file ext.rs takes: `mcp` (the MCP
# client), `openai` and `anthropic` (clients of `toolrouter proxy`).
set -euo pipefail
cd "$(dirname "$0")/.."
ext_dir="${TOOLROUTER_EXT_DIR:-$PWD/target/ext}"
venv="$ext_dir/py"
mkdir -p "$ext_dir"
(
  exec 9>"$ext_dir/.lock"
  if command -v flock >/dev/null; then flock 9; fi
  if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv"
  fi
  if ! "$venv/bin/python3" -c "import mcp" 2>/dev/null; then
    echo "== python: installing the mcp SDK into $venv"
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "mcp>=1.20"
  fi
  if ! "$venv/bin/python3" -c "import openai, anthropic" 2>/dev/null; then
    echo "== python: installing the openai and anthropic SDKs into $venv"
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "openai>=1.50" "anthropic>=0.40"
  fi
)
"$venv/bin/python3" -c "import importlib.metadata as m; print('== python:', ', '.join(p + ' ' + m.version(p) for p in ('mcp', 'openai', 'anthropic')), 'ready in $venv')"
