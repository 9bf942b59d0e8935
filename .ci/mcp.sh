#!/usr/bin/env bash
# MCP checks with software nobody on this project wrote:
#  1. the official conformance suite (@modelcontextprotocol/conformance) against
#     examples/conformance_server over Streamable HTTP, with the default suite
#     (2025-11-25, 30 scenarios) and with 0.2.0-alpha.12 (the 2026-07-28
#     requirements, 37 scenarios);
#  2. the Python SDK client (pyclient.py) against `toolrouter serve` over stdio
#     and over Streamable HTTP, calling the built-in `calculate`.
# Run from anywhere; needs ../shared beside the repository, node/npm and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SHARED=$ROOT/../shared
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}

echo "== mcp: build"
cargo build --bin toolrouter --example conformance_server
SERVER="$TARGET/debug/examples/conformance_server --http 127.0.0.1:{port}"
TOOLROUTER=$TARGET/debug/toolrouter

echo "== mcp: conformance, default suite (2025-11-25)"
"$SHARED/conformance/run.sh" --cmd "$SERVER"

echo "== mcp: conformance, 0.2.0-alpha.12 (2026-07-28 requirements)"
MCP_CONFORMANCE_VERSION=0.2.0-alpha.12 "$SHARED/conformance/run.sh" --cmd "$SERVER"

echo "== mcp: python SDK client"
EXT=${TOOLROUTER_EXT_DIR:-$ROOT/target/ext}
PY=$EXT/py/bin/python3
"$ROOT/.ci/setup-python.sh"
CALC=(--call calculate --args '{"expression":"(12+5)*3"}' --expect-text 51)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; [ -n "${HTTP_PID:-}" ] && kill "$HTTP_PID" 2>/dev/null || true' EXIT

"$PY" "$SHARED/conformance/pyclient.py" --stdio "$TOOLROUTER serve --stdio --workspace $WORK" "${CALC[@]}"

"$TOOLROUTER" serve --http 127.0.0.1:0 --workspace "$WORK" 2>"$WORK/serve.log" &
HTTP_PID=$!
URL=
for _ in $(seq 1 100); do
  URL=$(sed -n '1s/^toolrouter: serving MCP at //p' "$WORK/serve.log")
  [ -n "$URL" ] && break
  sleep 0.1
done
[ -n "$URL" ] || { echo "serve --http did not state its URL"; cat "$WORK/serve.log"; exit 1; }
"$PY" "$SHARED/conformance/pyclient.py" --url "$URL" --expect-tool calculate "${CALC[@]}"
