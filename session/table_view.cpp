#include "session/table_view.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace meeplecam::session {

CellWindow window_around(const Board& board, int ring) {
    CellWindow w{0, 0, 0, 0};
    bool first = true;
    for (const auto& t : board.tiles()) {
        if (first) {
            w = {t.at.x, t.at.y, t.at.x, t.at.y};
            first = false;
        }
        w.x0 = std::min(w.x0, t.at.x);
        w.y0 = std::min(w.y0, t.at.y);
        w.x1 = std::max(w.x1, t.at.x);
        w.y1 = std::max(w.y1, t.at.y);
    }
    return {w.x0 - ring, w.y0 - ring, w.x1 + ring, w.y1 + ring};
}

TableView::TableView(CellWindow window, double pitch_mm, double px_per_mm) : window_(window), pitch_(pitch_mm), ppm_(px_per_mm) {
    // A whole number of pixels per cell, so views of different windows line up cell by cell.
    ppm_ = std::max(8.0, std::round(pitch_ * ppm_)) / pitch_;
    size_ = cv::Size(static_cast<int>(std::lround(window.cols() * pitch_ * ppm_)),
                     static_cast<int>(std::lround(window.rows() * pitch_ * ppm_)));
}

cv::Mat TableView::warp(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm) const {
    // View pixel (u, v) shows table point ((u + 0.5) / ppm + left, (v + 0.5) / ppm + top).
    const double left = (window_.x0 - 0.5) * pitch_, top = (window_.y0 - 0.5) * pitch_;
    const cv::Matx33d view_from_table(ppm_, 0, -left * ppm_ - 0.5, 0, ppm_, -top * ppm_ - 0.5, 0, 0, 1);
    cv::Mat out;
    cv::warpPerspective(frame, out, view_from_table * image_to_table_mm, size_, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    return out;
}

cv::Rect TableView::cell_rect(Cell c) const { return cell_core(c, 1.0); }

cv::Rect TableView::cell_core(Cell c, double share) const {
    const double p = pitch_ * ppm_;
    const double cx = (c.x - window_.x0 + 0.5) * p, cy = (c.y - window_.y0 + 0.5) * p;
    const double half = share * p / 2;
    const cv::Rect r(static_cast<int>(std::lround(cx - half)), static_cast<int>(std::lround(cy - half)),
                     static_cast<int>(std::lround(2 * half)), static_cast<int>(std::lround(2 * half)));
    return r & cv::Rect(0, 0, size_.width, size_.height);
}

cv::Point2d TableView::to_table(cv::Point2d px) const {
    return {(px.x + 0.5) / ppm_ + (window_.x0 - 0.5) * pitch_, (px.y + 0.5) / ppm_ + (window_.y0 - 0.5) * pitch_};
}

}  // namespace meeplecam::session
