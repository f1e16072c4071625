#include <catch2/catch.hpp>

#include "render_fixtures.h"
#include "vision/board_reader.h"
#include "vision/table_renderer.h"
#include "vision/truth_metrics.h"

using namespace meeplecam;

TEST_CASE("a board on a plaid in the tiles' colours is read on the tiles' own edge directions", "[vision][board-reader][lattice][cloth]") {
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
}
