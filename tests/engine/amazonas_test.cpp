// Amazonas family: the provisional catalog, placement limits, and clear errors for every event.
#include <catch2/catch.hpp>

#include <set>
#include <tuple>

#include "engine/embedded_catalogs.h"
#include "engine/modules/amazonas.h"
#include "engine/record.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using nlohmann::json;

namespace {

Record amazonas_record(std::initializer_list<json> events, int players = 2, bool finished = false) {
    json doc = {{"format", "meeplecam-record"}, {"version", 1}, {"game", "amazonas"}, {"players", json::array()},
                {"finished", finished}};
    const char* colors[6] = {"red", "blue", "green", "yellow", "black", "grey"};
    for (int i = 0; i < players; ++i) doc["players"].push_back({{"color", colors[i]}});
    doc["events"] = json::array({{{"type", "tile"}, {"tile", "SB0"}, {"at", {0, 0}}, {"rot", 0}}});
    for (const auto& e : events) doc["events"].push_back(e);
    auto r = parse_record(doc, "test");
    REQUIRE(r);
    return r.value();
}

json camp(const std::string& player, int x, int y, const std::string& loc) {
    return {{"type", "camp"}, {"player", player}, {"at", {x, y}}, {"loc", loc}};
}
json dbl(const std::string& player, const std::string& id, int x, int rot) {
    return {{"type", "double"}, {"player", player}, {"tile", id}, {"at", {x, 0}}, {"rot", rot}};
}

int tag_total(const std::vector<std::string>& tags, const std::string& tag) {
    return static_cast<int>(std::count(tags.begin(), tags.end(), tag));
}

}  // namespace

TEST_CASE("the provisional Amazonas catalog satisfies the known totals", "[amazonas]") {
    auto cat = Catalog::embedded("amazonas");
    REQUIRE(cat);
    CHECK(cat->provisional());
    CHECK(cat->game() == "amazonas");
    int standard = 0, amazon = 0, exclaim = 0, halves = 0, board = 0, mouth = 0, boats = 0;
    std::set<std::string> doubles;
    for (const TileType& t : cat->tiles()) {
        if (t.tags.empty()) {
            standard += t.count;
            for (const auto& f : t.features) boats += t.count * tag_total(f.tags, "boat");
        } else if (t.has_tag("amazon-double")) {
            halves += t.count;
            doubles.insert(t.id.substr(0, t.id.find('-')));
        } else if (t.has_tag("amazon")) {
            amazon += t.count;
            exclaim += t.has_tag("exclaim") ? t.count : 0;
        } else if (t.has_tag("start-board")) {
            board += t.count;
        } else if (t.has_tag("mouth")) {
            mouth += t.count;
        }
    }
    CHECK(standard == 65);
    CHECK(amazon == 15);
    CHECK(exclaim == 3);
    CHECK(doubles.size() == 4);
    CHECK(halves == 8);
    CHECK(board == 8);
    CHECK(mouth == 1);
    CHECK(boats > 0);
    CHECK(!Catalog::embedded("carcassonne-base")->provisional());
}

TEST_CASE("Amazonas starts with a 2x4 board and 10 places for a land tile", "[amazonas]") {
    auto game = replay(amazonas_record({}));
    REQUIRE(game);
    CHECK(game->board().size() == 8);
    CHECK(game->board().border_size() == 12);
    std::set<std::pair<int, int>> cells;
    for (const TileType& t : game->catalog().tiles()) {
        if (!t.tags.empty()) continue;
        for (const Placement& p : game->legal_placements(t)) cells.insert({p.at.x, p.at.y});
    }
    CHECK(cells.size() == 10);
    for (const auto& [x, y] : cells) CHECK(x <= 3);
    const auto* amz = dynamic_cast<const AmazonasModule*>(game->modules().front().get());
    REQUIRE(amz);
    CHECK(amz->spaces() == 16);
    CHECK(game->followers_left(0) == 4);
    auto four = replay(amazonas_record({}, 4));
    REQUIRE(four);
    CHECK(dynamic_cast<const AmazonasModule*>(four->modules().front().get())->spaces() == 8);
}

TEST_CASE("land tiles never go beyond the river's end / Amazon tiles extend it", "[amazonas]") {
    // L25 (all jungle) at [4,-1] lies beyond the end (x = 3) ...
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L25", 4, -1, 0)})),
               Catch::Contains("event 1 (tile)") && Catch::Contains("beyond the river's current end (x <= 3)"));
    // ... and fits once A01 has extended the river to x = 4.
    CHECK(test::replay_error(amazonas_record({test::tile("red", "A01", 4, 0, 0), test::tile("blue", "L25", 4, -1, 0)})) ==
          "");
    // A "!" tile and its double move the end by 3 (x = 6): a land tile fits beside the double's far half,
    // but not one cell further east, even touching it.
    CHECK(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("red", "D1", 5, 0),
                                              test::tile("blue", "L25", 6, -1, 0)})) == "");
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("red", "D1", 5, 0),
                                                   test::tile("blue", "L25", 6, -1, 0),
                                                   test::tile("red", "L25", 7, -1, 0)})),
               Catch::Contains("event 4 (tile)") && Catch::Contains("beyond the river's current end (x <= 6)"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A01", 5, 0, 0)})),
               Catch::Contains("must extend the river at its end, [4, 0]"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A01", 4, 0, 90)})),
               Catch::Contains("rot 0 or 180"));
    CHECK(test::replay_error(amazonas_record({test::tile("red", "A01", 4, 0, 180)})) == "");
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "D1-1", 4, 0, 0)})),
               Catch::Contains("set aside"));
    CHECK_THAT(test::replay_error(amazonas_record({{{"type", "discard"}, {"player", "red"}, {"tile", "A01"}}})),
               Catch::Contains("may not be discarded"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L25", 0, -1, 0)}, 6)),
               Catch::Contains("2 to 5 players"));
}

TEST_CASE("a \"!\" tile must be followed by an unused double / pieces then only on the double", "[amazonas]") {
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), test::tile("blue", "L25", 0, -1, 0)})),
               Catch::Contains("event 2 (tile)") && Catch::Contains("followed at once by a 'double' event"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0)}, 2, true)),
               Catch::Contains("end of game") && Catch::Contains("'double'"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), test::meeple("red", 4, 0, "N")})),
               Catch::Contains("event 2 (meeple)") && Catch::Contains("only on the double"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A01", 4, 0, 0), dbl("red", "D1", 5, 0)})),
               Catch::Contains("event 2 (double)") && Catch::Contains("only follow a \"!\""));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("red", "D9", 5, 0)})),
               Catch::Contains("unknown double 'D9'"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("red", "D1", 6, 0)})),
               Catch::Contains("'at' must be [5, 0]"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("blue", "D1", 5, 0)})),
               Catch::Contains("same turn"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("red", "D1", 5, 0),
                                                   test::tile("blue", "A14", 7, 0, 0), dbl("blue", "D1", 8, 0)})),
               Catch::Contains("event 4 (double)") && Catch::Contains("already on the board"));
    // rot 180 turns the double: half 2 comes first.
    auto g = replay(amazonas_record({test::tile("red", "A13", 4, 0, 0), dbl("red", "D2", 5, 180), camp("red", 6, 0, "N")}));
    if (!g) FAIL(g.error().to_string());
    CHECK(g->board().tiles()[static_cast<std::size_t>(g->board().tile_at(Cell{5, 0}))].type->id == "D2-2");
    CHECK(g->board().tiles()[static_cast<std::size_t>(g->board().tile_at(Cell{6, 0}))].type->id == "D2-1");
    const auto* amz = dynamic_cast<const AmazonasModule*>(g->modules().front().get());
    CHECK(amz->river_end() == 6);
    CHECK(amz->spaces() == 19);
    CHECK(amz->camps_left(0) == 1);
}

TEST_CASE("meeples go on tributaries and villages, camps on jungle, one piece a turn", "[amazonas]") {
    // L01 at [0,-1]: tributary W-E, jungle N and S.
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), test::meeple("red", 0, -1, "N")})),
               Catch::Contains("jungle takes a camp"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "A01", 4, 0, 0), test::meeple("red", 4, 0, "W")})),
               Catch::Contains("the Amazon is for boats"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), test::meeple("red", 0, -1, "W"),
                                                   camp("red", 0, -1, "N")})),
               Catch::Contains("event 3 (camp)") && Catch::Contains("not both"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), camp("red", 0, -1, "N"),
                                                   test::meeple("red", 0, -1, "W")})),
               Catch::Contains("event 3 (meeple)") && Catch::Contains("not both"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), camp("red", 0, -1, "W")})),
               Catch::Contains("has no jungle at port W"));
    // The S jungle of L01 joins the start board's big jungle; a second camp there is refused.
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), camp("red", 0, -1, "S"),
                                                   test::tile("blue", "L25", -1, 1, 0), camp("blue", -1, 1, "N")})),
               Catch::Contains("already has a camp (red at [0, -1])"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), camp("blue", 0, -1, "N")})),
               Catch::Contains("in that turn"));
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), camp("red", 1, -1, "N")})),
               Catch::Contains("not at [1, -1]"));
    // Two camps per player.
    CHECK_THAT(test::replay_error(amazonas_record({test::tile("red", "L01", 0, -1, 0), camp("red", 0, -1, "N"),
                                                   test::tile("blue", "L25", -1, 1, 0),
                                                   test::tile("red", "L26", -1, 0, 0), camp("red", -1, 0, "N"),
                                                   test::tile("blue", "L25", -1, 2, 0),
                                                   test::tile("red", "L12", 0, 2, 180), camp("red", 0, 2, "N")})),
               Catch::Contains("event 8 (camp)") && Catch::Contains("no camp left"));
}

TEST_CASE("every boat move names the record event of the turn that caused it", "[amazonas]") {
    // e1-e2 red L02 + meeple: 1 icon claimed. e3 blue L05 joins red's tributary with its icon (red +1)
    // and places nothing (blue +1): both moves belong to event 3, not to red's earlier turn.
    auto g = replay(amazonas_record({test::tile("red", "L02", 0, -1, 0), test::meeple("red", 0, -1, "W"),
                                     test::tile("blue", "L05", 1, -1, 0)}, 2, true));
    if (!g) FAIL(g.error().to_string());
    const auto* amz = dynamic_cast<const AmazonasModule*>(g->modules().front().get());
    REQUIRE(amz->boat_moves().size() == 3);
    std::vector<std::tuple<int, int, int, int>> moves;  // event, player, from, to
    for (const auto& m : amz->boat_moves()) moves.emplace_back(m.event_index, m.player, m.from, m.to);
    CHECK(moves[0] == std::make_tuple(1, 0, 0, 1));
    CHECK(moves[1] == std::make_tuple(3, 0, 1, 2));
    CHECK(moves[2] == std::make_tuple(3, 1, 0, 1));
}

TEST_CASE("boats stop on the last river space", "[amazonas]") {
    // 4 players: the 4-5 side has 8 spaces (0..7). 40 land tiles placed with no piece: 10 idle
    // turns each would take every boat to 10; they stop on 7.
    Record r = amazonas_record({}, 4);
    auto created = new_game_for(r, {});
    REQUIRE(created);
    Game g = std::move(created.value());
    for (std::size_t i = 0; i < r.events.size(); ++i) REQUIRE(g.apply(r.events[i], static_cast<int>(i)));
    int index = 1, turns = 0;
    for (const TileType& t : g.catalog().tiles()) {
        if (!t.tags.empty()) continue;
        for (int c = 0; c < t.count && turns < 40; ++c) {
            const auto moves = g.legal_placements(t);
            if (moves.empty()) break;
            Event e;
            e.type = "tile";
            e.player = r.players[static_cast<std::size_t>(g.next_player())].color;
            e.tile = t.id;
            e.at = moves.front().at;
            e.rot = moves.front().rot;
            auto st = g.apply(e, index++);
            if (!st) FAIL(st.error().to_string());
            ++turns;
        }
    }
    REQUIRE(turns == 40);
    REQUIRE(g.finish());
    const auto* amz = dynamic_cast<const AmazonasModule*>(g.modules().front().get());
    CHECK(amz->boats() == std::vector<int>{7, 7, 7, 7});
    for (const auto& m : amz->boat_moves()) CHECK(m.to <= 7);
    // All four tied first in the race: 7 points each.
    CHECK(g.scores() == std::vector<int>{7, 7, 7, 7});
}

TEST_CASE("the Amazonas catalog check reports totals that differ from the published game", "[amazonas]") {
    auto cat = Catalog::embedded("amazonas");
    REQUIRE(cat);
    const AmazonasCatalogTotals ok = amazonas_catalog_totals(cat.value());
    CHECK(ok.differences.empty());
    CHECK(ok.standard == 65);
    CHECK(ok.caimans > 0);
    CHECK(ok.piranhas > 0);
    // A user's catalog with one L01 too few and no "!" on A15.
    json doc;
    for (const auto& e : embedded_catalogs()) {
        if (e.name == "amazonas") doc = json::parse(e.text);
    }
    REQUIRE(doc.is_object());
    for (auto& t : doc["tiles"]) {
        if (t["id"] == "L01") t["count"] = t["count"].get<int>() - 1;
        if (t["id"] == "A15") t["tags"] = json::array({"amazon", "caiman"});
    }
    auto edited = Catalog::from_json(doc, "user.json");
    REQUIRE(edited);
    const AmazonasCatalogTotals bad = amazonas_catalog_totals(edited.value());
    REQUIRE(bad.differences.size() == 2);
    CHECK(bad.differences[0] == "standard land tiles: 64, the published game has 65");
    CHECK(bad.differences[1] == "Amazon tiles with \"!\": 2, the published game has 3");
}
