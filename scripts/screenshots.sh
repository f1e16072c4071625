#!/usr/bin/env bash
# Regenerates the screenshots in docs/screenshots/ from the current build (offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh meeplecam
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Review mode on a hand-checked golden game (its record part).
python3 - "$tmp/review.json" <<'PY'
import json, sys
json.dump(json.load(open("tests/golden/15_long_mixed_game.json"))["record"], open(sys.argv[1], "w"))
PY
QT_QPA_PLATFORM=offscreen ./build/meeplecam app --record "$tmp/review.json" --screenshot docs/screenshots/review.png
