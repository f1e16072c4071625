// The table plane from the lone start tile, measured on rendered tables with a known camera.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "calibration/start_tile_plane.h"
#include "tests/vision/render_fixtures.h"
#include "vision/homography.h"
#include "vision/table_renderer.h"
#include "vision/tile_classifier.h"

using namespace meeplecam;

namespace {

const vision::TileClassifier& base_classifier() {
    static const vision::TileClassifier c = vision::TileClassifier::create(*test::base_catalog_for_render()).value();
    return c;
}

// A table at the start of a match: the start tile alone, framed as a camera set up for the
// whole match frames it (a 9 x 7 cell board's room), no hand.
vision::Rendering lone_start_tile(vision::RenderOptions o, std::uint64_t seed, const char* type = "D") {
    const TileType* t = test::base_catalog_for_render()->find(type);
    REQUIRE(t != nullptr);
    o.hand_chance = 0;
    o.scene_seed = seed;
    for (int x = -4; x <= 4; ++x) {
        for (int y = -3; y <= 3; ++y) o.layout_cells.push_back({x, y});
    }
    auto r = vision::render_table(std::vector<vision::SceneTile>{{t, {0, 0}, 0}}, o, seed);
    REQUIRE(r);
    return std::move(r).value();
}

struct PlaneError {
    double corners_mm = 0;  // worst corner of the start tile, after aligning the frames there
    double three_tiles_mm = 0;  // worst of the points 3 tiles (135 mm) from the start tile's centre, N E S W
};

// Compares the measured plane with the truth in the start tile's own frame: the two table
// frames differ by a turn and a shift, fitted on the tile's four corners; what is left there,
// and 3 tiles away, is the plane's error as the tracker would feel it.
PlaneError plane_error(const vision::RenderTruth& truth, const calibration::TablePlane& plane) {
    const cv::Matx33d image_to_truth = truth.tiles_to_image.inv();
    const auto& tile = truth.tiles.front();
    std::vector<cv::Point2d> a, b;
    for (const auto& px : tile.corners_px) {
        a.push_back(vision::apply_homography(image_to_truth, px));
        b.push_back(plane.to_table(px));
    }
    // Rigid fit a -> b (rotation and shift, no scale: both are in mm).
    cv::Point2d ca(0, 0), cb(0, 0);
    for (std::size_t i = 0; i < 4; ++i) ca += a[i] * 0.25, cb += b[i] * 0.25;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        sxx += p.x * q.x + p.y * q.y;
        sxy += p.x * q.y - p.y * q.x;
    }
    const double th = std::atan2(sxy, sxx), c = std::cos(th), s = std::sin(th);
    auto rigid = [&](cv::Point2d p) { p -= ca; return cb + cv::Point2d(c * p.x - s * p.y, s * p.x + c * p.y); };
    PlaneError e;
    for (std::size_t i = 0; i < 4; ++i) e.corners_mm = std::max(e.corners_mm, cv::norm(rigid(a[i]) - b[i]));
    for (const cv::Point2d d : {cv::Point2d(135, 0), cv::Point2d(-135, 0), cv::Point2d(0, 135), cv::Point2d(0, -135)}) {
        const cv::Point2d p = ca + d;
        const cv::Point2d px = vision::apply_homography(truth.tiles_to_image, p);
        e.three_tiles_mm = std::max(e.three_tiles_mm, cv::norm(plane.to_table(px) - rigid(p)));
    }
    return e;
}

}  // namespace

TEST_CASE("the table plane from the lone start tile holds at the tile and 3 tiles away", "[calibration][table][start-tile]") {
    const TileType& d = *test::base_catalog_for_render()->find("D");
    int found = 0, n = 0;
    double worst_corner = 0, worst_far = 0;
    std::vector<double> far;
    for (const auto preset : {vision::Difficulty::Easy, vision::Difficulty::Medium}) {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            const vision::Rendering r = lone_start_tile(vision::RenderOptions::for_difficulty(preset), 100 * seed + 7);
            ++n;
            auto plane = calibration::table_from_start_tile(r.image, d, base_classifier(), {}, nullptr, "render");
            INFO(vision::difficulty_name(preset) << " seed " << 100 * seed + 7 << " (" << r.truth.style << " on " << r.truth.surface
                                                   << ", tilt " << r.truth.camera.tilt_deg << ")");
            if (!plane) {
                UNSCOPED_INFO("not found: " << plane.error().to_string());
                continue;
            }
            ++found;
            CHECK(plane->table.source == "start-tile");
            const PlaneError e = plane_error(r.truth, plane->table.plane);
            std::printf("start-tile plane %s seed %llu: corners %.2f mm, 3 tiles away %.2f mm, %d outlines scored, confidence %.2f\n",
                        std::string(vision::difficulty_name(preset)).c_str(), static_cast<unsigned long long>(100 * seed + 7),
                        e.corners_mm, e.three_tiles_mm, plane->candidates, plane->confidence);
            worst_corner = std::max(worst_corner, e.corners_mm);
            worst_far = std::max(worst_far, e.three_tiles_mm);
            far.push_back(e.three_tiles_mm);
        }
    }
    std::sort(far.begin(), far.end());
    const double median_far = far.empty() ? 1e9 : far[far.size() / 2];
    std::printf("start-tile plane: found on %d of %d renders; worst corner %.2f mm; 3 tiles away median %.2f mm, worst %.2f mm\n", found,
                n, worst_corner, median_far, worst_far);
    // Measured (2026-11-22): 12 of 12; worst corner 1.15 mm; 3 tiles away median 3.5 mm, worst 7.8 mm.
    CHECK(found >= n - 1);
    CHECK(worst_corner <= 1.5);
    CHECK(median_far <= 5.0);
    CHECK(worst_far <= 10.0);
}

TEST_CASE("no start tile, or another tile, is a clear error", "[calibration][table][start-tile][bad-input]") {
    const TileType& d = *test::base_catalog_for_render()->find("D");
    // A monastery where the start tile D should be: a tile, but not the start tile.
    const vision::Rendering other = lone_start_tile(test::daylight_options(), 11, "B");
    auto wrong = calibration::table_from_start_tile(other.image, d, base_classifier(), {}, nullptr, "monastery.png");
    REQUIRE_FALSE(wrong);
    CHECK(wrong.error().to_string().find("monastery.png") != std::string::npos);
    CHECK(wrong.error().to_string().find("start tile D") != std::string::npos);
    // A bare table.
    cv::Mat bare(720, 1280, CV_8UC3, cv::Scalar(90, 120, 150));
    cv::randn(bare, cv::Scalar(90, 120, 150), cv::Scalar(4, 4, 4));
    auto none = calibration::table_from_start_tile(bare, d, base_classifier(), {}, nullptr, "bare.png");
    REQUIRE_FALSE(none);
    CHECK(none.error().to_string().find("bare.png") != std::string::npos);
    // Not a colour photo, too small, bad options.
    CHECK_FALSE(calibration::table_from_start_tile(cv::Mat(720, 1280, CV_8UC1, cv::Scalar(0)), d, base_classifier(), {}, nullptr, "grey"));
    CHECK_FALSE(calibration::table_from_start_tile(cv::Mat(10, 10, CV_8UC3, cv::Scalar(0)), d, base_classifier(), {}, nullptr, "tiny"));
    calibration::StartTilePlaneOptions bad;
    bad.max_side_share = 0;
    CHECK_FALSE(calibration::table_from_start_tile(bare, d, base_classifier(), bad, nullptr, "bare.png"));
}
