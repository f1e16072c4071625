// Table view: the camera frame warped onto the table plane around the board, cell by cell.
// Internal to the session layer (the tracker and its tests).
#pragma once

#include <cmath>

#include <opencv2/core.hpp>

#include "engine/board.h"

namespace meeplecam::session {

// A rectangle of board cells, inclusive on both ends.
struct CellWindow {
    int x0 = 0, y0 = 0, x1 = -1, y1 = -1;

    bool contains(Cell c) const { return c.x >= x0 && c.x <= x1 && c.y >= y0 && c.y <= y1; }
    int cols() const { return x1 - x0 + 1; }
    int rows() const { return y1 - y0 + 1; }
    friend bool operator==(const CellWindow&, const CellWindow&) = default;
};

// Returns the cells of the board grown by `ring` cells on every side.
CellWindow window_around(const Board& board, int ring);

// Maps table millimetres (origin at the start cell's centre) to pixels of a view covering `window`.
class TableView {
public:
    TableView() = default;
    TableView(CellWindow window, double pitch_mm, double px_per_mm);

    // Returns the view's pixel offset of cell (0, 0) of `other`'s window in this view.
    cv::Point offset_of(const TableView& other) const {
        const int p = static_cast<int>(std::lround(pitch_px()));
        return {(other.window_.x0 - window_.x0) * p, (other.window_.y0 - window_.y0) * p};
    }
    // Warps a frame (any type) into this view, given the image -> table homography.
    cv::Mat warp(const cv::Mat& frame, const cv::Matx33d& image_to_table_mm) const;
    // The pixel square of a cell (its full pitch), clipped to the view.
    cv::Rect cell_rect(Cell c) const;
    // The centred square of side `share` * pitch inside a cell.
    cv::Rect cell_core(Cell c, double share) const;
    // A view pixel to table millimetres.
    cv::Point2d to_table(cv::Point2d px) const;
    cv::Size size() const { return size_; }
    const CellWindow& window() const { return window_; }
    double px_per_mm() const { return ppm_; }
    double pitch_px() const { return pitch_ * ppm_; }

private:
    CellWindow window_;
    double pitch_ = 46, ppm_ = 2;
    cv::Size size_;
};

}  // namespace meeplecam::session
