// Castles (rule module "castles"): conversions, fiefs, castle scoring, choices, bad input.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/modules/castles.h"
#include "engine/record.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using nlohmann::json;
using test::meeple;
using test::tile;

namespace {

Record castles_record(std::initializer_list<json> events, bool finished = false) {
    Record r = test::base_record(events, finished);
    r.expansions = {"castles"};
    return r;
}

json castle(const std::string& player, int x, int y, const std::string& loc) {
    return {{"type", "castle"}, {"player", player}, {"at", {x, y}}, {"loc", loc}};
}

json choice(const std::string& player, int cx, int cy, int x, int y, const std::string& loc) {
    return {{"type", "castle-choice"}, {"player", player}, {"castle", {cx, cy}}, {"at", {x, y}}, {"loc", loc}};
}

// The record with one more event (or a changed one) appended.
Record with(const Record& r, const json& extra) {
    json doc = r.to_json();
    doc["events"].push_back(extra);
    auto parsed = parse_record(doc, "test");
    REQUIRE(parsed);
    return parsed.value();
}

const CastlesModule& module_of(const Game& g) {
    const auto* m = dynamic_cast<const CastlesModule*>(g.modules().front().get());
    REQUIRE(m);
    return *m;
}

// The error of a replay, with its kind.
Error error_of(const Record& r) {
    auto g = replay(r);
    REQUIRE_FALSE(g);
    return g.error();
}

// Replays leaving the last turn open (a live session).
ReplayOptions open_turn() {
    ReplayOptions o;
    o.close_last_turn = false;
    return o;
}
const ReplayOptions kOpenTurn = open_turn();

// Red closes the small city D cap + E cap at [0,-1] and occupies it (events 1, 2).
const std::initializer_list<json> kRedSmallCity = {tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S")};

}  // namespace

TEST_CASE("castles: the module is registered with the expansion's tiles", "[castles]") {
    auto m = RuleModuleRegistry::builtin().create("castles");
    REQUIRE(m);
    REQUIRE(m.value().size() == 1);
    CHECK(m.value().front()->catalogs() == std::vector<std::string>{"carcassonne-bridges-castles-bazaars"});
    auto g = replay(castles_record({}));
    REQUIRE(g);
    CHECK(g->catalog().find("CB4"));
    CHECK(CastlesModule::tokens_per_player(2) == 3);
    CHECK(CastlesModule::tokens_per_player(4) == 3);
    CHECK(CastlesModule::tokens_per_player(5) == 2);
    CHECK(CastlesModule::tokens_per_player(6) == 2);
}

TEST_CASE("castles: the occupant converts a completed small city / its follower moves off the board", "[castles]") {
    auto g = replay(castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S")}));
    REQUIRE(g);
    const auto& m = module_of(g.value());
    REQUIRE(m.castles().size() == 1);
    const auto& c = m.castles().front();
    CHECK(c.cells[0] == Cell{0, -1});
    CHECK(c.cells[1] == Cell{0, 0});
    CHECK(c.followers == std::map<int, int>{{0, 1}});
    CHECK_FALSE(c.scored);
    CHECK(g->score_events().empty());       // no points for building, and the city does not score
    CHECK(g->followers_left(0) == 6);       // the follower is in the castle, not in the supply
    CHECK(m.followers_in_castles(0) == 1);
    CHECK(m.tokens_left(g.value(), 0) == 2);
    CHECK(m.tokens_left(g.value(), 1) == 3);
    const Board& b = g->board();
    CHECK(b.structure(b.find(b.node_at({0, 0}, *parse_port("N")))).scored);
    CHECK(b.structure(b.find(b.node_at({0, 0}, *parse_port("N")))).follower_ids.empty());
    // Vertical castle: the fief is the castle's column plus the columns west and east of it.
    const std::vector<Cell> fief = {{-1, -1}, {-1, 0}, {0, -1}, {0, 0}, {1, -1}, {1, 0}};
    CHECK(CastlesModule::fief(c) == fief);

    // Without the conversion the small city scores 4 as usual.
    auto scored = replay(castles_record(kRedSmallCity));
    REQUIRE(scored);
    REQUIRE(scored->score_events().size() == 1);
    CHECK(scored->score_events()[0].points == 4);
    CHECK(scored->followers_left(0) == 7);
}

TEST_CASE("castles: a horizontal castle's fief lies north and south of it", "[castles]") {
    CastlesModule::Castle c;
    c.cells = {Cell{1, -1}, Cell{2, -1}};
    const std::vector<Cell> fief = {{1, -2}, {1, -1}, {1, 0}, {2, -2}, {2, -1}, {2, 0}};
    CHECK(CastlesModule::fief(c) == fief);
}

TEST_CASE("castles: malformed castle events are invalid and name the event", "[castles]") {
    const Record base = castles_record(kRedSmallCity);
    struct Bad {
        json event;
        const char* message;
    };
    const std::vector<Bad> bad = {
        {{{"type", "castle"}, {"at", {0, -1}}, {"loc", "S"}}, "missing 'player'"},
        {castle("green", 0, -1, "S"), "unknown player colour 'green'"},
        {{{"type", "castle"}, {"player", "red"}, {"loc", "S"}}, "missing 'at'"},
        {{{"type", "castle"}, {"player", "red"}, {"at", {0}}, {"loc", "S"}}, "'at' must be [x, y]"},
        {{{"type", "castle"}, {"player", "red"}, {"at", {0, 5000000}}, {"loc", "S"}}, "out of range"},
        {{{"type", "castle"}, {"player", "red"}, {"at", {0, -1}}}, "missing 'loc'"},
        {castle("red", 0, -1, "SS"), "unknown port 'SS'"},
        {{{"type", "castle"}, {"player", "red"}, {"at", {0, -1}}, {"loc", 3}}, "'loc' must be a port name"},
        {{{"type", "castle-choice"}, {"player", "red"}, {"at", {0, -1}}, {"loc", "S"}}, "missing 'castle'"},
        {{{"type", "castle-choice"}, {"player", "red"}, {"castle", {0, -1}}, {"loc", "S"}}, "missing 'at'"},
        {{{"type", "castle-choice"}, {"player", "red"}, {"castle", {0, -1}}, {"castle_loc", "Q"}, {"at", {0, 0}},
          {"loc", "W"}},
         "unknown port 'Q'"},
    };
    for (const auto& b : bad) {
        INFO(b.event.dump());
        const Error e = error_of(with(base, b.event));
        CHECK(e.kind == ErrorKind::Invalid);
        CHECK_THAT(e.to_string(), Catch::Contains("event 3 (castle") && Catch::Contains(b.message));
    }
    // Without the expansion the event type is unknown.
    Record plain = with(base, castle("red", 0, -1, "S"));
    plain.expansions.clear();
    CHECK_THAT(error_of(plain).to_string(), Catch::Contains("unknown event type 'castle'"));
}

TEST_CASE("castles: illegal conversions are refused with the rule they break", "[castles]") {
    const Record base = castles_record(kRedSmallCity);
    auto illegal_msg = [](const Record& r) {
        const Error e = error_of(r);
        CHECK(e.kind == ErrorKind::Illegal);
        return e.to_string();
    };
    SECTION("no turn open: before the first tile") {
        CHECK_THAT(illegal_msg(castles_record({castle("red", 0, 0, "N")})),
                   Catch::Contains("event 1 (castle)") && Catch::Contains("no turn is open"));
    }
    SECTION("no tile there / no feature / not a city") {
        CHECK_THAT(illegal_msg(with(base, castle("red", 5, 5, "S"))), Catch::Contains("there is no tile at [5, 5]"));
        CHECK_THAT(illegal_msg(with(base, castle("red", 0, -1, "C"))), Catch::Contains("has no feature at port C"));
        CHECK_THAT(illegal_msg(with(base, castle("red", 0, 0, "W"))),
                   Catch::Contains("the road at [0, 0] W (tile D) is not a city"));
    }
    SECTION("the city is open") {
        auto open = castles_record({tile("red", "E", 0, 1, 180), meeple("red", 0, 1, "S"), castle("red", 0, 1, "S")});
        CHECK_THAT(illegal_msg(open), Catch::Contains("event 3 (castle)") && Catch::Contains("is not completed"));
    }
    SECTION("completed in an earlier turn") {
        auto late = castles_record(
            {tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), tile("blue", "U", 1, 0, 90), castle("red", 0, -1, "S")});
        CHECK_THAT(illegal_msg(late), Catch::Contains("event 4 (castle)") && Catch::Contains("was not completed this turn"));
    }
    SECTION("not a small city: three tiles") {
        // F r90 at [0,-1]: city N-S, joins D's cap; E r180 at [0,-2] closes a 3-tile city.
        auto big = castles_record({tile("red", "F", 0, -1, 90), meeple("red", 0, -1, "N"), tile("blue", "E", 0, -2, 180),
                                   castle("red", 0, -1, "N")});
        CHECK_THAT(illegal_msg(big), Catch::Contains("not a small city") && Catch::Contains("3 segments on 3 tiles"));
    }
    SECTION("CB4's city is tagged no-castle") {
        // CB4 r270: city S (its large city), road N, fields E and W.
        auto cb4 = castles_record({tile("red", "CB4", 0, -1, 270), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S")});
        CHECK_THAT(illegal_msg(cb4), Catch::Contains("tile CB4 at [0, -1] may not hold a castle"));
    }
    SECTION("nobody occupies it") {
        CHECK_THAT(illegal_msg(castles_record({tile("red", "E", 0, -1, 180), castle("red", 0, -1, "S")})),
                   Catch::Contains("has no follower"));
    }
    SECTION("not the occupant") {
        CHECK_THAT(illegal_msg(with(base, castle("blue", 0, -1, "S"))),
                   Catch::Contains("blue is not the occupant") && Catch::Contains("(red has the majority)"));
    }
    SECTION("already a castle") {
        CHECK_THAT(illegal_msg(with(with(base, castle("red", 0, -1, "S")), castle("red", 0, 0, "N"))),
                   Catch::Contains("event 4 (castle)") && Catch::Contains("is already a castle"));
    }
    SECTION("a follower after a castle") {
        auto late = castles_record({tile("red", "E", 0, -1, 180), castle("red", 0, -1, "S"), meeple("red", 0, -1, "S")});
        // The castle comes first and the city has no follower yet.
        CHECK_THAT(illegal_msg(late), Catch::Contains("event 2 (castle)") && Catch::Contains("has no follower"));
        auto order = castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                     meeple("red", 0, -1, "E")});
        CHECK_THAT(illegal_msg(order),
                   Catch::Contains("event 4 (meeple)") && Catch::Contains("before castles are built"));
    }
}

TEST_CASE("castles: tokens run out (3 each with 2-4 players)", "[castles]") {
    // Red occupies four small cities on row y = -1; blue closes three of them, red converts in blue's turns.
    auto r = castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                             tile("blue", "U", 0, 1, 90),                                             // 4
                             tile("red", "E", 1, -1, 90), meeple("red", 1, -1, "E"),                   // 5, 6
                             tile("blue", "E", 2, -1, 270), castle("red", 1, -1, "E"),                 // 7, 8
                             tile("red", "E", 3, -1, 90), meeple("red", 3, -1, "E"),                   // 9, 10
                             tile("blue", "E", 4, -1, 270), castle("red", 3, -1, "E"),                 // 11, 12
                             tile("red", "I", 5, -1, 0), meeple("red", 5, -1, "E"),                    // 13, 14
                             tile("blue", "K", 6, -1, 270)});                                          // 15
    auto g = replay(r);
    REQUIRE(g);
    const auto& m = module_of(g.value());
    CHECK(m.castles().size() == 3);
    CHECK(m.tokens_left(g.value(), 0) == 0);
    CHECK(g->followers_left(0) == 4);  // 3 in castles; the one on I's cap came back when its city scored
    const Error e = error_of(with(r, castle("red", 5, -1, "E")));
    CHECK(e.kind == ErrorKind::Illegal);
    CHECK_THAT(e.to_string(), Catch::Contains("event 16 (castle)") && Catch::Contains("red has no castle token left (all 3"));
    // The refused city scores as usual when the turn ends.
    REQUIRE_FALSE(g->score_events().empty());
    CHECK(g->score_events().back().feature == "city");
    CHECK(g->score_events().back().points == 4);
}

TEST_CASE("castles: 5 or 6 players have 2 tokens each", "[castles]") {
    json doc = castles_record({}).to_json();
    doc["players"] = json::array();
    for (const char* c : {"red", "blue", "green", "yellow", "black"}) doc["players"].push_back({{"color", c}});
    auto r = parse_record(doc, "t");
    REQUIRE(r);
    auto g = replay(r.value());
    REQUIRE(g);
    CHECK(module_of(g.value()).tokens_left(g.value(), 4) == 2);
}

TEST_CASE("castles: the occupant may convert during another player's turn", "[castles]") {
    // Blue occupies E's cap at [0,-2]; red closes it with E at [0,-3]; blue converts in red's turn.
    auto ok = replay(castles_record({tile("red", "E", 0, -1, 180), tile("blue", "E", 0, -2, 0), meeple("blue", 0, -2, "N"),
                                     tile("red", "E", 0, -3, 180), castle("blue", 0, -2, "N")}));
    REQUIRE(ok);
    CHECK(module_of(ok.value()).castles().size() == 1);
    CHECK(module_of(ok.value()).castles()[0].followers == std::map<int, int>{{1, 1}});
    CHECK(ok->followers_left(1) == 6);
}

TEST_CASE("castles: a castle scores once, for the first completion in its fief in a later turn", "[castles]") {
    // Castle at [0,-1]-[0,0]; blue's A at [1,0] ends D's road east; red's A at [-1,0] closes it (3 tiles).
    Record r = castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                               tile("blue", "A", 1, 0, 90), meeple("blue", 1, 0, "W"), tile("red", "A", -1, 0, 270)});
    auto g = replay(r);
    REQUIRE(g);
    REQUIRE(g->score_events().size() == 2);
    CHECK(g->score_events()[0].feature == "road");
    CHECK(g->score_events()[0].winners == std::vector<int>{1});
    const ScoreEvent& c = g->score_events()[1];
    CHECK(c.feature == "castle");
    CHECK(c.points == 3);
    CHECK(c.winners == std::vector<int>{0});
    CHECK(c.event_index == 6);
    CHECK(c.completed);
    CHECK_THAT(c.explanation, Catch::Contains("road at [-1, 0] (3 tiles)"));
    CHECK(g->scores() == std::vector<int>{3, 3});
    CHECK(g->followers_left(0) == 7);  // back from the castle
    CHECK(module_of(g.value()).castles()[0].scored);
    CHECK(module_of(g.value()).followers_in_castles(0) == 0);

    // A second completion in the fief does not score the castle again: E at [1,-1] r90 + E at [2,-1] r270
    // close a small city on fief tile [1,-1].
    json doc = r.to_json();
    for (const json& e : {tile("blue", "E", 1, -1, 90), tile("red", "E", 2, -1, 270)}) doc["events"].push_back(e);
    auto again = replay(parse_record(doc, "t").value());
    REQUIRE(again);
    CHECK(again->score_events().size() == 2);
    // A finished game lists no open castle either.
    doc["finished"] = true;
    auto fin = replay(parse_record(doc, "t").value());
    REQUIRE(fin);
    CHECK(std::none_of(fin->score_events().begin(), fin->score_events().end(),
                       [](const ScoreEvent& e) { return e.feature == "castle" && e.phase == ScoreEvent::Phase::Final; }));
}

TEST_CASE("castles: converting a small city is not a completion for another castle", "[castles]") {
    // Red's castle at [0,-1]-[0,0]; blue closes a small city on [1,-1]-[2,-1] (in red's fief) and converts it.
    auto g = replay(castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                    tile("blue", "E", 1, -1, 90), meeple("blue", 1, -1, "E"),
                                    tile("red", "B", 0, 1, 0), tile("blue", "E", 2, -1, 270), castle("blue", 1, -1, "E")}));
    REQUIRE(g);
    CHECK(g->score_events().empty());
    // Had blue scored it instead, red's castle would score the same 4.
    auto scored = replay(castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                         tile("blue", "E", 1, -1, 90), meeple("blue", 1, -1, "E"), tile("red", "B", 0, 1, 0),
                                         tile("blue", "E", 2, -1, 270)}));
    REQUIRE(scored);
    REQUIRE(scored->score_events().size() == 2);
    CHECK(scored->score_events()[1].feature == "castle");
    CHECK(scored->score_events()[1].points == 4);
    CHECK(scored->scores() == std::vector<int>{4, 4});
}

TEST_CASE("castles: several completions at once: the highest by default, or the owner's choice", "[castles]") {
    // Golden 07's board: L at [-1,0] closes a 4-point city and a 3-point road, both in the fief.
    const Record base = castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                        tile("blue", "A", 1, 0, 90), tile("red", "E", -1, -1, 180),
                                        meeple("red", -1, -1, "S"), tile("blue", "L", -1, 0, 0)});
    auto g = replay(base);
    REQUIRE(g);
    REQUIRE(g->score_events().size() == 2);
    CHECK(g->score_events()[1].feature == "castle");
    CHECK(g->score_events()[1].points == 4);

    auto chosen = replay(with(base, choice("red", 0, 0, 1, 0, "W")));  // castle named by its other tile
    REQUIRE(chosen);
    CHECK(chosen->score_events()[1].points == 3);

    auto msg = [](const Record& r) {
        const Error e = error_of(r);
        CHECK(e.kind == ErrorKind::Illegal);
        return e.to_string();
    };
    CHECK_THAT(msg(with(base, choice("blue", 0, -1, 0, 0, "W"))), Catch::Contains("event 8 (castle-choice)") &&
                                                                      Catch::Contains("blue does not occupy the castle"));
    CHECK_THAT(msg(with(base, choice("red", 1, 0, 0, 0, "W"))), Catch::Contains("there is no castle at [1, 0]"));
    CHECK_THAT(msg(with(base, choice("red", 0, -1, 1, 0, "C"))),
               Catch::Contains("the monastery at [1, 0] C (tile A) is not a structure completed this turn"));
    CHECK_THAT(msg(with(base, choice("red", 0, -1, 0, -1, "S"))), Catch::Contains("a castle cannot score its own scoring"));
    CHECK_THAT(msg(with(with(base, choice("red", 0, -1, 0, 0, "W")), choice("red", 0, -1, 0, 0, "W"))),
               Catch::Contains("event 9") && Catch::Contains("already has a choice this turn"));
    // The chosen city cannot then become a castle.
    CHECK_THAT(msg(with(with(base, choice("red", 0, -1, -1, -1, "S")), castle("red", -1, -1, "S"))),
               Catch::Contains("event 9 (castle)") && Catch::Contains("chose to score this turn"));
    // Converting the city leaves the road as the only choice (3).
    auto converted = replay(with(base, castle("red", -1, -1, "S")));
    REQUIRE(converted);
    REQUIRE(converted->score_events().size() == 1);
    CHECK(converted->score_events()[0].points == 3);
    // A choice in the turn the castle was built, or with nothing completed.
    CHECK_THAT(msg(castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                   choice("red", 0, -1, 0, 0, "W")})),
               Catch::Contains("was built this turn"));
    CHECK_THAT(msg(castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                   tile("blue", "A", 1, 0, 90), choice("red", 0, -1, 0, 0, "W")})),
               Catch::Contains("is not a structure completed this turn"));
}

TEST_CASE("castles: a completed structure outside the fief does not count / a monastery only on a fief tile",
          "[castles]") {
    // Blue's small city at [0,1]-[0,2] lies south of the fief (y > 0).
    auto g = replay(castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                    tile("blue", "E", 0, 1, 180), meeple("blue", 0, 1, "S"), tile("red", "E", 0, 2, 0)},
                                   true));
    REQUIRE(g);
    REQUIRE(g->score_events().size() == 2);
    CHECK(g->score_events()[0].feature == "city");
    const ScoreEvent& open = g->score_events()[1];
    CHECK(open.feature == "castle");
    CHECK(open.phase == ScoreEvent::Phase::Final);
    CHECK(open.points == 0);
    CHECK_FALSE(open.completed);
    CHECK(g->scores() == std::vector<int>{0, 4});
}

TEST_CASE("castles: chained castles / a choice may name the neighbouring castle", "[castles]") {
    // Golden 02's board.
    const Record base = castles_record(
        {tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"), tile("blue", "E", 1, -1, 90),
         meeple("blue", 1, -1, "E"), tile("red", "B", 0, 1, 0), tile("blue", "E", 2, -1, 270), castle("blue", 1, -1, "E"),
         tile("red", "A", 2, 0, 270), tile("blue", "U", 3, 0, 90), tile("red", "A", 4, 0, 90)});
    auto g = replay(base);
    REQUIRE(g);
    REQUIRE(g->score_events().size() == 2);
    CHECK(g->score_events()[0].winners == std::vector<int>{1});
    CHECK(g->score_events()[1].winners == std::vector<int>{0});
    CHECK_THAT(g->score_events()[1].explanation, Catch::Contains("the castle at [1, -1]-[2, -1] in its fief scored"));
    CHECK(g->scores() == std::vector<int>{3, 3});
    CHECK(g->followers_left(0) == 7);
    CHECK(g->followers_left(1) == 7);

    auto named = replay(with(base, choice("red", 0, -1, 2, -1, "W")));
    REQUIRE(named);
    CHECK(named->scores() == std::vector<int>{3, 3});
    // The road is not in the red castle's fief; the red castle is not in the blue castle's fief.
    auto msg = [](const Record& r) { return error_of(r).to_string(); };
    CHECK_THAT(msg(with(base, choice("red", 0, -1, 3, 0, "W"))), Catch::Contains("is not in the fief of the castle at [0, -1]"));
    CHECK_THAT(msg(with(base, choice("blue", 1, -1, 0, 0, "N"))),
               Catch::Contains("the castle at [0, -1]-[0, 0] is not in the fief of the castle at [1, -1]-[2, -1]"));
}

TEST_CASE("castles: options list conversions for the occupant, and choices", "[castles]") {
    auto g = replay(castles_record({tile("red", "E", 0, -1, 180), tile("blue", "E", 0, -2, 0), meeple("blue", 0, -2, "N"),
                                    tile("red", "E", 0, -3, 180)}),
                    kOpenTurn);
    REQUIRE(g);
    const auto& m = module_of(g.value());
    auto opts = m.options(g.value());
    REQUIRE(opts.size() == 1);
    CHECK(opts[0].type == "castle");
    CHECK(opts[0].player == "blue");  // not the turn's player
    CHECK(g->apply(opts[0], 5));
    CHECK(m.options(g.value()).empty());

    // Two completions in a fief: both choices are offered, to the castle's owner.
    const Record base = castles_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                        tile("blue", "A", 1, 0, 90), tile("red", "E", -1, -1, 180),
                                        meeple("red", -1, -1, "S"), tile("blue", "L", -1, 0, 0)});
    auto two = replay(base, kOpenTurn);
    REQUIRE(two);
    auto choices = module_of(two.value()).options(two.value());
    // The city may also become a castle (red occupies it), and the castle may choose either structure.
    CHECK(std::count_if(choices.begin(), choices.end(), [](const Event& e) { return e.type == "castle"; }) == 1);
    CHECK(std::count_if(choices.begin(), choices.end(), [](const Event& e) { return e.type == "castle-choice"; }) == 2);
    for (const Event& e : choices) {
        INFO(e.to_json().dump());
        auto copy = replay(base, kOpenTurn);
        REQUIRE(copy);
        CHECK(copy->apply(e, 8));
        CHECK(copy->close_turn());
    }
}

TEST_CASE("castles: two castles on one tile / castle_loc tells them apart", "[castles]") {
    // H r90 at [0,-1]: caps N and S. Its S cap closes D's cap (red's castle); blue's E r180 at [0,-2]
    // closes its N cap (blue's castle).
    const Record base = castles_record({tile("red", "H", 0, -1, 90), meeple("red", 0, -1, "S"), castle("red", 0, -1, "S"),
                                        tile("blue", "E", 0, -2, 180), meeple("blue", 0, -2, "S"),
                                        castle("blue", 0, -2, "S")});
    auto g = replay(base);
    REQUIRE(g);
    REQUIRE(module_of(g.value()).castles().size() == 2);
    CHECK(g->score_events().empty());
    const Error ambiguous = error_of(with(base, choice("red", 0, -1, 0, 0, "W")));
    CHECK(ambiguous.kind == ErrorKind::Invalid);
    CHECK_THAT(ambiguous.to_string(), Catch::Contains("event 7 (castle-choice)") && Catch::Contains("castle_loc"));
    json mine = choice("red", 0, -1, 0, 0, "W");
    mine["castle_loc"] = "S";
    CHECK_THAT(error_of(with(base, mine)).to_string(), Catch::Contains("is not a structure completed this turn"));
    json theirs = choice("red", 0, -1, 0, 0, "W");
    theirs["castle_loc"] = "N";
    CHECK_THAT(error_of(with(base, theirs)).to_string(),
               Catch::Contains("the castle at [0, -2]-[0, -1] was built this turn"));
}
