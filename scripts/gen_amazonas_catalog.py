#!/usr/bin/env python3
"""Generates samples/catalogs/amazonas.json, the PROVISIONAL Amazonas catalog.

No public tile list exists for Carcassonne - Amazonas. This catalog satisfies every known
total (65 standard land tiles, 15 Amazon tiles of which 3 carry "!", 4 Amazon doubles, a
2x4 start board, a river mouth) with plausible shapes and icons. See docs/rules/amazonas.md.
Icons are repeated feature/tile tags: "boat" and "fruit" on tributaries (road), "fruit" on
villages (city), "animal" on jungle (field), "caiman"/"piranha" on Amazon tiles.
"""
import json, os

N = ["NL", "N", "NR"]; E = ["EL", "E", "ER"]; S = ["SL", "S", "SR"]; W = ["WL", "W", "WR"]

def f(kind, ports, **tags):
    d = {"kind": kind, "ports": ports}
    t = []
    for name, n in tags.items():
        t += [name] * n
    if t:
        d["tags"] = t
    return d

# Land shapes: name -> function(icons) -> features. icons: dict feature-slot -> tags.
def shape(name, slots):
    return name, slots

tiles = []
def land(id_, count, feats, tags=None):
    t = {"id": id_, "count": count, "features": feats}
    if tags:
        t["tags"] = tags
    tiles.append(t)

# --- 65 standard land tiles ---
# Tributary straight W-E (T1..): jungle north / south.
land("L01", 5, [f("road", ["W", "E"]), f("field", ["WR"] + N + ["EL"]), f("field", ["ER"] + S + ["WL"])])
land("L02", 3, [f("road", ["W", "E"], boat=1), f("field", ["WR"] + N + ["EL"], animal=1), f("field", ["ER"] + S + ["WL"])])
land("L03", 2, [f("road", ["W", "E"], fruit=1), f("field", ["WR"] + N + ["EL"]), f("field", ["ER"] + S + ["WL"], animal=1)])
# Tributary curve W-S.
land("L04", 4, [f("road", ["W", "S"]), f("field", ["SR", "WL"]), f("field", N + E + ["SL", "WR"])])
land("L05", 3, [f("road", ["W", "S"], boat=1), f("field", ["SR", "WL"]), f("field", N + E + ["SL", "WR"], animal=2)])
land("L06", 2, [f("road", ["W", "S"], fruit=1), f("field", ["SR", "WL"], animal=1), f("field", N + E + ["SL", "WR"])])
# Tributary from S ending at a rock.
land("L07", 3, [f("road", ["S"]), f("field", N + E + ["SL", "SR"] + W, animal=1)])
land("L08", 2, [f("road", ["S"], boat=1, fruit=1), f("field", N + E + ["SL", "SR"] + W)])
# Junction of three tributaries (W, E, S).
land("L09", 3, [f("road", ["W"]), f("road", ["E"]), f("road", ["S"]), f("field", ["WR"] + N + ["EL"], animal=1),
                f("field", ["ER", "SL"]), f("field", ["SR", "WL"])])
land("L10", 2, [f("road", ["W"], boat=1), f("road", ["E"]), f("road", ["S"], fruit=1), f("field", ["WR"] + N + ["EL"]),
                f("field", ["ER", "SL"]), f("field", ["SR", "WL"])])
# Junction of four tributaries.
land("L11", 1, [f("road", ["N"]), f("road", ["E"], boat=1), f("road", ["S"]), f("road", ["W"]),
                f("field", ["WR", "NL"]), f("field", ["NR", "EL"], animal=1), f("field", ["ER", "SL"]), f("field", ["SR", "WL"])])
# Village on one side.
land("L12", 6, [f("city", N), f("field", E + S + W, animal=1)])
land("L13", 3, [f("city", N, fruit=1), f("field", E + S + W)])
# Village on two adjacent sides.
land("L14", 3, [f("city", N + E), f("field", S + W, animal=1)])
land("L15", 2, [f("city", N + E, fruit=1), f("field", S + W)])
# Village through the tile (W-E), jungle north and south.
land("L16", 2, [f("city", W + E), f("field", N), f("field", S, animal=1)])
# Two separate villages (N and S).
land("L17", 2, [f("city", N), f("city", S), f("field", E + W, animal=1)])
# Village on three sides.
land("L18", 3, [f("city", N + E + W), f("field", S)])
land("L19", 1, [f("city", N + E + W, fruit=2), f("field", S, animal=1)])
# Village on all four sides.
land("L20", 1, [f("city", N + E + S + W, fruit=1)])
# Village N + tributary W-E.
land("L21", 3, [f("city", N), f("road", ["W", "E"]), f("field", ["WR", "EL"]), f("field", ["ER"] + S + ["WL"], animal=1)])
land("L22", 2, [f("city", N), f("road", ["W", "E"], boat=1), f("field", ["WR", "EL"]), f("field", ["ER"] + S + ["WL"])])
# Village N + tributary curve W-S.
land("L23", 2, [f("city", N), f("road", ["W", "S"]), f("field", ["SR", "WL"]), f("field", E + ["SL", "WR"], animal=1)])
# Village N + tributary from S ending at the village.
land("L24", 2, [f("city", N, fruit=1), f("road", ["S"], boat=1), f("field", E + ["SL"]), f("field", ["SR"] + W)])
# Pure jungle.
land("L25", 2, [f("field", N + E + S + W, animal=2)])
land("L26", 1, [f("field", N + E + S + W, animal=3)])

# --- 15 Amazon tiles: river W-E (tag "amazon"), a north and a south bank ---
RIVER = lambda: f("road", ["W", "E"], amazon=1)
def bank(kind, side, animals=0, fruit=0, boat=0):
    """side 'N' or 'S'; kind jungle | tributary | village."""
    if side == "N":
        left, mid, right = "WR", N, "EL"
    else:
        left, mid, right = "ER", S, "WL"
    if kind == "jungle":
        return [f("field", [left] + mid + [right], animal=animals)]
    if kind == "tributary":
        return [f("road", [mid[1]], boat=boat, fruit=fruit), f("field", [left, mid[0]], animal=animals), f("field", [mid[2], right])]
    if kind == "village":
        return [f("city", mid, fruit=fruit), f("field", [left], animal=animals), f("field", [right])]
    raise ValueError(kind)

amazon = [  # id, north, south, caimans, piranhas, exclaim
    ("A01", ("jungle", 1), ("jungle", 0), 1, 0, False),
    ("A02", ("jungle", 0), ("tributary", 0), 0, 1, False),
    ("A03", ("village", 0), ("jungle", 1), 1, 1, False),
    ("A04", ("tributary", 1), ("jungle", 0), 2, 0, False),
    ("A05", ("jungle", 2), ("village", 0), 0, 2, False),
    ("A06", ("tributary", 0), ("tributary", 0), 1, 1, False),
    ("A07", ("village", 0), ("village", 0), 0, 1, False),
    ("A08", ("jungle", 1), ("jungle", 1), 2, 1, False),
    ("A09", ("tributary", 0), ("village", 1), 1, 0, False),
    ("A10", ("jungle", 0), ("jungle", 2), 0, 2, False),
    ("A11", ("village", 0), ("tributary", 0), 3, 0, False),
    ("A12", ("jungle", 1), ("tributary", 0), 1, 2, False),
    ("A13", ("jungle", 0), ("jungle", 1), 1, 1, True),
    ("A14", ("tributary", 0), ("jungle", 0), 0, 1, True),
    ("A15", ("village", 0), ("jungle", 1), 1, 0, True),
]
for id_, (nk, na), (sk, sa), cai, pir, ex in amazon:
    tags = ["amazon"] + ["caiman"] * cai + ["piranha"] * pir + (["exclaim"] if ex else [])
    land(id_, 1, [RIVER()] + bank(nk, "N", na) + bank(sk, "S", sa), tags)

# --- 4 Amazon doubles: two cells each (halves -1 west, -2 east at rot 0), placed by a "double" event ---
doubles = [  # id, half1 (north, south), half2 (north, south), caimans, piranhas
    ("D1", (("jungle", 1), ("jungle", 0)), (("jungle", 0), ("tributary", 0)), 2, 1),
    ("D2", (("village", 0), ("jungle", 1)), (("jungle", 1), ("jungle", 1)), 1, 2),
    ("D3", (("tributary", 0), ("jungle", 0)), (("village", 0), ("jungle", 2)), 3, 1),
    ("D4", (("jungle", 2), ("village", 0)), (("tributary", 0), ("jungle", 0)), 1, 3),
]
for id_, h1, h2, cai, pir in doubles:
    for k, ((nk, na), (sk, sa)) in enumerate((h1, h2), start=1):
        tags = ["amazon", "amazon-double", "set-aside", "double:" + id_, "half:%d" % k]
        if k == 1:
            tags += ["caiman"] * cai + ["piranha"] * pir
        land("%s-%d" % (id_, k), 1, [RIVER()] + bank(nk, "N", na) + bank(sk, "S", sa), tags)

# --- Start board: 2x4 cells, one tile type per cell (same land art on both sides in this
#     provisional catalog; the sides differ only in river spaces: 16 for 2-3 players, 8 for 4-5).
#     SB0 (the source, the record's start tile) at [0,0]; the module places SB1..SB7.
land("SB0", 1, [f("road", ["E"], amazon=1), f("field", N + ["EL", "ER"] + S + W, animal=1)], ["start-board", "set-aside", "cell:0,0"])
land("SB1", 1, [RIVER()] + bank("tributary", "N", 0) + bank("jungle", "S", 0), ["start-board", "set-aside", "cell:1,0"])
land("SB2", 1, [RIVER()] + bank("jungle", "N", 1) + bank("jungle", "S", 0), ["start-board", "set-aside", "cell:2,0"])
land("SB3", 1, [RIVER()] + bank("village", "N", 0) + bank("jungle", "S", 0), ["start-board", "set-aside", "cell:3,0"])
land("SB4", 1, [f("field", N + E + S + W, animal=1)], ["start-board", "set-aside", "cell:0,1"])
land("SB5", 1, [f("road", ["S"]), f("field", N + E + ["SL", "SR"] + W)], ["start-board", "set-aside", "cell:1,1"])
land("SB6", 1, [f("city", S), f("field", N + E + W, animal=1)], ["start-board", "set-aside", "cell:2,1"])
land("SB7", 1, [f("road", ["E", "S"]), f("field", ["ER", "SL"]), f("field", N + ["EL", "SR"] + W)], ["start-board", "set-aside", "cell:3,1"])
# --- River mouth (final race only; never placed on the board in this engine) ---
land("MOUTH", 1, [f("field", N + E + S + W)], ["mouth", "set-aside"])

doc = {
    "format": "meeplecam-catalog", "version": 1, "game": "amazonas", "set": "amazonas",
    "title": "Carcassonne - Amazonas, PROVISIONAL catalog (no public tile list; totals match the rules)",
    "provisional": True,
    "start_tile": "SB0",
    "tiles": tiles,
}
std = sum(t["count"] for t in tiles if not t.get("tags"))
assert std == 65, std
assert sum(1 for t in tiles if "amazon" in t.get("tags", []) and "set-aside" not in t["tags"]) == 15
out = os.path.join(os.path.dirname(__file__), "..", "samples", "catalogs", "amazonas.json")
with open(out, "w") as fh:
    fh.write("{\n")
    for k in ["format", "version", "game", "set", "title", "provisional", "start_tile"]:
        fh.write("  %s: %s,\n" % (json.dumps(k), json.dumps(doc[k])))
    fh.write('  "tiles": [\n')
    fh.write(",\n".join("    " + json.dumps(t) for t in tiles))
    fh.write("\n  ]\n}\n")
def icons(tag, pred=lambda t: True):
    n = 0
    for t in tiles:
        if not pred(t): continue
        c = t["count"]
        n += c * sum(ft.get("tags", []).count(tag) for ft in t["features"]) + c * t.get("tags", []).count(tag)
    return n
land_only = lambda t: not t.get("tags")
print("standard", std, "boats", icons("boat", land_only), "fruit", icons("fruit", land_only), "animals", icons("animal", land_only))
print("amazon caimans", icons("caiman"), "piranhas", icons("piranha"))
