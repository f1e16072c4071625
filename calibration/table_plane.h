// Table plane: the mapping between table millimetres and image pixels.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::calibration {

struct TablePlane {
    cv::Matx33d table_to_image = cv::Matx33d::eye();  // homography: mm on the table -> pixels
    double rms_error_px = 0.0;                        // reprojection error of the fit

    cv::Point2d to_image(cv::Point2d table_mm) const;
    cv::Point2d to_table(cv::Point2d image_px) const;
};

// Fits the table plane from >= 4 correspondences (table mm, image px); refuses degenerate input.
Result<TablePlane> fit_table_plane(const std::vector<cv::Point2d>& table_mm, const std::vector<cv::Point2d>& image_px);

}  // namespace meeplecam::calibration
