#include "calibration/camera_calibration.h"

#include <cmath>

#include <opencv2/aruco.hpp>
#include <opencv2/aruco/charuco.hpp>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "calibration/aruco_dictionaries.h"

namespace meeplecam::calibration {
namespace {

cv::Ptr<cv::aruco::CharucoBoard> make_board(const CharucoSpec& spec) {
    return cv::aruco::CharucoBoard::create(spec.squares_x, spec.squares_y, static_cast<float>(spec.square_mm),
                                           static_cast<float>(spec.marker_mm), charuco_dictionary());
}

}  // namespace

Status CameraCalibrationOptions::check() const {
    if (auto st = board.check(); !st) return st;
    auto bad = [](const char* what) { return Status(invalid("camera calibration options", what)); };
    if (min_views < 3) return bad("min_views must be at least 3");
    if (min_corners < 6) return bad("min_corners must be at least 6");
    if (min_markers < 1) return bad("min_markers must be at least 1");
    if (!(max_reprojection_px > 0)) return bad("max_reprojection_px must be positive");
    return Ok{};
}

Result<CharucoView> detect_charuco(const cv::Mat& image, const std::string& name, const CameraCalibrationOptions& o) {
    if (auto st = o.check(); !st) return st.error();
    if (image.empty() || (image.type() != CV_8UC3 && image.type() != CV_8UC1)) return invalid(name, "expects a non-empty 8-bit image");
    cv::Mat grey;
    if (image.channels() == 3) cv::cvtColor(image, grey, cv::COLOR_BGR2GRAY);
    else grey = image;
    const auto board = make_board(o.board);
    auto params = cv::aruco::DetectorParameters::create();
    params->cornerRefinementMethod = cv::aruco::CORNER_REFINE_NONE;  // the ChArUco corners are refined instead
    std::vector<std::vector<cv::Point2f>> marker_corners, rejected;
    std::vector<int> marker_ids;
    cv::aruco::detectMarkers(grey, board->dictionary, marker_corners, marker_ids, params, rejected);
    // Markers the board layout predicts but the detector missed.
    cv::aruco::refineDetectedMarkers(grey, board, marker_corners, marker_ids, rejected);
    const int board_markers = static_cast<int>(board->ids.size());
    int on_board = 0;
    for (int id : marker_ids) on_board += (id >= 0 && id < board_markers) ? 1 : 0;
    if (on_board == 0) {
        return invalid(name, "no ChArUco board found (no ArUco marker of DICT_5X5_100 ids 0.." + std::to_string(board_markers - 1) +
                                 "): print it with 'meeplecam calibrate print-charuco'");
    }
    if (on_board < o.min_markers) {
        return invalid(name, "only " + std::to_string(on_board) + " of the board's markers found (need " + std::to_string(o.min_markers) +
                                 "): the board is too small, blurred or partly hidden");
    }
    CharucoView view;
    view.name = name;
    view.image_size = image.size();
    view.markers = on_board;
    cv::aruco::interpolateCornersCharuco(marker_corners, marker_ids, grey, board, view.corners, view.ids);
    if (static_cast<int>(view.corners.size()) < o.min_corners) {
        return invalid(name, "only " + std::to_string(view.corners.size()) + " chessboard corners found (need " +
                                 std::to_string(o.min_corners) + "): show more of the board");
    }
    return view;
}

Result<CameraIntrinsics> calibrate_camera(const std::vector<CharucoView>& views, const CameraCalibrationOptions& o) {
    if (auto st = o.check(); !st) return st.error();
    if (static_cast<int>(views.size()) < o.min_views) {
        return invalid("camera calibration", "needs at least " + std::to_string(o.min_views) + " usable views of the board, got " +
                                                 std::to_string(views.size()) + " (take photos from different angles, board tilted 20-50 degrees)");
    }
    const cv::Size size = views.front().image_size;
    std::vector<std::vector<cv::Point2f>> corners;
    std::vector<std::vector<int>> ids;
    for (const auto& v : views) {
        if (v.image_size != size) {
            return invalid(v.name, "is " + std::to_string(v.image_size.width) + "x" + std::to_string(v.image_size.height) + ", the first view " +
                                       std::to_string(size.width) + "x" + std::to_string(size.height) + ": all views must come from one camera mode");
        }
        MEEPLECAM_CHECK(v.corners.size() == v.ids.size(), "one id per corner");
        corners.push_back(v.corners);
        ids.push_back(v.ids);
    }
    cv::Mat K, dist;
    std::vector<cv::Mat> rvecs, tvecs;
    int flags = o.fix_k3 ? cv::CALIB_FIX_K3 : 0;
    double rms = 0;
    try {
        rms = cv::aruco::calibrateCameraCharuco(corners, ids, make_board(o.board), size, K, dist, rvecs, tvecs, flags);
    } catch (const cv::Exception& e) {
        return invalid("camera calibration", std::string("the views do not determine the camera (") + e.err + "): vary the board's tilt");
    }
    if (!std::isfinite(rms) || rms > o.max_reprojection_px) {
        return invalid("camera calibration", "the fit is poor (reprojection error " + std::to_string(rms) + " px > " +
                                                 std::to_string(o.max_reprojection_px) + "): wrong board size, a bent sheet or blurred photos");
    }
    CameraIntrinsics cam;
    cam.image_size = size;
    cam.camera_matrix = cv::Matx33d(K);
    cam.camera_matrix(1, 0) = cam.camera_matrix(2, 0) = cam.camera_matrix(2, 1) = 0;
    cam.camera_matrix(2, 2) = 1;
    cam.distortion.assign(dist.begin<double>(), dist.end<double>());
    cam.reprojection_error_px = rms;
    cam.views = static_cast<int>(views.size());
    if (!(cam.camera_matrix(0, 0) > 0 && cam.camera_matrix(1, 1) > 0)) {
        return invalid("camera calibration", "the fit gave a non-positive focal length: vary the board's tilt");
    }
    return cam;
}

Result<CameraIntrinsics> intrinsics_for_size(const CameraIntrinsics& camera, cv::Size size, const std::string& where) {
    if (size == camera.image_size) return camera;
    const double sx = static_cast<double>(size.width) / camera.image_size.width;
    const double sy = static_cast<double>(size.height) / camera.image_size.height;
    if (std::abs(sx - sy) > 0.002 * std::max(sx, sy)) {
        return invalid(where, "is " + std::to_string(size.width) + "x" + std::to_string(size.height) + " but the camera was calibrated at " +
                                  std::to_string(camera.image_size.width) + "x" + std::to_string(camera.image_size.height) +
                                  " (another aspect ratio: recalibrate in this camera mode)");
    }
    CameraIntrinsics scaled = camera;
    scaled.image_size = size;
    const cv::Matx33d s(sx, 0, 0, 0, sy, 0, 0, 0, 1);
    scaled.camera_matrix = s * camera.camera_matrix;
    return scaled;
}

Result<cv::Mat> undistort_image(const cv::Mat& image, const CameraIntrinsics& camera) {
    auto cam = intrinsics_for_size(camera, image.size(), "the image");
    if (!cam) return cam.error();
    cv::Mat out;
    cv::undistort(image, out, cv::Mat(cam->camera_matrix), cam->distortion, cv::Mat(cam->camera_matrix));
    return out;
}

}  // namespace meeplecam::calibration
