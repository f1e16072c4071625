// Stage 2a of the board reader: a candidate lattice's pitch measured again on its own top view.
//
// find_lattices measures the pitch in an affine view of the whole region its colours call the
// board. On a busy cloth in the tiles' own colours that region is mostly cloth, whose stripes
// fold too, and a candidate can come out with its edge directions right but a pitch several
// percent off along an axis: its cells drift a whole tile across the board, faster than the
// refit (which looks for each tile within a third of a pitch) can follow. On the candidate's own
// top view the tiles are axis-aligned rectangles; the board's tile sides (mean |gradient| per
// column and per row over the cells the colours call the board, the cloth's slanted stripes
// averaging out) fold at the tiles' true size, which gives each axis its pitch and phase again.
#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"

namespace meeplecam::vision {
namespace {

struct AxisFold {
    double period = 0;  // px
    double phase = 0;   // px: where the tile sides are (mod period)
    double score = 0;   // fold peak over mean
};

// Mean of `values` per column (columns true) or row, over the pixels `mask` marks; 0 where none.
std::vector<double> masked_profile(const cv::Mat& values, const cv::Mat& mask, bool columns) {
    const int n = columns ? values.cols : values.rows;
    std::vector<double> sum(static_cast<std::size_t>(n), 0.0), count(sum.size(), 0.0);
    for (int y = 0; y < values.rows; ++y) {
        const auto* v = values.ptr<float>(y);
        const auto* m = mask.ptr<std::uint8_t>(y);
        for (int x = 0; x < values.cols; ++x) {
            if (!m[x]) continue;
            const auto i = static_cast<std::size_t>(columns ? x : y);
            sum[i] += v[x], count[i] += 1;
        }
    }
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] = count[i] > 0 ? sum[i] / count[i] : 0;
    return sum;
}

// The period within [lo, hi] (px) at which `profile` folds most sharply: the profile summed
// modulo the period into one-pixel phase bins (lightly smoothed: tiles lie off-grid by a
// little), its largest bin over the mean. The phase is that bin's centre.
AxisFold sharpest_fold(const std::vector<double>& profile, double lo, double hi, double step) {
    AxisFold best;
    if (profile.empty() || !(lo > 2) || hi < lo) return best;
    for (double p = lo; p <= hi + 1e-9; p += step) {
        const int bins = std::max(8, static_cast<int>(std::lround(p)));
        std::vector<double> f(static_cast<std::size_t>(bins), 0.0);
        double total = 0;
        for (std::size_t i = 0; i < profile.size(); ++i) {
            const double t = static_cast<double>(i) / p;
            f[static_cast<std::size_t>(std::min(bins - 1, static_cast<int>((t - std::floor(t)) * bins)))] += profile[i];
            total += profile[i];
        }
        if (total <= 0) continue;
        const double mean = total / bins;
        for (int b = 0; b < bins; ++b) {
            const double s = 0.25 * f[static_cast<std::size_t>((b + bins - 1) % bins)] + 0.5 * f[static_cast<std::size_t>(b)] +
                             0.25 * f[static_cast<std::size_t>((b + 1) % bins)];
            if (s / mean > best.score) best = {p, (b + 0.5) * p / bins, s / mean};
        }
    }
    return best;
}

}  // namespace

Status RescaleOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("rescale options", what)); };
    if (!(min_change >= 0 && min_change < max_change)) return bad("min_change must be within [0, max_change)");
    if (!(max_change > 0 && max_change < 0.5)) return bad("max_change must be within (0, 0.5)");
    if (!(min_fold >= 1)) return bad("min_fold must be at least 1");
    if (max_candidates < 0 || max_candidates > 16) return bad("max_candidates must be within [0, 16]");
    if (!(work_px_per_mm >= 0.25 && work_px_per_mm <= 10)) return bad("work_px_per_mm must be within [0.25, 10]");
    return Ok{};
}

std::optional<LatticeView> rescaled_to_tiles(const cv::Mat& image, const LatticeView& view, const RescaleOptions& o) {
    if (!o.enabled || image.empty() || view.not_table.empty() || view.cols < 3 || view.rows < 3 || !o.check()) return std::nullopt;
    // A coarse top view (tile sides are long straight lines, found as well at about 1 px/mm).
    const double k = std::min(1.0, o.work_px_per_mm / view.px_per_mm);
    const double pitch = view.pitch_px * k;
    const cv::Size size(static_cast<int>(std::ceil(view.cols * pitch)), static_cast<int>(std::ceil(view.rows * pitch)));
    if (size.width < 16 || size.height < 16 || size.area() > 16'000'000) return std::nullopt;
    const cv::Matx33d to_coarse = cv::Matx33d(k, 0, 0, 0, k, 0, 0, 0, 1) * view.image_to_top;
    cv::Mat top, seen;
    cv::warpPerspective(image, top, to_coarse, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    cv::warpPerspective(cv::Mat(image.size(), CV_8UC1, cv::Scalar(255)), seen, to_coarse, size, cv::INTER_NEAREST, cv::BORDER_CONSTANT,
                        cv::Scalar(0));
    // Where the tile sides are read: the board's colours, grown by a quarter tile (its rim
    // tiles' outer sides lie on the mask's edge), inside the frame (the frame's edge is no side).
    cv::Mat board;
    cv::resize(view.not_table, board, size, 0, 0, cv::INTER_NEAREST);
    const int grow = std::max(3, static_cast<int>(std::lround(pitch / 2))) | 1;
    cv::dilate(board, board, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(grow, grow)));
    cv::erode(seen, seen, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    board &= seen;
    if (cv::countNonZero(board) < 9 * pitch * pitch) return std::nullopt;  // a board spans a few tiles at least
    cv::Mat grey, gx, gy;
    cv::cvtColor(top, grey, cv::COLOR_BGR2GRAY);
    grey.convertTo(grey, CV_32F);
    cv::GaussianBlur(grey, grey, cv::Size(), 1.0);
    cv::Sobel(grey, gx, CV_32F, 1, 0, 3);
    cv::Sobel(grey, gy, CV_32F, 0, 1, 3);
    gx = cv::abs(gx), gy = cv::abs(gy);
    const double lo = pitch * (1 - o.max_change), hi = pitch * (1 + o.max_change);
    const AxisFold fx = sharpest_fold(masked_profile(gx, board, true), lo, hi, 0.05);
    const AxisFold fy = sharpest_fold(masked_profile(gy, board, false), lo, hi, 0.05);
    // Per axis: the scale (new px per old px) and where the old view's tile sides are.
    auto change = [&](const AxisFold& f) { return f.score >= o.min_fold ? std::abs(f.period / pitch - 1) : 0.0; };
    if (change(fx) < o.min_change && change(fy) < o.min_change) return std::nullopt;
    auto axis = [&](const AxisFold& f, int cells, double& scale, double& offset, int& count) {
        scale = 1, offset = 0, count = cells;
        if (change(f) < o.min_change) return;  // this axis stays as it was
        scale = pitch / f.period;
        const double side = f.phase / k;  // full-scale top px of one tile side line
        // x' = (x - side) * scale + m * pitch_px: the side on a cell boundary, every old cell at x' >= 0.
        const double m = std::ceil(side * scale / view.pitch_px);
        offset = -side * scale + m * view.pitch_px;
        count = std::max(1, static_cast<int>(std::ceil((cells * view.pitch_px * scale + offset) / view.pitch_px)));
    };
    double sx = 1, ox = 0, sy = 1, oy = 0;
    int cols = view.cols, rows = view.rows;
    axis(fx, view.cols, sx, ox, cols);
    axis(fy, view.rows, sy, oy, rows);
    LatticeView out = view;
    const cv::Matx33d move(sx, 0, ox, 0, sy, oy, 0, 0, 1);
    out.image_to_top = move * view.image_to_top;
    out.cols = cols, out.rows = rows;
    out.strong = false;  // not the fold's own choice
    const cv::Size full(static_cast<int>(std::ceil(cols * view.pitch_px)), static_cast<int>(std::ceil(rows * view.pitch_px)));
    // Into new images: the copy shares the candidate's.
    cv::Mat mask, warped;
    cv::warpPerspective(view.not_table, mask, move, full, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
    out.not_table = mask;
    if (!view.top.empty()) cv::warpPerspective(image, warped, out.image_to_top, full, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    out.top = warped;
    out.top_near_cells = false;
    return out;
}

}  // namespace meeplecam::vision
