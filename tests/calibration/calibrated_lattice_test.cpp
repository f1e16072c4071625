// The board reader with a calibrated table plane, and the plane measured from the tiles, on
// rendered boards whose camera is known.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <map>

#include "calibration/calibrated_frame.h"
#include "calibration/table_plane.h"
#include "tests/vision/render_fixtures.h"
#include "vision/board_reader.h"
#include "vision/homography.h"
#include "vision/table_renderer.h"
#include "vision/truth_metrics.h"

using namespace meeplecam;

namespace {


// Share of the tiles that fall alone in their own lattice cell.
double own_cell_share(const vision::LatticeView& view, const vision::RenderTruth& truth) {
    std::map<std::pair<int, int>, int> hits;
    for (const auto& t : truth.tiles) {
        const cv::Point2d c = vision::apply_homography(view.image_to_top, t.centre_px);
        ++hits[{static_cast<int>(std::floor(c.x / view.pitch_px)), static_cast<int>(std::floor(c.y / view.pitch_px))}];
    }
    int alone = 0;
    for (const auto& [cell, n] : hits) alone += n == 1;
    return static_cast<double>(alone) / static_cast<double>(truth.tiles.size());
}

}  // namespace

TEST_CASE("a calibrated table plane replaces the vanishing-point estimate", "[calibration][lattice]") {
    // Medium renders (tilt up to 25 degrees): the plane from the calibration (the table,
    // z = 0, as markers lying on it would give) rectifies at least as well as the estimate.
    const int boards = 4;
    int good = 0;
    double sum_cal = 0, sum_est = 0;
    int n_est = 0;
    for (int seed = 1; seed <= boards; ++seed) {
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
        options.hand_chance = 0;
        const auto tiles = test::random_board(40 + 5 * seed, static_cast<std::uint64_t>(seed));
        auto r = vision::render_table(tiles, options, static_cast<std::uint64_t>(100 + seed));
        REQUIRE(r);
        vision::LatticeOptions calibrated;
        calibrated.image_to_table_mm = r->truth.table_to_image.inv();
        auto view = vision::find_lattice(r->image, calibrated);
        INFO("seed " << seed << ", tilt " << r->truth.camera.tilt_deg);
        REQUIRE(view);
        const double rms = vision::rectification_rms_mm(view.value(), r->truth), own = own_cell_share(view.value(), r->truth);
        auto estimated = vision::find_lattice(r->image);
        const double rms_est = estimated ? vision::rectification_rms_mm(estimated.value(), r->truth) : -1;
        std::printf("calibrated lattice, seed %d (tilt %.1f deg): rectification rms %.2f mm, tiles alone in their cell %.0f %%; "
                    "estimated plane: rms %.2f mm\n",
                    seed, r->truth.camera.tilt_deg, rms, 100 * own, rms_est);
        sum_cal += rms;
        if (estimated) sum_est += rms_est, ++n_est;
        good += rms < 3.0 && own >= 0.9;
    }
    std::printf("calibrated lattice: mean rectification rms %.2f mm calibrated, %.2f mm estimated (%d of %d estimated)\n", sum_cal / boards,
                n_est ? sum_est / n_est : -1.0, n_est, boards);
    CHECK(good >= boards - 1);  // the pitch search can still lock on a multiple of the pitch
}

TEST_CASE("the table plane from the tiles has the true mm scale", "[calibration][lattice]") {
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.hand_chance = 0;
    const auto tiles = test::random_board(50, 8);
    auto r = vision::render_table(tiles, options, 8);
    REQUIRE(r);
    auto table = calibration::table_from_tiles(r->image, {}, nullptr, "tiles.png");
    REQUIRE(table);
    CHECK(table->source == "tiles");
    CHECK(table->markers.empty());
    // Distances between tile centres on the table agree with the truth (tile tops; the
    // assumed gap of 0.8 mm against the rendered gap sets the scale).
    double worst = 0;
    const auto& t = r->truth.tiles;
    for (std::size_t i = 0; i < t.size(); i += 3) {
        for (std::size_t j = i + 1; j < t.size(); j += 5) {
            const double truth_mm = cv::norm(t[i].centre_mm - t[j].centre_mm);
            if (truth_mm < 100) continue;
            const double measured = cv::norm(table->plane.to_table(t[i].centre_px) - table->plane.to_table(t[j].centre_px));
            worst = std::max(worst, std::abs(measured / truth_mm - 1));
        }
    }
    std::printf("table plane from the tiles: worst relative distance error %.2f %% (rendered gap %.2f mm, assumed 0.8 mm)\n", 100 * worst,
                r->truth.gap_mm);
    CHECK(worst < 0.03);
}

TEST_CASE("the plane from the tiles is refused on too small a board", "[calibration][lattice][bad-input]") {
    auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Easy);
    options.hand_chance = 0;
    auto r = vision::render_table(test::random_board(3, 2), options, 2);
    REQUIRE(r);
    auto table = calibration::table_from_tiles(r->image, {}, nullptr, "three.png");
    REQUIRE_FALSE(table);
    INFO(table.error().to_string());
    CHECK(table.error().where == "three.png");
    CHECK((table.error().message.rfind("too few tiles", 0) == 0 || table.error().message.rfind("no board found", 0) == 0 ||
           table.error().message.rfind("the tile lattice was misread", 0) == 0));
}

TEST_CASE("a calibration file prepares frames for the reader", "[calibration][lattice]") {
    calibration::Calibration cal;
    calibration::TableCalibration table;
    table.source = "markers";
    table.image_size = {1920, 1080};
    table.plane.table_to_image = cv::Matx33d(1.5, 0.1, 300, 0, 1.4, 200, 0, 0.0002, 1);
    cal.table = table;
    vision::ReaderOptions options;
    const cv::Mat frame(540, 960, CV_8UC3, cv::Scalar(90, 110, 130));
    auto prepared = calibration::prepare_frame(cal, frame, options, "half.png");
    REQUIRE(prepared);
    REQUIRE(options.lattice.image_to_table_mm);
    // A half-size frame: pixel p of it is pixel 2p of the calibrated image.
    const cv::Point2d mm = vision::apply_homography(*options.lattice.image_to_table_mm, {100, 80});
    CHECK(cv::norm(vision::apply_homography(table.plane.table_to_image, mm) - cv::Point2d(200, 160)) < 1e-6);
    auto wrong = calibration::prepare_frame(cal, cv::Mat(600, 600, CV_8UC3), options, "square.png");
    REQUIRE_FALSE(wrong);
    CHECK(wrong.error().to_string().rfind("square.png: is 600x600 but the table plane was measured at 1920x1080", 0) == 0);
    cal.table->undistorted = true;
    auto no_camera = calibration::prepare_frame(cal, frame, options, "f.png");
    REQUIRE_FALSE(no_camera);
    CHECK(no_camera.error().message.find("no camera intrinsics") != std::string::npos);
}
