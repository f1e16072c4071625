// Player colours from a rendered shot: followers on white paper under a colour cast.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include <opencv2/imgproc.hpp>

#include "calibration/player_colours.h"

using namespace meeplecam;

namespace {

// True follower colours (BGR, as painted wood photographed under neutral light).
const std::map<std::string, cv::Vec3d> kPaint = {
    {"red", {35, 40, 195}},    {"blue", {165, 85, 30}},    {"green", {55, 140, 25}},
    {"yellow", {25, 200, 235}}, {"black", {32, 32, 34}}, {"grey", {140, 138, 136}},
};

// Draws a shaded follower silhouette (head, arms, legs) of `colour` centred at `at`, `size` px tall,
// with a soft shadow cast to the lower right.
void draw_follower(cv::Mat& image, cv::Point2d at, double size, const cv::Vec3d& colour) {
    const double s = size / 16;  // the silhouette's unit
    std::vector<cv::Point> body;
    const double pts[][2] = {{-2.2, -5}, {2.2, -5}, {2.5, -3}, {7.5, -1.5}, {7.5, 1.0}, {3.0, 1.0}, {5.5, 8},  {1.5, 8},
                             {0, 4},     {-1.5, 8}, {-5.5, 8}, {-3.0, 1.0}, {-7.5, 1.0}, {-7.5, -1.5}, {-2.5, -3}};
    for (const auto& p : pts) body.emplace_back(static_cast<int>(at.x + p[0] * s), static_cast<int>(at.y + p[1] * s));
    // Shadow: the silhouette offset, darkened, blurred.
    cv::Mat shadow(image.size(), CV_8UC1, cv::Scalar(0));
    std::vector<cv::Point> shifted = body;
    for (auto& p : shifted) p += cv::Point(static_cast<int>(2.5 * s), static_cast<int>(2 * s));
    cv::fillPoly(shadow, std::vector<std::vector<cv::Point>>{shifted}, cv::Scalar(255));
    cv::circle(shadow, cv::Point(static_cast<int>(at.x + 2.5 * s), static_cast<int>(at.y - 6.5 * s + 2 * s)), static_cast<int>(2.6 * s), cv::Scalar(255),
               cv::FILLED);
    cv::GaussianBlur(shadow, shadow, cv::Size(), 2 * s);
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            const double a = 0.35 * shadow.at<std::uint8_t>(y, x) / 255.0;
            if (a > 0) image.at<cv::Vec3b>(y, x) = image.at<cv::Vec3b>(y, x) * (1 - a);
        }
    }
    // Body with a shading gradient (light from the upper left) and a highlight on the head.
    cv::Mat mask(image.size(), CV_8UC1, cv::Scalar(0));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{body}, cv::Scalar(255), cv::LINE_AA);
    cv::circle(mask, cv::Point(static_cast<int>(at.x), static_cast<int>(at.y - 6.5 * s)), static_cast<int>(2.6 * s), cv::Scalar(255), cv::FILLED,
               cv::LINE_AA);
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            const double m = mask.at<std::uint8_t>(y, x) / 255.0;
            if (m <= 0) continue;
            const double shade = 1.08 - 0.25 * ((x - at.x) + (y - at.y)) / (10 * s);
            const cv::Vec3d c = colour * std::clamp(shade, 0.7, 1.2);
            const cv::Vec3d old = image.at<cv::Vec3b>(y, x);
            const cv::Vec3d mixed = m * c + (1 - m) * old;
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<std::uint8_t>(mixed[0]), cv::saturate_cast<std::uint8_t>(mixed[1]),
                                                  cv::saturate_cast<std::uint8_t>(mixed[2]));
        }
    }
}

// A wooden table, a sheet of paper turned a little, the followers on it; then the light's
// colour cast (gains per B, G, R), blur and noise.
cv::Mat paper_shot(const std::vector<std::string>& colours, cv::Vec3d cast_bgr, std::uint64_t seed) {
    cv::Mat image(900, 1200, CV_8UC3);
    cv::RNG rng(seed);
    cv::Mat grain(900, 80, CV_32FC1);
    rng.fill(grain, cv::RNG::NORMAL, 0, 1);
    cv::resize(grain, grain, image.size());
    cv::GaussianBlur(grain, grain, cv::Size(), 6, 1);
    for (int y = 0; y < image.rows; ++y) {
        for (int x = 0; x < image.cols; ++x) {
            const float g = grain.at<float>(y, x);
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<std::uint8_t>(55 + 25 * g), cv::saturate_cast<std::uint8_t>(95 + 30 * g),
                                                  cv::saturate_cast<std::uint8_t>(140 + 30 * g));
        }
    }
    const cv::RotatedRect paper(cv::Point2f(600, 450), cv::Size2f(700, 495), 8);
    cv::Point2f corners[4];
    paper.points(corners);
    std::vector<cv::Point> poly(corners, corners + 4);
    cv::fillConvexPoly(image, poly, cv::Scalar(238, 240, 242), cv::LINE_AA);
    for (std::size_t i = 0; i < colours.size(); ++i) {
        const double col = static_cast<double>(i % 3), row = static_cast<double>(i / 3);
        draw_follower(image, {390 + 200 * col + rng.uniform(-15.0, 15.0), 360 + 190 * row + rng.uniform(-15.0, 15.0)}, 110, kPaint.at(colours[i]));
    }
    cv::Mat f;
    image.convertTo(f, CV_32FC3);
    cv::multiply(f, cv::Scalar(cast_bgr[0], cast_bgr[1], cast_bgr[2]), f);
    cv::GaussianBlur(f, f, cv::Size(), 0.8);
    cv::Mat noise(f.size(), CV_32FC3);
    rng.fill(noise, cv::RNG::NORMAL, 0, 2.5);
    f += noise;
    f.convertTo(image, CV_8UC3);
    return image;
}

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
