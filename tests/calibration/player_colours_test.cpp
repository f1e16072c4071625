// Player colours from a rendered shot: followers on white paper under a colour cast.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include <opencv2/imgproc.hpp>

#include "calibration/player_colours.h"
#include "synthetic_views.h"

using namespace meeplecam;
using meeplecam::testing::paper_shot;

namespace {

const std::vector<std::string> kSix = {"red", "blue", "green", "yellow", "black", "grey"};

}  // namespace

TEST_CASE("every player colour is assigned under a warm colour cast", "[calibration][colours]") {
    const cv::Vec3d tungsten(0.62, 0.88, 1.08);  // B, G, R gains of a warm lamp
    const cv::Mat shot = paper_shot(kSix, tungsten, 1);
    auto result = calibration::calibrate_colours(shot, kSix, "warm.png");
    REQUIRE(result);
    REQUIRE(result->followers.size() == 6);
    // White balance undoes the cast: gains roughly inverse to it (R lowest, B highest).
    const cv::Vec3d& wb = result->calibration.white_balance_rgb;
    std::printf("colour calibration under a tungsten cast: white balance R %.3f G %.3f B %.3f (ideal ratios B/R %.2f, measured %.2f)\n", wb[0], wb[1],
                wb[2], tungsten[2] / tungsten[0], wb[2] / wb[0]);
    CHECK(wb[2] / wb[0] == Approx(tungsten[2] / tungsten[0]).epsilon(0.08));
    // Each follower was drawn where the colour order puts it: the assignment is right.
    for (std::size_t i = 0; i < kSix.size(); ++i) {
        const auto& f = *std::find_if(result->followers.begin(), result->followers.end(), [&](const auto& x) { return x.colour == kSix[i]; });
        const cv::Point2d expected(390 + 200 * static_cast<double>(i % 3), 360 + 190 * static_cast<double>(i / 3));
        CHECK(cv::norm(f.centre_px - expected) < 40);
        const auto& model = result->calibration.players.at(kSix[i]);
        std::printf("  %-6s Lab %5.1f %6.1f %6.1f  sd %.1f %.1f %.1f  (%d px)\n", kSix[i].c_str(), model.lab_mean[0], model.lab_mean[1], model.lab_mean[2],
                    std::sqrt(model.lab_covariance(0, 0)), std::sqrt(model.lab_covariance(1, 1)), std::sqrt(model.lab_covariance(2, 2)), model.pixels);
        CHECK(model.pixels > 200);
    }
    // The colour models separate the players: each mean is far from every other in Lab.
    for (std::size_t i = 0; i < kSix.size(); ++i) {
        for (std::size_t j = i + 1; j < kSix.size(); ++j) {
            CHECK(cv::norm(result->calibration.players.at(kSix[i]).lab_mean - result->calibration.players.at(kSix[j]).lab_mean) > 20);
        }
    }
}

TEST_CASE("a cold cast and a subset of colours", "[calibration][colours]") {
    const std::vector<std::string> four = {"yellow", "grey", "blue", "red"};
    const cv::Mat shot = paper_shot(four, cv::Vec3d(1.15, 1.0, 0.8), 2);
    auto result = calibration::calibrate_colours(shot, four, "cold.png");
    REQUIRE(result);
    for (std::size_t i = 0; i < four.size(); ++i) {
        const auto& f = *std::find_if(result->followers.begin(), result->followers.end(), [&](const auto& x) { return x.colour == four[i]; });
        CHECK(cv::norm(f.centre_px - cv::Point2d(390 + 200 * static_cast<double>(i % 3), 360 + 190 * static_cast<double>(i / 3))) < 40);
    }
}

TEST_CASE("colour calibration errors: no paper, a colour missing, two of one colour", "[calibration][colours][bad-input]") {
    const cv::Vec3d cast(0.7, 0.9, 1.05);
    SECTION("a colour missing is named") {
        const cv::Mat shot = paper_shot({"red", "blue", "yellow", "black", "grey"}, cast, 3);
        auto r = calibration::calibrate_colours(shot, kSix, "five.png");
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string() == "five.png: no green follower found on the paper (found 5 blobs)");
    }
    SECTION("two followers of one colour") {
        const cv::Mat shot = paper_shot({"red", "blue", "red"}, cast, 4);
        auto r = calibration::calibrate_colours(shot, {"red", "blue"}, "two-red.png");
        REQUIRE_FALSE(r);
        CHECK(r.error().message.rfind("two blobs look red (at (", 0) == 0);
    }
    SECTION("a follower of a colour not listed") {
        const cv::Mat shot = paper_shot({"red", "blue", "green"}, cast, 5);
        auto r = calibration::calibrate_colours(shot, {"red", "blue"}, "extra.png");
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("looks green, which is not among the players (red, blue)") != std::string::npos);
    }
    SECTION("no paper") {
        cv::Mat shot = paper_shot({}, cast, 6);
        cv::Mat table(shot.size(), CV_8UC3, cv::Scalar(60, 100, 150));
        cv::randn(table, cv::Scalar(60, 100, 150), cv::Scalar(12, 12, 12));
        auto r = calibration::calibrate_colours(table, {"red"}, "table.png");
        REQUIRE_FALSE(r);
        CHECK(r.error().message.rfind("no sheet of white paper found", 0) == 0);
    }
    SECTION("an unknown colour name") {
        const cv::Mat shot = paper_shot({"red"}, cast, 7);
        auto r = calibration::calibrate_colours(shot, {"red", "purple"}, "x.png");
        REQUIRE_FALSE(r);
        CHECK(r.error().to_string() == "--players: unknown colour 'purple' (use red, blue, green, yellow, black or grey)");
    }
}
