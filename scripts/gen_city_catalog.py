#!/usr/bin/env python3
"""Writes samples/catalogs/city.json: a PROVISIONAL tile catalog for Carcassonne - The City.

No public per-tile list exists. This catalog only satisfies the known totals: 75 tiles, 64
designs (official copy counts: design 02 and 03 x4, 04 x3, 05, 06 and 49 x2, the rest x1),
32 public and 7 named historic buildings, the three goods, streets only at side middles,
crossings where 3-4 streets meet, market and residential areas on side halves. The designs
are drawn with a fixed seed, so the file is reproducible: python3 scripts/gen_city_catalog.py
"""
import json
import random
import sys

SIDES = "NESW"
PORTS = ["NL", "N", "NR", "EL", "E", "ER", "SL", "S", "SR", "WL", "W", "WR"]
GOODS = ["livestock", "grain", "fish"]
HISTORIC = ["Petit Puits", "Grand Puits", "Tour Carree", "Batiment", "Saint Sernin", "Saint Nazaire",
            "Chateau Comtal"]
COUNTS = {1: 1, 2: 4, 3: 4, 4: 3, 5: 2, 6: 2, 49: 2}


def canonical(streets, halves):
    """Smallest rotation of (street sides, 8 half labels): designs equal under rotation clash."""
    best = None
    for r in range(4):
        s = tuple(streets[(i - r) % 4] for i in range(4))
        h = tuple(halves[(i - 2 * r) % 8] for i in range(8))
        best = min(best, (s, h)) if best else (s, h)
    return best


def build_tile(tid, count, streets, halves):
    """Features from street sides and half labels ('R' residential, or a good)."""
    street_ports = [3 * s + 1 for s in range(4) if streets[s]]
    k = len(street_ports)
    # Port -> label; a side without a street gives its middle to its left half.
    label = {}
    for s in range(4):
        label[3 * s] = halves[2 * s]
        label[3 * s + 2] = halves[2 * s + 1]
        if not streets[s]:
            label[3 * s + 1] = halves[2 * s]
    area_ports = [p for p in range(12) if p not in street_ports]
    # Runs of area ports, cut at streets when 2+ streets cross the tile (a dead end does not cut).
    runs = []
    cur = []
    for p in range(12):
        if p in street_ports:
            if k >= 2:
                if cur:
                    runs.append(cur)
                cur = []
            continue
        cur.append(p)
    if cur:
        runs.append(cur)
    cyclic = k <= 1
    # With 2+ streets the run before the first street and after the last one meet at NL.
    if k >= 2 and len(runs) >= 2 and runs[0][0] == 0 and runs[-1][-1] == 11:
        runs[0] = runs[-1] + runs[0]
        runs.pop()
    feats = []  # (kind, ports, goods)
    adjacency = []  # (feature a, feature b) consecutive in a run
    for run in runs:
        groups = []
        for p in run:
            kind = "residential" if label[p] == "R" else "market"
            if groups and groups[-1][0] == kind:
                groups[-1][1].append(p)
                if kind == "market" and label[p] not in groups[-1][2]:
                    groups[-1][2].append(label[p])  # touching markets of different goods are one market
            else:
                groups.append([kind, [p], [] if kind == "residential" else [label[p]]])
        if cyclic and len(groups) > 1 and groups[0][0] == groups[-1][0]:
            last = groups.pop()
            groups[0][1] = last[1] + groups[0][1]
            for g in last[2]:
                if g not in groups[0][2]:
                    groups[0][2].append(g)
        base = len(feats)
        feats.extend(groups)
        n = len(groups)
        pairs = [(i, i + 1) for i in range(n - 1)]
        if cyclic and n > 2:
            pairs.append((n - 1, 0))
        for a, b in pairs:
            adjacency.append((base + a, base + b))
    features = []
    if k == 1 or k == 2:
        features.append({"kind": "street", "ports": [PORTS[p] for p in street_ports]})
    else:
        for p in street_ports:
            features.append({"kind": "street", "ports": [PORTS[p]]})
    offset = len(features)
    for kind, ports, goods in feats:
        f = {"kind": kind, "ports": [PORTS[p] for p in ports]}
        if kind == "market":
            f["tags"] = sorted(goods)
        features.append(f)
    for a, b in adjacency:
        fa, fb = features[offset + a], features[offset + b]
        if fa["kind"] == fb["kind"]:
            continue
        res, mkt = (offset + a, offset + b) if fa["kind"] == "residential" else (offset + b, offset + a)
        features[res].setdefault("markets", [])
        if mkt not in features[res]["markets"]:
            features[res]["markets"].append(mkt)
    return {"id": tid, "count": count, "features": features}


# Seven fixed designs (ids 01-06 and 49, the ones with several copies but 01) so that tests and
# hand-checked goldens have simple tiles: streets (straight, dead end, crossing), one-sided
# markets of each good and a market crossing the tile. (streets N E S W, halves NL NR EL ER SL SR WL WR)
FIXED = {
    1: ([False] * 4, ["R"] * 8),                                              # all residential
    2: ([True, False, True, False], ["R"] * 8),                               # straight street N-S
    3: ([False, False, True, False], ["R"] * 8),                              # dead end, street S
    4: ([True] * 4, ["R"] * 8),                                               # crossing of 4
    5: ([False] * 4, ["fish", "fish"] + ["R"] * 6),                           # fish market on N
    6: ([False] * 4, ["livestock"] * 2 + ["R"] * 2 + ["livestock"] * 2 + ["R"] * 2),  # livestock N + S
    49: ([False] * 4, ["grain", "grain"] + ["R"] * 6),                        # grain market on N
}


def main():
    rng = random.Random(20040101)
    seen = {canonical(*d) for d in FIXED.values()}
    designs = []
    street_weights = [(0, 8), (1, 10), (2, 22), (3, 14), (4, 10)]
    while len(designs) < 64 - len(FIXED):
        k = rng.choices([w[0] for w in street_weights], [w[1] for w in street_weights])[0]
        sides = rng.sample(range(4), k)
        streets = [s in sides for s in range(4)]
        halves = []
        n_market = rng.choice([0, 0, 1, 2, 2, 3, 4])
        market_halves = set(rng.sample(range(8), n_market))
        good = rng.choice(GOODS)
        for h in range(8):
            if h in market_halves:
                halves.append(good if rng.random() < 0.8 else rng.choice(GOODS))
            else:
                halves.append("R")
        key = canonical(streets, halves)
        if key in seen or all(x == "R" for x in halves) and k == 0:
            continue
        seen.add(key)
        designs.append((streets, halves))
    tiles = []
    random_designs = iter(designs)
    for i in range(1, 65):
        streets, halves = FIXED[i] if i in FIXED else next(random_designs)
        tiles.append(build_tile(f"{i:02d}", COUNTS.get(i, 1), streets, halves))
    # Design 06: one livestock market crossing the tile from N to S between two residential areas.
    tiles[5]["features"] = [
        {"kind": "market", "ports": ["NL", "N", "NR", "SL", "S", "SR"], "tags": ["livestock"]},
        {"kind": "residential", "ports": ["EL", "E", "ER"], "markets": [0]},
        {"kind": "residential", "ports": ["WL", "W", "WR"], "markets": [0]},
    ]
    # Buildings as tile tags, on single-copy designs with a residential area: 7 historic, 32 public.
    singles = [t for t in tiles if t["count"] == 1 and any(f["kind"] == "residential" for f in t["features"])]
    rng.shuffle(singles)
    for name, t in zip(HISTORIC, singles[:7]):
        t["tags"] = ["historic:" + name]
    public_left = 32
    for t in singles[7:]:
        if public_left == 0:
            break
        t.setdefault("tags", []).append("public")
        public_left -= 1
    assert public_left == 0, "not enough single designs for the public buildings"
    doc = {
        "format": "meeplecam-catalog",
        "version": 1,
        "game": "city",
        "set": "city",
        "title": "Carcassonne - The City, 75 tiles (PROVISIONAL: invented designs that only satisfy the known totals)",
        "provisional": True,
        "tiles": tiles,
    }
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/catalogs/city.json"
    with open(out, "w") as fh:
        fh.write("{\n")
        for key in ["format", "version", "game", "set", "title", "provisional"]:
            fh.write(f'  {json.dumps(key)}: {json.dumps(doc[key])},\n')
        fh.write('  "tiles": [\n')
        fh.write(",\n".join("    " + json.dumps(t) for t in tiles))
        fh.write("\n  ]\n}\n")
    total = sum(t["count"] for t in tiles)
    print(f"{len(tiles)} designs, {total} tiles -> {out}")


if __name__ == "__main__":
    main()
