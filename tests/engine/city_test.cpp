// Carcassonne — The City: catalog, placement, followers, scoring (docs/rules/city.md).
#include <catch2/catch.hpp>

#include "engine/modules/city.h"
#include "engine/random_game.h"
#include "engine/record.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using test::meeple;
using test::tile;

namespace {

// A two-player (red, blue) City record with `events` (the first is red's first tile).
Record city_record(std::initializer_list<nlohmann::json> events, bool finished = false) {
    nlohmann::json doc = {{"format", "meeplecam-record"},
                          {"version", 1},
                          {"game", "city"},
                          {"players", {{{"name", "Ana"}, {"color", "red"}}, {{"name", "Ben"}, {"color", "blue"}}}},
                          {"finished", finished}};
    doc["events"] = nlohmann::json::array();
    for (const auto& e : events) doc["events"].push_back(e);
    auto r = parse_record(doc, "test");
    if (!r) throw std::runtime_error(r.error().to_string());
    return r.value();
}

std::string catalog_error(const std::string& features, const std::string& game = "city") {
    const std::string text = R"({"format": "meeplecam-catalog", "version": 1, "game": ")" + game +
                             R"(", "tiles": [{"id": "T", "count": 1, "features": )" + features + "}]}";
    auto c = Catalog::from_text(text, "test");
    return c ? std::string() : c.error().to_string();
}

}  // namespace

TEST_CASE("the shipped City catalog is provisional and meets every known total", "[city]") {
    auto c = Catalog::embedded("city");
    REQUIRE(c);
    CHECK(c->game() == "city");
    CHECK(c->provisional());
    CHECK_FALSE(Catalog::embedded("carcassonne-base")->provisional());
    const CityCatalogTotals t = city_catalog_totals(c.value());
    CHECK(t.tiles == 75);
    CHECK(t.designs == 64);
    CHECK(t.public_buildings == 32);
    CHECK(t.historic.size() == 7);
    CHECK(t.goods.size() == 3);
    CHECK(t.differences.empty());
    // Only streets must match: every side is a street or "no street".
    for (const TileType& type : c->tiles()) {
        for (EdgeKind e : type.edges) CHECK((e == EdgeKind::Street || e == EdgeKind::Plain));
    }
}

TEST_CASE("City catalog validation names the clash", "[city]") {
    const std::string all_res = R"({"kind": "residential", "ports": ["NL","N","NR","EL","E","ER","SL","S","SR","WL","W","WR"]})";
    CHECK(catalog_error("[" + all_res + "]").empty());
    CHECK_THAT(catalog_error(R"([{"kind": "street", "ports": ["NL"]},
        {"kind": "residential", "ports": ["N","NR","EL","E","ER","SL","S","SR","WL","W","WR"]}])"),
               Catch::Contains("side middle"));
    CHECK_THAT(catalog_error(R"([{"kind": "market", "ports": ["NL","N","NR"]},
        {"kind": "residential", "ports": ["EL","E","ER","SL","S","SR","WL","W","WR"]}])"),
               Catch::Contains("sells no good"));
    CHECK_THAT(catalog_error(R"([{"kind": "road", "ports": ["N"]},
        {"kind": "residential", "ports": ["NL","NR","EL","E","ER","SL","S","SR","WL","W","WR"]}])"),
               Catch::Contains("only have street, market and residential"));
    CHECK_THAT(catalog_error(R"([{"kind": "street", "ports": ["N"]},
        {"kind": "residential", "markets": [0], "ports": ["NL","NR","EL","E","ER","SL","S","SR","WL","W","WR"]}])"),
               Catch::Contains("not a market feature"));
    CHECK_THAT(catalog_error(R"([{"kind": "residential", "ports": ["NL","N","NR"]}])"), Catch::Contains("belongs to no feature"));
}

TEST_CASE("City stacks: 30, 25 and 20 tiles by draw order", "[city]") {
    CHECK(city_stack_of_draw(1) == 1);
    CHECK(city_stack_of_draw(30) == 1);
    CHECK(city_stack_of_draw(31) == 2);
    CHECK(city_stack_of_draw(55) == 2);
    CHECK(city_stack_of_draw(56) == 3);
    CHECK(city_stack_of_draw(75) == 3);
}

TEST_CASE("the City's first tile is the first player's turn", "[city]") {
    auto g = replay(city_record({tile("red", "03", 0, 0, 0), meeple("red", 0, 0, "S")}));
    REQUIRE(g);
    CHECK(g->followers_left(0) == 6);
    CHECK_THAT(test::replay_error(city_record({tile("blue", "03", 0, 0, 0)})), Catch::Contains("first player, red"));
    CHECK_THAT(test::replay_error(city_record({tile("", "03", 0, 0, 0)})), Catch::Contains("first player, red"));
    // 2 to 4 players.
    Record one = city_record({});
    one.players.resize(1);
    CHECK_THAT(test::replay_error(one), Catch::Contains("2 to 4 players"));
}

TEST_CASE("City placement: only streets must continue / unlike halves stay apart", "[city]") {
    // 05 (fish market on N) south of 06 (livestock market N-S): markets join across the side.
    auto g = replay(city_record({tile("red", "06", 0, 0, 0), tile("blue", "05", 0, 1, 0)}));
    REQUIRE(g);
    const Board& b = g->board();
    CHECK(b.find(b.node_at({0, 0}, *parse_port("S"))) == b.find(b.node_at({0, 1}, *parse_port("N"))));
    // 05 turned 90 degrees: its market (E) faces 06's residential W... no: put it west of 06 (its E
    // market half faces 06's W residential): legal, and the two do not merge.
    auto h = replay(city_record({tile("red", "06", 0, 0, 0), tile("blue", "05", -1, 0, 90)}));
    REQUIRE(h);
    const Board& hb = h->board();
    const int market = hb.find(hb.node_at({-1, 0}, *parse_port("E")));
    CHECK(hb.structure(market).kind == FeatureKind::Market);
    CHECK(hb.structure(market).open_sides == 0);  // closed by the residential side it faces
    CHECK(market != hb.find(hb.node_at({0, 0}, *parse_port("W"))));
    // A street side must face a street side.
    CHECK_THAT(test::replay_error(city_record({tile("red", "06", 0, 0, 0), tile("blue", "03", 0, -1, 0)})),
               Catch::Contains("street") && Catch::Contains("event 1"));
}

TEST_CASE("a market closed only by residential sides is complete: tiles x goods", "[city]") {
    // Red's 05 turned 90 degrees (market on E, open); blue's 06 east of it closes that side with its
    // W residential area: the market is complete, 1 tile x 1 good = 1 for red, whose seller returns.
    auto g = replay(city_record({tile("red", "05", -1, 0, 90), meeple("red", -1, 0, "E"), tile("blue", "06", 0, 0, 0)}));
    REQUIRE(g);
    CHECK(g->scores()[0] == 1);
    CHECK(g->followers_left(0) == 7);
    REQUIRE(g->score_events().size() == 1);
    CHECK(g->score_events()[0].feature == "market");
    CHECK_THAT(g->score_events()[0].explanation, Catch::Contains("1 tile x 1 good (fish)"));
}

TEST_CASE("no follower on a street or market this very tile completed", "[city]") {
    // Street 03 (0,0) - 02 (0,1) - 03 r180 (0,2): the third tile completes it.
    const std::string err = test::replay_error(city_record(
        {tile("red", "03", 0, 0, 0), tile("blue", "02", 0, 1, 0), tile("red", "03", 0, 2, 180), meeple("red", 0, 2, "N")}));
    CHECK_THAT(err, Catch::Contains("event 3") && Catch::Contains("completed by this very tile"));
    // The residential area of that tile is still allowed, and the options list says so.
    auto g = replay(city_record({tile("red", "03", 0, 0, 0), tile("blue", "02", 0, 1, 0), tile("red", "03", 0, 2, 180)}),
                    ReplayOptions{nullptr, false, true, false});
    REQUIRE(g);
    const auto spots = g->current_follower_options();
    REQUIRE(spots.size() == 1);
    CHECK(spots[0].kind == FeatureKind::Residential);
    // In classic Carcassonne the same would be allowed (no module refuses it): see game_test.
    auto ok = replay(city_record({tile("red", "03", 0, 0, 0), tile("blue", "02", 0, 1, 0), tile("red", "03", 0, 2, 180),
                                  meeple("red", 0, 2, "E")}));
    CHECK(ok);
}

TEST_CASE("a street of 4 tiles scores 2 per tile / at the end the wall closes the city", "[city]") {
    auto g = replay(city_record({tile("red", "03", 0, 0, 0), meeple("red", 0, 0, "S"), tile("blue", "02", 0, 1, 0),
                                 tile("red", "02", 0, 2, 0), tile("blue", "03", 0, 3, 180)},
                                true));
    REQUIRE(g);
    CHECK(g->scores()[0] == 8);
    // An open street at the end: the wall closes the outer boundary, completing it (2 tiles = 2).
    auto closed = replay(city_record({tile("red", "03", 0, 0, 0), meeple("red", 0, 0, "S"), tile("blue", "02", 0, 1, 0)},
                                     true));
    REQUIRE(closed);
    CHECK(closed->scores()[0] == 2);
    CHECK(closed->followers_left(0) == 7);
}

TEST_CASE("a street ending at a hole inside the city stays unfinished: its citizen leaves with nothing", "[city]") {
    // Ring of 8 tiles around the hole (1,1); red's dead end 03 at (1,0) points its street S into it.
    auto g = replay(city_record({tile("red", "03", 1, 0, 0), meeple("red", 1, 0, "S"), tile("blue", "01", 0, 0, 0),
                                 tile("red", "05", 2, 0, 0), tile("blue", "05", 0, 1, 0), tile("red", "49", 2, 1, 0),
                                 tile("blue", "49", 0, 2, 0), tile("red", "06", 1, 2, 0), tile("blue", "06", 2, 2, 0)},
                                true));
    REQUIRE(g);
    CHECK(g->scores()[0] == 0);
    CHECK(g->followers_left(0) == 7);
    const auto sheet = score_sheet_json(g.value());
    bool found = false;
    for (const auto& ev : sheet["events"]) {
        if (ev["feature"] == "street") {
            found = true;
            CHECK(ev["points"] == 0);
            CHECK(ev["completed"] == false);
        }
    }
    CHECK(found);
}

// --- Walls ---

TEST_CASE("wall slots follow the city's outer boundary at either end", "[city][walls]") {
    auto c = Catalog::embedded("city");
    REQUIRE(c);
    const TileType& plain = *c->find("01");
    Board b;
    // An L: (0,0), (1,0), (0,1).
    b.place_start(plain, {{0, 0}, 0});
    b.place(plain, {{1, 0}, 0});
    b.place(plain, {{0, 1}, 0});
    using S = CityModule::Slot;
    // Along the north side going clockwise (east): (0,0)N -> (1,0)N -> (1,0)E (convex corner).
    CHECK(CityModule::next_cw(b, S{{0, 0}, 0}) == S{{1, 0}, 0});
    CHECK(CityModule::next_cw(b, S{{1, 0}, 0}) == S{{1, 0}, 1});
    // (1,0)S faces the notch (1,1); clockwise it turns into (0,1)E (concave corner).
    CHECK(CityModule::next_cw(b, S{{1, 0}, 2}) == S{{0, 1}, 1});
    // Counter-clockwise is the reverse walk.
    CHECK(CityModule::next_ccw(b, S{{0, 1}, 1}) == S{{1, 0}, 2});
    CHECK(CityModule::next_ccw(b, S{{1, 0}, 1}) == S{{1, 0}, 0});
    CHECK(CityModule::next_ccw(b, S{{0, 0}, 0}) == S{{0, 0}, 3});
}

TEST_CASE("a closed side completes what it bounds and no tile goes beyond it", "[city][walls]") {
    auto c = Catalog::embedded("city");
    REQUIRE(c);
    Board b;
    b.place_start(*c->find("05"), {{0, 0}, 0});  // fish market on N
    const int market = b.find(b.node_at({0, 0}, *parse_port("N")));
    CHECK_FALSE(b.is_complete(market));
    const auto done = b.close_side({0, 0}, 0);
    REQUIRE(done.size() == 1);
    CHECK(b.find(done[0]) == market);
    CHECK(b.is_complete(market));
    CHECK(b.side_closed({0, 0}, 0));
    const auto check = b.check_placement(*c->find("01"), {{0, -1}, 0});
    CHECK_FALSE(check.ok);
    CHECK_THAT(check.reason, Catch::Contains("beyond a wall"));
    for (const Placement& p : b.legal_placements(*c->find("01"))) CHECK_FALSE(p.at == Cell{0, -1});
    CHECK(b.legal_placements(*c->find("01")).size() == 3);
    b.check_consistency();
    CHECK(b.close_side({0, 0}, 0).empty());  // closing twice does nothing
}

TEST_CASE("wall events are validated with errors naming the event", "[city][walls]") {
    RandomGameOptions opt;
    opt.game = "city";
    opt.players = 3;
    opt.seed = 1;
    auto played = play_random_game(nullptr, opt);
    REQUIRE(played);
    const Record& full = played->record;
    REQUIRE(replay(full));
    int gate = -1, first_wall = -1, first_guard = -1;
    for (std::size_t i = 0; i < full.events.size(); ++i) {
        const auto& t = full.events[i].type;
        if (t == "gate" && gate < 0) gate = static_cast<int>(i);
        if (t == "wall" && first_wall < 0) first_wall = static_cast<int>(i);
        if (t == "guard" && first_guard < 0) first_guard = static_cast<int>(i);
    }
    REQUIRE(gate > 30);  // not before stack 2
    REQUIRE(first_wall == gate + 1);
    {  // skipping the walls: the next tile is refused
        Record r = full;
        r.finished = false;
        r.events.resize(static_cast<std::size_t>(gate));
        std::size_t next_tile = static_cast<std::size_t>(gate);
        while (full.events[next_tile].type != "tile") ++next_tile;
        r.events.push_back(full.events[next_tile]);
        CHECK_THAT(test::replay_error(r), Catch::Contains("event " + std::to_string(gate)) &&
                                              Catch::Contains("walls are built first"));
    }
    {  // a wall piece that does not continue an end
        Record r = full;
        r.finished = false;
        r.events.resize(static_cast<std::size_t>(first_wall) + 1);
        auto& raw = r.events.back().raw;
        raw["at"] = {1000, 1000};
        CHECK_THAT(test::replay_error(r), Catch::Contains("event " + std::to_string(first_wall) + " (wall)") &&
                                              Catch::Contains("must continue an end of the wall"));
        raw.erase("side");
        CHECK_THAT(test::replay_error(r), Catch::Contains("'side' must be N, E, S or W"));
    }
    {  // the wrong player builds
        Record r = full;
        r.finished = false;
        r.events.resize(static_cast<std::size_t>(first_wall) + 1);
        Event& e = r.events.back();
        const std::string other = e.player == "red" ? "blue" : "red";
        e.player = other;
        e.raw["player"] = other;
        CHECK_THAT(test::replay_error(r), Catch::Contains("wall piece, not " + other));
    }
    {  // a guard right after the gate is refused (never on the gate)
        Record r = full;
        r.finished = false;
        r.events.resize(static_cast<std::size_t>(gate) + 1);
        Event g;
        g.type = "guard";
        g.player = r.events.back().player;
        g.raw = {{"type", "guard"}, {"player", g.player}};
        r.events.push_back(g);
        CHECK_THAT(test::replay_error(r), Catch::Contains("(guard)") && Catch::Contains("not on the gate"));
    }
    // The wall (and its guards) scored: tower and guard events appear on the sheet.
    const auto sheet = score_sheet_json(played->game);
    int towers = 0;
    for (const auto& ev : sheet["events"]) towers += ev["feature"] == "tower" ? 1 : 0;
    CHECK(towers > 0);
}

TEST_CASE("when the wall ends the game, further tiles are refused with the reason", "[city][walls]") {
    int checked = 0;
    for (std::uint64_t seed = 1; seed <= 40 && checked < 3; ++seed) {
        RandomGameOptions opt;
        opt.game = "city";
        opt.players = 2 + static_cast<int>(seed % 3);
        opt.seed = seed;
        auto played = play_random_game(nullptr, opt);
        REQUIRE(played);
        if (played->game.tiles_left() == 0) continue;  // ended with the last tile
        const Game& g = played->game;
        bool over = false;
        for (const auto& m : g.modules()) over = over || m->game_over(g);
        CHECK(over);
        // Replay without finishing and try one more tile of the supply.
        Record r = played->record;
        r.finished = false;
        const TileType* left = nullptr;
        for (const TileType& t : g.catalog().tiles()) {
            if (!left && g.supply_left(t) > 0) left = &t;
        }
        REQUIRE(left);
        Event e;
        e.type = "tile";
        e.player = r.players[static_cast<std::size_t>(g.next_player())].color;
        e.tile = left->id;
        e.at = {500, 500};
        r.events.push_back(e);
        CHECK_THAT(test::replay_error(r), Catch::Contains("the game is over"));
        ++checked;
    }
    CHECK(checked == 3);
}

TEST_CASE("no tile may close the wall in or stand beyond it at a corner (footnote [6])", "[city][walls]") {
    auto c = Catalog::embedded("city");
    REQUIRE(c);
    const TileType& plain = *c->find("01");
    using S = CityModule::Slot;
    using Piece = CityModule::WallPiece;
    {
        // A U open to the north: its notch (1,-1),(1,-2) has the wall on its bottom and sides.
        Board b;
        b.place_start(plain, {{0, 0}, 0});
        for (Cell at : {Cell{1, 0}, Cell{2, 0}, Cell{0, -1}, Cell{2, -1}, Cell{0, -2}, Cell{2, -2}}) b.place(plain, {at, 0});
        const std::deque<Piece> wall = {Piece{S{{0, -1}, 1}}, Piece{S{{1, 0}, 0}, true}, Piece{S{{2, -1}, 3}}};
        REQUIRE(CityModule::next_cw(b, wall[0].slot) == wall[1].slot);
        REQUIRE(CityModule::next_cw(b, wall[1].slot) == wall[2].slot);
        // Closing the notch's mouth would leave (1,-1), beyond the gate, as a hole inside the city.
        const auto closing = CityModule::wall_refusal(b, wall, {1, -2});
        REQUIRE(closing);
        CHECK_THAT(*closing, Catch::Contains("close in the wall") && Catch::Contains("[1, -1]"));
        // Elsewhere on the outside the wall is not touched; directly beyond a piece the board refuses.
        CHECK_FALSE(CityModule::wall_refusal(b, wall, {3, 0}));
        CHECK_FALSE(CityModule::wall_refusal(b, wall, {0, -3}));
        CHECK_FALSE(CityModule::wall_refusal(b, wall, {1, -1}));
        CHECK_FALSE(CityModule::wall_refusal(b, {}, {1, -2}));  // no wall yet: anything goes
    }
    {
        // The wall turns round the convex corner of (0,0) (N then E); a tile on the diagonal (1,-1), held by
        // (2,-1), would stand beyond the wall's corner and split the chain.
        Board b;
        b.place_start(plain, {{0, 0}, 0});
        for (Cell at : {Cell{0, 1}, Cell{1, 1}, Cell{2, 1}, Cell{2, 0}, Cell{2, -1}}) b.place(plain, {at, 0});
        const std::deque<Piece> wall = {Piece{S{{0, 0}, 0}, true}, Piece{S{{0, 0}, 1}}};
        REQUIRE(CityModule::next_cw(b, wall[0].slot) == wall[1].slot);
        const auto corner = CityModule::wall_refusal(b, wall, {1, -1});
        REQUIRE(corner);
        CHECK_THAT(*corner, Catch::Contains("beyond the wall between [0, 0] N and [0, 0] E"));
        CHECK_FALSE(CityModule::wall_refusal(b, wall, {3, -1}));
    }
}
