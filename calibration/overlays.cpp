#include "calibration/overlays.h"

#include <algorithm>
#include <string>

#include <opencv2/imgproc.hpp>

namespace meeplecam::calibration {

cv::Mat draw_charuco_view(const cv::Mat& image, const CharucoView& view) {
    cv::Mat out;
    if (image.channels() == 1) {
        cv::cvtColor(image, out, cv::COLOR_GRAY2BGR);
    } else {
        out = image.clone();
    }
    const int r = std::max(3, out.cols / 250);
    for (const auto& c : view.corners) {
        cv::circle(out, c, r, cv::Scalar(0, 0, 255), std::max(1, r / 2), cv::LINE_AA);
    }
    return out;
}

cv::Mat draw_table_plane(const cv::Mat& image, const TableCalibration& t, const std::array<FoundMarker, 4>* markers) {
    cv::Mat overlay = image.clone();
    const int thick = std::max(2, overlay.cols / 700);
    double x0 = 0, y0 = 0, x1 = 1000, y1 = 1000;
    if (!t.markers.empty()) {
        x0 = y0 = 1e18, x1 = y1 = -1e18;
        for (const auto& m : t.markers) {
            x0 = std::min(x0, m.centre_mm.x), y0 = std::min(y0, m.centre_mm.y), x1 = std::max(x1, m.centre_mm.x), y1 = std::max(y1, m.centre_mm.y);
        }
    }
    for (double x = x0; x <= x1 + 1e-9; x += 100) {
        cv::line(overlay, t.plane.to_image({x, y0}), t.plane.to_image({x, y1}), cv::Scalar(0, 255, 255), thick, cv::LINE_AA);
    }
    for (double y = y0; y <= y1 + 1e-9; y += 100) {
        cv::line(overlay, t.plane.to_image({x0, y}), t.plane.to_image({x1, y}), cv::Scalar(0, 255, 255), thick, cv::LINE_AA);
    }
    if (markers && !t.markers.empty() && !t.undistorted) {
        for (const auto& m : *markers) {
            for (std::size_t k = 0; k < 4; ++k) cv::line(overlay, m.corners_px[k], m.corners_px[(k + 1) % 4], cv::Scalar(0, 0, 255), thick + 1, cv::LINE_AA);
            cv::putText(overlay, std::to_string(m.id), m.centre_px, cv::FONT_HERSHEY_SIMPLEX, 1.5, cv::Scalar(0, 0, 255), 3);
        }
    }
    return overlay;
}

cv::Mat draw_colour_shot(const cv::Mat& image, const ColourShot& shot) {
    cv::Mat overlay = apply_white_balance(image, shot.calibration.white_balance_rgb);
    cv::polylines(overlay, shot.paper_outline, true, cv::Scalar(0, 200, 0), 3, cv::LINE_AA);
    for (const auto& f : shot.followers) {
        cv::circle(overlay, f.centre_px, 12, cv::Scalar(255, 0, 255), 3, cv::LINE_AA);
        cv::putText(overlay, f.colour, f.centre_px + cv::Point2d(16, 8), cv::FONT_HERSHEY_SIMPLEX, 1.0, cv::Scalar(255, 0, 255), 2);
    }
    return overlay;
}

}  // namespace meeplecam::calibration
