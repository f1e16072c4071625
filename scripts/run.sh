#!/usr/bin/env bash
# The main job: installs what is missing, builds, and opens the desktop app (review mode) on the
# bundled sample match; with no display it replays the match headless and prints the score sheet.
# Extra arguments replace the default command, e.g. scripts/run.sh legal FILE --tile V
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh meeplecam
if (($# > 0)); then
  exec ./build/meeplecam "$@"
fi
exec ./build/meeplecam app --record samples/matches/sample-2p.json
