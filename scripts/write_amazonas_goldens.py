# Writes tests/golden/amazonas_*.json from hand-computed expectations (the hand_check text of each golden).
# The numbers here were worked out by hand first; this only formats the JSON.
import json
BOARD = ("Start board (x east, y south; river = row y=0 flowing east):\n"
 "           x=0      x=1        x=2       x=3\n"
 "  y=0     SB0      SB1        SB2       SB3      (SB0 source; SB1 N bank tributary mouth -> river; SB2 N jungle 1 animal;\n"
 "                                                  SB3 N bank village, jungle fragments WR and EL beside it; all S banks jungle)\n"
 "  y=1     SB4      SB5        SB6       SB7      (SB4 jungle 1 animal; SB5 tributary S to a rock; SB6 village S, 1 animal;\n"
 "                                                  SB7 tributary E-S)\n"
 "  River end x=3; land tiles only at x <= end; Amazon tiles at [end+1, 0].\n"
 "  Jungle J0 = SB0 + SB4 + SB5 + SB6 + SB7 outer + SB1[WR,NL] + all S banks (3 animals).\n"
 "  Jungle J2 = SB1[NR,EL] + SB2 N + SB3[WR] (1 animal).\n")
def rec(players, events, finished=True):
    return {"format": "meeplecam-record", "version": 1, "game": "amazonas",
            "players": [{"name": c.capitalize(), "color": c} for c in players],
            "events": [{"type": "tile", "tile": "SB0", "at": [0, 0], "rot": 0}] + events, "finished": finished}
T = lambda p, t, x, y, r: {"type": "tile", "player": p, "tile": t, "at": [x, y], "rot": r}
M = lambda p, x, y, loc: {"type": "meeple", "player": p, "at": [x, y], "loc": loc}
C = lambda p, x, y, loc: {"type": "camp", "player": p, "at": [x, y], "loc": loc}
D = lambda p, t, x, y, r: {"type": "double", "player": p, "tile": t, "at": [x, y], "rot": r}
def ev(phase, feature, points, winners, event=None, **kw):
    d = {"phase": phase, "feature": feature, "points": points, "winners": winners}
    if event is not None: d["event"] = event
    d.update(kw); return d
goldens = {}
goldens["amazonas_01_boats_claimed_joined_and_idle"] = dict(
 title="Boats: a meeple on a tributary with a boat icon, icons joined later (by the other player), the no-placement advance; a tributary ending at a rock and at the Amazon scores 1/tile + 1/fruit",
 hand_check=BOARD +
 "Board after the game:\n"
 "           x=-1        x=0        x=1\n"
 "  y=-1   L08 r270    L02 r0     L05 r0\n"
 "  y=0       .         SB0        SB1\n"
 "  y=1    L25 r0       SB4        SB5\n"
 "  L02 tributary W-E (1 boat); L05 curve W-S (1 boat); L08 r270: tributary E ending at a rock (1 boat, 1 fruit).\n"
 "Sides: L02.S field = SB0.N field; L05.W road = L02.E road; L05.S road = SB1.N tributary mouth; L08.E road = L02.W road;\n"
 "  L25.E field = SB4.W field.\n"
 "Boats (spaces 0..15, 2 players):\n"
 "  e1-e2 red L02 + meeple W: tributary L02 has 1 boat icon -> red 0->1 (at its turn end).\n"
 "  e3 blue L05 joins red's tributary: its 1 icon -> red 1->2; blue placed nothing -> blue 0->1.\n"
 "  e4 red L25, nothing -> red 2->3.\n"
 "  e5 blue L08 closes the W end: its 1 icon joins red's tributary -> red 3->4; blue nothing -> blue 1->2.\n"
 "Scoring e5: tributary L08 (rock) - L02 - L05 - SB1 (river) complete: 4 tiles + 1 fruit = 5 -> red.\n"
 "Final: no open occupied features, no camps. Race (2 players, 6/3): red 4 first = 6; blue 2 is not directly behind (3) -> nothing.\n"
 "Totals: red 5 + 6 = 11, blue 0. Boats red 4, blue 2.",
 record=rec(["red", "blue"], [T("red", "L02", 0, -1, 0), M("red", 0, -1, "W"), T("blue", "L05", 1, -1, 0),
   T("red", "L25", -1, 1, 0), T("blue", "L08", -1, -1, 270)]),
 expect={"scores": {"red": 11, "blue": 0}, "boats": {"red": 4, "blue": 2}, "events": [
   ev("turn", "tributary", 5, ["red"], 5, tile_count=4), ev("final", "river", 6, ["red"])]})
goldens["amazonas_02_amazon_scoring_ties_three_players"] = dict(
 title="Amazon scoring with ties (3 players): shared first and second places score in full; whoever scores nothing advances; a camp on the bank jungle; the race with a three-way tie",
 hand_check=BOARD +
 "Amazon tiles placed at the river's end: A08 [4,0] (2 caimans, 1 piranha), A10 [5,0] (0, 2), A01 [6,0] (1, 0).\n"
 "North-bank jungle east of SB3's village: SB3[EL] + A08 N (1 animal) + A10 N (0) + A01 N (1) = 2 animals, 4 tiles.\n"
 "Boats (3 players, 16 spaces):\n"
 "  e1 red A08, no piece -> red 0->1. Amazon scoring: first red (1) 2+1 = 3; second blue, green (0) tie: 1 piranha each.\n"
 "     Everyone scored.\n"
 "  e2 blue A10, no piece -> blue 0->1. Scoring: first red, blue (1) tie: 0+2 = 2 each; second green (0): 2.\n"
 "  e3 green A01 + camp on its N jungle (no advance). Scoring: first red, blue: 1+0 = 1 each; second green: 0 piranhas\n"
 "     -> scored nothing -> green 0->1.\n"
 "Final: green's camp: 2 animals -> 2. Race (3 players, 6/3): all at space 1 -> all first: 6 each.\n"
 "Totals: red 3+2+1+6 = 12; blue 1+2+1+6 = 10; green 1+2+2+6 = 11.",
 record=rec(["red", "blue", "green"], [T("red", "A08", 4, 0, 0), T("blue", "A10", 5, 0, 0), T("green", "A01", 6, 0, 0),
   C("green", 6, 0, "NL")]),
 expect={"scores": {"red": 12, "blue": 10, "green": 11}, "boats": {"red": 1, "blue": 1, "green": 1}, "events": [
   ev("turn", "amazon", 3, ["red"], 1, tile_count=1), ev("turn", "amazon", 1, ["blue", "green"], 1),
   ev("turn", "amazon", 2, ["red", "blue"], 2), ev("turn", "amazon", 2, ["green"], 2),
   ev("turn", "amazon", 1, ["red", "blue"], 3),
   ev("final", "camp", 2, ["green"], tile_count=4), ev("final", "river", 6, ["red", "blue", "green"])]})
goldens["amazonas_03_two_player_rule"] = dict(
 title="The 2-player rule: second place scores only directly behind the leader, in Amazon scorings and in the race; open villages score 1 per tile",
 hand_check=BOARD +
 "Tiles: A12 [4,0] (1 caiman, 2 piranhas); L12 r180 [0,2] (village S, facing SB4's S jungle with its N side);\n"
 "  L25 [-1,1]; A05 [5,0] (0 caimans, 2 piranhas; S bank village).\n"
 "  e1 red A12, no piece -> red 0->1. Scoring: red first 1+2 = 3; blue at 0 is directly behind (1-1) -> 2 piranhas.\n"
 "  e2-e3 blue L12 + meeple on its village (S): no advance.\n"
 "  e4 red L25, no piece -> red 1->2.\n"
 "  e5-e6 blue A05 + meeple on its S-bank village: no advance. Scoring: red first 0+2 = 2; blue at 0 is 2 behind\n"
 "     -> scores nothing and advances 0->1.\n"
 "Final: blue's open villages L12 (1 tile) = 1 and A05 S (1 tile) = 1. Race: red 2 first = 6; blue 1 directly behind = 3.\n"
 "Totals: red 3 + 2 + 6 = 11; blue 2 + 1 + 1 + 3 = 7.",
 record=rec(["red", "blue"], [T("red", "A12", 4, 0, 0), T("blue", "L12", 0, 2, 180), M("blue", 0, 2, "S"),
   T("red", "L25", -1, 1, 0), T("blue", "A05", 5, 0, 0), M("blue", 5, 0, "S")]),
 expect={"scores": {"red": 11, "blue": 7}, "boats": {"red": 2, "blue": 1}, "events": [
   ev("turn", "amazon", 3, ["red"], 1), ev("turn", "amazon", 2, ["blue"], 1), ev("turn", "amazon", 2, ["red"], 5),
   ev("final", "village", 1, ["blue"], tile_count=1), ev("final", "village", 1, ["blue"], tile_count=1),
   ev("final", "river", 6, ["red"]), ev("final", "river", 3, ["blue"])]})
goldens["amazonas_04_exclaim_and_double"] = dict(
 title="A \"!\" Amazon tile followed at once by a double of the player's choice: two Amazon scorings (the double counts as one tile), the meeple on the double",
 hand_check=BOARD +
 "  e1 red A13 [4,0] (\"!\", 1 caiman, 1 piranha); e2 red double D3 at [5,0] rot 0: D3-1 [5,0] (3 caimans, 1 piranha for the\n"
 "     whole double), D3-2 [6,0] (N bank village). River end 3 -> 4 -> 6; spaces 16 + 1 + 2 = 19.\n"
 "  e3 red meeple on D3-2's village (N): a piece was placed -> no advance.\n"
 "  Turn end: Amazon scoring for A13: both boats at 0 -> both first: 1+1 = 2 each, nobody advances;\n"
 "     then for D3: both first: 3+1 = 4 each.\n"
 "Final: red's open village on D3-2 = 1 tile = 1. Race: both at 0, tied first: 6 each.\n"
 "Totals: red 2 + 4 + 1 + 6 = 13; blue 2 + 4 + 6 = 12.",
 record=rec(["red", "blue"], [T("red", "A13", 4, 0, 0), D("red", "D3", 5, 0, 0), M("red", 6, 0, "N")]),
 expect={"scores": {"red": 13, "blue": 12}, "boats": {"red": 0, "blue": 0}, "events": [
   ev("turn", "amazon", 2, ["red", "blue"], 1, tile_count=1), ev("turn", "amazon", 4, ["red", "blue"], 1, tile_count=2),
   ev("final", "village", 1, ["red"], tile_count=1), ev("final", "river", 6, ["red", "blue"])]})
goldens["amazonas_05_villages_and_shared_camp"] = dict(
 title="A village completed (2/tile + 1/fruit), an open village at the end (1/tile), two camps brought into one jungle share its majority",
 hand_check=BOARD +
 "Board after the game:\n"
 "           x=0        x=1        x=2\n"
 "  y=-1   L01 r0     L04 r0     L25 r0\n"
 "  y=0     SB0        SB1        SB2       SB3\n"
 "  y=1     SB4        SB5        SB6       SB7\n"
 "  y=2    L16 r0       .        L13 r0\n"
 "  e1-e2 red L01 (tributary W-E) + camp on its N jungle JN (0 animals). e3-e4 blue L25 (2 animals) on SB2's N jungle\n"
 "     (joins J2: 1 + 2 = 3 animals) + camp.\n"
 "  e5 red L04 curve W-S: W road = L01.E road, S road = SB1's mouth, E field = L25.W field. Its outer jungle touches\n"
 "     L01.EL (JN), SB1.NR (J2) and L25.W: JN and J2 merge -> one camp each. Red placed nothing -> red 0->1.\n"
 "  e6-e7 blue L13 (village N, 1 fruit) at [2,2] + meeple N: village L13 + SB6's S village complete:\n"
 "     2 tiles x 2 + 1 fruit = 5 -> blue.\n"
 "  e8-e9 red L16 (village W-E) at [0,2] (N jungle on SB4) + meeple W.\n"
 "Final: red open village L16 1 tile = 1. Merged jungle: L01 N 0 + L04 outer 0 + SB1[NR,EL] 0 + SB2 N 1 + SB3[WR] 0 +\n"
 "  L25 2 = 3 animals, 6 tiles; red 1 camp, blue 1 camp -> both 3. Race: red 1 first = 6; blue 0 directly behind = 3.\n"
 "Totals: red 1 + 3 + 6 = 10; blue 5 + 3 + 3 = 11.",
 record=rec(["red", "blue"], [T("red", "L01", 0, -1, 0), C("red", 0, -1, "N"), T("blue", "L25", 2, -1, 0),
   C("blue", 2, -1, "N"), T("red", "L04", 1, -1, 0), T("blue", "L13", 2, 2, 0), M("blue", 2, 2, "N"),
   T("red", "L16", 0, 2, 0), M("red", 0, 2, "W")]),
 expect={"scores": {"red": 10, "blue": 11}, "boats": {"red": 1, "blue": 0}, "events": [
   ev("turn", "village", 5, ["blue"], 6, tile_count=2), ev("final", "village", 1, ["red"], tile_count=1),
   ev("final", "camp", 3, ["red", "blue"], tile_count=6), ev("final", "river", 6, ["red"]),
   ev("final", "river", 3, ["blue"])]})
goldens["amazonas_06_race_five_players"] = dict(
 title="The final river race with 5 players (7/4/1, tied boats share a place) on the 4-5 player board",
 hand_check=BOARD +
 "Board 4-5 players: 8 spaces. Tiles: L25 [-1,1]; L26 [-1,0]; L01 [0,-1] (green meeple W); L25 [-1,2];\n"
 "  L12 r180 [0,2] (black meeple on the village S); L07 [-2,0] (tributary to a rock, S side open).\n"
 "  Sides: L26.E = SB0.W field, L26.S = L25.N field; L25[-1,2].N = L25[-1,1].S; L12.N = SB4.S field, L12.W = L25[-1,2].E field;\n"
 "  L07.E = L26.W field.\n"
 "Boats: red 0->1 (e1, nothing), blue 0->1 (e2), green stays 0 (meeple), yellow 0->1 (e5), black stays 0 (meeple),\n"
 "  red 1->2 (e8, nothing).\n"
 "Final: green open tributary L01 1 tile = 1; black open village L12 1 tile = 1.\n"
 "  Race: space 2 red -> 7; space 1 blue, yellow -> 4 each; space 0 green, black -> 1 each.\n"
 "Totals: red 7, blue 4, yellow 4, green 2, black 2.",
 record=rec(["red", "blue", "green", "yellow", "black"], [T("red", "L25", -1, 1, 0), T("blue", "L26", -1, 0, 0),
   T("green", "L01", 0, -1, 0), M("green", 0, -1, "W"), T("yellow", "L25", -1, 2, 0), T("black", "L12", 0, 2, 180),
   M("black", 0, 2, "S"), T("red", "L07", -2, 0, 0)]),
 expect={"scores": {"red": 7, "blue": 4, "green": 2, "yellow": 4, "black": 2},
   "boats": {"red": 2, "blue": 1, "green": 0, "yellow": 1, "black": 0}, "events": [
   ev("final", "tributary", 1, ["green"], tile_count=1), ev("final", "village", 1, ["black"], tile_count=1),
   ev("final", "river", 7, ["red"]), ev("final", "river", 4, ["blue", "yellow"]), ev("final", "river", 1, ["green", "black"])]})
for name, g in goldens.items():
    out = {"title": g["title"], "hand_check": g["hand_check"], "record": g["record"], "expect": g["expect"]}
    with open("tests/golden/%s.json" % name, "w") as fh:
        json.dump(out, fh, indent=2); fh.write("\n")

g7 = dict(
 title="The final river race with 3 players (6/3: the third boat scores nothing) and an open tributary",
 hand_check=BOARD +
 "Tiles: L25 [-1,1] (red, nothing); L26 [-1,0] (blue, nothing); L01 [0,-1] (green meeple W); L25 [-1,2] (red, nothing).\n"
 "  Sides: L25.E = SB4.W field; L26.E = SB0.W field, L26.S = L25[-1,1].N field; L01.S = SB0.N field;\n"
 "  L25[-1,2].N = L25[-1,1].S field.\n"
 "Boats (16 spaces): red 0->1 (e1), blue 0->1 (e2), green stays 0 (meeple, no boat icons on L01), red 1->2 (e5).\n"
 "Final: green's open tributary L01, 1 tile, 0 fruit = 1. Race (3 players, 6/3): red 2 -> 6; blue 1 -> 3; green 0 -> no prize.\n"
 "Totals: red 6, blue 3, green 1.",
 record=rec(["red", "blue", "green"], [T("red", "L25", -1, 1, 0), T("blue", "L26", -1, 0, 0), T("green", "L01", 0, -1, 0),
   M("green", 0, -1, "W"), T("red", "L25", -1, 2, 0)]),
 expect={"scores": {"red": 6, "blue": 3, "green": 1}, "boats": {"red": 2, "blue": 1, "green": 0}, "events": [
   ev("final", "tributary", 1, ["green"], tile_count=1), ev("final", "river", 6, ["red"]), ev("final", "river", 3, ["blue"])]})
with open("tests/golden/amazonas_07_race_three_players.json", "w") as fh:
    json.dump({k: g7[k] for k in ["title", "hand_check", "record", "expect"]}, fh, indent=2); fh.write("\n")

g8 = dict(
 title="Boat icons joined to a tributary shared by two players advance both (once each); the shared tributary completes in a tie",
 hand_check=BOARD +
 "Board after the game:\n"
 "           x=-1        x=0        x=1\n"
 "  y=-1   L04 r270   L01 r0     L05 r0\n"
 "  y=0    L01 r90      SB0        SB1\n"
 "  y=1    L08 r180     SB4\n"
 "  y=2    L25 r0\n"
 "  L01 r90 at [-1,0]: tributary N-S (E half jungle = SB0.W field). L01 r0 at [0,-1]: W-E (S jungle = SB0.N field).\n"
 "  L04 r270 at [-1,-1]: curve with roads S and E. L05 at [1,-1]: curve W-S (1 boat), S = SB1's mouth.\n"
 "  L08 r180 at [-1,1]: tributary N to a rock (1 boat, 1 fruit); its E side (catalog W, jungle) = SB4.W field.\n"
 "  e1-e2 red L01[-1,0] + meeple N (tributary T1). e3-e4 blue L01[0,-1] + meeple E (T2, separate).\n"
 "  e5 green L04 joins T1 and T2 (no icons): one tributary, red 1 meeple, blue 1. Green nothing -> green 0->1.\n"
 "  e6 red L05: its 1 icon joins the shared tributary -> red 0->1, blue 0->1; red nothing -> red 1->2.\n"
 "  e7 blue L08 closes it: 1 icon -> red 2->3, blue 1->2; blue nothing -> blue 2->3.\n"
 "     Tributary L08 (rock) - L01[-1,0] - L04 - L01[0,-1] - L05 - SB1 (river): 6 tiles + 1 fruit = 7, tie -> red 7, blue 7.\n"
 "  e8 green L25[-1,2] (N = L08's S jungle), nothing -> green 1->2.\n"
 "Final: race (3 players, 6/3): red, blue at 3 tie first -> 6 each; green 2 second -> 3.\n"
 "Totals: red 13, blue 13, green 3.",
 record=rec(["red", "blue", "green"], [T("red", "L01", -1, 0, 90), M("red", -1, 0, "N"), T("blue", "L01", 0, -1, 0),
   M("blue", 0, -1, "E"), T("green", "L04", -1, -1, 270), T("red", "L05", 1, -1, 0), T("blue", "L08", -1, 1, 180),
   T("green", "L25", -1, 2, 0)]),
 expect={"scores": {"red": 13, "blue": 13, "green": 3}, "boats": {"red": 3, "blue": 3, "green": 2}, "events": [
   ev("turn", "tributary", 7, ["red", "blue"], 7, tile_count=6), ev("final", "river", 6, ["red", "blue"]),
   ev("final", "river", 3, ["green"])]})
with open("tests/golden/amazonas_08_shared_tributary_icons.json", "w") as fh:
    json.dump({k: g8[k] for k in ["title", "hand_check", "record", "expect"]}, fh, indent=2); fh.write("\n")
