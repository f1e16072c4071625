#!/usr/bin/env bash
# Configures and builds meeplecam into build/ (ccache when present). Extra args: ninja targets.
#   --sanitize   build into build-asan/ instead, everything with ASan + UBSan (no benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."
"./scripts/install-deps.sh"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
# Paths relative to the checkout in ccache keys, so a fresh clone reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"  # -g builds too (debug info keeps the first path)
dir=build
config=(-DCMAKE_BUILD_TYPE=Release)
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  dir=build-asan
  # -O1 -g1: line tables for the reports, and half the compile time of -O2 -g on 2 cores (the
  # test files themselves at -O0, see meeplecam_test). Unity build: each library's sources
  # compiled in batches, so the heavy headers (OpenCV, Qt, nlohmann/json) are parsed and their
  # templates instantiated once per batch. No benchmarks: no test runs them. No precompiled
  # headers: measured, they save next to nothing here (docs/testing.md, "CI cost").
  config=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DMEEPLECAM_SANITIZE=ON
          -DMEEPLECAM_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON
          # The vision tests tagged [scene] stay out unless MEEPLECAM_SANITIZE_SCENES=ON (docs/testing.md).
          "-DMEEPLECAM_SANITIZE_SCENES=${MEEPLECAM_SANITIZE_SCENES:-OFF}")
fi
cmake -S . -B "$dir" -G Ninja "${config[@]}" >/dev/null
cmake --build "$dir" --parallel "${MEEPLECAM_JOBS:-2}" ${1:+--target "$@"}
