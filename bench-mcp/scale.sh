#!/usr/bin/env bash
# Load test of `toolrouter serve --http` in each HTTP mode, and through nginx
# Not part of CI: a run takes about 4 x SECS seconds.
#
#   bench-mcp/scale.sh [SECS] [CLIENTS]        # defaults: 60 s, 50 clients
#
# Runs bench-mcp/load.py (CLIENTS kept-alive clients calling `calculate` for
# SECS seconds, server memory sampled every second) against a release build:
#   sessions         serve --http (each client in a session)
#   stateless        serve --http --stateless
#   stateless-json   serve --http --stateless --json
#   nginx-2x         deploy/nginx.conf's stateless front over two
#                    `--stateless --json` backends sharing a state key
#                    (memory: both backends summed)
# and prints one line per run: calls, calls/s, errors, p50/p99 latency, RSS at
# the start and the end. Needs python3; nginx for the last run (skipped, and
# said so, without it). Exits 1 if any call failed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${1:-60}
CLIENTS=${2:-50}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
cargo build --release --bin toolrouter
BIN=$TARGET/release/toolrouter

WORK=$(mktemp -d)
chmod 755 "$WORK"
mkdir -p "$WORK/nginx/tmp" "$WORK/ws"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
python3 -c 'import secrets; print(secrets.token_hex(32))' >"$WORK/state.key"
chmod 600 "$WORK/state.key"

# serve NAME FLAGS...: starts a server on port 0; sets PORT and PID.
serve() {
  local name=$1
  shift
  "$BIN" serve --http 127.0.0.1:0 --workspace "$WORK/ws" "$@" 2>"$WORK/$name.log" &
  PID=$!
  PIDS+=("$PID")
  PORT=
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's|^toolrouter: serving MCP at http://127.0.0.1:\([0-9]*\)/mcp$|\1|p' "$WORK/$name.log")
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  echo "scale.sh: $name did not start"; cat "$WORK/$name.log"; exit 1
}

# stop PID...: stops servers before the next run, so runs do not share CPUs.
stop() {
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
}

FAILED=0
# load NAME URL PID... [-- LOADFLAGS]: one load run and its line.
load() {
  local name=$1 url=$2
  shift 2
  local pids=() flags=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do pids+=(--pid "$1"); shift; done
  [ $# -gt 0 ] && shift && flags=("$@")
  python3 "$ROOT/bench-mcp/load.py" calls --url "$url" "${pids[@]}" --clients "$CLIENTS" \
    --secs "$SECS" "${flags[@]}" >"$WORK/$name.json" || FAILED=1
  python3 - "$name" "$WORK/$name.json" <<'EOF'
import json, sys
name, r = sys.argv[1], json.load(open(sys.argv[2]))
mb = lambda kib: f"{kib / 1024:.1f}" if kib else "?"
print(f"{name:15} calls {r['calls']:>8,}  {r['calls_per_sec']:>6,}/s  errors {r['errors']}  "
      f"p50 {r['p50_ms']} ms  p99 {r['p99_ms']} ms  RSS {mb(r['rss_kib_start'])} -> "
      f"{mb(r['rss_kib_at_end'])} MB" + (f"  first errors: {r['error_samples']}" if r['errors'] else ""))
EOF
}

echo "== scale.sh: $CLIENTS clients, $SECS s per run, $(nproc) CPUs, $("$BIN" --version)"
serve sessions
load sessions "http://127.0.0.1:$PORT/mcp" "$PID" -- --sessions
stop "$PID"
serve stateless --stateless --state-key-file "$WORK/state.key"
load stateless "http://127.0.0.1:$PORT/mcp" "$PID"
stop "$PID"
serve stateless-json --stateless --json --state-key-file "$WORK/state.key"
load stateless-json "http://127.0.0.1:$PORT/mcp" "$PID"
stop "$PID"

if ! command -v nginx >/dev/null 2>&1; then
  echo "nginx-2x         skipped: no nginx (.ci/setup-nginx.sh installs it)"
  exit "$FAILED"
fi
serve backend-a --stateless --json --state-key-file "$WORK/state.key"
A=$PORT A_PID=$PID
serve backend-b --stateless --json --state-key-file "$WORK/state.key"
B=$PORT B_PID=$PID
FRONT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# deploy/nginx.conf as written, its ports replaced (the sessions front gets a
# port of its own; its backends are absent and unused).
SPARE=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -e "s/127.0.0.1:8443;/127.0.0.1:$FRONT;/" -e "s/127.0.0.1:8444;/127.0.0.1:$SPARE;/" \
    -e "s/127.0.0.1:9001 /127.0.0.1:$A /" -e "s/127.0.0.1:9002 /127.0.0.1:$B /" \
    "$ROOT/deploy/nginx.conf" >"$WORK/nginx/nginx.conf"
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>"$WORK/nginx.log" &
PIDS+=($!)
for _ in $(seq 1 100); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$FRONT/healthz" || true)" = 200 ] && break
  sleep 0.1
done
load nginx-2x "http://127.0.0.1:$FRONT/mcp" "$A_PID" "$B_PID"
exit "$FAILED"
