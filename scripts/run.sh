#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs meeplecam on the bundled sample match.
# Extra arguments replace the default command, e.g. scripts/run.sh legal FILE --tile V
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh meeplecam
if (($# > 0)); then
  exec ./build/meeplecam "$@"
fi
exec ./build/meeplecam score samples/matches/sample-2p.json
