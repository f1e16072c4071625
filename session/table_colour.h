// A rectangle of the table seen from above, and what in it is unlike the table's own colour.
// Internal to the session layer (start_tile, draw_zone).
#pragma once

#include <opencv2/core.hpp>

namespace meeplecam::session {

// A rectangle of the table plane warped into a top view at a fixed scale.
struct TopView {
    cv::Mat image;              // the frame warped into the view (same type as the frame)
    cv::Mat seen;               // 255 where the view pixel comes from inside the frame, 0 off it
    cv::Matx33d image_to_view;  // camera px -> view px
};

// Warps the table rectangle from `origin_mm` (its top-left corner, table mm) covering `size`
// view pixels at `px_per_mm`, given the image -> table homography, with `interpolation`.
TopView top_view_of(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm, cv::Point2d origin_mm, cv::Size size,
                    double px_per_mm, int interpolation);

// Returns 255 where a pixel of `bgr` (8-bit) is farther than `delta_e` (Lab) from the median
// colour of the pixels `reference` marks (8-bit mask, same size), 0 elsewhere and where `valid` is 0.
cv::Mat unlike_reference(const cv::Mat& bgr, const cv::Mat& reference, const cv::Mat& valid, double delta_e);

}  // namespace meeplecam::session
