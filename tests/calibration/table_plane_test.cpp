#include <catch2/catch.hpp>

#include "calibration/table_plane.h"

using namespace meeplecam;

TEST_CASE("the table plane is recovered from a known homography", "[calibration]") {
    const cv::Matx33d truth(1.8, 0.2, 400, -0.1, 1.6, 300, 0.0002, 0.0001, 1);
    std::vector<cv::Point2d> table, image;
    for (double x : {0.0, 300.0, 600.0}) {
        for (double y : {0.0, 250.0, 500.0}) {
            table.emplace_back(x, y);
            const cv::Vec3d v = truth * cv::Vec3d(x, y, 1);
            image.emplace_back(v[0] / v[2], v[1] / v[2]);
        }
    }
    auto plane = calibration::fit_table_plane(table, image);
    REQUIRE(plane);
    CHECK(plane->rms_error_px < 1e-3);
    const cv::Point2d back = plane->to_table(plane->to_image({123.0, 321.0}));
    CHECK(back.x == Approx(123.0).margin(1e-6));
    CHECK(back.y == Approx(321.0).margin(1e-6));
}

TEST_CASE("degenerate table points are refused", "[calibration][bad-input]") {
    CHECK_FALSE(calibration::fit_table_plane({{0, 0}, {1, 1}}, {{0, 0}, {1, 1}}));
    CHECK_FALSE(calibration::fit_table_plane({{0, 0}, {1, 1}, {2, 2}, {3, 3}}, {{0, 0}, {1, 1}, {2, 2}, {3, 3}}));
}
