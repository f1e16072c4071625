// Camera intrinsics from several photographs of the printed ChArUco board
// (cv::aruco::calibrateCameraCharuco), and undistortion with them.
#pragma once

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "calibration/calibration_file.h"
#include "calibration/printed_targets.h"
#include "engine/error.h"

namespace meeplecam::calibration {

struct CameraCalibrationOptions {
    CharucoSpec board;              // the board that was printed
    int min_views = 4;              // fewer usable views: refuse (the focal length is poorly fixed)
    int min_corners = 12;           // a view needs this many chessboard corners to count
    int min_markers = 4;            // ... and this many of the board's markers
    bool fix_k3 = true;             // keep k3 = 0 (few views cannot pin the 6th-order radial term)
    double max_reprojection_px = 3; // a larger rms error means a wrong board or bad photos: refuse
    Status check() const;
};

// The chessboard corners one photograph shows.
struct CharucoView {
    std::string name;                    // the photo's name (for messages)
    cv::Size image_size;
    std::vector<cv::Point2f> corners;    // image px (sub-pixel)
    std::vector<int> ids;                // chessboard corner ids, as the board numbers them
    int markers = 0;                     // ArUco markers of the board found
};

// Finds the board's corners in one photo. Errors name `name`: no board (no markers), too
// few markers, or too few corners.
Result<CharucoView> detect_charuco(const cv::Mat& image, const std::string& name, const CameraCalibrationOptions& options = {});

// Calibrates from the usable views (all of one image size). Errors: too few views, mixed
// image sizes, a fit whose reprojection error is implausible.
Result<CameraIntrinsics> calibrate_camera(const std::vector<CharucoView>& views, const CameraCalibrationOptions& options = {});

// Returns the image with the lens distortion removed (same size and camera matrix).
// Errors when the image size differs from the calibrated one and is not a uniform scale of it.
Result<cv::Mat> undistort_image(const cv::Mat& image, const CameraIntrinsics& camera);
// Returns the intrinsics for an image of `size` (a uniform rescale of the calibrated size).
Result<CameraIntrinsics> intrinsics_for_size(const CameraIntrinsics& camera, cv::Size size, const std::string& where);

}  // namespace meeplecam::calibration
