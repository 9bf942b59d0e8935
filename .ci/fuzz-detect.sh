#!/usr/bin/env bash
# The detector fuzz targets: .ci/fuzz.sh with every `detect_*` target when none
# is named. Usage: .ci/fuzz-detect.sh [SECONDS] [TARGET...]
set -euo pipefail
here="$(dirname "$0")"
secs="${1:-60}"
shift || true
if [ $# -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^name = "\(detect_[a-z0-9_]*\)"$/\1/p' "$here/../fuzz/Cargo.toml")
  set -- "${targets[@]}"
fi
exec "$here/fuzz.sh" "$secs" "$@"
