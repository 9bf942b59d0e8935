#!/usr/bin/env bash
# Pre-installs the npm MCP servers the gateway tests use, and the Vercel AI
# SDK the proxy tests use, into the cache that
# tests/it/support/ext.rs reads (target/ext/npm, or $TOOLROUTER_EXT_DIR/npm),
# so parallel tests never race to install them.
set -euo pipefail
cd "$(dirname "$0")/.."

ext_dir="${TOOLROUTER_EXT_DIR:-$PWD/target/ext}"
prefix="$ext_dir/npm"
mkdir -p "$prefix"

# Keep these specs in sync with tests/it/gateway.rs and tests/it/proxy_vercel.rs.
packages=(
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "ai@7.0.173"
  "@ai-sdk/openai-compatible@3.0.92"
  "@ai-sdk/openai@4.0.118"
)
bins=(mcp-server-everything mcp-server-filesystem)

missing=0
for bin in "${bins[@]}"; do
  [[ -x "$prefix/node_modules/.bin/$bin" ]] || missing=1
done
# The Vercel AI SDK has no binary: its package files tell.
for module in ai @ai-sdk/openai-compatible @ai-sdk/openai; do
  [[ -f "$prefix/node_modules/$module/package.json" ]] || missing=1
done
if [[ $missing -eq 1 ]]; then
  echo "== npm: installing ${packages[*]} into $prefix"
  (
    # The same lock file ext.rs takes, so a concurrent test run waits for us.
    exec 9>"$ext_dir/.lock"
    if command -v flock >/dev/null; then flock 9; fi
    npm install --no-audit --no-fund --loglevel=error --prefix "$prefix" "${packages[@]}"
  )
fi
for bin in "${bins[@]}"; do
  [[ -x "$prefix/node_modules/.bin/$bin" ]] || { echo "missing $bin after install" >&2; exit 1; }
done
echo "== npm: MCP servers and the Vercel AI SDK ready in $prefix"
