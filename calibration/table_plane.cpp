#include "calibration/table_plane.h"

#include <cmath>

#include <opencv2/calib3d.hpp>

namespace meeplecam::calibration {
namespace {

cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
    const cv::Vec3d v = h * cv::Vec3d(p.x, p.y, 1.0);
    return {v[0] / v[2], v[1] / v[2]};
}

}  // namespace

cv::Point2d TablePlane::to_image(cv::Point2d table_mm) const { return apply(table_to_image, table_mm); }

cv::Point2d TablePlane::to_table(cv::Point2d image_px) const { return apply(table_to_image.inv(), image_px); }

Result<TablePlane> fit_table_plane(const std::vector<cv::Point2d>& table_mm, const std::vector<cv::Point2d>& image_px) {
    if (table_mm.size() != image_px.size()) return invalid("table plane", "point lists differ in length");
    if (table_mm.size() < 4) return invalid("table plane", "at least 4 point pairs are needed");
    // Refuse (nearly) collinear table points: the plane is undetermined by them.
    cv::Point2d mean(0, 0);
    for (const auto& p : table_mm) mean += p;
    mean *= 1.0 / static_cast<double>(table_mm.size());
    double sxx = 0, syy = 0, sxy = 0;
    for (const auto& p : table_mm) {
        const cv::Point2d d = p - mean;
        sxx += d.x * d.x;
        syy += d.y * d.y;
        sxy += d.x * d.y;
    }
    const double trace = sxx + syy, det = sxx * syy - sxy * sxy;
    if (trace <= 0 || det <= 1e-9 * trace * trace) {
        return invalid("table plane", "the table points are collinear or repeated");
    }
    const cv::Mat h = cv::findHomography(table_mm, image_px, 0);
    if (h.empty()) return invalid("table plane", "the points are degenerate (collinear or repeated)");
    TablePlane plane;
    plane.table_to_image = cv::Matx33d(h);
    double sum = 0.0;
    for (std::size_t i = 0; i < table_mm.size(); ++i) {
        const cv::Point2d d = plane.to_image(table_mm[i]) - image_px[i];
        sum += d.dot(d);
    }
    plane.rms_error_px = std::sqrt(sum / static_cast<double>(table_mm.size()));
    return plane;
}

}  // namespace meeplecam::calibration
