#include "calibration/calibrated_frame.h"

#include "calibration/camera_calibration.h"

namespace meeplecam::calibration {

Result<cv::Mat> prepare_frame(const Calibration& calibration, const cv::Mat& frame, vision::ReaderOptions& options,
                              const std::string& where) {
    cv::Mat out = frame;
    // A plane measured on raw frames (before the camera was calibrated) needs raw frames.
    const bool undistort = calibration.camera && (!calibration.table || calibration.table->undistorted);
    if (undistort) {
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

}  // namespace meeplecam::calibration
