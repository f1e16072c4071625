// Rectify (vision stage 1): map the table plane to a top-down image at a fixed scale.
//
// This first version needs the plane's homography (from calibration, or a render's truth);
// estimating it from the tiles alone is still to come.
#pragma once

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::vision {

struct RectifyOptions {
    double px_per_mm = 2.0;     // scale of the top view
    int max_side_px = 4096;     // the top view is cropped to this many pixels a side (far, grazing parts go)
    Status check() const;
};

// The plane seen from straight above.
struct TopView {
    cv::Mat image;                               // CV_8UC3
    cv::Mat valid;                               // CV_8UC1: 255 where the camera saw the plane
    cv::Matx33d plane_to_top = cv::Matx33d::eye();  // plane mm -> top-view px
    cv::Matx33d image_to_top = cv::Matx33d::eye();  // camera px -> top-view px
    double px_per_mm = 2.0;

    cv::Point2d to_plane(cv::Point2d top_px) const;  // top-view px -> plane mm
    cv::Point2d to_top(cv::Point2d plane_mm) const;  // plane mm -> top-view px
};

// Warps `image` (CV_8UC3) so the plane whose homography is `plane_to_image` (mm -> px) is
// seen from straight above, covering what the camera saw of it. Errors: empty image, a
// singular homography, or a plane the camera does not see.
Result<TopView> rectify(const cv::Mat& image, const cv::Matx33d& plane_to_image, const RectifyOptions& options = {});

}  // namespace meeplecam::vision
