#!/usr/bin/env bash
# Installs nginx (the Debian package) for .ci/nginx.sh, unless it is already on
# the PATH. Only the binary is used: .ci/nginx.sh runs it in the foreground as
# the current user with a prefix of its own; the package's service is not
# needed (and in a container without systemd it is not started).
set -euo pipefail
if command -v nginx >/dev/null 2>&1; then
  echo "== nginx: $(nginx -v 2>&1) already installed"
  exit 0
fi
SUDO=
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "setup-nginx: not root and no sudo; install nginx"; exit 1; }
  SUDO=sudo
fi
echo "== nginx: installing the Debian package"
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
echo "== nginx: $(nginx -v 2>&1) installed"
