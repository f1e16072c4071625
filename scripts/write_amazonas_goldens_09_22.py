#!/usr/bin/env python3
"""Writes tests/golden/amazonas_09..22_*.json (run from anywhere).

Each golden's hand_check (board, rule citations, every boat move and score) was worked out by hand
from the rule text BEFORE the engine was run; this script only formats the records and the
expected values, which are the hand-computed numbers. See docs/rules/amazonas.md (Golden replays).
"""
import json, os
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "golden")
START = """Start board (x east, y south; river = row y=0 flowing east):
           x=0      x=1        x=2       x=3
  y=0     SB0      SB1        SB2       SB3      (SB0 source; SB1 N bank tributary mouth -> river; SB2 N jungle 1 animal;
                                                  SB3 N bank village, jungle fragments WR and EL beside it; all S banks jungle)
  y=1     SB4      SB5        SB6       SB7      (SB4 jungle 1 animal; SB5 tributary S to a rock; SB6 village S, 1 animal;
                                                  SB7 tributary E-S)
  River end x=3; land tiles only at x <= end; Amazon tiles at [end+1, 0].
  Jungle J0 = SB0 + SB4 + SB5 + SB6 + SB7 outer + SB1[WR,NL] + all S banks (3 animals).
  Jungle J2 = SB1[NR,EL] + SB2 N + SB3[WR] (1 animal).
"""
class G:
    def __init__(self, players):
        self.players = players
        self.events = [{"type": "tile", "tile": "SB0", "at": [0, 0], "rot": 0}]
    def tile(self, p, t, x, y, rot=0):
        self.events.append({"type": "tile", "player": p, "tile": t, "at": [x, y], "rot": rot}); return len(self.events) - 1
    def meeple(self, p, x, y, loc):
        self.events.append({"type": "meeple", "player": p, "at": [x, y], "loc": loc})
    def camp(self, p, x, y, loc):
        self.events.append({"type": "camp", "player": p, "at": [x, y], "loc": loc})
    def double(self, p, d, x, rot=0):
        self.events.append({"type": "double", "player": p, "tile": d, "at": [x, 0], "rot": rot})
def write(name, title, hand, g, scores, boats, events, finished=True):
    rec = {"format": "meeplecam-record", "version": 1, "game": "amazonas",
           "players": [{"name": c.capitalize(), "color": c} for c in g.players],
           "events": g.events, "finished": finished}
    doc = {"title": title, "hand_check": START + hand.strip("\n"), "record": rec,
           "expect": {"scores": scores, "boats": boats, "events": events}}
    if name in MOVES:
        doc["expect"]["boat_moves"] = [{"event": e, "player": p, "from": f, "to": t} for e, p, f, t in MOVES[name]]
    with open(os.path.join(OUT, name + ".json"), "w") as fh:
        json.dump(doc, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
def ev(feature, points, winners, event=None, tiles=None, phase="turn"):
    d = {"phase": phase, "feature": feature, "points": points, "winners": winners}
    if event is not None: d["event"] = event
    if tiles is not None: d["tile_count"] = tiles
    return d
def fin(feature, points, winners, tiles=None):
    return ev(feature, points, winners, None, tiles, "final")

# Boat moves (event of the turn, player, from, to), in order, transcribed from the hand narratives.
MOVES = {}
# Transcribed from each file's hand_check narrative (step order within a turn: icons joined by the
# placed tile, then the claim / no-placement advance, then Amazon scoring advances).
MOVES["amazonas_10_tributary_majority_and_icons_once_per_player"] = ([
    (5, "green", 0, 1), (6, "red", 0, 1), (8, "blue", 0, 1),
    (9, "red", 1, 2), (9, "blue", 1, 2), (9, "green", 1, 2), (10, "red", 2, 3), (11, "blue", 2, 3)])
MOVES["amazonas_11_claimed_icons_on_the_whole_tributary"] = ([
    (1, "red", 0, 1), (2, "blue", 0, 1), (3, "red", 1, 4), (5, "red", 4, 5), (5, "blue", 1, 2),
    (6, "red", 5, 6), (7, "blue", 2, 3)])
MOVES["amazonas_15_boat_stops_on_the_last_space"] = ([
    (1, "red", 0, 1), (3, "red", 1, 2), (3, "blue", 0, 1), (4, "red", 2, 3), (4, "green", 0, 1),
    (5, "red", 3, 4), (5, "yellow", 0, 1), (6, "red", 4, 5), (6, "red", 5, 6), (7, "red", 6, 7), (7, "blue", 1, 2),
    (8, "red", 7, 7), (8, "green", 1, 2), (9, "yellow", 1, 2), (10, "red", 7, 8), (11, "blue", 2, 3)])
MOVES["amazonas_17_exclaim_turned_double_and_advance_between_scorings"] = ([
    (1, "red", 0, 1), (4, "green", 0, 1), (4, "blue", 0, 1)])
MOVES["amazonas_18_two_player_rule_variations"] = ([
    (1, "red", 0, 1), (1, "blue", 0, 1), (4, "red", 1, 2), (5, "blue", 1, 2), (6, "red", 2, 3),
    (9, "red", 3, 4), (9, "blue", 2, 3)])
# Transcribed from each file's hand_check narrative.
MOVES["amazonas_09_land_tiles_at_the_new_river_end"] = ([
    (1, "red", 0, 1), (4, "red", 1, 2), (5, "blue", 0, 1), (7, "red", 2, 3)])
MOVES["amazonas_12_junction_village_end_and_completing_meeples"] = ([
    (5, "blue", 0, 1), (5, "red", 0, 1), (6, "blue", 1, 2)])
MOVES["amazonas_13_camp_majority_and_empty_jungle"] = ([(7, "blue", 0, 1), (8, "red", 0, 1)])
MOVES["amazonas_14_four_players_second_place_tie_and_race"] = ([
    (1, "red", 0, 1), (2, "blue", 0, 1), (7, "red", 1, 2), (10, "green", 0, 1), (13, "red", 2, 3), (14, "blue", 1, 2)])
MOVES["amazonas_16_five_players_amazon_scorings"] = ([
    (1, "red", 0, 1), (2, "blue", 0, 1), (5, "yellow", 0, 1), (8, "red", 1, 2), (8, "green", 0, 1), (8, "black", 0, 1)])
MOVES["amazonas_19_village_tie_and_open_village_fruit"] = ([(5, "red", 0, 1), (6, "blue", 0, 1), (9, "blue", 1, 2)])
MOVES["amazonas_20_tributary_loop_and_enclosed_jungle"] = ([(5, "red", 0, 1), (5, "green", 0, 1), (6, "red", 1, 2)])
MOVES["amazonas_21_tributary_from_amazon_to_amazon"] = ([
    (1, "red", 0, 1), (1, "blue", 0, 1), (6, "blue", 1, 3), (8, "blue", 3, 4), (8, "red", 1, 2)])
MOVES["amazonas_22_five_players_exclaim_camp_on_double_and_tied_race"] = ([
    (1, "red", 0, 1), (2, "blue", 0, 1), (8, "black", 0, 1), (10, "red", 1, 2), (11, "blue", 1, 2)])

# --- golden 09 --------------------------------------------------------------------------------
g = G(["red", "blue"])
e1 = g.tile("red", "A02", 4, 0)
e2 = g.tile("blue", "L04", 4, 1, 90); g.meeple("blue", 4, 1, "N")
e4 = g.tile("red", "L07", 3, 2, 180)
e5 = g.tile("blue", "A05", 5, 0); g.meeple("blue", 5, 0, "S")
e7 = g.tile("red", "L12", 5, 1)
assert (e1, e2, e4, e5, e7) == (1, 2, 4, 5, 7)
hand = """
Board after the game (2 players, 16 spaces + 1 per Amazon tile):
           x=3        x=4          x=5
  y=0      SB3      A02 r0       A05 r0        (Amazon tiles extend the river: end 3 -> 4 -> 5)
  y=1      SB7      L04 r90      L12 r0
  y=2     L07 r180     .           .
  A02: S bank tributary (road S into the Amazon), 0 caimans, 1 piranha. A05: S bank village, 0 caimans, 2 piranhas.
  L04 r90: tributary N-W (curve). L07 r180: tributary N ending at a rock. L12 r0: village N, jungle E/S/W.
Rule "nu ai niciodata posibilitatea de a plasa cartonase de teren in fata gurii Fluviului Amazon" (land never beyond
  the river's end) + "Memento: ori de cate ori plasezi un cartonas de Amazon, extinzi si zona in care pot fi plasate
  cartonase de teren": [4,1] is legal only after A02 (end 4), [5,1] only after A05 (end 5).
Sides: L04r90.N road = A02.S road; L04r90.W road = SB7.E road; L07r180.N road = SB7.S road; L12.N village = A05.S
  village; L12.W jungle = L04r90.E jungle.
e1 red A02, places nothing -> red 0->1 ("daca nu plasezi o piesa de lemn ... inaintezi barca 1 spatiu").
   Amazon scoring (1 piranha): red first 0+1 = 1; blue at 0 is directly behind (2-player rule) -> 1 piranha = 1.
   Both scored -> nobody advances.
e2-e3 blue L04 r90 at [4,1] + meeple N: tributary A02(Amazon) - L04 - SB7 - open at SB7.S. No boat icons.
e4 red L07 r180 at [3,2] closes SB7.S with a rock: tributary ends at the Amazon and at a rock -> complete
   ("Capatul unui afluent este inchis atunci cand ... intalneste o stanca, Fluviul Amazon"):
   A02 + L04 + SB7 + L07 = 4 tiles x 1 + 0 fruit = 4 -> blue. Red nothing -> red 1->2.
e5-e6 blue A05 + meeple on its S-bank village (a piece: no advance). Amazon scoring (0 caimans, 2 piranhas):
   red first (2) 0+2 = 2; blue at 0 is 2 behind -> 2-player rule: no points, advances 0->1.
e7 red L12 at [5,1] (legal: x 5 <= end 5): village A05.S + L12.N closed on every side by jungle/the Amazon ->
   complete: 2 tiles x 2 + 0 fruit = 4 -> blue. Red nothing -> red 2->3.
Final: no meeples left on the board, no camps. Race (2 players, 6/3): red 3 first = 6; blue 1 is not directly
   behind (2) -> nothing.
Totals: red 1 + 2 + 6 = 9; blue 1 + 4 + 4 = 9. Boats red 3, blue 1.
"""
write("amazonas_09_land_tiles_at_the_new_river_end", 
      "The land-tile limit moves with the river's end: tiles south of new Amazon tiles close a tributary running from the Amazon to a rock and a village on an Amazon bank",
      hand, g, {"red": 9, "blue": 9}, {"red": 3, "blue": 1},
      [ev("amazon", 1, ["red"], 1, 1), ev("amazon", 1, ["blue"], 1), ev("tributary", 4, ["blue"], 4, 4),
       ev("amazon", 2, ["red"], 5), ev("village", 4, ["blue"], 7, 2), fin("river", 6, ["red"])])

# --- golden 10 --------------------------------------------------------------------------------
g = G(["red", "blue", "green"])
assert g.tile("red", "L01", 0, -1) == 1; g.meeple("red", 0, -1, "W")
assert g.tile("blue", "L01", -1, 1, 90) == 3; g.meeple("blue", -1, 1, "N")
assert g.tile("green", "L04", -1, -1, 270) == 5
assert g.tile("red", "L02", 0, 2) == 6; g.meeple("red", 0, 2, "W")
assert g.tile("blue", "L01", -1, 0, 90) == 8
assert g.tile("green", "L05", -1, 2, 180) == 9
assert g.tile("red", "L06", 1, -1) == 10
assert g.tile("blue", "L04", 1, 2, 90) == 11
hand = """
Board after the game (3 players, 16 spaces):
           x=-1        x=0        x=1
  y=-1   L04 r270    L01 r0     L06 r0          (L06 r0 curve W-S into SB1's tributary mouth, 1 fruit)
  y=0    L01 r90      SB0        SB1
  y=1    L01 r90      SB4        SB5             (SB5: tributary S from a rock)
  y=2    L05 r180    L02 r0     L04 r90         (L05 curve N-E, 1 boat; L02 W-E, 1 boat; L04 r90 curve N-W)
  One tributary in the end: SB1(Amazon) - L06 - L01[0,-1] - L04[-1,-1] - L01[-1,0] - L01[-1,1] - L05[-1,2] -
  L02[0,2] - L04[1,2] - SB5(rock).
Sides: L01[0,-1].S jungle = SB0.N; L01r90[-1,1].E jungle = SB4.W; L04r270[-1,-1] roads S,E; L02[0,2].N jungle = SB4.S;
  L01r90[-1,0] N = L04r270.S road, S = L01r90[-1,1].N road; L05r180 roads N (= L01r90[-1,1].S), E (= L02.W);
  L06.S = SB1.N road, L06.W = L01[0,-1].E road; L04r90[1,2] N = SB5.S road, W = L02.E road.
e1-e2 red L01 [0,-1] + meeple W: tributary T1 (no icons, no advance).
e3-e4 blue L01 r90 [-1,1] + meeple N: tributary T2, separate (no icons).
e5 green L04 r270 [-1,-1] extends T1 to the south-west; nothing placed -> green 0->1.
e6-e7 red L02 [0,2] + meeple W: separate tributary T3 with 1 boat icon -> red 0->1 ("plasarea unui meeple pe un
   afluent cu una sau mai multe pictograme barci": 1 per icon).
e8 blue L01 r90 [-1,0] joins T1 and T2: red 1 meeple, blue 1 meeple; no icons on the tile. Blue nothing -> 0->1.
e9 green L05 r180 [-1,2] joins T3 too: now red 2 meeples, blue 1. Its boat icon is joined to a tributary with
   red's and blue's meeples -> red +1 (1->2, once, however many red meeples: "Numarul de meeplesi ... nu are niciun
   impact asupra acestei mutari"), blue +1 (1->2). Green nothing -> green 1->2.
e10 red L06 [1,-1]: the north-east end reaches the Amazon through SB1 (no icons). Red nothing -> red 2->3.
e11 blue L04 r90 [1,2]: the last end reaches SB5's rock -> complete: tiles SB1, L06, L01[0,-1], L04[-1,-1],
   L01[-1,0], L01[-1,1], L05, L02, L04[1,2], SB5 = 10 x 1 + 1 fruit (L06) = 11. Majority ("numai jucatorul care are
   cei mai multi meeplesi ... obtine punctele"): red 2 > blue 1 -> red 11, blue nothing. Blue nothing -> blue 2->3.
Final: no meeples left, no camps. Race (3 players, 6/3): red 3 and blue 3 tie first -> 6 each; green 2 second -> 3.
Totals: red 11 + 6 = 17; blue 6; green 3. Boats red 3, blue 3, green 2.
"""
write("amazonas_10_tributary_majority_and_icons_once_per_player",
      "Three claimed tributaries joined into one (red 2 meeples, blue 1): a joined boat icon moves each player once however many meeples they have; only the majority scores the completed tributary",
      hand, g, {"red": 17, "blue": 6, "green": 3}, {"red": 3, "blue": 3, "green": 2},
      [ev("tributary", 11, ["red"], 11, 10), fin("river", 6, ["red", "blue"]), fin("river", 3, ["green"])])

# --- golden 11 --------------------------------------------------------------------------------
g = G(["red", "blue"])
assert g.tile("red", "L02", 0, -1) == 1
assert g.tile("blue", "L02", -1, -1) == 2
assert g.tile("red", "L05", 1, -1) == 3; g.meeple("red", 1, -1, "W")
assert g.tile("blue", "L08", -2, -1, 270) == 5
assert g.tile("red", "L25", -1, 0) == 6
assert g.tile("blue", "L08", 1, 2, 180) == 7; g.meeple("blue", 1, 2, "N")
hand = """
Board after the game (2 players, 16 spaces):
           x=-2        x=-1       x=0        x=1
  y=-1   L08 r270    L02 r0     L02 r0     L05 r0       (L08 r270: tributary E from a rock, 1 boat, 1 fruit;
  y=0       .        L25 r0      SB0        SB1          L02: W-E, 1 boat each; L05: curve W-S, 1 boat)
  y=1                            SB4        SB5          (SB5: tributary S from a rock)
  y=2                                     L08 r180      (tributary N ending at a rock, 1 boat, 1 fruit)
Sides: L02[0,-1].S jungle = SB0.N; L02[-1,-1].E road = L02[0,-1].W road; L05.S road = SB1.N (to the Amazon),
  L05.W road = L02[0,-1].E road; L08r270.E road = L02[-1,-1].W road; L25.N = L02[-1,-1].S jungle, L25.E = SB0.W;
  L08r180.N road = SB5.S road.
e1 red L02 [0,-1], nothing -> red 0->1. e2 blue L02 [-1,-1] (joins it), nothing -> blue 0->1. Nobody has a meeple
   there, so the icons move nobody yet.
e3-e4 red L05 [1,-1] + meeple W: the tributary SB1 - L05 - L02 - L02 carries 3 boat icons (L05, 2 x L02) ->
   red 1->4 ("un meeple pe un afluent cu o pictograma barca ... 1 spatiu pentru fiecare pictograma barca": every
   icon on the tributary, including those placed earlier by others).
e5 blue L08 r270 [-2,-1]: its icon is joined to red's tributary -> red 4->5 ("conectat (de tine sau alt jucator)");
   blue nothing -> blue 1->2. The tributary ends at a rock and at the Amazon -> complete: L08, L02, L02, L05, SB1 =
   5 tiles + 1 fruit (L08) = 6 -> red.
e6 red L25 [-1,0], nothing -> red 5->6.
e7-e8 blue L08 r180 [1,2] + meeple N on the tributary this very tile completes (SB5 rock - L08 rock): the boat icon
   moves blue first (step 2, before the scoring of step 3) -> blue 2->3; then it scores 2 tiles + 1 fruit = 3 -> blue.
Final: nothing open with a meeple, no camps. Race (2 players): red 6 first = 6; blue 3 is not directly behind -> 0.
Totals: red 6 + 6 = 12; blue 3. Boats red 6, blue 3.
"""
write("amazonas_11_claimed_icons_on_the_whole_tributary",
      "A meeple placed on a tributary moves its boat 1 per icon on the whole tributary (icons placed earlier by others too); a meeple on a tributary its own tile completes moves the boat and scores in the same turn",
      hand, g, {"red": 12, "blue": 3}, {"red": 6, "blue": 3},
      [ev("tributary", 6, ["red"], 5, 5), ev("tributary", 3, ["blue"], 7, 2), fin("river", 6, ["red"])])

# --- golden 12 --------------------------------------------------------------------------------
g = G(["red", "blue"])
assert g.tile("red", "L04", 1, -1, 270) == 1; g.meeple("red", 1, -1, "S")
assert g.tile("blue", "L21", 3, -1, 180) == 3; g.meeple("blue", 3, -1, "W")
assert g.tile("red", "L10", 2, -1, 180) == 5
assert g.tile("blue", "L24", 2, -2) == 6; g.meeple("blue", 2, -2, "S")
assert g.tile("red", "L13", 2, -3, 180) == 8; g.meeple("red", 2, -3, "S")
assert g.tile("blue", "L06", 3, -2, 180) == 10; g.meeple("blue", 3, -2, "N")
hand = """
Board after the game (2 players, 16 spaces):
           x=1         x=2          x=3
  y=-3      .        L13 r180        .          (village S, 1 fruit)
  y=-2      .        L24 r0       L06 r180      (L24: village N with 1 fruit, tributary S ending at the village, 1 boat;
  y=-1   L04 r270    L10 r180     L21 r180       L06 r180: tributary E-N, 1 fruit)
  y=0      SB1         SB2          SB3
  L10 r180 is a junction: arms W (no icon), E (1 boat), N (1 fruit); jungle S. L04 r270: curve S-E.
  L21 r180: village S + tributary W-E.
Sides: L04r270.S road = SB1.N road (the Amazon); L21r180.S village = SB3.N village; L10r180.W road = L04r270.E road,
  L10r180.E road = L21r180.W road, L10r180.S jungle = SB2.N; L24.S road = L10r180.N road; L13r180.S village = L24.N
  village; L06r180.W jungle = L24.E, L06r180.S jungle = L21r180.N.
e1-e2 red L04 r270 + meeple S: tributary SB1 - L04, open E. No icons.
e3-e4 blue L21 r180 + meeple W: tributary L21 (W-E, open both ends). Its village closes SB3's village (2 tiles, no
   meeple -> no score event).
e5 red L10 r180: a junction ends the tributaries that meet it ("Capatul unui afluent este inchis atunci cand
   acesta intalneste o intersectie"). W arm: SB1 - L04 - L10 is complete: 3 tiles x 1 + 0 fruit = 3 -> red.
   E arm (1 boat icon) joins blue's tributary -> blue 0->1; the icon is on the E arm only, red's arm has none.
   Red nothing -> red 0->1.
e6-e7 blue L24 + meeple S: the N arm of the junction (1 fruit) + L24's tributary, which ends at L24's village ->
   complete (junction + village). Icons on it: 1 (L24) -> blue 1->2 (step 2), then it scores 2 tiles + 1 fruit = 3.
e8-e9 red L13 r180 + meeple on its village, which this tile completes (allowed as in the base game; only The City
   forbids it): L24.N + L13.S surrounded by jungle = 2 tiles x 2 + 2 fruit (L24, L13) = 6 -> red.
e10-e11 blue L06 r180 + meeple N: new open tributary (1 fruit, no boat icon).
Final (open = 1/tile + 1/fruit): blue's L10 E arm + L21 = 2 tiles + 0 fruit = 2; blue's L06 = 1 tile + 1 fruit = 2.
   Race (2 players): blue 2 first = 6; red 1 directly behind = 3.
Totals: red 3 + 6 + 3 = 12; blue 3 + 2 + 2 + 6 = 13. Boats red 1, blue 2.
"""
write("amazonas_12_junction_village_end_and_completing_meeples",
      "A junction ends tributaries (one complete at once) and its boat icon moves only the player on that arm; a tributary ending at a village; a meeple on a village its own tile completes; open tributaries with fruit",
      hand, g, {"red": 12, "blue": 13}, {"red": 1, "blue": 2},
      [ev("tributary", 3, ["red"], 5, 3), ev("tributary", 3, ["blue"], 6, 2), ev("village", 6, ["red"], 8, 2),
       fin("tributary", 2, ["blue"], 2), fin("tributary", 2, ["blue"], 1),
       fin("river", 6, ["blue"]), fin("river", 3, ["red"])])

# --- golden 13 --------------------------------------------------------------------------------
g = G(["red", "blue"])
assert g.tile("red", "L25", 2, -1) == 1; g.camp("red", 2, -1, "N")
assert g.tile("blue", "L26", 0, -1) == 3; g.camp("blue", 0, -1, "N")
assert g.tile("red", "L01", 2, -2) == 5; g.camp("red", 2, -2, "N")
assert g.tile("blue", "L07", 1, -1) == 7
assert g.tile("red", "L07", 1, -2, 270) == 8
assert g.tile("blue", "A03", 4, 0) == 9; g.camp("blue", 4, 0, "WR")
hand = """
Board after the game (2 players, 16 spaces):
           x=0        x=1          x=2         x=3       x=4
  y=-2      .       L07 r270     L01 r0         .          .       (L07 r270: tributary E from a rock, 1 animal;
  y=-1   L26 r0     L07 r0       L25 r0         .          .        L01: tributary W-E, jungles N and S, 0 animals)
  y=0      SB0        SB1          SB2         SB3      A03 r0     (A03: N bank village with jungle fragments WR
  y=1      SB4        SB5          SB6         SB7                   and EL, S jungle 1 animal; 1 caiman, 1 piranha)
  L25 2 animals, L26 3 animals, L07 r0 (tributary S from a rock) 1 animal.
Sides: L25.S = SB2.N jungle (J2); L26.S = SB0.N (J0); L01.S jungle = L25.N; L07.S road = SB1.N road, L07.W = L26.E,
  L07.E = L25.W; L07r270.E road = L01.W road, L07r270.S = L07.N jungle; A03.W river = SB3.E.
e1-e2 red L25 + camp: jungle J2 + L25. e3-e4 blue L26 + camp: jungle J0 + L26 (separate: SB1's tributary splits them).
e5-e6 red L01 [2,-2] + camp on its N jungle (a third, separate jungle: L01's tributary splits it from L25).
e7 blue L07 [1,-1]: closes SB1's tributary (no meeple, no score) and its jungle touches SB1[WR,NL] (J0), SB1[NR,EL]
   (J2), L26 and L25 -> red's first camp and blue's camp now share one jungle. Blue nothing -> blue 0->1.
e8 red L07 r270 [1,-2]: its jungle wraps round the rock and touches both L01 jungles (EL = L01.WR, ER = L01.WL) and
   L07[1,-1] -> red's second camp joins too: red 2 camps, blue 1. Red nothing -> red 0->1.
e9-e10 blue A03 + camp on jungle fragment WR, which touches only SB3[EL]: a jungle of 2 tiles and 0 animals.
   Amazon scoring (1 caiman, 1 piranha): red and blue tie first at 1 -> 2 each; nobody advances.
Final ("fiecare animal din jungla taberei tale iti va da 1 punct"; majority as for meeples, "Aceeasi regula se
   aplica taberelor din jungla"):
   Big jungle: J0 (SB0 1, SB4 1, SB6 1) + J2 (SB2 N 1) + L25 2 + L26 3 + L07[1,-1] 1 + L01 both jungles 0 +
   L07r270 1 + A03 S bank 1 (A03.WL = SB3.ER) = 12 animals on 14 tiles (SB0..SB7, [0,-1], [1,-1], [2,-1], [2,-2],
   [1,-2], [4,0]). Camps red 2, blue 1 -> red 12 only.
   Small jungle SB3[EL] + A03[WR]: 0 animals -> blue's camp scores 0 (an event with 0 points).
   Race: red 1, blue 1 tie first -> 6 each.
Totals: red 2 + 12 + 6 = 20; blue 2 + 0 + 6 = 8. Boats red 1, blue 1.
"""
write("amazonas_13_camp_majority_and_empty_jungle",
      "Three camps brought into one jungle: the player with 2 camps takes all its animals, the one with 1 camp nothing; a camp in a jungle with no animal scores 0",
      hand, g, {"red": 20, "blue": 8}, {"red": 1, "blue": 1},
      [ev("amazon", 2, ["red", "blue"], 9, 1), fin("camp", 12, ["red"], 14), fin("camp", 0, ["blue"], 2),
       fin("river", 6, ["red", "blue"])])

# --- golden 14 --------------------------------------------------------------------------------
g = G(["red", "blue", "green", "yellow"])
assert g.tile("red", "A12", 4, 0) == 1
assert g.tile("blue", "L25", -1, 0) == 2
assert g.tile("green", "L01", 0, -1) == 3; g.meeple("green", 0, -1, "W")
assert g.tile("yellow", "L12", 0, 2, 180) == 5; g.meeple("yellow", 0, 2, "S")
assert g.tile("red", "L26", -1, 1) == 7
assert g.tile("blue", "L13", 2, 2) == 8; g.meeple("blue", 2, 2, "N")
assert g.tile("green", "L25", -1, 2) == 10
assert g.tile("yellow", "L01", 0, -2) == 11; g.meeple("yellow", 0, -2, "W")
assert g.tile("red", "L07", 1, 2, 180) == 13
assert g.tile("blue", "L07", 3, 2, 180) == 14
hand = """
4 players: the start board's 4-5 player side has 8 river spaces (0..7), + 1 per Amazon tile.
Board after the game:
           x=-1       x=0        x=1        x=2        x=3        x=4
  y=-2      .       L01 r0       .          .          .          .       (yellow meeple, tributary W-E)
  y=-1      .       L01 r0       .          .          .          .       (green meeple, tributary W-E)
  y=0    L25 r0      SB0        SB1        SB2        SB3      A12 r0     (A12: 1 caiman, 2 piranhas)
  y=1    L26 r0      SB4        SB5        SB6        SB7
  y=2    L25 r0    L12 r180   L07 r180    L13 r0    L07 r180              (L12 r180: village S, yellow meeple;
                                                                           L13: village N + 1 fruit, blue meeple)
Sides: L25[-1,0].E = SB0.W; L01[0,-1].S = SB0.N; L12r180.N jungle = SB4.S; L26.E = SB4.W, L26.N = L25.S;
  L13.N village = SB6.S village; L25[-1,2].N = L26.S, .E = L12r180.W; L01[0,-2].S = L01[0,-1].N jungle;
  L07r180[1,2].N road = SB5.S; L07r180[3,2].N road = SB7.S (SB7's E end stays open).
e1 red A12, nothing -> red 0->1. Amazon scoring: red first 1+2 = 3; blue, green, yellow tie second at 0 ->
   2 piranhas each ("jucatorii situati in remiza incaseaza toate punctele"). Everyone scored -> nobody advances.
e2 blue nothing -> 1. e3-e4 green meeple (no icons) -> 0. e5-e6 yellow meeple on a village -> 0.
e7 red nothing -> 2. e8-e9 blue L13 + meeple: village SB6.S + L13.N complete: 2 tiles x 2 + 1 fruit = 5 -> blue.
e10 green nothing -> 1. e11-e12 yellow meeple (no icons) -> 0.
e13 red L07 closes SB5's tributary (no meeple), nothing -> 3. e14 blue L07 on SB7.S, nothing -> 2.
Final: green open tributary L01[0,-1] 1 tile = 1; yellow open village L12 1 tile x 1 = 1; yellow open tributary
   L01[0,-2] 1 tile = 1.
   Race (4 players: 7/4/1): red 3 = 7; blue 2 = 4; green 1 = 1; yellow 0 is fourth -> nothing.
Totals: red 3 + 7 = 10; blue 2 + 5 + 4 = 11; green 2 + 1 + 1 = 4; yellow 2 + 1 + 1 = 4.
Boats red 3, blue 2, green 1, yellow 0.
"""
write("amazonas_14_four_players_second_place_tie_and_race",
      "Four players on the 8-space side: a three-way tie for second at an Amazon scoring, and the 7/4/1 race where the fourth boat scores nothing",
      hand, g, {"red": 10, "blue": 11, "green": 4, "yellow": 4}, {"red": 3, "blue": 2, "green": 1, "yellow": 0},
      [ev("amazon", 3, ["red"], 1, 1), ev("amazon", 2, ["blue", "green", "yellow"], 1),
       ev("village", 5, ["blue"], 8, 2),
       fin("tributary", 1, ["green"], 1), fin("village", 1, ["yellow"], 1), fin("tributary", 1, ["yellow"], 1),
       fin("river", 7, ["red"]), fin("river", 4, ["blue"]), fin("river", 1, ["green"])])

# --- golden 15 --------------------------------------------------------------------------------
g = G(["red", "blue", "green", "yellow"])
assert g.tile("red", "L05", 1, -1) == 1; g.meeple("red", 1, -1, "W")
assert g.tile("blue", "L02", 0, -1) == 3
assert g.tile("green", "L02", -1, -1) == 4
assert g.tile("yellow", "L02", -2, -1) == 5
assert g.tile("red", "L22", -3, -1) == 6
assert g.tile("blue", "L05", -4, -1, 180) == 7
assert g.tile("green", "L08", -4, -2) == 8
assert g.tile("yellow", "A10", 4, 0) == 9
assert g.tile("red", "L25", -1, 0) == 10
assert g.tile("blue", "L25", -1, 1) == 11
hand = """
4 players: 8 river spaces (0..7) on the start board, + 1 per Amazon tile.
Board after the game:
           x=-4       x=-3       x=-2       x=-1       x=0        x=1      ...   x=4
  y=-2   L08 r0       .          .          .          .          .                     (tributary S from a rock: 1 boat, 1 fruit)
  y=-1   L05 r180   L22 r0     L02 r0     L02 r0     L02 r0     L05 r0                  (boat icons: L05 1, L22 1, L02 1 each)
  y=0       .         .          .        L25 r0      SB0        SB1     ...  A10 r0    (A10: 0 caimans, 2 piranhas)
  y=1                                     L25 r0      SB4
  L05 r0: curve W-S into SB1's mouth; L05 r180: curve E-N; L22: village N (no meeple) + tributary W-E.
Sides: L05[1,-1].S road = SB1.N; each L02.E road = the next tile's W road; L22.E road = L02[-2,-1].W;
  L05r180.E road = L22.W; L08.S road = L05r180.N road; L25[-1,0].N = L02[-1,-1].S jungle, .E = SB0.W.
e1-e2 red L05 + meeple W: 1 icon on the tributary -> red 0->1.
e3 blue L02: its icon joins red's tributary -> red 1->2; blue nothing -> 0->1.
e4 green L02: red 2->3; green 0->1.   e5 yellow L02: red 3->4; yellow 0->1.
e6 red L22: icon -> red 4->5; red placed nothing -> 5->6.
e7 blue L05 r180: icon -> red 6->7 (the last space); blue 1->2.
e8 green L08: icon -> red would go to 8, but "Daca ar trebui sa inaintezi dincolo de ultimul spatiu ... pur si
   simplu opreste-te pe ultimul spatiu" -> red stays 7. Green nothing -> 1->2.
   The tributary now ends at a rock (L08) and at the Amazon (SB1) -> complete: L08, L05r180, L22, 3 x L02, L05, SB1
   = 8 tiles + 1 fruit = 9 -> red.
e9 yellow A10: "fiecare cartonas de Amazon adauga 1 spatiu" -> 9 spaces (last 8). Yellow nothing -> 1->2.
   Amazon scoring (0 caimans, 2 piranhas): red first (7) = 2; blue, green, yellow tie second (2) = 2 each.
   Nobody advances.
e10 red L25, nothing -> red 7->8 (the new last space). e11 blue L25, nothing -> 2->3.
Final: no open features with meeples, no camps. Race (7/4/1): red 8 = 7; blue 3 = 4; green, yellow 2 = 1 each.
Totals: red 9 + 2 + 7 = 18; blue 2 + 4 = 6; green 2 + 1 = 3; yellow 2 + 1 = 3. Boats red 8, blue 3, green 2, yellow 2.
"""
write("amazonas_15_boat_stops_on_the_last_space",
      "Four players, 8 river spaces: joined icons push a boat past the last space (it stops there), a new Amazon tile adds a space and the boat moves on",
      hand, g, {"red": 18, "blue": 6, "green": 3, "yellow": 3}, {"red": 8, "blue": 3, "green": 2, "yellow": 2},
      [ev("tributary", 9, ["red"], 8, 8), ev("amazon", 2, ["red"], 9, 1), ev("amazon", 2, ["blue", "green", "yellow"], 9),
       fin("river", 7, ["red"]), fin("river", 4, ["blue"]), fin("river", 1, ["green", "yellow"])])

# --- golden 16 --------------------------------------------------------------------------------
g = G(["red", "blue", "green", "yellow", "black"])
assert g.tile("red", "L25", -1, 0) == 1
assert g.tile("blue", "L25", -1, 1) == 2
assert g.tile("green", "L01", 0, -1) == 3; g.meeple("green", 0, -1, "W")
assert g.tile("yellow", "L26", -2, 0) == 5
assert g.tile("black", "A08", 4, 0) == 6; g.camp("black", 4, 0, "N")
assert g.tile("red", "A12", 5, 0) == 8
assert g.tile("blue", "L12", 0, 2, 180) == 9; g.meeple("blue", 0, 2, "S")
assert g.tile("green", "A05", 6, 0) == 11; g.meeple("green", 6, 0, "S")
hand = """
5 players: 8 river spaces (0..7) + 1 per Amazon tile.
Board after the game:
           x=-2       x=-1       x=0       x=1..3          x=4        x=5        x=6
  y=-1      .          .       L01 r0        .              .          .          .       (green meeple)
  y=0    L26 r0     L25 r0      SB0      SB1 SB2 SB3     A08 r0     A12 r0     A05 r0
  y=1       .       L25 r0      SB4      SB5 SB6 SB7
  y=2                         L12 r180                                                    (blue meeple, village S)
  A08: N jungle 1 animal (black camp), 2 caimans, 1 piranha. A12: N jungle 1 animal, S tributary; 1 caiman, 2 piranhas.
  A05: N jungle 2 animals, S village (green meeple); 0 caimans, 2 piranhas.
Sides: L25[-1,0].E = SB0.W; L25[-1,1].N = L25[-1,0].S, .E = SB4.W; L01.S = SB0.N; L26.E = L25[-1,0].W;
  L12r180.N jungle = SB4.S; A08.WR = SB3.EL; A12.WR = A08.EL; A05.WR = A12.EL (the north-bank jungles chain).
e1 red nothing -> 1. e2 blue nothing -> 1. e3-e4 green meeple -> 0. e5 yellow nothing -> 1.
e6-e7 black A08 + camp on its N jungle -> 0. Amazon scoring (2 caimans, 1 piranha): red, blue, yellow tie first (1)
   -> 3 each; green, black tie second (0) -> 1 each. Everyone scored.
e8 red A12, nothing -> red 1->2. Amazon scoring (1 caiman, 2 piranhas): red first (2) = 3; blue, yellow second (1)
   = 2 each; green and black (0) are third: no points -> each advances 0->1 ("toti jucatorii care nu au incasat
   niciun punct isi inainteaza barca 1 spatiu").
e9-e10 blue meeple on L12's village -> stays 1.
e11-e12 green A05 + meeple on its S-bank village -> stays 1. Amazon scoring (0 caimans, 2 piranhas): red first (2)
   = 2; blue, yellow, green, black tie second (1) = 2 each. Nobody advances.
Final: green open tributary L01 1 tile = 1; blue open village L12 1 tile = 1; green open village A05 S 1 tile = 1;
   black's camp: SB3[EL] 0 + A08 N 1 + A12 N 1 + A05 N 2 = 4 animals on 4 tiles = 4.
   Race (7/4/1): red 2 = 7; blue, yellow, green, black tie at 1 = 4 each; no boat further back, so no 1-point place.
Totals: red 3+3+2+7 = 15; blue 3+2+2+1+4 = 12; green 1+0+2+1+1+4 = 9; yellow 3+2+2+4 = 11; black 1+0+2+4+4 = 11.
Boats red 2, all others 1.
"""
write("amazonas_16_five_players_amazon_scorings",
      "Five players: Amazon scorings with three- and four-way ties, the third place scores nothing and advances; a camp on the chained north banks; a race with a four-way second place",
      hand, g, {"red": 15, "blue": 12, "green": 9, "yellow": 11, "black": 11},
      {"red": 2, "blue": 1, "green": 1, "yellow": 1, "black": 1},
      [ev("amazon", 3, ["red", "blue", "yellow"], 6, 1), ev("amazon", 1, ["green", "black"], 6),
       ev("amazon", 3, ["red"], 8), ev("amazon", 2, ["blue", "yellow"], 8),
       ev("amazon", 2, ["red"], 11), ev("amazon", 2, ["blue", "yellow", "green", "black"], 11),
       fin("tributary", 1, ["green"], 1), fin("village", 1, ["blue"], 1), fin("village", 1, ["green"], 1),
       fin("camp", 4, ["black"], 4), fin("river", 7, ["red"]), fin("river", 4, ["blue", "yellow", "green", "black"])])

# --- golden 17 --------------------------------------------------------------------------------
g = G(["red", "blue", "green"])
assert g.tile("red", "L25", -1, 0) == 1
assert g.tile("blue", "L01", 0, -1) == 2; g.meeple("blue", 0, -1, "W")
assert g.tile("green", "A15", 4, 0) == 4; g.double("green", "D4", 5, 180)
assert g.tile("red", "L12", 6, -1, 180) == 6; g.meeple("red", 6, -1, "S")
assert g.tile("blue", "L07", 5, 1, 180) == 8; g.meeple("blue", 5, 1, "N")
hand = """
Board after the game (3 players, 16 spaces + 1 + 2):
           x=-1      x=0       x=1..3        x=4         x=5          x=6
  y=-1      .       L01 r0       .            .           .         L12 r180     (blue meeple; red meeple, village S)
  y=0    L25 r0      SB0    SB1 SB2 SB3    A15 r0    D4-2 r180    D4-1 r180
  y=1               SB4     SB5 SB6 SB7                L07 r180                  (blue meeple, tributary N to a rock)
  A15 ("!"): 1 caiman, 0 piranhas. Double D4 (1 caiman, 3 piranhas for the whole double, "Nota 2"), laid turned
  (rot 180): D4-2 first at [5,0] with its tributary now on the S bank, D4-1 at [6,0] with its village now on the N bank.
  River end 3 -> 4 (A15) -> 6 (double, 2 spaces).
Sides: L25.E = SB0.W; L01.S = SB0.N; L12r180.S village = D4-1.N village (rot 180); L07r180.N road = D4-2.S road.
e1 red nothing -> red 0->1. e2-e3 blue meeple -> stays 0.
e4-e5 green A15 ("!") and at once double D4 ("Mai intai plaseaza cartonasul-!, imediat urmat de un cartonas-dublu").
   Green places nothing -> green 0->1 (step 2 comes before the scoring).
   Amazon scoring for A15 (1 caiman, 0 piranhas): red and green tie first (1) -> 1 each; blue second (0) scores
   0 piranhas = nothing -> advances 0->1.
   Amazon scoring for D4 (the double counts as one tile: 1 caiman + 3 piranhas): all three boats are now at 1 ->
   all first -> 4 each. (Had blue not advanced after the first scoring, it would have been second with 3.)
e6-e7 red L12 r180 at [6,-1] (legal: x 6 <= end 6 after the double) + meeple on the village it completes:
   D4-1.N + L12.S, surrounded by jungle and the Amazon = 2 tiles x 2 = 4 -> red.
e8-e9 blue L07 r180 at [5,1] (x 5 <= 6) + meeple: tributary from the Amazon (D4-2) to a rock, complete:
   2 tiles + 0 fruit = 2 -> blue. No boat icons.
Final: blue's open tributary L01 1 tile = 1. Race (3 players): all three at 1 -> tie first -> 6 each.
Totals: red 1 + 4 + 4 + 6 = 15; blue 4 + 2 + 1 + 6 = 13; green 1 + 4 + 6 = 11. Boats 1, 1, 1.
"""
write("amazonas_17_exclaim_turned_double_and_advance_between_scorings",
      "A \"!\" tile and a turned double (rot 180) with 3 players: the boat that scored nothing at the \"!\" scoring advances before the double's scoring; land tiles beside the double",
      hand, g, {"red": 15, "blue": 13, "green": 11}, {"red": 1, "blue": 1, "green": 1},
      [ev("amazon", 1, ["red", "green"], 4, 1), ev("amazon", 4, ["red", "blue", "green"], 4, 2),
       ev("village", 4, ["red"], 6, 2), ev("tributary", 2, ["blue"], 8, 2),
       fin("tributary", 1, ["blue"], 1), fin("river", 6, ["red", "blue", "green"])])

# --- golden 18 --------------------------------------------------------------------------------
g = G(["red", "blue"])
assert g.tile("red", "A01", 4, 0) == 1
assert g.tile("blue", "A04", 5, 0) == 2; g.meeple("blue", 5, 0, "N")
assert g.tile("red", "L25", -1, 0) == 4
assert g.tile("blue", "A06", 6, 0) == 5
assert g.tile("red", "L25", -1, 1) == 6
assert g.tile("blue", "A03", 7, 0) == 7; g.meeple("blue", 7, 0, "N")
assert g.tile("red", "A10", 8, 0) == 9
hand = """
Board after the game (2 players, 16 spaces + 1 per Amazon tile):
           x=-1      x=0     x=1..3        x=4      x=5      x=6      x=7      x=8
  y=0    L25 r0      SB0   SB1 SB2 SB3    A01      A04      A06      A03      A10      (all rot 0)
  y=1    L25 r0      SB4   SB5 SB6 SB7
  Caimans/piranhas: A01 1/0, A04 2/0 (N bank tributary, blue meeple), A06 1/1, A03 1/1 (N bank village, blue
  meeple), A10 0/2.
2-player rule: "Jucatorul pe locul doi incaseaza punctele pentru locul doi numai atunci cand barca sa este pe
  spatiul direct in spatele locului intai. Atunci cand barca sa este si mai departe, al doilea jucator nu incaseaza
  niciun punct si inainteaza barca sa 1 spatiu".
e1 red A01, nothing -> red 0->1. Scoring: red first 1+0 = 1; blue (0) is directly behind but A01 has 0 piranhas ->
   blue scored nothing -> advances 0->1.
e2-e3 blue A04 + meeple on its N-bank tributary -> blue stays 1. Scoring: red and blue tie first (1) -> 2+0 = 2 each.
e4 red L25, nothing -> red 1->2.
e5 blue A06, nothing -> blue 1->2. Scoring: tie first (2) -> 1+1 = 2 each.
e6 red L25, nothing -> red 2->3.
e7-e8 blue A03 + meeple on its N-bank village -> blue stays 2. Scoring: red first (3) = 1+1 = 2; blue at 2 is
   directly behind (3 - 1) -> 1 piranha = 1.
e9 red A10, nothing -> red 3->4. Scoring: red first (4) = 0+2 = 2; blue at 2 is two behind -> nothing, advances 2->3.
Final: blue's open tributary on A04 (1 tile, 0 fruit) = 1; blue's open village on A03 (1 tile) = 1.
   Race: red 4 first = 6; blue 3 directly behind = 3.
Totals: red 1 + 2 + 2 + 2 + 2 + 6 = 15; blue 2 + 2 + 1 + 1 + 1 + 3 = 10. Boats red 4, blue 3.
"""
write("amazonas_18_two_player_rule_variations",
      "2 players, Amazon tile after Amazon tile: second directly behind with 0 piranhas advances, ties for first, second directly behind scores, second two behind advances; race with the second directly behind",
      hand, g, {"red": 15, "blue": 10}, {"red": 4, "blue": 3},
      [ev("amazon", 1, ["red"], 1, 1), ev("amazon", 2, ["red", "blue"], 2), ev("amazon", 2, ["red", "blue"], 5),
       ev("amazon", 2, ["red"], 7), ev("amazon", 1, ["blue"], 7), ev("amazon", 2, ["red"], 9),
       fin("tributary", 1, ["blue"], 1), fin("village", 1, ["blue"], 1),
       fin("river", 6, ["red"]), fin("river", 3, ["blue"])])

# --- golden 19 --------------------------------------------------------------------------------
g = G(["red", "blue"])
assert g.tile("red", "L16", 2, 2, 90) == 1; g.meeple("red", 2, 2, "N")
assert g.tile("blue", "L24", 1, 2, 180) == 3; g.meeple("blue", 1, 2, "S")
assert g.tile("red", "L14", 1, 3) == 5
assert g.tile("blue", "L14", 2, 3, 270) == 6
assert g.tile("red", "L19", 0, -1) == 7; g.meeple("red", 0, -1, "N")
assert g.tile("blue", "L20", -1, -1) == 9
hand = """
Board after the game (2 players, 16 spaces):
           x=-1       x=0        x=1         x=2
  y=-1   L20 r0     L19 r0        .           .          (L20: village on all 4 sides, 1 fruit; L19: village N/E/W, 2 fruit)
  y=0       .        SB0         SB1         SB2
  y=1       .        SB4         SB5         SB6          (SB5 tributary S from a rock; SB6 village S)
  y=2       .         .       L24 r180    L16 r90        (L24 r180: tributary N ending at its village S, 1 boat,
  y=3       .         .       L14 r0      L14 r270        village 1 fruit; L16 r90: village N-S)
  L14 r0: village N+E; L14 r270: village W+N.
Sides: L16r90.N village = SB6.S village; L24r180.N road = SB5.S road, L24r180.E jungle = L16r90.W jungle;
  L14[1,3].N village = L24r180.S village; L14r270.W village = L14[1,3].E, L14r270.N village = L16r90.S;
  L19.S jungle = SB0.N; L20.E village = L19.W village.
e1-e2 red L16 r90 + meeple N: village SB6 + L16, open S.
e3-e4 blue L24 r180 + meeple on its village S (a separate village, open S). The tile also closes SB5's tributary
   (rock - village, no meeple: no score; its boat icon moves nobody since no meeple is on it).
e5 red L14 [1,3]: extends blue's village east, open at [2,3]. Red nothing -> red 0->1.
e6 blue L14 r270 [2,3]: joins both villages and closes the last open side -> complete ("inconjurat de jungla si/sau
   Fluviul Amazon si nu exista niciun spatiu gol"): SB6, L16, L24, L14, L14 = 5 tiles x 2 + 1 fruit (L24) = 11.
   Red 1 meeple, blue 1 -> tie: both score 11 ("In cazul unei remize, toti jucatorii ... incaseaza puncte depline").
   Blue nothing -> blue 0->1.
e7-e8 red L19 + meeple on its village (open N, E, W).
e9 blue L20 joins red's village (occupied: no meeple for blue); blue nothing -> blue 1->2.
Final: red's open village L19 + L20: "numai cate 1 punct pentru fiecare cartonas si cate 1 punct pentru fiecare
   pictograma fructe" = 2 tiles + 3 fruit = 5 -> red.
   Race: blue 2 first = 6; red 1 directly behind = 3.
Totals: red 11 + 5 + 3 = 19; blue 11 + 6 = 17. Boats red 1, blue 2.
"""
write("amazonas_19_village_tie_and_open_village_fruit",
      "Two claimed villages joined and completed score in full for both (tie); an open village with fruit scores 1/tile + 1/fruit at the end",
      hand, g, {"red": 19, "blue": 17}, {"red": 1, "blue": 2},
      [ev("village", 11, ["red", "blue"], 6, 5), fin("village", 5, ["red"], 2),
       fin("river", 6, ["blue"]), fin("river", 3, ["red"])])

# --- golden 20 --------------------------------------------------------------------------------
g = G(["red", "blue", "green"])
assert g.tile("red", "L04", 0, -1, 90) == 1; g.meeple("red", 0, -1, "N")
assert g.tile("blue", "L06", -1, -1, 180) == 3; g.camp("blue", -1, -1, "NR")
assert g.tile("green", "L05", 0, -2) == 5
assert g.tile("red", "L04", -1, -2, 270) == 6
hand = """
Board after the game (3 players, 16 spaces):
           x=-1        x=0
  y=-2   L04 r270    L05 r0        (L04 r270: curve S-E; L05: curve W-S, 1 boat icon)
  y=-1   L06 r180    L04 r90       (L06 r180: curve E-N, 1 fruit, inner corner jungle 1 animal; L04 r90: curve N-W)
  y=0       .         SB0
  The four curves close a ring: tributary loop L04r90 - L06r180 - L04r270 - L05 - back to L04r90. Inside the ring,
  the four inner corner jungles (L04r90[WR,NL], L06r180[NR,EL], L04r270[ER,SL], L05[SR,WL]) form one enclosed
  jungle with 1 animal (L06's corner).
Sides: L04r90.S jungle = SB0.N; L06r180.E road = L04r90.W road; L05.S road = L04r90.N road; L04r270.S road =
  L06r180.N road, L04r270.E road = L05.W road.
e1-e2 red L04 r90 + meeple N: tributary open at both ends. No icons.
e3-e4 blue L06 r180 (joins the tributary) + camp on its inner corner jungle (NR).
e5 green L05: its boat icon joins red's tributary -> red 0->1; green nothing -> green 0->1.
e6 red L04 r270 closes the ring: "formeaza o bucla din sine insusi" -> complete: 4 tiles x 1 + 1 fruit (L06) = 5 ->
   red. Red nothing -> red 1->2.
Final: blue's camp: the enclosed inner jungle, 4 tiles, 1 animal = 1.
   Race (3 players, 6/3): red 2 = 6; green 1 = 3; blue 0 is third -> nothing.
Totals: red 5 + 6 = 11; blue 1; green 3. Boats red 2, blue 0, green 1.
"""
write("amazonas_20_tributary_loop_and_enclosed_jungle",
      "Four curves close a tributary into a loop (complete, with the joined boat icon moving the owner first); a camp in the jungle enclosed by the loop",
      hand, g, {"red": 11, "blue": 1, "green": 3}, {"red": 2, "blue": 0, "green": 1},
      [ev("tributary", 5, ["red"], 6, 4), fin("camp", 1, ["blue"], 4), fin("river", 6, ["red"]), fin("river", 3, ["green"])])

# --- golden 21 --------------------------------------------------------------------------------
g = G(["red", "blue"])
assert g.tile("red", "A04", 4, 0) == 1
assert g.tile("blue", "L04", 1, -1, 270) == 2; g.meeple("blue", 1, -1, "S")
assert g.tile("red", "L22", 3, -1, 180) == 4; g.meeple("red", 3, -1, "S")
assert g.tile("blue", "L05", 4, -1) == 6; g.meeple("blue", 4, -1, "W")
assert g.tile("red", "L02", 2, -1) == 8
hand = """
Board after the game (2 players, 16 spaces + 1):
           x=1         x=2        x=3         x=4
  y=-1   L04 r270    L02 r0     L22 r180    L05 r0      (L02 W-E 1 boat; L22 r180: village S + tributary W-E 1 boat;
  y=0      SB1         SB2        SB3       A04 r0       L05: curve W-S 1 boat)
  A04: N bank tributary into the Amazon, 2 caimans, 0 piranhas. L04 r270: curve S-E.
  One tributary from the Amazon to the Amazon: SB1 - L04 - L02 - L22 - L05 - A04.
Sides: L04r270.S road = SB1.N; L22r180.S village = SB3.N village; L05.S road = A04.N road, L05.W road = L22r180.E;
  L02.W road = L04r270.E, L02.E road = L22r180.W, L02.S jungle = SB2.N.
e1 red A04 (end 3 -> 4), nothing -> red 0->1. Scoring (2 caimans, 0 piranhas): red first = 2; blue directly behind
   but 0 piranhas -> nothing -> blue 0->1.
e2-e3 blue L04 r270 + meeple S: tributary SB1 - L04, open E. No icons.
e4-e5 red L22 r180 + meeple on the village it completes: SB3.N + L22.S = 2 tiles x 2 + 0 fruit = 4 -> red.
   Its tributary (1 icon) is open both ends, no meeple.
e6-e7 blue L05 at [4,-1] (x 4 <= end 4) + meeple W: tributary L22 - L05 - A04 (ends at the Amazon), icons L22 1 +
   L05 1 = 2 -> blue 1->3.
e8 red L02 joins both of blue's tributaries: both ends now at the Amazon -> complete: SB1, L04, L02, L22, L05, A04 =
   6 tiles + 0 fruit = 6 -> blue (2 meeples, the only owner). L02's icon joins blue's tributary -> blue 3->4 (once).
   Red nothing -> red 1->2.
Final: nothing open. Race (2 players): blue 4 first = 6; red 2 is two behind -> nothing.
Totals: red 2 + 4 = 6; blue 6 + 6 = 12. Boats red 2, blue 4.
"""
write("amazonas_21_tributary_from_amazon_to_amazon",
      "A tributary running from the Amazon (start board) to the Amazon (a new Amazon tile's bank) is complete; a meeple on a village its tile completes; claimed icons counted over two tiles",
      hand, g, {"red": 6, "blue": 12}, {"red": 2, "blue": 4},
      [ev("amazon", 2, ["red"], 1, 1), ev("village", 4, ["red"], 4, 2), ev("tributary", 6, ["blue"], 8, 6),
       fin("river", 6, ["blue"])])

# --- golden 22 --------------------------------------------------------------------------------
g = G(["red", "blue", "green", "yellow", "black"])
assert g.tile("red", "L25", -1, 0) == 1
assert g.tile("blue", "L25", -1, 1) == 2
assert g.tile("green", "A13", 4, 0) == 3; g.double("green", "D1", 5, 0); g.camp("green", 5, 0, "N")
assert g.tile("yellow", "L01", 0, -1) == 6; g.meeple("yellow", 0, -1, "W")
assert g.tile("black", "L08", 6, 1, 180) == 8; g.meeple("black", 6, 1, "N")
assert g.tile("red", "L26", -2, 0) == 10
assert g.tile("blue", "L12", 0, 2, 180) == 11
hand = """
5 players: 8 river spaces + 1 (A13) + 2 (the double).
Board after the game:
           x=-2      x=-1      x=0      x=1..3         x=4        x=5        x=6
  y=-1      .         .      L01 r0       .             .          .          .        (yellow meeple)
  y=0    L26 r0    L25 r0     SB0    SB1 SB2 SB3     A13 r0     D1-1 r0    D1-2 r0
  y=1       .      L25 r0     SB4    SB5 SB6 SB7                            L08 r180     (black meeple)
  y=2                       L12 r180
  A13 ("!"): 1 caiman, 1 piranha, N jungle 0 animals. Double D1 (2 caimans, 1 piranha for the whole double):
  D1-1 N jungle 1 animal (green camp), D1-2 N jungle 0 animals and S-bank tributary. L08 r180: tributary N to a
  rock, 1 boat, 1 fruit.
Sides: L25[-1,0].E = SB0.W; L25[-1,1].E = SB4.W, .N = L25[-1,0].S; A13.WR = SB3.EL; D1-1.WR = A13.EL; D1-2.WR =
  D1-1.EL; L01.S = SB0.N; L08r180.N road = D1-2.S road; L26.E = L25[-1,0].W; L12r180.N = SB4.S.
e1 red nothing -> 1. e2 blue nothing -> 1.
e3-e5 green A13 ("!"), double D1 (rot 0) and a camp on the double (the only place allowed after a "!":
   "numai pe cartonasul-dublu") -> green stays 0.
   Scoring A13 (1 caiman + 1 piranha): red, blue tie first (1) -> 2 each; green, yellow, black tie second (0) -> 1 each.
   Scoring D1 (2 caimans + 1 piranha, one tile for scoring): red, blue -> 3 each; green, yellow, black -> 1 each.
   Everyone scored both times -> nobody advances.
e6-e7 yellow L01 + meeple -> 0.
e8-e9 black L08 r180 at [6,1] (x 6 <= end 6) + meeple N: tributary D1-2 (Amazon) - L08 (rock) complete; boat icon ->
   black 0->1 first, then 2 tiles + 1 fruit = 3 -> black.
e10 red nothing -> 2. e11 blue nothing -> 2.
Final: yellow's open tributary L01 = 1; green's camp: SB3[EL] + A13 N + D1-1 N + D1-2 N = 1 animal on 4 tiles = 1.
   Race (7/4/1, "ia barca cea mai apropiata (sau barcile cele mai apropiate) ... si plaseaza-o/plaseaza-le pe cel mai
   mare numar si asa mai departe"): red, blue tie at 2 -> 7 each; black 1 -> 4; green, yellow at 0 -> 1 each.
Totals: red 2+3+7 = 12; blue 2+3+7 = 12; green 1+1+1+1 = 4; yellow 1+1+1+1 = 4; black 1+1+3+4 = 9.
Boats red 2, blue 2, green 0, yellow 0, black 1.
"""
write("amazonas_22_five_players_exclaim_camp_on_double_and_tied_race",
      "Five players: a \"!\" tile and double with a camp on the double, two Amazon scorings with ties on both places; a land tile beside the double; a race tied for first (7, 7, then 4 and 1)",
      hand, g, {"red": 12, "blue": 12, "green": 4, "yellow": 4, "black": 9},
      {"red": 2, "blue": 2, "green": 0, "yellow": 0, "black": 1},
      [ev("amazon", 2, ["red", "blue"], 3, 1), ev("amazon", 1, ["green", "yellow", "black"], 3, 1),
       ev("amazon", 3, ["red", "blue"], 3, 2), ev("amazon", 1, ["green", "yellow", "black"], 3, 2),
       ev("tributary", 3, ["black"], 8, 2),
       fin("tributary", 1, ["yellow"], 1), fin("camp", 1, ["green"], 4),
       fin("river", 7, ["red", "blue"]), fin("river", 4, ["black"]), fin("river", 1, ["green", "yellow"])])
