#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang-14, build-fuzz/) and runs each for N seconds, one after
# another, seeded from the committed corpus fuzz/corpus/<harness>/ (read only). New inputs go
# to a work folder (default build-fuzz/fuzz-work/<harness>, kept between runs); a crash, leak,
# timeout or sanitizer report stops the script with a non-zero exit and the input's path.
#
#   scripts/fuzz.sh [--seconds N] [HARNESS...]    (default: 30 seconds each, every harness)
#   scripts/fuzz.sh --build-only [HARNESS...]     (build the harnesses, run nothing; CI times it)
#
# Env: MEEPLECAM_FUZZ_WORK (work folder), MEEPLECAM_JOBS (build jobs, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=30
build_only=0
harnesses=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) harnesses+=("$1"); shift ;;
  esac
done
if ((${#harnesses[@]} == 0)); then
  for f in fuzz/*_fuzz.cpp; do h="${f#fuzz/}"; harnesses+=("${h%_fuzz.cpp}"); done
fi

./scripts/install-deps.sh clang-14 libclang-rt-14-dev
command -v clang++-14 >/dev/null || { echo "fuzz.sh: clang++-14 is needed (apt-get install clang-14)" >&2; exit 1; }
if ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: libFuzzer is missing (apt-get install libclang-rt-14-dev)" >&2; exit 1
fi
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"  # a fresh clone reuses the cache
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
  -DMEEPLECAM_FUZZ=ON -DMEEPLECAM_BUILD_TESTS=OFF -DMEEPLECAM_BUILD_BENCH=OFF -DMEEPLECAM_BUILD_UI=OFF >/dev/null
targets=()
for h in "${harnesses[@]}"; do targets+=("${h}_fuzz"); done
cmake --build build-fuzz --parallel "${MEEPLECAM_JOBS:-2}" --target "${targets[@]}"
((build_only)) && exit 0

work="${MEEPLECAM_FUZZ_WORK:-build-fuzz/fuzz-work}"
# Largest input per harness: the biggest seed fits (catalogs are tens of KB).
declare -A max_len=([record]=16384 [catalog]=32768 [image]=32768 [calibration]=8192)
# halt_on_error: the first report is the finding; detect_leaks: leaks count as findings.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
for h in "${harnesses[@]}"; do
  mkdir -p "$work/$h" "$work/artifacts"
  log="$work/$h.log"
  echo "fuzz.sh: $h for ${seconds}s (log $log)"
  dict=()
  [[ -f "fuzz/$h.dict" ]] && dict=(-dict="fuzz/$h.dict")
  if ! build-fuzz/fuzz/${h}_fuzz "${dict[@]}" -max_total_time="$seconds" -max_len="${max_len[$h]}" -timeout=20 \
        -rss_limit_mb=2048 -malloc_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$work/artifacts/$h-" "$work/$h" "fuzz/corpus/$h" >"$log" 2>&1; then
    echo "fuzz.sh: $h FOUND A PROBLEM; the report:" >&2
    grep -v '^#' "$log" | tail -40 >&2
    status=1
    continue
  fi
  grep -E "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|DONE" "$log" | tr '\n' ' '
  echo "corpus: $(ls "$work/$h" | wc -l) new + $(ls "fuzz/corpus/$h" | wc -l) seeds"
done
exit $status
