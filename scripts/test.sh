#!/usr/bin/env bash
# Installs what is missing, builds everything, and runs the whole test suite (ctest, 2 jobs).
#   --sanitize   the same suite built with ASan + UBSan in build-asan/ (soaks scaled by
#                MEEPLECAM_SOAK_FACTOR, default 0.05 there, ~500 games per rule set: the
#                sanitizers make games ~10x slower and the plain run plays the full count;
#                the looped-session memory test by MEEPLECAM_MEMORY_LAPS, default 2 there);
#                MEEPLECAM_SANITIZE_TARGETS="t1 t2" builds only those targets (then pass ctest
#                filters such as -L engine so only their tests run); the vision tests tagged
#                [scene] (full rendered scenes) run there only with MEEPLECAM_SANITIZE_SCENES=ON
# Extra args go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  # shellcheck disable=SC2086
  ./scripts/build.sh --sanitize ${MEEPLECAM_SANITIZE_TARGETS:-}
  root="$PWD"
  # The first report fails the test; leaks are reported at exit (suppressions: see the file).
  export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1"
  export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  export MEEPLECAM_SOAK_FACTOR="${MEEPLECAM_SOAK_FACTOR:-0.05}"
  export MEEPLECAM_MEMORY_LAPS="${MEEPLECAM_MEMORY_LAPS:-2}"
  cd build-asan
else
  ./scripts/build.sh
  cd build
fi
ctest --output-on-failure --parallel "${MEEPLECAM_JOBS:-2}" "$@"
