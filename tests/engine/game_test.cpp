#include <catch2/catch.hpp>

#include "engine/record.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using test::meeple;
using test::tile;

TEST_CASE("a follower on a city completed by its own tile scores at once and returns", "[game]") {
    auto g = replay(test::base_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S")}));
    REQUIRE(g);
    REQUIRE(g->finish());
    CHECK(g->scores()[0] == 4);
    CHECK(g->followers_left(0) == 7);
    REQUIRE(g->score_events().size() == 1);
    CHECK(g->score_events()[0].feature == "city");
    CHECK(g->score_events()[0].event_index == 1);
}

TEST_CASE("turn order, one follower per turn, only on the tile just placed", "[game][bad-input]") {
    CHECK_THAT(test::replay_error(test::base_record({tile("blue", "E", 0, -1, 180)})),
               Catch::Contains("event 1") && Catch::Contains("red's turn"));
    CHECK_THAT(test::replay_error(test::base_record({tile("red", "U", 1, 0, 90), meeple("red", 1, 0, "E"),
                                                     meeple("red", 1, 0, "N")})),
               Catch::Contains("event 3") && Catch::Contains("only one follower"));
    CHECK_THAT(test::replay_error(test::base_record({tile("red", "U", 1, 0, 90), meeple("red", 0, 0, "N")})),
               Catch::Contains("only go on the tile just placed"));
    CHECK_THAT(test::replay_error(test::base_record({tile("red", "U", 1, 0, 90), meeple("blue", 1, 0, "N")})),
               Catch::Contains("red's turn"));
}

TEST_CASE("a follower on an occupied feature is illegal, naming the holder", "[game][bad-input]") {
    auto r = test::base_record({tile("red", "U", 1, 0, 90), meeple("red", 1, 0, "E"), tile("blue", "U", -1, 0, 90),
                                meeple("blue", -1, 0, "W")});
    auto g = replay(r);
    REQUIRE_FALSE(g);
    CHECK(g.error().kind == ErrorKind::Illegal);
    CHECK_THAT(g.error().to_string(), Catch::Contains("event 4") && Catch::Contains("already has a follower") &&
                                          Catch::Contains("red at [1, 0]"));
}

TEST_CASE("an eighth follower is refused", "[game][bad-input]") {
    // Red lays a row south of the road: 4 monasteries (B), then separate city caps (E, city
    // south), a follower on each; blue extends the road east. Red's 8th follower is refused.
    nlohmann::json doc = test::base_record({}).to_json();
    auto& ev = doc["events"];
    for (int x = 0; x < 8; ++x) {
        if (x > 0) ev.push_back(tile("blue", "U", x, 0, 90));
        ev.push_back(tile("red", x < 4 ? "B" : "E", x, 1, x < 4 ? 0 : 180));
        ev.push_back(meeple("red", x, 1, x < 4 ? "C" : "S"));
    }
    auto r = parse_record(doc, "t");
    REQUIRE(r);
    auto g = replay(r.value());
    REQUIRE_FALSE(g);
    CHECK(g.error().kind == ErrorKind::Illegal);
    CHECK_THAT(g.error().to_string(), Catch::Contains("event " + std::to_string(ev.size() - 1)) &&
                                          Catch::Contains("no follower left"));
}

TEST_CASE("a discard is legal only when the tile fits nowhere", "[game][bad-input]") {
    nlohmann::json doc = test::base_record({}).to_json();
    doc["events"].push_back({{"type", "discard"}, {"player", "red"}, {"tile", "U"}});
    auto g = replay(parse_record(doc, "t").value());
    REQUIRE_FALSE(g);
    CHECK_THAT(g.error().to_string(), Catch::Contains("may not be discarded") && Catch::Contains("it fits"));
}

TEST_CASE("using more copies of a tile than the edition has is illegal", "[game][bad-input]") {
    nlohmann::json doc = test::base_record({}).to_json();
    // The single C fits only north of the start tile; a second C is one copy too many.
    doc["events"].push_back(tile("red", "C", 0, -1, 0));
    doc["events"].push_back(tile("blue", "C", 0, -2, 0));
    auto g = replay(parse_record(doc, "t").value());
    REQUIRE_FALSE(g);
    CHECK(g.error().kind == ErrorKind::Illegal);
    CHECK_THAT(g.error().to_string(), Catch::Contains("event 2") && Catch::Contains("used more often"));
}

TEST_CASE("follower options list one port per free feature", "[game]") {
    auto g = replay(test::base_record({tile("red", "U", 1, 0, 90), meeple("red", 1, 0, "E")}));
    REQUIRE(g);
    // Blue considers a U west of the start: road (occupied by red via the start tile), two fields.
    auto opts = g->follower_options(*g->catalog().find("U"), Placement{{-1, 0}, 1});
    REQUIRE(opts);
    std::vector<std::string> locs;
    for (const auto& o : opts.value()) locs.emplace_back(port_name(o.loc));
    CHECK(locs == std::vector<std::string>{"NL", "ER"});
}
