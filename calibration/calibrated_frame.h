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

// Whether frames must be undistorted before the file's table plane applies to them (it has
// intrinsics, and its plane, if any, was measured on undistorted frames).
bool undistorts_frames(const Calibration& calibration);

// Undistorts a stream of frames of one size with maps computed once (cv::remap): the same
// pixels as undistort_image, a few times faster per frame.
class FrameUndistorter {
public:
    // Errors name `where`: a frame size that is not a uniform rescale of the calibrated one.
    static Result<FrameUndistorter> create(const CameraIntrinsics& camera, cv::Size frame_size, const std::string& where);
    // Returns the undistorted frame; `frame` must have size().
    cv::Mat apply(const cv::Mat& frame) const;
    cv::Size size() const { return size_; }

private:
    cv::Mat map_x_, map_y_;
    cv::Size size_;
};

}  // namespace meeplecam::calibration
