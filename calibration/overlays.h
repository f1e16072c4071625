// Check pictures of a calibration step: what was found, drawn over the photo (the CLI's
// --overlay images and the app's calibration wizard show the same pictures).
#pragma once

#include <array>

#include <opencv2/core.hpp>

#include "calibration/camera_calibration.h"
#include "calibration/player_colours.h"
#include "calibration/table_plane.h"

namespace meeplecam::calibration {

// Draws the chessboard corners found in a ChArUco photo (8-bit BGR in, BGR copy out).
cv::Mat draw_charuco_view(const cv::Mat& image, const CharucoView& view);

// Draws a 100 mm grid of the table plane over the area the markers span (1 m square from
// the origin for a plane from the tiles), and the markers found (outlined, id written) when
// the plane maps raw pixels. `image` must be the picture the plane maps (undistorted when
// table.undistorted).
cv::Mat draw_table_plane(const cv::Mat& image, const TableCalibration& table, const std::array<FoundMarker, 4>* markers);

// Draws the white-balanced photo with the paper's outline and each follower found, named.
cv::Mat draw_colour_shot(const cv::Mat& image, const ColourShot& shot);

}  // namespace meeplecam::calibration
