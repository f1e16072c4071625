#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <opencv2/imgcodecs.hpp>

#include "vision/image_io.h"

using namespace meeplecam;

namespace {
std::string temp_path(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }
}  // namespace

TEST_CASE("bad image files give a clear error", "[vision][bad-input]") {
    SECTION("missing") {
        auto r = vision::load_image("/nonexistent/photo.jpg");
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().to_string(), Catch::Contains("/nonexistent/photo.jpg"));
    }
    SECTION("empty") {
        const auto p = temp_path("meeplecam_empty.jpg");
        { std::ofstream(p).flush(); }
        auto r = vision::load_image(p);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("empty"));
    }
    SECTION("corrupt") {
        const auto p = temp_path("meeplecam_corrupt.jpg");
        { std::ofstream(p) << "\xff\xd8\xff\xe0 this is not really a jpeg"; }
        auto r = vision::load_image(p);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("not a readable image"));
    }
    SECTION("1x1") {
        const auto p = temp_path("meeplecam_tiny.png");
        cv::imwrite(p, cv::Mat(1, 1, CV_8UC3, cv::Scalar(1, 2, 3)));
        auto r = vision::load_image(p);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("only 1x1 pixels"));
    }
    SECTION("larger than the pixel budget") {
        const auto p = temp_path("meeplecam_big.png");
        cv::imwrite(p, cv::Mat(800, 800, CV_8UC3, cv::Scalar(9, 9, 9)));
        vision::ImageLoadOptions opt;
        opt.max_pixels = 100'000;
        auto r = vision::load_image(p, opt);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("too large"));
    }
}

TEST_CASE("a good image loads as 8-bit BGR", "[vision]") {
    const auto p = temp_path("meeplecam_ok.png");
    cv::imwrite(p, cv::Mat(120, 90, CV_8UC3, cv::Scalar(10, 20, 30)));
    auto r = vision::load_image(p);
    REQUIRE(r);
    CHECK(r->cols == 90);
    CHECK(r->rows == 120);
    CHECK(r->type() == CV_8UC3);
}
