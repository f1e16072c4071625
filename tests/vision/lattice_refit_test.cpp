#include <catch2/catch.hpp>

#include "render_fixtures.h"
#include "vision/board_reader.h"
#include "vision/table_renderer.h"
#include "vision/truth_metrics.h"

using namespace meeplecam;

TEST_CASE("a refit whose tiles disagree a few cells out grows more slowly instead of stopping", "[vision][board-reader][lattice][refit][scene]") {
    // The bench's medium boards 3013 and 15001 (contrast art on a cloth, tilt 15 and 7): the
    // candidate's horizon is a little off, so six cells from the board's middle fewer than half
    // the tiles lie within max_residual of the first round's fit (15001: 30 of 63) and the refit
    // stopped there; the top view kept the wrong horizon (6.0 and 10.6 mm, 35 and 36 tiles
    // wrong). Fitted again on the cells halfway out first, the refit follows the tiles: 1.9 and
    // 5.0 mm.
    for (const auto& [seed, most_mm] : {std::pair<std::uint64_t, double>{3013u, 3.0}, {15001u, 6.0}}) {
        const auto r = test::render_bench_board(seed, vision::Difficulty::Medium);
        auto rms_with = [&](int slower_rounds) {
            vision::ReaderOptions options;
            options.refine.slower_rounds = slower_rounds;
            return test::read_rms_mm(r, options);
        };
        const double slower = rms_with(vision::RefineOptions{}.slower_rounds), stopped = rms_with(0);
        INFO("seed " << seed << ": growing slower " << slower << " mm, stopping " << stopped << " mm");
        CHECK(slower < most_mm);
        CHECK(stopped > most_mm + 2.5);
    }
}

TEST_CASE("followers on the tiles' middles pull the refit no more than tile sides when its gradient is capped", "[vision][board-reader][lattice][refit][pieces][scene]") {
    // The pieces bench's finished game 1000 on the medium preset (bench/vision --no-tiles
    // --pieces-n 1 --seed 1000; a tartan cloth in the tiles' greens): no candidate lattice frames
    // the board surely, and the ones sitting on the tiles' middles are refitted there first, where
    // the followers stand: their dark, saturated outlines hold the squares, the shifted refit lands
    // off the board (read 23 mm off, 35 tiles wrong and 23 missed; 2 mm without the followers).
    // With the refit rounds' |gradient| capped at its 0.9 quantile a follower weighs no more
    // than a tile side and the board is framed: capped in every refit (RefineOptions) or only in
    // those of the lattices measured again (RescaleOptions::refit_gradient_cap).
    constexpr std::uint64_t kSeed = 1000;
    const auto rendering = test::render_bench_game(kSeed);
    REQUIRE_FALSE(rendering.truth.pieces.empty());
    auto rms_with = [&](double every_refit, double rescaled_refits) {
        vision::ReaderOptions options;
        options.refine.gradient_cap_quantile = every_refit;
        options.rescale.refit_gradient_cap = rescaled_refits;
        return test::read_rms_mm(rendering, options);
    };
    const double uncapped = rms_with(1.0, 1.0), capped = rms_with(0.9, 1.0), rescaled_capped = rms_with(1.0, 0.9);
    CHECK(vision::RescaleOptions{}.refit_gradient_cap == 0.9);  // the reader's default
    INFO("uncapped " << uncapped << " mm, every refit capped " << capped << " mm, the rescaled lattices' refits capped " << rescaled_capped << " mm");
    CHECK(uncapped > 10.0);
    CHECK(capped < 5.0);
    CHECK(rescaled_capped < 5.0);
}

TEST_CASE("refine and rescale options refuse a gradient cap of a half or less or above one", "[vision][board-reader][bad-input]") {
    vision::RefineOptions o;
    o.gradient_cap_quantile = 0.9;
    CHECK(o.check());
    o.gradient_cap_quantile = 0.5;
    CHECK_FALSE(o.check());
    o.gradient_cap_quantile = 1.1;
    CHECK_FALSE(o.check());
    vision::RescaleOptions r;
    r.refit_gradient_cap = 0.9;
    CHECK(r.check());
    r.refit_gradient_cap = 0.4;
    CHECK_FALSE(r.check());
}

TEST_CASE("refine options refuse a negative or large slower_rounds", "[vision][board-reader][bad-input]") {
    vision::RefineOptions o;
    CHECK(o.check());
    o.slower_rounds = -1;
    CHECK_FALSE(o.check());
    o.slower_rounds = 5;
    CHECK_FALSE(o.check());
}

TEST_CASE("the outline search's edge sums made only on the lines it reads leave every reading the same", "[vision][board-reader][lattice][refit][scene]") {
    // RefineOptions::integrate_read_lines_only skips the edge sums of the top view's rows and
    // columns no outline search reads: the reading must not move by a bit. Medium 1003 (one
    // candidate) and 7002 (several candidates, shifted and rescaled lattices) compared in full:
    // every candidate's homography, the view, and every tile with its offset and confidences.
    const auto catalog = test::base_catalog_for_render();
    for (const std::uint64_t seed : {1003u, 7002u}) {
        const auto r = test::render_bench_board(seed, vision::Difficulty::Medium);
        auto read_with = [&](bool read_lines_only) {
            vision::ReaderOptions options;
            options.refine.integrate_read_lines_only = read_lines_only;
            auto reading = vision::read_board(r.image, *catalog, options);
            REQUIRE(reading);
            return std::move(reading.value());
        };
        const auto sparse = read_with(true), full = read_with(false);
        INFO("seed " << seed << ": " << sparse.tiles.size() << " tiles, " << sparse.checked.size() << " candidates checked");
        REQUIRE(sparse.found);
        REQUIRE(sparse.checked.size() == full.checked.size());
        for (std::size_t i = 0; i < sparse.checked.size(); ++i) {
            CHECK(cv::norm(cv::Mat(sparse.checked[i].image_to_top), cv::Mat(full.checked[i].image_to_top), cv::NORM_INF) == 0);
            CHECK(sparse.checked[i].cells == full.checked[i].cells);
            CHECK(sparse.checked[i].contrast == full.checked[i].contrast);
        }
        CHECK(cv::norm(cv::Mat(sparse.view.image_to_top), cv::Mat(full.view.image_to_top), cv::NORM_INF) == 0);
        REQUIRE(sparse.tiles.size() == full.tiles.size());
        for (std::size_t i = 0; i < sparse.tiles.size(); ++i) {
            const auto &a = sparse.tiles[i], &b = full.tiles[i];
            CHECK(a.col == b.col);
            CHECK(a.row == b.row);
            CHECK(a.type == b.type);
            CHECK(a.rot == b.rot);
            CHECK(a.offset_px == b.offset_px);
            CHECK(a.confidence == b.confidence);
            CHECK(a.runner_confidence == b.runner_confidence);
        }
    }
}
