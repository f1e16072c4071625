#!/usr/bin/env bash
# Configures and builds meeplecam into build/ (ccache when present). Extra args: ninja targets.
set -euo pipefail
cd "$(dirname "$0")/.."
"./scripts/install-deps.sh"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --parallel "${MEEPLECAM_JOBS:-2}" ${1:+--target "$@"}
