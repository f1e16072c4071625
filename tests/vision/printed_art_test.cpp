#include <catch2/catch.hpp>

#include <deque>

#include "render_fixtures.h"
#include "vision/tile_art.h"

using namespace meeplecam;

namespace {

// Whether a variant map draws a road bend as two arms to the centre (its road split in two).
bool is_elbow(const TileType& type, const TileType& variant) { return variant.features.size() > type.features.size(); }

}  // namespace

TEST_CASE("road bends drawn as two arms to the centre are read as bends, not junctions", "[vision][board-reader][classify]") {
    // Printed art turns its road bends near the tile's centre; the renderer draws them as arcs
    // round the corner. A board whose bends are drawn like the printed art (V, J, K, O, P as two
    // arms meeting at the centre: tile_art.h printed_geometry_variants) reads its bends as
    // junctions (W, L) or straight roads without the printed-art maps (real test_00: 5 of 9 V misread).
    const auto catalog = test::base_catalog_for_render();
    auto tiles = test::random_board(40, 23);
    std::deque<TileType> elbows;  // the drawn art, kept alive for the render
    int bends = 0;
    for (auto& t : tiles) {
        for (const auto& [variant, style] : vision::printed_geometry_variants(*t.type)) {
            if (!is_elbow(*t.type, variant)) continue;
            elbows.push_back(variant);
            t.printed = &elbows.back();
            ++bends;
        }
    }
    REQUIRE(bends >= 8);
    auto rendering = vision::render_table(tiles, test::daylight_options(), 23);
    REQUIRE(rendering);
    auto bends_right = [&](bool printed_variants) {
        vision::ReaderOptions o;
        o.classifier.printed_variants = printed_variants;
        int right = 0, read = 0;
        for (const auto& t : test::read_back(rendering.value(), *catalog, o)) {
            if (t.read == nullptr || vision::printed_geometry_variants(*t.truth).size() == 1) continue;
            bool bent = false;
            for (const auto& [variant, style] : vision::printed_geometry_variants(*t.truth)) bent = bent || is_elbow(*t.truth, variant);
            if (!bent) continue;
            ++read;
            right += t.right;
        }
        INFO(right << " of " << read << " bends right (printed variants " << printed_variants << ")");
        CHECK(read >= bends - 2);
        return right;
    };
    const int with = bends_right(true), without = bends_right(false);
    INFO("bends " << bends << ": right " << with << " with the printed-art maps, " << without << " without");
    CHECK(with >= bends - 1);
    CHECK(without < with);
}
