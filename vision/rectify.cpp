#include "vision/rectify.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "vision/homography.h"

namespace meeplecam::vision {

Status RectifyOptions::check() const {
    if (!(px_per_mm > 0.05 && px_per_mm <= 20)) return invalid("rectify options", "px_per_mm must be within (0.05, 20]");
    if (max_side_px < 64 || max_side_px > 16384) return invalid("rectify options", "max_side_px must be within [64, 16384]");
    return Ok{};
}

cv::Point2d TopView::to_plane(cv::Point2d top_px) const { return apply_homography(plane_to_top.inv(), top_px); }
cv::Point2d TopView::to_top(cv::Point2d plane_mm) const { return apply_homography(plane_to_top, plane_mm); }

Result<TopView> rectify(const cv::Mat& image, const cv::Matx33d& plane_to_image, const RectifyOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    if (image.empty() || image.type() != CV_8UC3) return invalid("rectify", "expects a non-empty 8-bit colour image");
    if (std::abs(cv::determinant(plane_to_image)) < 1e-12) return invalid("rectify", "the plane homography is singular");
    const cv::Matx33d image_to_plane = plane_to_image.inv();

    // What the camera saw of the plane: the image corners mapped onto it (all must lie in front).
    std::vector<cv::Point2d> seen;
    // Pixel areas, not centres: pixel (0, 0) spans [-0.5, 0.5].
    const double right = image.cols - 0.5, bottom = image.rows - 0.5;
    const std::vector<cv::Point2d> corners = {{-0.5, -0.5}, {right, -0.5}, {right, bottom}, {-0.5, bottom}};
    for (const auto& c : corners) {
        const cv::Vec3d v = image_to_plane * cv::Vec3d(c.x, c.y, 1);
        if (std::abs(v[2]) < 1e-12) return invalid("rectify", "the camera sees the plane's horizon");
        seen.emplace_back(v[0] / v[2], v[1] / v[2]);
    }
    // The plane's points must map back with a positive scale for every corner (in front of the camera).
    for (const auto& p : seen) {
        const cv::Vec3d v = plane_to_image * cv::Vec3d(p.x, p.y, 1);
        const cv::Vec3d centre = plane_to_image * cv::Vec3d(seen[0].x, seen[0].y, 1);
        if (v[2] * centre[2] <= 0) return invalid("rectify", "the camera sees the plane's horizon");
    }
    double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
    for (const auto& p : seen) {
        x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
    }
    // Crop to the budget around where the image centre looks.
    const double ppm = options.px_per_mm;
    const double span = options.max_side_px / ppm;
    const cv::Point2d middle = apply_homography(image_to_plane, {(image.cols - 1) / 2.0, (image.rows - 1) / 2.0});
    if (x1 - x0 > span) {
        x0 = std::clamp(middle.x - span / 2, x0, x1 - span);
        x1 = x0 + span;
    }
    if (y1 - y0 > span) {
        y0 = std::clamp(middle.y - span / 2, y0, y1 - span);
        y1 = y0 + span;
    }
    const cv::Size size(std::max(1, static_cast<int>(std::ceil((x1 - x0) * ppm))), std::max(1, static_cast<int>(std::ceil((y1 - y0) * ppm))));

    TopView top;
    top.px_per_mm = ppm;
    // Top-view pixel i covers plane [x0 + i / ppm, x0 + (i + 1) / ppm]; its centre is at integer i.
    top.plane_to_top = cv::Matx33d(ppm, 0, -x0 * ppm - 0.5, 0, ppm, -y0 * ppm - 0.5, 0, 0, 1);
    top.image_to_top = top.plane_to_top * image_to_plane;
    cv::warpPerspective(image, top.image, top.image_to_top, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    const cv::Mat full(image.size(), CV_8UC1, cv::Scalar(255));
    cv::warpPerspective(full, top.valid, top.image_to_top, size, cv::INTER_NEAREST, cv::BORDER_CONSTANT);
    return top;
}

}  // namespace meeplecam::vision
