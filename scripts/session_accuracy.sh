#!/usr/bin/env bash
# Tracker accuracy on scripted footage: for each expansion mix and seed, a 12-tile random game
# is rendered as 960x540 footage and tracked; prints each game's line and the totals.
# usage: scripts/session_accuracy.sh [OUT_DIR] [SEEDS...]   (default: build/session_accuracy, seeds 1-6)
#   MEEPLECAM_MIXES="bridges,castles,bazaars" limits the mixes (default: base ferries bridges,castles,bazaars)
#   MEEPLECAM_FOOTAGE_ARGS="--follower-with-tile" adds render-footage options (footage is cached per OUT_DIR)
#   MEEPLECAM_TRACK_ARGS="--no-follower-with-tile" adds track options
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mc=${MEEPLECAM:-$root/build/meeplecam}
out=${1:-$root/build/session_accuracy}
shift || true
seeds=("$@")
[ ${#seeds[@]} -eq 0 ] && seeds=(1 2 3 4 5 6)
mkdir -p "$out"
read -r -a mixes <<< "${MEEPLECAM_MIXES:-base ferries bridges,castles,bazaars}"
read -r -a footage_args <<< "${MEEPLECAM_FOOTAGE_ARGS:-}"
read -r -a track_args <<< "${MEEPLECAM_TRACK_ARGS:-}"
for mix in "${mixes[@]}"; do
  for s in "${seeds[@]}"; do
    n="${mix//,/_}_$s"
    if [ ! -f "$out/$n/truth.json" ]; then
      if [ "$mix" = base ]; then "$mc" random-game --seed "$s" --max-tiles 12 -o "$out/$n.json" > /dev/null
      else "$mc" random-game --seed "$s" --max-tiles 12 --expansions "$mix" -o "$out/$n.json" > /dev/null; fi
      "$mc" render-footage "$out/$n.json" -o "$out/$n" --seed "$s" --size 960x540 ${footage_args[@]+"${footage_args[@]}"} > /dev/null
    fi
    "$mc" track --images "$out/$n" --truth-camera "$out/$n/truth.json" --enter-from-truth ${track_args[@]+"${track_args[@]}"} -o "$out/$n.tracked.json" > "$out/$n.log" 2>&1
    echo "$n: $(grep '^against' "$out/$n.log") | $(grep '^moves' "$out/$n.log") | $(grep '^followers' "$out/$n.log") | $(grep '^ms per frame' "$out/$n.log")$(grep '^tiles committed wrong' "$out/$n.log" | sed 's/^/ | /')"
  done
done | tee "$out/summary.txt"
awk -F'[ ,;()]+' '/moves:/ { for (i = 1; i <= NF; ++i) {
    if ($i == "moves:") v += $(i+1); if ($i == "right" && $(i-1) == "committed") r += $(i+1);
    if ($i == "wrong" && $(i-3) == "committed") w += $(i+1); if ($i == "ambiguous") a += $(i+1); if ($i == "recorded" && $(i-1) == "not") m += $(i+1);
    if ($i == "candidate") p += $(i+2);
    if ($i == "followers:") fs += $(i+1); if ($i == "right" && $(i-1) == "recorded") fr += $(i+1);
    if ($i == "wrong" && $(i-2) == "right" && $(i-3) == "recorded") fw += $(i+1); if ($i == "missed") fm += $(i+1) }
  if ($0 ~ /events equal/) { split($0, q, "truth: "); split(q[2], z, " "); if (z[1] == z[3]) exact++ } ; g++ }
  END { printf "games %d, exact %d; moves %d: committed right %d, wrong %d; ambiguous %d (first right %d); not recorded %d\n", g, exact, v, r, w, a, p, m;
        printf "followers %d: recorded right %d, wrong %d, missed %d\n", fs, fr, fw, fm }' "$out/summary.txt"
