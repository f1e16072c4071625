#include "vision/truth_metrics.h"

#include <cmath>

namespace meeplecam::vision {

double rigid_alignment_rms(const std::vector<cv::Point2d>& a, const std::vector<cv::Point2d>& b) {
    if (a.size() < 2 || a.size() != b.size()) return 0;
    cv::Point2d ca(0, 0), cb(0, 0);
    for (std::size_t i = 0; i < a.size(); ++i) ca += a[i], cb += b[i];
    const double n = static_cast<double>(a.size());
    ca *= 1.0 / n, cb *= 1.0 / n;
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        sxx += p.x * q.x + p.y * q.y;
        sxy += p.x * q.y - p.y * q.x;
    }
    const double th = std::atan2(sxy, sxx), c = std::cos(th), s = std::sin(th);
    double e = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const cv::Point2d p = a[i] - ca, q = b[i] - cb;
        const cv::Point2d r(c * p.x - s * p.y, s * p.x + c * p.y);
        e += (r - q).dot(r - q);
    }
    return std::sqrt(e / n);
}

double rectification_rms_mm(const LatticeView& view, const RenderTruth& truth) {
    std::vector<cv::Point2d> a, b;
    for (const auto& t : truth.tiles) {
        const cv::Vec3d v = view.image_to_top * cv::Vec3d(t.centre_px.x, t.centre_px.y, 1);
        a.emplace_back(v[0] / v[2] / view.px_per_mm, v[1] / v[2] / view.px_per_mm);
        b.push_back(t.centre_mm);
    }
    return rigid_alignment_rms(a, b);
}

}  // namespace meeplecam::vision
