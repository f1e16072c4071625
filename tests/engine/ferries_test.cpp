#include <catch2/catch.hpp>

#include "engine/modules/ferries.h"
#include "engine/record.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using test::meeple;
using test::tile;

namespace {

Record ferries_record(std::initializer_list<nlohmann::json> events) {
    return test::with_expansions(test::base_record(events), {"ferries"});
}

nlohmann::json ferry(const std::string& player, int x, int y, const std::string& a, const std::string& b,
                     const std::string& type = "ferry") {
    return {{"type", type}, {"player", player}, {"at", {x, y}}, {"jetties", {a, b}}};
}

}  // namespace

TEST_CASE("a lake tile needs its ferry, joining two of its jetties", "[ferries]") {
    // FE2 at [1,0] rot 0: jetties E, S, W; the W jetty continues the start tile's road.
    auto ok = replay(ferries_record({tile("red", "FE2", 1, 0, 0), meeple("red", 1, 0, "W"),
                                     ferry("red", 1, 0, "W", "E")}));
    REQUIRE(ok);
    const Board& b = ok->board();
    CHECK(b.find(b.node_at({1, 0}, *parse_port("W"))) == b.find(b.node_at({1, 0}, *parse_port("E"))));
    CHECK(b.find(b.node_at({1, 0}, *parse_port("S"))) != b.find(b.node_at({1, 0}, *parse_port("E"))));

    CHECK_THAT(test::replay_error(ferries_record({tile("red", "FE2", 1, 0, 0), tile("blue", "U", -1, 0, 90)})),
               Catch::Contains("event 2") && Catch::Contains("needs its ferry"));
    CHECK_THAT(test::replay_error(ferries_record({tile("red", "FE2", 1, 0, 0)})), Catch::Contains("needs its ferry"));
    CHECK_THAT(test::replay_error(ferries_record({tile("red", "FE2", 1, 0, 0), ferry("red", 1, 0, "N", "E")})),
               Catch::Contains("port N") && Catch::Contains("not a jetty"));
    CHECK_THAT(test::replay_error(ferries_record({tile("red", "FE2", 1, 0, 0), ferry("red", 1, 0, "E", "W"),
                                        meeple("red", 1, 0, "S")})),
               Catch::Contains("follower must be placed before the ferry"));
    CHECK_THAT(test::replay_error(ferries_record({tile("red", "FE2", 1, 0, 0), ferry("blue", 1, 0, "E", "W")})),
               Catch::Contains("red's turn"));
}

TEST_CASE("a road through a ferry scores its lake tile once / an unferried jetty ends a road", "[ferries]") {
    // [-1,0] W rot 180 (N R, E R, S F, W R): a junction whose E arm meets the start's road; red on it.
    // [1,0] FE2 rot 0 (jetties E, S, W), ferry W-S. [1,1] W rot 180: its N arm ends the road at a
    // junction. Road: [-1,0] arm, D, FE2 (two jetties, one tile), [1,1] arm = 4 tiles, closed at event 5.
    auto events = {tile("red", "W", -1, 0, 180), meeple("red", -1, 0, "E"), tile("blue", "FE2", 1, 0, 0),
                   ferry("blue", 1, 0, "W", "S"), tile("red", "W", 1, 1, 180), tile("blue", "U", 2, 0, 90)};
    auto g = replay(ferries_record(events));
    REQUIRE(g);
    REQUIRE(g->score_events().size() == 1);
    CHECK(g->score_events()[0].feature == "road");
    CHECK(g->score_events()[0].points == 4);
    CHECK(g->score_events()[0].event_index == 5);
    CHECK(g->scores()[0] == 4);
    // Blue's U at [2,0] reaches the lake at its unferried E jetty: that road ends there, so no
    // ferry may move.
    Record moved = ferries_record(events);
    auto doc = moved.to_json();
    doc["events"].push_back(ferry("blue", 1, 0, "W", "E", "ferry-move"));
    CHECK_THAT(test::replay_error(parse_record(doc, "t").value()), Catch::Contains("event 7") && Catch::Contains("not the first ferry"));
}

TEST_CASE("only the first ferry along an extended road may move, once per turn", "[ferries]") {
    auto r = ferries_record({tile("red", "FE2", 1, 0, 0), ferry("red", 1, 0, "W", "E"),
                             tile("blue", "U", 2, 0, 90), ferry("blue", 1, 0, "W", "S", "ferry-move"),
                             ferry("blue", 1, 0, "E", "S", "ferry-move")});
    CHECK_THAT(test::replay_error(r), Catch::Contains("event 5") && Catch::Contains("already moved this turn"));
    auto ok = ferries_record({tile("red", "FE2", 1, 0, 0), ferry("red", 1, 0, "W", "E"), tile("blue", "U", 2, 0, 90),
                              ferry("blue", 1, 0, "W", "S", "ferry-move")});
    REQUIRE(test::replay_error(ok).empty());
    auto far = ferries_record({tile("red", "FE2", 1, 0, 0), ferry("red", 1, 0, "W", "E"),
                               tile("blue", "V", 0, 1, 0), ferry("blue", 1, 0, "W", "S", "ferry-move")});
    CHECK_THAT(test::replay_error(far), Catch::Contains("not the first ferry"));
}
