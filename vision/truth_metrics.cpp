#include "vision/truth_metrics.h"

#include <algorithm>
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

BoardReading reading_from_truth(const RenderTruth& truth, const Catalog& catalog, cv::Size frame) {
    BoardReading out;
    out.found = true;
    const double pitch = truth.tile_mm + truth.gap_mm;
    int min_x = truth.tiles.front().at.x, min_y = truth.tiles.front().at.y, max_x = min_x, max_y = min_y;
    for (const auto& t : truth.tiles) {
        min_x = std::min(min_x, t.at.x), min_y = std::min(min_y, t.at.y), max_x = std::max(max_x, t.at.x), max_y = std::max(max_y, t.at.y);
    }
    // Cell (x, y)'s centre lies at board_origin_mm + (x, y) * pitch on the table.
    const cv::Point2d shift = cv::Point2d((0.5 - min_x) * pitch, (0.5 - min_y) * pitch) - truth.board_origin_mm;
    out.view.px_per_mm = 1.0;
    out.view.pitch_px = pitch;
    out.view.image_to_top = cv::Matx33d(1, 0, shift.x, 0, 1, shift.y, 0, 0, 1) * truth.tiles_to_image.inv();
    out.view.cols = max_x - min_x + 1, out.view.rows = max_y - min_y + 1;
    out.view.frame = frame;
    for (const auto& t : truth.tiles) {
        DecodedTile d;
        d.col = t.at.x - min_x, d.row = t.at.y - min_y;
        d.type = catalog.find(t.tile)->index;
        d.rot = t.rot_deg / 90;
        d.offset_px = t.centre_mm - (truth.board_origin_mm + cv::Point2d(t.at.x * pitch, t.at.y * pitch));
        d.confidence = 1;
        out.tiles.push_back(d);
    }
    return out;
}

}  // namespace meeplecam::vision
