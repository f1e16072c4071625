// Synthetic photographs for the calibration tests: a flat printed sheet (or a table with
// markers) seen by a known pinhole camera with optional lens distortion, blur and noise.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "calibration/printed_targets.h"

namespace meeplecam::testing {

struct PinholeCamera {
    cv::Size size{1280, 960};
    cv::Matx33d K = cv::Matx33d(1000, 0, 640, 0, 1000, 480, 0, 0, 1);
    std::vector<double> distortion;  // OpenCV order (k1 k2 p1 p2 k3); empty: none
};

struct Pose {
    cv::Matx33d R = cv::Matx33d::eye();  // world -> camera
    cv::Vec3d t;                         // world -> camera
};

// A camera at `eye` (world mm, z < 0 above the table plane z = 0) looking at `target`,
// with world +y (south) pointing down the image, then turned by `roll_deg` about its axis.
Pose look_at(cv::Vec3d eye, cv::Vec3d target, double roll_deg = 0);

// The ideal (undistorted) homography of the plane z = 0: world mm -> image px.
cv::Matx33d plane_to_image(const PinholeCamera& camera, const Pose& pose);

// A texture lying on the plane z = 0: its pixel (0, 0) centre at `origin_mm`, `px_per_mm` pixels per mm.
struct PlaneTexture {
    cv::Mat image;  // CV_8UC3
    double px_per_mm = 4;
    cv::Point2d origin_mm;
};

// Renders the plane as `camera` sees it from `pose`; outside the texture: `background` grey.
// Adds Gaussian blur (sigma px) and noise (sigma 8-bit levels), seeded.
cv::Mat render_plane(const PlaneTexture& texture, const PinholeCamera& camera, const Pose& pose, double blur_sigma, double noise_sigma,
                     std::uint64_t seed, cv::Scalar background = cv::Scalar(90, 110, 130));

// A table-top texture of width x height mm (wood-like noise) at px_per_mm, origin at (x0, y0) mm.
PlaneTexture table_texture(double x0_mm, double y0_mm, double width_mm, double height_mm, double px_per_mm, std::uint64_t seed);

// Pastes a grey marker image (with its white margin) onto the texture, centred at `centre_mm`,
// `side_mm` wide including the margin, turned by `turn_deg`.
void paste_on_plane(PlaneTexture& texture, const cv::Mat& marker_grey, cv::Point2d centre_mm, double side_mm, double turn_deg);

// Views of the printed ChArUco board (with a white margin of one square) from camera
// positions 380-520 mm away, tilted 15-45 degrees in turning directions, rolled at random.
std::vector<cv::Mat> charuco_views(const PinholeCamera& camera, const calibration::CharucoSpec& spec, int n, std::uint64_t seed);

// A table with the four printed markers (60 mm) at the corners of a 700 x 500 mm rectangle,
// each turned its own way (0, 12, -25, 90 degrees).
struct TableScene {
    PlaneTexture texture;
    std::array<cv::Point2d, 4> centres_mm{};
    double marker_mm = 60;
};
TableScene table_scene(std::uint64_t seed);
// The camera 1 m from the table centre (350, 250), looking down at 35 degrees from the south.
Pose table_pose();

// A photo of followers on white paper: a wooden table, a sheet turned 8 degrees, follower
// silhouettes (shaded, with shadows) of `colours` in rows of three at (390 + 200 i, 360 + 190 j),
// then a colour cast (gains per B, G, R), blur and noise. 1200 x 900.
cv::Mat paper_shot(const std::vector<std::string>& colours, cv::Vec3d cast_bgr, std::uint64_t seed);

}  // namespace meeplecam::testing
