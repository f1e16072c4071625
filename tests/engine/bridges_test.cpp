#include <catch2/catch.hpp>

#include "engine/modules/bridges.h"
#include "engine/record.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using test::meeple;
using test::tile;

namespace {

Record bridges_record(std::initializer_list<nlohmann::json> events) {
    return test::with_expansions(test::base_record(events), {"bridges"});
}

nlohmann::json bridge(const std::string& player, int x, int y, const std::string& axis) {
    return {{"type", "bridge"}, {"player", player}, {"at", {x, y}}, {"axis", axis}};
}

nlohmann::json with_bridge_field(nlohmann::json t, int x, int y, const std::string& axis) {
    t["bridge"] = {{"at", {x, y}}, {"axis", axis}};
    return t;
}

}  // namespace

TEST_CASE("a bridge carries a road across two field sides and scores like a road", "[bridges]") {
    // U rot 90 at [1,0] (road W-E, fields N and S); red bridges it N-S and stands on the bridge.
    auto g = replay(bridges_record({tile("red", "U", 1, 0, 90), bridge("red", 1, 0, "NS"), meeple("red", 1, 0, "N")}));
    REQUIRE(g);
    const Board& b = g->board();
    const int bridge_node = b.node_at({1, 0}, *parse_port("N"));
    CHECK(b.node_def(bridge_node).has_tag("bridge"));
    CHECK(b.find(bridge_node) == b.find(b.node_at({1, 0}, *parse_port("S"))));
    CHECK(b.find(bridge_node) != b.find(b.node_at({1, 0}, *parse_port("E"))));
    // The fields under the bridge stay whole: NL and NR still one field with EL.
    CHECK(b.find(b.node_at({1, 0}, *parse_port("NR"))) == b.find(b.node_at({1, 0}, *parse_port("EL"))));
    REQUIRE(g->finish());
    CHECK(g->scores()[0] == 1);  // an open road of one tile (the bridge) at the end
}

TEST_CASE("illegal bridges are refused with the rule", "[bridges][bad-input]") {
    // Not on a field side: U rot 90's E side is its road.
    CHECK_THAT(test::replay_error(bridges_record({tile("red", "U", 1, 0, 90), bridge("red", 1, 0, "EW")})),
               Catch::Contains("event 2") && Catch::Contains("field sides"));
    // Crossing: a second bridge on the same tile, in a later turn.
    CHECK_THAT(test::replay_error(bridges_record({tile("red", "B", 0, 1, 0), bridge("red", 0, 1, "EW"), tile("blue", "U", 1, 1, 90),
                                        bridge("blue", 0, 1, "NS")})),
               Catch::Contains("already has a bridge"));
    // Two bridges in one turn.
    CHECK_THAT(test::replay_error(bridges_record({tile("red", "B", 0, 1, 0), bridge("red", 0, 1, "EW"), bridge("red", 0, 1, "NS")})),
               Catch::Contains("only one bridge may be built per turn"));
    // An end that meets a field side: B at [0,1] bridged N-S would end against D's south field.
    CHECK_THAT(test::replay_error(bridges_record({tile("red", "B", 0, 1, 0), bridge("red", 0, 1, "NS")})),
               Catch::Contains("continue a road or face an empty cell"));
    // Too far from the tile just placed.
    CHECK_THAT(test::replay_error(bridges_record({tile("red", "U", 1, 0, 90), tile("blue", "U", 2, 0, 90),
                                        tile("red", "U", 3, 0, 90), bridge("red", 1, 0, "NS")})),
               Catch::Contains("touching it by a side"));
    // A tile that does not fit even with its bridge field: malformed axis.
    CHECK_THAT(test::replay_error(bridges_record({with_bridge_field(tile("red", "U", 1, 0, 90), 1, 0, "NE")})),
               Catch::Contains("'axis'"));
}

TEST_CASE("each player has three bridges with 2-4 players", "[bridges][bad-input]") {
    nlohmann::json doc = bridges_record({}).to_json();
    auto& ev = doc["events"];
    // Red extends the road east with straight roads and bridges each N-S (ends face empty cells);
    // blue extends it west. Red's fourth bridge is one too many.
    for (int x = 1; x <= 4; ++x) {
        ev.push_back(tile("red", "U", x, 0, 90));
        ev.push_back(bridge("red", x, 0, "NS"));
        if (x < 4) ev.push_back(tile("blue", "U", -x, 0, 90));
    }
    auto r = parse_record(doc, "t");
    REQUIRE(r);
    auto g = replay(r.value());
    REQUIRE_FALSE(g);
    CHECK_THAT(g.error().to_string(), Catch::Contains("red has no bridge left"));
}
