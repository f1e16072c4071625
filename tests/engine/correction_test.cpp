// Correction events: an edit of a tile or follower event leaves an audit trail in the record
// that replays to the same board, round-trips, and is checked against the event it names.
#include <catch2/catch.hpp>

#include "engine/correction.h"
#include "engine/record.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using test::meeple;
using test::tile;

namespace {

// The record's score sheet as JSON (replayed and closed).
nlohmann::json sheet(const Record& r) {
    auto g = replay(r);
    REQUIRE(g);
    return score_sheet_json(g.value());
}

// Parses the record's JSON back (as a file would be read).
Result<Record> reparse(const Record& r) { return parse_record(r.to_json(), "r.json"); }

}  // namespace

TEST_CASE("a tile correction rewrites the event and appends its audit trail", "[record][correction]") {
    // U turned 90 (a straight road east-west) east of the start tile; the players say it was V at 0.
    Record r = test::base_record({tile("red", "U", 1, 0, 90), tile("blue", "U", -1, 0, 90)});
    REQUIRE(correct_tile_event(r, {1, 0}, "V", 0));
    REQUIRE(r.events.size() == 4);
    CHECK(r.events[1].tile == "V");
    CHECK(r.events[1].rot == 0);
    CHECK(r.events[1].to_json()["rot"] == 0);
    const nlohmann::json c = r.events[3].to_json();
    CHECK(c == nlohmann::json::parse(R"({"type": "correction", "event": 1, "what": "tile", "at": [1, 0],
        "was": {"tile": "U", "rot": 90}, "now": {"tile": "V", "rot": 0}, "by": "players"})"));
    CHECK(describe_correction(r.events[3]) == "correction of event 1 (tile at [1, 0]): U 90° -> V 0° by the players");

    // Replays to exactly the board a record without the trail gives, and round-trips.
    Record plain = test::base_record({tile("red", "V", 1, 0, 0), tile("blue", "U", -1, 0, 90)});
    REQUIRE(replay(r));
    CHECK(replay(r)->board().tiles().size() == 3);
    CHECK(sheet(r) == sheet(plain));
    auto back = reparse(r);
    REQUIRE(back);
    CHECK(back->to_json() == r.to_json());

    // A second correction of the same tile continues the chain.
    REQUIRE(correct_tile_event(r, {1, 0}, "U", 1));
    CHECK(r.events[4].to_json()["was"] == nlohmann::json::parse(R"({"tile": "V", "rot": 0})"));
    REQUIRE(reparse(r));
    CHECK(test::replay_error(r) == "");

    // Nothing to correct: refused, nothing changes.
    const std::size_t n = r.events.size();
    auto same = correct_tile_event(r, {1, 0}, "U", 1);
    REQUIRE_FALSE(same);
    CHECK(same.error().to_string() == "correction of the tile at [1, 0]: the tile is already U 90°");
    auto none = correct_tile_event(r, {5, 5}, "U", 1);
    REQUIRE_FALSE(none);
    CHECK(none.error().to_string() == "correction of the tile at [5, 5]: no tile was placed there");
    CHECK(r.events.size() == n);
}

TEST_CASE("a record whose correction disagrees with the event is refused, naming the correction", "[record][correction][bad-input]") {
    Record r = test::base_record({tile("red", "U", 1, 0, 90)});
    REQUIRE(correct_tile_event(r, {1, 0}, "V", 0));
    SECTION("the corrected event was changed back by hand") {
        nlohmann::json doc = r.to_json();
        doc["events"][1]["tile"] = "U";
        doc["events"][1]["rot"] = 90;
        auto bad = parse_record(doc, "r.json");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().kind == ErrorKind::Invalid);
        CHECK(bad.error().to_string() == "r.json: event 2 (correction): event 1 holds U 90°, not what the correction made it (V 0°)");
        // The in-memory path (a tracker's record) is checked by replay too.
        Record edited = r;
        edited.events[1].tile = "U";
        edited.events[1].rot = 1;
        auto g = replay(edited);
        REQUIRE_FALSE(g);
        CHECK(g.error().to_string() == "event 2 (correction): event 1 holds U 90°, not what the correction made it (V 0°)");
    }
    SECTION("a correction naming a later event") {
        nlohmann::json doc = r.to_json();
        doc["events"][2]["event"] = 2;
        auto bad = parse_record(doc, "r.json");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().to_string() == "r.json: event 2 (correction): 'event' 2 must name an earlier event (0..1)");
    }
    SECTION("a correction naming an event of another kind") {
        nlohmann::json doc = r.to_json();
        doc["events"][2]["event"] = 0;
        auto bad = parse_record(doc, "r.json");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().to_string() == "r.json: event 2 (correction): event 0 (tile) is not the tile at [1, 0] it corrects");
    }
    SECTION("a broken chain") {
        REQUIRE(correct_tile_event(r, {1, 0}, "U", 1));
        nlohmann::json doc = r.to_json();
        doc["events"][3]["was"] = {{"tile", "X"}, {"rot", 0}};
        auto bad = parse_record(doc, "r.json");
        REQUIRE_FALSE(bad);
        CHECK(bad.error().to_string() ==
              "r.json: event 3 (correction): 'was' (X 0°) is not what event 2 corrected the tile at [1, 0] to (V 0°)");
    }
    SECTION("bad fields") {
        nlohmann::json doc = r.to_json();
        auto error_with = [&](const char* field, const nlohmann::json& value) {
            nlohmann::json d = doc;
            d["events"][2][field] = value;
            auto bad = parse_record(d, "r.json");
            REQUIRE_FALSE(bad);
            return bad.error().to_string();
        };
        CHECK(error_with("what", "meeple") == "r.json: event 2 (correction): 'what' must be \"tile\" or \"follower\"");
        CHECK(error_with("by", "ghost") == "r.json: event 2 (correction): 'by' must be \"players\" or \"camera\"");
        CHECK(error_with("now", {{"tile", "V"}, {"rot", 45}}) == "r.json: event 2 (correction): 'now' needs \"rot\": 0, 90, 180 or 270");
        CHECK(error_with("now", nullptr) ==
              "r.json: event 2 (correction): 'now' of a tile correction must be {\"tile\": ID, \"rot\": degrees}");
        CHECK(error_with("was", {{"tile", "V"}, {"rot", 0}}) == "r.json: event 2 (correction): 'was' and 'now' are the same: nothing was corrected");
    }
}

TEST_CASE("follower corrections: re-colour, remove, add back / indices follow the shifts", "[record][correction]") {
    // red's follower on the road of U at [1, 0]; then blue plays on.
    Record r = test::base_record({tile("red", "U", 1, 0, 90), meeple("red", 1, 0, "W"), tile("blue", "U", 2, 0, 90)});
    REQUIRE(correct_follower_event(r, {1, 0}, "red", "N"));  // the field north of the road
    CHECK(r.events[2].loc == "N");
    CHECK(describe_correction(r.events.back()) == "correction of event 2 (follower at [1, 0]): red on W -> red on N by the players");
    REQUIRE(reparse(r));
    REQUIRE(replay(r));

    // Removing it shifts the later events; the earlier correction keeps naming where it stood.
    REQUIRE(correct_follower_event(r, {1, 0}, "", ""));
    REQUIRE(r.events.size() == 5);  // D, U, U, two corrections
    CHECK(r.events.back().to_json()["event"] == 2);
    CHECK(r.events.back().to_json()["now"].is_null());
    CHECK(describe_correction(r.events.back()) == "correction of event 2 (follower at [1, 0]): removed red on N by the players");
    REQUIRE(reparse(r));
    auto g = replay(r);
    REQUIRE(g);
    CHECK(g->followers_left(0) == 7);

    // Adding one back inserts it right after its tile; later corrections' indices move with it.
    Record before = r;
    REQUIRE(correct_follower_event(r, {1, 0}, "red", "W"));
    CHECK(r.events[2].type == "meeple");
    CHECK(r.events[3].type == "tile");
    CHECK(r.events.back().to_json()["event"] == 2);
    CHECK(r.events.back().to_json()["was"].is_null());
    REQUIRE(reparse(r));
    REQUIRE(replay(r));
    CHECK(replay(r)->followers_left(0) == 6);

    // A removal correction while the follower is still in the record is refused.
    nlohmann::json doc = before.to_json();
    doc["events"].insert(doc["events"].begin() + 2, meeple("red", 1, 0, "W"));
    auto bad = parse_record(doc, "r.json");
    REQUIRE_FALSE(bad);
    CHECK_THAT(bad.error().to_string(), Catch::Contains("it removed the follower at [1, 0], but event 2 still places one there"));
}

TEST_CASE("undo keeps the corrections of the moves before it", "[record][correction]") {
    Record r = test::base_record({tile("red", "U", 1, 0, 90), tile("blue", "U", 2, 0, 90)});
    REQUIRE(correct_tile_event(r, {1, 0}, "V", 0));   // names event 1: stays
    REQUIRE(correct_tile_event(r, {2, 0}, "U", 3));   // names event 2: goes with it
    truncate_events(r, 2);
    REQUIRE(r.events.size() == 3);
    CHECK(r.events[2].to_json()["event"] == 1);
    REQUIRE(reparse(r));
    REQUIRE(replay(r));
}
