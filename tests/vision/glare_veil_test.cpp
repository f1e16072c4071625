#include <catch2/catch.hpp>

#include <cmath>

#include <opencv2/imgproc.hpp>

#include "render_fixtures.h"
#include "vision/glare_veil.h"
#include "vision/table_renderer.h"

using namespace meeplecam;

namespace {

// The mean absolute colour difference (per channel) between two frames inside a disc.
double mean_difference_in_disc(const cv::Mat& a, const cv::Mat& b, cv::Point2d centre, double radius) {
    cv::Mat disc(a.size(), CV_8UC1, cv::Scalar(0));
    cv::circle(disc, cv::Point(static_cast<int>(centre.x), static_cast<int>(centre.y)), static_cast<int>(radius), cv::Scalar(255), -1);
    cv::Mat diff;
    cv::absdiff(a, b, diff);
    const cv::Scalar m = cv::mean(diff, disc);
    return (m[0] + m[1] + m[2]) / 3;
}

}  // namespace

TEST_CASE("a glare spot's veil is found where the glare lies and lifted off the frame", "[vision][glare-veil]") {
    // The same hard scene rendered with and without its glare spot (the glare draws no other
    // randomness): the lifted frame must come nearer the glare-free one inside the spot.
    int checked = 0;
    for (const std::uint64_t seed : {5009u, 1011u, 1015u}) {
        const auto tiles = test::random_board(60, seed);
        auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Hard);
        auto glared = vision::render_table(tiles, options, seed);
        options.glare_chance = 0;
        auto clear = vision::render_table(tiles, options, seed);
        REQUIRE(glared);
        REQUIRE(clear);
        REQUIRE(glared->truth.glare);
        const cv::Point2d at = glared->truth.glare_px;
        const double radius = glared->truth.glare_radius_px;
        if (at.x < 0 || at.y < 0 || at.x >= glared->image.cols || at.y >= glared->image.rows) continue;
        const cv::Mat veil = vision::estimate_glare_veil(glared->image);
        REQUIRE_FALSE(veil.empty());
        INFO("seed " << seed);
        CHECK(veil.at<float>(static_cast<int>(at.y), static_cast<int>(at.x)) >= 0.25f);
        cv::Mat lifted = glared->image.clone();
        REQUIRE(vision::lift_glare_veil(lifted));
        const double before = mean_difference_in_disc(glared->image, clear->image, at, radius);
        const double after = mean_difference_in_disc(lifted, clear->image, at, radius);
        CHECK(after < 0.6 * before);
        ++checked;
    }
    CHECK(checked >= 2);
}

TEST_CASE("the glare veil options are checked", "[vision][glare-veil][options]") {
    vision::VeilOptions o;
    CHECK(o.check());
    o.max_veil = 1;
    CHECK_FALSE(o.check());
    o = {};
    o.block_px = 2;
    CHECK_FALSE(o.check());
    // A frame of one even colour shows no veil.
    const cv::Mat frame(240, 320, CV_8UC3, cv::Scalar(90, 140, 60));
    CHECK(vision::estimate_glare_veil(frame).empty());
}
