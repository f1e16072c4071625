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
// The same profiles tell a candidate at a multiple of the tiles' pitch (a half, a third or two
// thirds of its pitch folds as sharply): subdivided_to_tiles.
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
    if (!(refit_gradient_cap > 0.5 && refit_gradient_cap <= 1)) return bad("refit_gradient_cap must be within (0.5, 1]");
    return Ok{};
}

namespace {

// The board's tile sides on a candidate's own coarse top view: mean |gradient| across x per
// column and across y per row, over the board's colours grown by half a tile, inside the frame.
struct SideProfiles {
    std::vector<double> x, y;
    double k = 1;      // coarse px per top-view px
    double pitch = 0;  // the candidate's pitch in coarse px
};

// Measures the tile-side profiles of `view` on a top view at RescaleOptions::work_px_per_mm; none
// when the view is too small, too large, or shows too little board.
std::optional<SideProfiles> side_profiles(const cv::Mat& image, const LatticeView& view, const RescaleOptions& o) {
    if (image.empty() || view.not_table.empty() || view.cols < 3 || view.rows < 3) return std::nullopt;
    // A coarse top view (tile sides are long straight lines, found as well at about 1 px/mm).
    SideProfiles out;
    out.k = std::min(1.0, o.work_px_per_mm / view.px_per_mm);
    out.pitch = view.pitch_px * out.k;
    const cv::Size size(static_cast<int>(std::ceil(view.cols * out.pitch)), static_cast<int>(std::ceil(view.rows * out.pitch)));
    if (size.width < 16 || size.height < 16 || size.area() > 16'000'000) return std::nullopt;
    const cv::Matx33d to_coarse = cv::Matx33d(out.k, 0, 0, 0, out.k, 0, 0, 0, 1) * view.image_to_top;
    cv::Mat top, seen;
    cv::warpPerspective(image, top, to_coarse, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    cv::warpPerspective(cv::Mat(image.size(), CV_8UC1, cv::Scalar(255)), seen, to_coarse, size, cv::INTER_NEAREST, cv::BORDER_CONSTANT,
                        cv::Scalar(0));
    // Where the tile sides are read: the board's colours, grown by a quarter tile (its rim
    // tiles' outer sides lie on the mask's edge), inside the frame (the frame's edge is no side).
    cv::Mat board;
    cv::resize(view.not_table, board, size, 0, 0, cv::INTER_NEAREST);
    const int grow = std::max(3, static_cast<int>(std::lround(out.pitch / 2))) | 1;
    cv::dilate(board, board, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(grow, grow)));
    cv::erode(seen, seen, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    board &= seen;
    if (cv::countNonZero(board) < 9 * out.pitch * out.pitch) return std::nullopt;  // a board spans a few tiles at least
    cv::Mat grey, gx, gy;
    cv::cvtColor(top, grey, cv::COLOR_BGR2GRAY);
    grey.convertTo(grey, CV_32F);
    cv::GaussianBlur(grey, grey, cv::Size(), 1.0);
    cv::Sobel(grey, gx, CV_32F, 1, 0, 3);
    cv::Sobel(grey, gy, CV_32F, 0, 1, 3);
    gx = cv::abs(gx), gy = cv::abs(gy);
    out.x = masked_profile(gx, board, true);
    out.y = masked_profile(gy, board, false);
    return out;
}

// `view` with the pitch and phase of each axis taken (`take_x`, `take_y`) set to its fold's period
// and tile-side phase (coarse px; an axis not taken stays), its table mask (and top view, when it
// has one) warped again.
LatticeView with_periods(const cv::Mat& image, const LatticeView& view, const SideProfiles& sp, const AxisFold& fx, bool take_x, const AxisFold& fy,
                         bool take_y) {
    auto axis = [&](const AxisFold& f, bool take, int cells, double& scale, double& offset, int& count) {
        scale = 1, offset = 0, count = cells;
        if (!take) return;  // this axis stays as it was
        scale = sp.pitch / f.period;
        const double side = f.phase / sp.k;  // full-scale top px of one tile side line
        // x' = (x - side) * scale + m * pitch_px: the side on a cell boundary, every old cell at x' >= 0.
        const double m = std::ceil(side * scale / view.pitch_px);
        offset = -side * scale + m * view.pitch_px;
        count = std::max(1, static_cast<int>(std::ceil((cells * view.pitch_px * scale + offset) / view.pitch_px)));
    };
    double sx = 1, ox = 0, sy = 1, oy = 0;
    int cols = view.cols, rows = view.rows;
    axis(fx, take_x, view.cols, sx, ox, cols);
    axis(fy, take_y, view.rows, sy, oy, rows);
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

}  // namespace

Status SubdivideOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("subdivide options", what)); };
    if (!(min_share > 0.1 && min_share < max_share)) return bad("min_share must be within (0.1, max_share)");
    if (!(max_share < 1)) return bad("max_share must be below 1");
    if (!(own_reach >= 0 && own_reach < 0.2)) return bad("own_reach must be within [0, 0.2)");
    if (!(min_ratio > 0)) return bad("min_ratio must be positive");
    if (!(min_fold >= 1)) return bad("min_fold must be at least 1");
    if (!(work_px_per_mm >= 0.25 && work_px_per_mm <= 10)) return bad("work_px_per_mm must be within [0.25, 10]");
    if (!(max_tiles_share > 0)) return bad("max_tiles_share must be positive");
    if (!(min_covered_share >= 0 && min_covered_share <= 1)) return bad("min_covered_share must be within [0, 1]");
    if (!(min_precheck_covered_share >= 0 && min_precheck_covered_share <= min_covered_share)) return bad("min_precheck_covered_share must be within [0, min_covered_share]");
    return Ok{};
}

Status CoarsenOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("coarsen options", what)); };
    if (!(min_held_share >= 0 && min_held_share <= 1)) return bad("min_held_share must be within [0, 1]");
    if (!(min_cells_share >= 0 && min_cells_share <= 1)) return bad("min_cells_share must be within [0, 1]");
    if (!(min_featured_gain >= 0)) return bad("min_featured_gain must not be negative");
    if (!(min_tile_contrast >= 1)) return bad("min_tile_contrast must be at least 1");
    return Ok{};
}

std::vector<LatticeView> coarsened_lattices(const LatticeView& view) {
    std::vector<LatticeView> out;
    if (view.not_table.empty() || view.cols < 2 || view.rows < 2) return out;
    for (const bool across_columns : {true, false}) {
        for (const int phase : {0, 1}) {
            // x' = (x + phase * pitch) / 2 along the merged axis: old cell boundaries 2k - phase fall on new ones.
            const double shift = 0.5 * phase * view.pitch_px;
            const cv::Matx33d move = across_columns ? cv::Matx33d(0.5, 0, shift, 0, 1, 0, 0, 0, 1) : cv::Matx33d(1, 0, 0, 0, 0.5, shift, 0, 0, 1);
            LatticeView v = view;
            v.image_to_top = move * view.image_to_top;
            (across_columns ? v.cols : v.rows) = ((across_columns ? view.cols : view.rows) + phase + 1) / 2;
            v.strong = false;  // not the fold's own choice
            v.top.release();   // warped by its check
            v.top_near_cells = false;
            const cv::Size full(static_cast<int>(std::ceil(v.cols * v.pitch_px)), static_cast<int>(std::ceil(v.rows * v.pitch_px)));
            cv::Mat mask;
            cv::warpPerspective(view.not_table, mask, move, full, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
            v.not_table = mask;
            out.push_back(std::move(v));
        }
    }
    return out;
}

std::optional<LatticeView> rescaled_to_tiles(const cv::Mat& image, const LatticeView& view, const RescaleOptions& o) {
    if (!o.enabled || !o.check()) return std::nullopt;
    const auto sp = side_profiles(image, view, o);
    if (!sp) return std::nullopt;
    const double lo = sp->pitch * (1 - o.max_change), hi = sp->pitch * (1 + o.max_change);
    const AxisFold fx = sharpest_fold(sp->x, lo, hi, 0.05);
    const AxisFold fy = sharpest_fold(sp->y, lo, hi, 0.05);
    // Per axis: the scale (new px per old px) and where the old view's tile sides are.
    auto change = [&](const AxisFold& f) { return f.score >= o.min_fold ? std::abs(f.period / sp->pitch - 1) : 0.0; };
    if (change(fx) < o.min_change && change(fy) < o.min_change) return std::nullopt;
    return with_periods(image, view, *sp, fx, change(fx) >= o.min_change, fy, change(fy) >= o.min_change);
}

std::vector<LatticeView> subdivided_to_tiles(const cv::Mat& image, const LatticeView& view, const SubdivideOptions& o) {
    if (!o.enabled || !o.check()) return {};
    RescaleOptions coarse;
    coarse.work_px_per_mm = o.work_px_per_mm;
    const auto sp = side_profiles(image, view, coarse);
    if (!sp) return {};
    // Folding at a multiple of the tiles' period is as sharp as at the period itself: a lattice at
    // twice (or 1.5 times) the tiles' pitch folds its inner tile sides into other phases, and the
    // tiles' own period gathers them all. (On the true lattice a finer period gathers the tiles'
    // middles, roads and walls, with its sides: folding 0.55-0.95 times as sharply.)
    const double own_lo = sp->pitch * (1 - o.own_reach), own_hi = sp->pitch * (1 + o.own_reach);
    const double lo = std::max(3.0, sp->pitch * o.min_share), hi = sp->pitch * o.max_share;
    const AxisFold ox = sharpest_fold(sp->x, own_lo, own_hi, 0.05), oy = sharpest_fold(sp->y, own_lo, own_hi, 0.05);
    const AxisFold fx = sharpest_fold(sp->x, lo, hi, 0.05), fy = sharpest_fold(sp->y, lo, hi, 0.05);
    const bool take_x = fx.score >= o.min_fold && fx.score >= o.min_ratio * ox.score;
    const bool take_y = fy.score >= o.min_fold && fy.score >= o.min_ratio * oy.score;
    LatticeView bare = view;  // the variants' top views are left to their check
    bare.top.release();
    std::vector<LatticeView> out;
    if (take_x && take_y) out.push_back(with_periods(image, bare, *sp, fx, true, fy, true));
    if (take_x) out.push_back(with_periods(image, bare, *sp, fx, true, fy, false));
    if (take_y) out.push_back(with_periods(image, bare, *sp, fx, false, fy, true));
    return out;
}

}  // namespace meeplecam::vision
