#include "calibration/calibrated_frame.h"

#include "calibration/camera_calibration.h"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

namespace meeplecam::calibration {

Result<cv::Mat> prepare_frame(const Calibration& calibration, const cv::Mat& frame, vision::ReaderOptions& options,
                              const std::string& where) {
    cv::Mat out = frame;
    // A plane measured on raw frames (before the camera was calibrated) needs raw frames.
    if (undistorts_frames(calibration)) {
        auto cam = intrinsics_for_size(*calibration.camera, frame.size(), where);
        if (!cam) return cam.error();
        auto undistorted = undistort_image(frame, *calibration.camera);
        if (!undistorted) return invalid(where, undistorted.error().message);
        out = undistorted.value();
    }
    options.lattice.image_to_table_mm.reset();
    if (calibration.table) {
        if (calibration.table->undistorted && !calibration.camera) {
            return invalid(where, "the calibration's table plane was measured on undistorted frames but the file holds no camera intrinsics");
        }
        auto h = image_to_table_for_size(*calibration.table, frame.size(), where);
        if (!h) return h.error();
        options.lattice.image_to_table_mm = h.value();
    }
    return out;
}

bool undistorts_frames(const Calibration& calibration) {
    return calibration.camera && (!calibration.table || calibration.table->undistorted);
}

Result<FrameUndistorter> FrameUndistorter::create(const CameraIntrinsics& camera, cv::Size frame_size, const std::string& where) {
    auto cam = intrinsics_for_size(camera, frame_size, where);
    if (!cam) return cam.error();
    FrameUndistorter u;
    u.size_ = frame_size;
    // The same mapping cv::undistort uses (new camera matrix = the camera matrix).
    cv::initUndistortRectifyMap(cv::Mat(cam->camera_matrix), cam->distortion, cv::noArray(), cv::Mat(cam->camera_matrix), frame_size,
                                CV_16SC2, u.map_x_, u.map_y_);
    return u;
}

cv::Mat FrameUndistorter::apply(const cv::Mat& frame) const {
    MEEPLECAM_CHECK(frame.size() == size_, "FrameUndistorter::apply gets frames of the size it was made for");
    cv::Mat out;
    cv::remap(frame, out, map_x_, map_y_, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    return out;
}

}  // namespace meeplecam::calibration
