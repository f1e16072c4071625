// Lab colour of the table view, and the pixels that changed between two looks of it.
#pragma once

#include <opencv2/core.hpp>

namespace meeplecam::session {

// Returns the float Lab image (L 0..100) of an 8-bit BGR image.
cv::Mat to_lab(const cv::Mat& bgr);

// Marks (255, else 0) the pixels of two float Lab images of one size whose Lab distance exceeds
// `threshold`. The same mask as OpenCV's whole-image expression
// `sqrt(sum of split((a - b)^2)) > threshold` (the same float operations in the same order,
// the threshold compared as a float), made in one pass without the five full-size temporaries.
cv::Mat changed_beyond(const cv::Mat& lab_a, const cv::Mat& lab_b, double threshold);

}  // namespace meeplecam::session
