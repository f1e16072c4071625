// The draw zone: the tile a player shows in a square of the calibrated table is named by the
// tile classifier (rendered frames, the renderer's true plane as the calibration).
#include <catch2/catch.hpp>

#include <cstdio>

#include "session/draw_zone.h"
#include "tests/session/bare_table.h"

using namespace meeplecam;


TEST_CASE("the tile shown in the draw zone is named / an empty zone is empty", "[session][draw-zone]") {
    const test::BaseGameClassifier base = test::base_game_classifier();
    const Catalog& catalog = base.catalog();
    const vision::TileClassifier& classifier = *base.classifier;
    const auto options = test::bare_table_options(1280, 720, 21);
    const Cell zone_cell{3, 1};  // a square of table beside the board, a cell away from it
    int right = 0, shown = 0;
    std::string wrong;
    for (const TileType& type : catalog.tiles()) {
        if (type.id == "D") continue;  // the start tile is on the board already
        const int rot = shown % 4;
        const std::vector<vision::SceneTile> tiles{{catalog.find("D"), {0, 0}, 0}, {&type, zone_cell, rot}};
        auto r = vision::render_table(tiles, options, 100 + static_cast<std::uint64_t>(shown));
        REQUIRE(r);
        const cv::Point2d at = r->truth.tiles[1].centre_mm;
        session::DrawZoneOptions zone;
        zone.zone_mm = {at.x - 40, at.y - 40, 80, 80};  // the players' marked square; the tile lies roughly in it
        auto read = session::read_draw_zone(r->image, r->truth.table_to_image.inv(), classifier, zone, "frame");
        REQUIRE(read);
        REQUIRE(read->has_value());
        ++shown;
        if ((*read)->tile == type.id) {
            ++right;
        } else {
            wrong += " " + type.id + "->" + (*read)->tile;
        }
        if (shown == 1) {
            // The same table without the drawn tile: the zone reads empty.
            const std::vector<vision::SceneTile> start{{catalog.find("D"), {0, 0}, 0}};
            auto bare = vision::render_table(start, options, 99);
            REQUIRE(bare);
            auto none = session::read_draw_zone(bare->image, bare->truth.table_to_image.inv(), classifier, zone, "frame");
            REQUIRE(none);
            CHECK_FALSE(none->has_value());
        }
    }
    std::printf("draw zone: %d of %d tile types named right (1280x720 easy renders, one each);%s\n", right, shown,
                wrong.empty() ? "" : (" wrong:" + wrong).c_str());
    CHECK(right >= shown * 3 / 4);
}

TEST_CASE("a draw zone smaller than a tile is refused", "[session][draw-zone]") {
    session::DrawZoneOptions zone;
    zone.zone_mm = {0, 0, 30, 80};
    auto st = zone.check();
    REQUIRE_FALSE(st);
    CHECK(st.error().to_string().find("at least one tile") != std::string::npos);
}
