// Applying a calibration to a frame before the board reader sees it.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "calibration/calibration_file.h"
#include "engine/error.h"
#include "vision/board_reader.h"

namespace meeplecam::calibration {

// Prepares one frame for vision::read_board: removes the lens distortion (when the file has
// intrinsics, unless its table plane was measured on raw frames) and sets options.lattice.image_to_table_mm (when it has a table plane).
// Errors name `where`: a frame size the calibration does not fit, a plane measured on
// undistorted frames without intrinsics to undistort with.
Result<cv::Mat> prepare_frame(const Calibration& calibration, const cv::Mat& frame, vision::ReaderOptions& options,
                              const std::string& where);

}  // namespace meeplecam::calibration
