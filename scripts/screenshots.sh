#!/usr/bin/env bash
# Regenerates the screenshots in docs/screenshots/ from the current build (offscreen).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh meeplecam ui_tests
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"  # no user settings leak into the pictures
app=./build/meeplecam
# A hand-checked golden game (its record part): the whole game, and its first 16 events.
python3 - "$tmp" <<'PY'
import json, sys
rec = json.load(open("tests/golden/15_long_mixed_game.json"))["record"]
json.dump(rec, open(sys.argv[1] + "/review.json", "w"))
mid = dict(rec, events=rec["events"][:16], finished=False)
json.dump(mid, open(sys.argv[1] + "/mid.json", "w"))
PY
# Camera frames: a few renders of the sample footage when it exists, else of a plain table.
footage=build/sample-footage
if [[ ! -f $footage/truth.json ]]; then
  "$app" render-footage samples/matches/sample-2p.json -o "$footage" --seed 1 >/dev/null
fi
# Three still frames from the middle of the sample footage, and the match as far as they show it.
mkdir -p "$tmp/frames"
python3 - "$tmp" "$footage" <<'PY'
import json, os, shutil, sys
tmp, footage = sys.argv[1], sys.argv[2]
truth = json.load(open(os.path.join(footage, "truth.json")))
still = [f for f in truth["frames"][300:] if f["phase"] == "still"][:3]
for f in still:
    shutil.copy(os.path.join(footage, f["file"]), os.path.join(tmp, "frames"))
rec = truth["record"]
json.dump(dict(rec, events=rec["events"][:still[0]["events_shown"]], finished=False), open(tmp + "/footage-mid.json", "w"))
PY

"$app" app --record "$tmp/review.json" --screenshot docs/screenshots/review.png
# Live: the sample footage's camera and the match it shows at frame 300, the drawn tile V with
# its legal placements.
"$app" app --setup "$tmp/footage-mid.json" --images "$tmp/frames" --truth-camera "$footage/truth.json" --journal "$tmp/live.journal" \
  --resume no --drawn-tile V --screenshot docs/screenshots/live.png --frames 2
"$app" app --setup "$tmp/review.json" --no-camera --journal "$tmp/final.journal" --resume no \
  --screenshot docs/screenshots/final.png --screen final
"$app" app --setup "$tmp/mid.json" --no-camera --journal "$tmp/new.journal" --resume no \
  --screenshot docs/screenshots/new-game.png --screen new-game
# Camera lost: the frames folder disappears under a running app.
"$app" app --setup "$tmp/footage-mid.json" --images "$tmp/frames" --truth-camera "$footage/truth.json" \
  --journal "$tmp/lost.journal" --resume no \
  --screenshot docs/screenshots/camera-lost.png --screen camera-lost --frames 2
# Live with a calibration file instead of the footage's camera: the footage's true plane (table mm
# in the renderer's own frame) and the first frames, where the start tile lies alone: the app
# finds it and draws the board over the frames.
mkdir -p "$tmp/first"
python3 - "$tmp" "$footage" <<'PY'
import json, os, shutil, sys
tmp, footage = sys.argv[1], sys.argv[2]
truth = json.load(open(os.path.join(footage, "truth.json")))
for f in truth["frames"][:12]:
    shutil.copy(os.path.join(footage, f["file"]), os.path.join(tmp, "first"))
def image_size(path):  # width, height of a JPEG (its SOF segment) or PNG (IHDR)
    data = open(path, "rb").read()
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    i = 2
    while i < len(data):
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    raise SystemExit("cannot read the size of " + path)
w, h = image_size(os.path.join(footage, truth["frames"][0]["file"]))
json.dump({"format": "meeplecam-calibration", "version": 1,
           "table": {"source": "tiles", "image_size": [w, h], "table_to_image": truth["table_to_image"], "rms_error_px": 0}},
          open(tmp + "/calibration.json", "w"))
rec = truth["record"]
json.dump(dict(rec, events=rec["events"][:1], finished=False), open(tmp + "/start.json", "w"))
PY
"$app" app --setup "$tmp/start.json" --images "$tmp/first" --calibration "$tmp/calibration.json" --journal "$tmp/cal.journal" \
  --resume no --fps 5 --screenshot docs/screenshots/live-calibrated.png --frames 10
# The calibration wizard's four pages, driven with rendered photos of a known camera (the
# ui test renders them; see tests/ui/calibration_wizard_test.cpp).
MEEPLECAM_SCREENSHOTS="$PWD/docs/screenshots" ./build/tests/ui_tests "the calibration wizard measures a known camera*"
# Photo mode: a rendered finished table (seed 6, 16 tiles, a follower wherever one could go), read
# and scored; the screen shows the photo with the reading drawn over it, the board and the final score.
"$app" random-game --seed 6 --players 2 --followers 1 --max-tiles 16 -o "$tmp/table.json" >/dev/null
"$app" render "$tmp/table.json" -o "$tmp/table.png" --seed 6 --preset easy --style classic --surface plain >/dev/null
"$app" app --photo "$tmp/table.png" --players red,blue --screenshot docs/screenshots/photo.png
# Photo mode corrected: the same table with a tile and two followers hidden from the reading, added
# back by the players through the window (the ui test drives it; see tests/ui/photo_window_test.cpp).
MEEPLECAM_SCREENSHOTS="$PWD/docs/screenshots" ./build/tests/ui_tests "photo mode: the players add the tile and followers the reader missed*"
# Keep them small.
if command -v pngquant >/dev/null; then
  for f in docs/screenshots/*.png; do pngquant --force --skip-if-larger --output "$f" -- "$f" || true; done
fi
ls -la docs/screenshots/
