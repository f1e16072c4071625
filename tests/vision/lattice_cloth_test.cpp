#include <catch2/catch.hpp>

#include "render_fixtures.h"
#include "vision/board_reader.h"
#include "vision/table_renderer.h"
#include "vision/truth_metrics.h"

using namespace meeplecam;

TEST_CASE("a board on a plaid in the tiles' colours is read on the tiles' own edge directions", "[vision][board-reader][lattice][cloth][scene]") {
    // The bench's medium boards 11000 (dusk light, tiles turned about 45 degrees on a plaid whose
    // stripes run along the frame in the tiles' own green and orange) and 7012 (tiles along the
    // frame, a plaid at about 50 degrees). The colours cannot tell the board from the cloth (the
    // whole frame is searched), the stripes outvote the tiles' sides in the direction histogram
    // about ten to one and fold more sharply: 11000's stripe lattice frames 51 cells 2.8 times, a
    // sure board 88 mm off; 7012 is read 172 mm off. With the edge band's lines taken off each
    // direction, the best supported pair first, its gaps and cells read near its own edges: 1.3
    // and 0.3 mm.
    for (const std::uint64_t seed : {11000u, 7012u}) {
        const auto r = test::render_bench_board(seed, vision::Difficulty::Medium);
        auto rms_with = [&](double discount, double reach) {
            vision::ReaderOptions options;
            options.lattice.table_line_discount = discount;
            options.lattice.pair_region_reach = reach;
            return test::read_rms_mm(r, options);
        };
        const vision::LatticeOptions defaults;
        const double fixed = rms_with(defaults.table_line_discount, defaults.pair_region_reach), plain = rms_with(0, 0);
        INFO("seed " << seed << ": with the table's lines discounted " << fixed << " mm, without " << plain << " mm");
        CHECK(fixed < 5.0);
        CHECK(plain > 40.0);
    }
}

TEST_CASE("squares of a cloth in the tiles' colours read by occupancy are taken for table", "[vision][board-reader][cloth][classifier][scene]") {
    // The bench's medium board 7012 (contrast art on a green and blue plaid whose green is the
    // tiles' field colour): the colours cannot tell the board from the cloth, so occupancy takes
    // the cells near the lattice's edges, and the plaid's green squares in the board's holes and
    // along its rim were read as tiles (13 invented on the true lattice). The table's colours
    // explain those cells nearly as well as the best tile (within 0.11-1.12 per sample, the true
    // tiles 0.50-1.96): with ClassifierOptions::tile_coloured_table_margin they are dropped.
    const auto r = test::render_bench_board(7012, vision::Difficulty::Medium);
    const auto& catalog = *test::base_catalog_for_render();
    struct Counts {
        int right = 0, invented = 0;
        bool tile_coloured = false;
    };
    auto read_with = [&](double margin) {
        vision::ReaderOptions options;
        options.min_across_gap_alignment = 0;  // as measured, before stop 34's tiles across a gap and reframing
        options.reframe.enabled = false;
        options.classifier.tile_coloured_table_margin = margin;
        vision::BoardReading reading;
        const auto back = test::read_back(r, catalog, options, &reading);
        Counts n;
        int matched = 0;
        for (const auto& b : back) n.right += b.right, matched += b.read != nullptr;
        n.invented = static_cast<int>(reading.tiles.size()) - matched;
        n.tile_coloured = reading.view.table_in_tile_colours;
        return n;
    };
    const Counts fixed = read_with(vision::ClassifierOptions{}.tile_coloured_table_margin), plain = read_with(0);
    INFO("right " << fixed.right << " (without the margin " << plain.right << "), invented " << fixed.invented << " (" << plain.invented << ")");
    CHECK(fixed.tile_coloured);
    CHECK(plain.invented >= 10);
    CHECK(fixed.invented <= 5);
    CHECK(fixed.right >= plain.right);
}

TEST_CASE("a board on a plain table is not read as on a table in the tiles' colours", "[vision][board-reader][cloth]") {
    const auto r = vision::render_table(test::random_board(20, 3), test::daylight_options(), 3);
    REQUIRE(r);
    const auto reading = vision::read_board(r->image, *test::base_catalog_for_render());
    REQUIRE(reading);
    REQUIRE(reading->found);
    CHECK_FALSE(reading->view.table_in_tile_colours);
}

TEST_CASE("lattice options refuse a negative table line discount or pair reach", "[vision][board-reader][bad-input]") {
    vision::LatticeOptions o;
    CHECK(o.check());
    o.table_line_discount = -1;
    CHECK_FALSE(o.check());
    o = {};
    o.pair_region_reach = -0.1;
    CHECK_FALSE(o.check());
    o = {};
    o.pair_region_reach = 0.5;
    CHECK_FALSE(o.check());
    vision::ClassifierOptions c;
    CHECK(c.check());
    c.tile_coloured_table_margin = -0.1;
    CHECK_FALSE(c.check());
}
