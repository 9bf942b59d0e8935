#!/usr/bin/env bash
# Several toolrouter processes behind a real nginx, with
# deploy/nginx.conf as written (only its ports are replaced):
#  1. two stateless conformance_server backends sharing one state key file,
#     round robin: the official suite (0.2.0-alpha.12, the 37 scenarios of
#     2026-07-28, multi-round ones among them) through nginx must all pass,
#     and both backends must have answered;
#  2. two `toolrouter serve --http` backends with sessions, each naming its
#     session ids (`--session-id-prefix a`, `b`), which nginx routes by: the Python SDK client several times and a bounded load
#     (bench-mcp/load.py, 10 s) through nginx, with no error, every session on
#     one backend only, and sessions on both.
# Needs nginx (.ci/setup-nginx.sh installs it), ../shared, node/npm, python3
# and the Python SDK in target/ext/py (.ci/setup-python.sh). nginx runs in the
# foreground as the current user, with a prefix in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SHARED=$ROOT/../shared
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
EXT=${TOOLROUTER_EXT_DIR:-$ROOT/target/ext}
PY=$EXT/py/bin/python3

"$ROOT/.ci/setup-nginx.sh"
"$ROOT/.ci/setup-python.sh" >/dev/null
echo "== nginx: build"
cargo build --bin toolrouter --example conformance_server

WORK=$(mktemp -d)
# nginx's workers run as `nobody` when the master is root: let them in.
chmod 755 "$WORK"
mkdir -p "$WORK/nginx/tmp" "$WORK/ws"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "nginx.sh: FAIL: $*"
  for log in "$WORK"/*.log "$WORK"/nginx/*.log; do
    [ -f "$log" ] && { echo "--- $log (last 40 lines)"; tail -n 40 "$log"; }
  done
  exit 1
}

# A free loopback port (closed again at once; nginx takes it right after).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start NAME CMD...: starts a backend on port 0 and sets PORT from the URL it
# states on stderr.
start() {
  local name=$1
  shift
  "$@" 2>"$WORK/$name.log" &
  PIDS+=($!)
  PORT=
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's|^.*: serving MCP at http://127.0.0.1:\([0-9]*\)/mcp$|\1|p' "$WORK/$name.log")
    [ -n "$PORT" ] && return 0
    sleep 0.1
  done
  fail "$name did not state its URL"
}

# wait_ok URL: until GET URL answers 200 (10 s at most).
wait_ok() {
  for _ in $(seq 1 100); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1" || true)" = 200 ] && return 0
    sleep 0.1
  done
  fail "no 200 from $1"
}

KEY=$WORK/state.key
python3 -c 'import secrets; print(secrets.token_hex(32))' >"$KEY"
chmod 600 "$KEY"

CONF=$TARGET/debug/examples/conformance_server
start stateless-a "$CONF" --http 127.0.0.1:0 --stateless --state-key-file "$KEY"; SA=$PORT
start stateless-b "$CONF" --http 127.0.0.1:0 --stateless --state-key-file "$KEY"; SB=$PORT
TR=$TARGET/debug/toolrouter
start sessions-a "$TR" serve --http 127.0.0.1:0 --session-id-prefix a --workspace "$WORK/ws"; SSA=$PORT
start sessions-b "$TR" serve --http 127.0.0.1:0 --session-id-prefix b --workspace "$WORK/ws"; SSB=$PORT
SESSIONS_A_PID=${PIDS[2]}

FRONT=$(free_port)
FRONT_SESSIONS=$(free_port)
# The committed file, with only its ports replaced.
sed -e "s/127.0.0.1:8443;/127.0.0.1:$FRONT;/" \
    -e "s/127.0.0.1:8444;/127.0.0.1:$FRONT_SESSIONS;/" \
    -e "s/127.0.0.1:9001 /127.0.0.1:$SA /" -e "s/127.0.0.1:9002 /127.0.0.1:$SB /" \
    -e "s/127.0.0.1:9101\([ ;]\)/127.0.0.1:$SSA\1/" -e "s/127.0.0.1:9102\([ ;]\)/127.0.0.1:$SSB\1/" \
    "$ROOT/deploy/nginx.conf" >"$WORK/nginx/nginx.conf"
nginx -t -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' >"$WORK/nginx-test.log" 2>&1 ||
  fail "nginx -t refused the configuration"
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2>"$WORK/nginx.log" &
PIDS+=($!)
wait_ok "http://127.0.0.1:$FRONT/healthz"
wait_ok "http://127.0.0.1:$FRONT_SESSIONS/healthz"
echo "== nginx: :$FRONT -> stateless :$SA :$SB (one key), :$FRONT_SESSIONS -> sessions :$SSA :$SSB"

echo "== nginx: conformance 0.2.0-alpha.12 through nginx, two stateless backends"
MCP_CONFORMANCE_VERSION=0.2.0-alpha.12 "$SHARED/conformance/run.sh" "http://127.0.0.1:$FRONT/mcp" ||
  fail "the conformance suite through nginx"
ACCESS=$WORK/nginx/access.log
for port in "$SA" "$SB"; do
  grep -q "\"POST /mcp HTTP/1.1\" 200 127.0.0.1:$port " "$ACCESS" || fail "backend :$port answered no call"
done

echo "== nginx: Python SDK client through nginx, two backends with sessions"
CALC=(--call calculate --args '{"expression":"(12+5)*3"}' --expect-text 51)
for _ in 1 2 3 4; do
  "$PY" "$SHARED/conformance/pyclient.py" --url "http://127.0.0.1:$FRONT_SESSIONS/mcp" \
    --expect-tool calculate "${CALC[@]}" || fail "pyclient through nginx"
done

echo "== nginx: bounded load through nginx (sessions, 10 clients, 10 s)"
"$PY" "$ROOT/bench-mcp/load.py" calls --url "http://127.0.0.1:$FRONT_SESSIONS/mcp" \
  --pid "$SESSIONS_A_PID" --clients 10 --secs 10 --sessions >"$WORK/load.json" ||
  fail "load through nginx: $(cat "$WORK/load.json")"
cat "$WORK/load.json"

# Every request of a session reached the backend that named it, and both
# backends hold sessions.
python3 - "$ACCESS" "$SSA" "$SSB" <<'EOF' || fail "sessions were not routed to their backend"
import collections, re, sys
log, home = sys.argv[1], {"a": sys.argv[2], "b": sys.argv[3]}
seen, wrong = collections.Counter(), 0
for line in open(log):
    m = re.search(r" \d{3} (.+?) session=([ab])\.\S+ ", line)
    if m:
        seen[m.group(2)] += 1
        wrong += m.group(1) != "127.0.0.1:" + home[m.group(2)]
print(f"nginx.sh: session requests per backend {dict(seen)}, misrouted: {wrong}")
sys.exit(1 if wrong or len(seen) != 2 else 0)
EOF
echo "== nginx: OK"
