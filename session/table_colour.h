// The table's own colour in a top view, and what is unlike it. Internal to the session layer
// (start_tile, draw_zone).
#pragma once

#include <opencv2/core.hpp>

namespace meeplecam::session {

// Returns 255 where a pixel of `bgr` (8-bit) is farther than `delta_e` (Lab) from the median
// colour of the pixels `reference` marks (8-bit mask, same size), 0 elsewhere and where `valid` is 0.
cv::Mat unlike_reference(const cv::Mat& bgr, const cv::Mat& reference, const cv::Mat& valid, double delta_e);

}  // namespace meeplecam::session
