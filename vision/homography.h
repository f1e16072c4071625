// Small plane-geometry helpers shared by the vision layer and its tests (one copy, so every
// file may join a unity batch).
#pragma once

#include <numbers>

#include <opencv2/core.hpp>

namespace meeplecam::vision {

inline constexpr double kPi = std::numbers::pi;

// Maps point `p` through homography `h` (homogeneous coordinates, divided back).
inline cv::Point2d apply_homography(const cv::Matx33d& h, cv::Point2d p) {
    const cv::Vec3d v = h * cv::Vec3d(p.x, p.y, 1);
    return {v[0] / v[2], v[1] / v[2]};
}

}  // namespace meeplecam::vision
