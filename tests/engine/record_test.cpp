#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "engine/atomic_file.h"
#include "engine/record.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;
using test::meeple;
using test::tile;

namespace {

Error replay_failure(std::initializer_list<nlohmann::json> events) {
    auto g = replay(test::base_record(events));
    REQUIRE_FALSE(g);
    return g.error();
}

}  // namespace

TEST_CASE("bad records: each error names the event and the rule", "[record][bad-input]") {
    SECTION("unknown tile id") {
        const Error e = replay_failure({tile("red", "Z9", 1, 0, 0)});
        CHECK(e.kind == ErrorKind::Invalid);
        CHECK_THAT(e.to_string(), Catch::Contains("event 1") && Catch::Contains("unknown tile id 'Z9'"));
    }
    SECTION("a tile on an occupied cell") {
        const Error e = replay_failure({tile("red", "U", 0, 0, 90)});
        CHECK(e.kind == ErrorKind::Illegal);
        CHECK_THAT(e.to_string(), Catch::Contains("event 1") && Catch::Contains("already occupied"));
    }
    SECTION("a tile not touching the board") {
        const Error e = replay_failure({tile("red", "U", 3, 3, 0)});
        CHECK(e.kind == ErrorKind::Illegal);
        CHECK_THAT(e.to_string(), Catch::Contains("does not touch"));
    }
    SECTION("mismatching sides") {
        const Error e = replay_failure({tile("red", "U", 1, 0, 0)});
        CHECK(e.kind == ErrorKind::Illegal);
        CHECK_THAT(e.to_string(), Catch::Contains("west side (field) faces the east side of tile D"));
    }
    SECTION("a follower on an occupied feature") {
        const Error e = replay_failure({tile("red", "U", 1, 0, 90), meeple("red", 1, 0, "W"),
                                        tile("blue", "V", -1, 0, 180), meeple("blue", -1, 0, "E")});
        CHECK(e.kind == ErrorKind::Illegal);
        CHECK_THAT(e.to_string(), Catch::Contains("event 4") && Catch::Contains("already has a follower"));
    }
    SECTION("an unknown port") {
        auto doc = test::base_record({tile("red", "U", 1, 0, 90)}).to_json();
        doc["events"].push_back({{"type", "meeple"}, {"player", "red"}, {"at", {1, 0}}, {"loc", "NW"}});
        auto r = parse_record(doc, "m.json");
        REQUIRE_FALSE(r);
        CHECK(r.error().kind == ErrorKind::Invalid);
        CHECK_THAT(r.error().to_string(), Catch::Contains("m.json: event 2") && Catch::Contains("unknown port 'NW'"));
    }
    SECTION("a port with no feature on that tile") {
        // B (monastery + field) has every port; D's centre has no feature.
        const Error e = replay_failure({tile("red", "U", 1, 0, 90), meeple("red", 1, 0, "C")});
        CHECK(e.kind == ErrorKind::Illegal);
        CHECK_THAT(e.to_string(), Catch::Contains("no feature at port C"));
    }
}

TEST_CASE("malformed record documents are refused with where and why", "[record][bad-input]") {
    const std::string good = test::base_record({tile("red", "U", 1, 0, 90)}).to_json().dump();
    SECTION("truncated JSON reports the byte") {
        auto r = parse_record_text(good.substr(0, good.size() / 2), "cut.json");
        REQUIRE_FALSE(r);
        CHECK(r.error().kind == ErrorKind::Invalid);
        CHECK_THAT(r.error().to_string(), Catch::Contains("cut.json") && Catch::Contains("not valid JSON (byte"));
    }
    SECTION("not JSON at all") {
        auto r = parse_record_text("\x89PNG\r\n", "pic.json");
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("not valid JSON"));
    }
    SECTION("wrong format, version and field types") {
        auto doc = nlohmann::json::parse(good);
        auto check = [&](nlohmann::json d, const char* needle) {
            auto r = parse_record(d, "x.json");
            REQUIRE_FALSE(r);
            CHECK_THAT(r.error().to_string(), Catch::Contains(needle));
        };
        auto d = doc; d["format"] = "pgn"; check(d, "'format'");
        d = doc; d["version"] = 2; check(d, "version 2 is not supported");
        d = doc; d["players"] = nlohmann::json::array(); check(d, "'players'");
        d = doc; d["events"][1]["rot"] = 45; check(d, "event 1: 'rot' must be 0, 90, 180 or 270");
        d = doc; d["events"][1]["at"] = {1}; check(d, "event 1: 'at' must be [x, y]");
        d = doc; d["events"][1].erase("tile"); check(d, "event 1: missing 'tile'");
        d = doc; d["game"] = "chess"; check(d, "'game' must be one of");
        d = doc; d["finished"] = "yes"; check(d, "'finished'");
    }
    SECTION("a missing or empty file") {
        CHECK_FALSE(read_record("/nonexistent/match.json"));
        const auto path = (std::filesystem::temp_directory_path() / "meeplecam_empty.json").string();
        { std::ofstream(path).flush(); }
        auto r = read_record(path);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("empty"));
        std::filesystem::remove(path);
    }
    SECTION("an unknown expansion") {
        auto doc = nlohmann::json::parse(good);
        doc["expansions"] = {"inns-and-cathedrals"};
        auto g = replay(parse_record(doc, "x").value());
        REQUIRE_FALSE(g);
        CHECK_THAT(g.error().message, Catch::Contains("unknown or unsupported expansion 'inns-and-cathedrals'"));
    }
}

TEST_CASE("records round-trip through a file written atomically", "[record]") {
    const Record r = test::base_record({tile("red", "E", 0, -1, 180), meeple("red", 0, -1, "S"),
                                        tile("blue", "U", 1, 0, 90), meeple("blue", 1, 0, "N")},
                                       /*finished=*/true);
    const auto dir = std::filesystem::temp_directory_path() / "meeplecam_record_test";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "match.json").string();
    REQUIRE(write_record(r, path));
    REQUIRE(write_record(r, path));  // overwriting works and leaves no temporary files behind
    int files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    CHECK(files == 1);
    auto back = read_record(path);
    REQUIRE(back);
    CHECK(back->to_json() == r.to_json());
    auto g1 = replay(r);
    auto g2 = replay(back.value());
    REQUIRE(g1);
    REQUIRE(g2);
    CHECK(score_sheet_json(g1.value()) == score_sheet_json(g2.value()));
    std::filesystem::remove_all(dir);
}

TEST_CASE("atomic writes report an unwritable folder instead of crashing", "[record][bad-input]") {
    auto st = write_file_atomically("/nonexistent-dir/x.json", "{}");
    REQUIRE_FALSE(st);
    CHECK_THAT(st.error().to_string(), Catch::Contains("/nonexistent-dir/x.json"));
}
