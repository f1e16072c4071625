#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs the whole test suite (ctest, 2 jobs).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
export QT_QPA_PLATFORM=offscreen
cd build
ctest --output-on-failure --parallel "${MEEPLECAM_JOBS:-2}" "$@"
