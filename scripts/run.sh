#!/usr/bin/env bash
# The main job: installs what is missing, builds, and opens the desktop assistant (live mode).
# With a camera at /dev/video0 it watches the camera; without one it plays the bundled sample
# footage (a whole rendered match of samples/matches/sample-2p.json, generated once into
# build/sample-footage) through the tracker. With no display the same pipeline runs headless
# and prints the recorded match and its score sheet.
# Extra arguments replace the default command, e.g. scripts/run.sh app --record FILE (review mode).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh meeplecam
if (($# > 0)); then
  exec ./build/meeplecam "$@"
fi
if [[ -e /dev/video0 ]]; then
  exec ./build/meeplecam app --camera 0
fi
footage=build/sample-footage
if [[ ! -f $footage/truth.json ]]; then
  echo "Rendering the sample footage once into $footage ..."
  ./build/meeplecam render-footage samples/matches/sample-2p.json -o "$footage" --seed 1 >/dev/null
fi
exec ./build/meeplecam app --images "$footage" --truth-camera "$footage/truth.json" --fps 8 \
  --journal build/sample-footage.journal --resume no
