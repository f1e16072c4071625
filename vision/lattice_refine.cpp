// Stage 2b of the board reader: the lattice refitted to where the tiles really are.
//
// The lattice of stage 1 comes from line families and periodic gaps over the whole board;
// its pitch and horizon are a little off on large or steep boards, so cells drift from the
// tiles across the board. Here every occupied cell looks for the square outline of its
// tile near the cell (edge response along the four sides), a homography is refitted from
// the tile centres found (RANSAC), the top view is warped again, and each cell keeps its
// tile's residual offset (real tiles sit off-grid). Cells without a square outline on all
// four sides (table patterns next to the board) are dropped.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include <opencv2/calib3d.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"
#include "vision/homography.h"

namespace meeplecam::vision {
namespace {

// The rows and columns of a top view (px from its corner) that outline reads will touch:
// `rows[y]` set where a square's N or S side may lie, `cols[x]` where a W or E side may
// (mark_outline_search). Empty vectors: every line.
struct ReadLines {
    std::vector<char> rows, cols;
};

// The lines of `marked` (top view px) within [origin, origin + n), as px from `origin`: all of
// them for no marks.
std::vector<int> read_lines(const std::vector<char>* marked, int origin, int n) {
    std::vector<int> out;
    out.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const int at = origin + i;
        if (!marked || marked->empty() || (at >= 0 && at < static_cast<int>(marked->size()) && (*marked)[static_cast<std::size_t>(at)])) out.push_back(i);
    }
    return out;
}

// The same as runs [begin, end) of consecutive lines.
std::vector<std::pair<int, int>> read_spans(const std::vector<char>* marked, int origin, int n) {
    std::vector<std::pair<int, int>> spans;
    for (const int i : read_lines(marked, origin, n)) {
        if (!spans.empty() && spans.back().second == i) {
            ++spans.back().second;
        } else {
            spans.emplace_back(i, i + 1);
        }
    }
    return spans;
}

// Takes |g| and caps it at its `quantile` (1: leaves `g` as it is; its readers take |g|).
void cap_at_quantile(cv::Mat& g, double quantile) {
    if (quantile >= 1 || g.empty()) return;
    g = cv::abs(g);
    std::vector<float> values(g.begin<float>(), g.end<float>());
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(quantile * static_cast<double>(values.size() - 1));
    std::nth_element(values.begin(), at, values.end());
    cv::min(g, *at, g);
}

// Edge responses of a top view, summed along lines: `down[x](y)` integrates |d/dx| down
// column x (vertical tile sides), `across[y](x)` integrates |d/dy| along row y.
// Measured only within `roi` (top view px; empty: the whole view): a read that stays a few px
// inside it (the blur's and Sobel's reach) sees what the whole view's response would.
// With `read` (ReadLines), only the rows and columns its reads will touch are integrated: every
// other line's sums are left unset, and each line's sums are the same doubles as without it.
struct SideResponse {
    cv::Mat down, across;  // CV_64F, one extra row / column (integrals)
    cv::Point origin{0, 0};  // the roi's corner in the top view

    // `cap_quantile` below 1: each axis' |gradient| capped at that quantile of its own over the roi
    // (then every line is integrated: the quantile is the whole roi's, whatever `read` says).
    explicit SideResponse(const cv::Mat& top, double blur = 1.0, cv::Rect roi = {}, const ReadLines* read = nullptr, double cap_quantile = 1.0) {
        if (cap_quantile < 1) read = nullptr;
        if (roi.area() <= 0) roi = cv::Rect(0, 0, top.cols, top.rows);
        origin = roi.tl();
        cv::Mat grey, gx, gy;
        cv::cvtColor(top(roi), grey, cv::COLOR_BGR2GRAY);
        grey.convertTo(grey, CV_32F);
        if (blur > 0) cv::GaussianBlur(grey, grey, cv::Size(), blur);
        // Only the integrals' first row / column need zeros; |gradient| is taken on the fly
        // (no temporaries: these images are a few MB each and the reader makes several per frame).
        down.create(grey.rows + 1, grey.cols, CV_64F);
        across.create(grey.rows, grey.cols + 1, CV_64F);
        const auto column_spans = read_spans(read ? &read->cols : nullptr, roi.x, grey.cols);
        const auto rows = read_lines(read ? &read->rows : nullptr, roi.y, grey.rows);
        // The two directions are independent: one per core.
        cv::parallel_for_(cv::Range(0, 2), [&](const cv::Range& which) {
            for (int dir = which.start; dir < which.end; ++dir) {
                if (dir == 0) {
                    cv::Sobel(grey, gx, CV_32F, 1, 0, 3);
                    cap_at_quantile(gx, cap_quantile);
                    integrate_down(gx, column_spans);
                } else {
                    sobel_rows(grey, gy, rows);
                    cap_at_quantile(gy, cap_quantile);
                    integrate_across(gy, rows);
                }
            }
        });
    }
    // The vertical Sobel of `grey` on `rows` (px of the roi; all of them: the whole image):
    // each run of rows filtered as a part of `grey`, whose rows beyond it it reads as the whole
    // image's filter does (the same floats; other rows unset).
    static void sobel_rows(const cv::Mat& grey, cv::Mat& gy, const std::vector<int>& rows) {
        if (static_cast<int>(rows.size()) == grey.rows) {
            cv::Sobel(grey, gy, CV_32F, 0, 1, 3);
            return;
        }
        gy.create(grey.size(), CV_32F);
        for (std::size_t i = 0; i < rows.size();) {
            std::size_t j = i + 1;
            while (j < rows.size() && rows[j] == rows[j - 1] + 1) ++j;
            cv::Mat run = gy.rowRange(rows[i], rows[j - 1] + 1);
            cv::Sobel(grey.rowRange(rows[i], rows[j - 1] + 1), run, CV_32F, 0, 1, 3);
            i = j;
        }
    }
    // Sums |gx| down each column of `spans` ([begin, end) px of the roi) into `down`.
    void integrate_down(const cv::Mat& gx, const std::vector<std::pair<int, int>>& spans) {
        for (const auto& [x0, x1] : spans) std::fill(down.ptr<double>(0) + x0, down.ptr<double>(0) + x1, 0.0);
        for (int y = 0; y < gx.rows; ++y) {
            const auto* px = gx.ptr<float>(y);
            const auto* up = down.ptr<double>(y);
            auto* d = down.ptr<double>(y + 1);
            for (const auto& [x0, x1] : spans) {
                for (int x = x0; x < x1; ++x) d[x] = up[x] + std::abs(px[x]);
            }
        }
    }
    // Sums |gy| along each of `rows` (px of the roi) into `across`.
    void integrate_across(const cv::Mat& gy, const std::vector<int>& rows) {
        // Each row's running sum is one chain of dependent additions: eight rows at a
        // time keep the core busy (each row's sums in the same order as alone).
        constexpr int kRows = 8;
        const int cols = gy.cols;
        std::size_t i = 0;
        for (; i + kRows <= rows.size(); i += kRows) {
            const float* py[kRows];
            double* a[kRows];
            double s[kRows];
            for (int r = 0; r < kRows; ++r) {
                const int y = rows[i + static_cast<std::size_t>(r)];
                py[r] = gy.ptr<float>(y), a[r] = across.ptr<double>(y), s[r] = 0, a[r][0] = 0;
            }
            for (int x = 0; x < cols; ++x) {
                for (int r = 0; r < kRows; ++r) {
                    s[r] += std::abs(py[r][x]);
                    a[r][x + 1] = s[r];
                }
            }
        }
        for (; i < rows.size(); ++i) {
            const auto* py = gy.ptr<float>(rows[i]);
            auto* a = across.ptr<double>(rows[i]);
            a[0] = 0;
            for (int x = 0; x < cols; ++x) a[x + 1] = a[x] + std::abs(py[x]);
        }
    }
    int cols() const { return across.cols - 1; }
    int rows() const { return down.rows - 1; }
    // Mean |d/dx| on column x between rows y0 and y1 (clamped; top view px).
    double column(int x, int y0, int y1) const {
        x -= origin.x, y0 -= origin.y, y1 -= origin.y;
        if (x < 0 || x >= cols()) return 0;
        y0 = std::clamp(y0, 0, rows()), y1 = std::clamp(y1, 0, rows());
        return y1 > y0 ? (down.at<double>(y1, x) - down.at<double>(y0, x)) / (y1 - y0) : 0;
    }
    double row(int y, int x0, int x1) const {
        y -= origin.y, x0 -= origin.x, x1 -= origin.x;
        if (y < 0 || y >= rows()) return 0;
        x0 = std::clamp(x0, 0, cols()), x1 = std::clamp(x1, 0, cols());
        return x1 > x0 ? (across.at<double>(y, x1) - across.at<double>(y, x0)) / (x1 - x0) : 0;
    }
};

struct Outline {
    cv::Point2d centre;  // top view px
    double weakest = 0;  // the weakest side's mean edge response
    double total = 0;
};

// Which sides of a square count (N, E, S, W): all, unless the photo's edge cuts it.
using CountedSides = std::array<bool, 4>;
constexpr CountedSides kAllSides{true, true, true, true};

// The sides (N, E, S, W) of the square of half side `half` centred at `centre` (top-view px)
// that the photo shows: at least three quarters of the points along each (its corners left out,
// as outline_at does), moved `out` px beyond it (the search's reach and band), seen
// (LatticeView::seen). A side on or beyond the photo's edge is none: the edge's own step from
// the art to black would frame anything there.
CountedSides seen_sides(const LatticeView& view, const cv::Point2d& centre, double half, double out) {
    constexpr int kPoints = 8;
    constexpr double kSeenSideShare = 0.75;
    const std::array<cv::Point2d, 4> normal{cv::Point2d(0, -1), cv::Point2d(1, 0), cv::Point2d(0, 1), cv::Point2d(-1, 0)};
    CountedSides counted{};
    for (std::size_t s = 0; s < 4; ++s) {
        const cv::Point2d along(-normal[s].y, normal[s].x);
        int seen = 0;
        for (int i = 0; i < kPoints; ++i) {
            const double t = (-0.75 + 1.5 * (i + 0.5) / kPoints) * half;  // the middle three quarters
            const cv::Point2d q = centre + normal[s] * (half + out) + along * t;
            seen += view.seen(q.x / view.pitch_px, q.y / view.pitch_px);
        }
        counted[s] = seen >= kSeenSideShare * kPoints;
    }
    return counted;
}

// The square outline of side `side` at top-left corner (x0, y0): its four side responses, the
// total and weakest over the `counted` sides.
Outline outline_at(const SideResponse& r, int x0, int y0, double side, int band, const CountedSides& counted = kAllSides) {
    const int s = static_cast<int>(std::lround(side)), t = s;
    const int trim_x = s / 8, trim_y = t / 8;  // leave the corners out: neighbours' sides meet there
    double side_score[4] = {0, 0, 0, 0};  // N, E, S, W
    for (int b = -band / 2; b <= band / 2; ++b) {
        side_score[0] = std::max(side_score[0], r.row(y0 + b, x0 + trim_x, x0 + s - trim_x));
        side_score[2] = std::max(side_score[2], r.row(y0 + t + b, x0 + trim_x, x0 + s - trim_x));
        side_score[3] = std::max(side_score[3], r.column(x0 + b, y0 + trim_y, y0 + t - trim_y));
        side_score[1] = std::max(side_score[1], r.column(x0 + s + b, y0 + trim_y, y0 + t - trim_y));
    }
    Outline o;
    if (counted == kAllSides) {
        o.total = side_score[0] + side_score[1] + side_score[2] + side_score[3];
        o.weakest = *std::min_element(side_score, side_score + 4);
    } else {
        o.weakest = std::numeric_limits<double>::max();
        for (int k = 0; k < 4; ++k) {
            if (counted[static_cast<std::size_t>(k)]) o.total += side_score[k], o.weakest = std::min(o.weakest, side_score[k]);
        }
        if (o.weakest == std::numeric_limits<double>::max()) o.weakest = 0;
    }
    o.centre = {x0 + s / 2.0, y0 + t / 2.0};
    return o;
}

// The step (px) of find_outline's coarse search for a square of side `side`: about 1.5 mm, as
// wide as an outline's edge peak (mark_outline_search marks the lines it reaches).
int coarse_outline_step(double side) { return std::max(1, static_cast<int>(side / 30)); }

// The best square outline of side `side` whose centre lies within `reach` of `expected`:
// a coarse search every coarse_outline_step px, then every px around the best.
Outline find_outline(const SideResponse& r, cv::Point2d expected, double side, int reach, int band, const CountedSides& counted = kAllSides) {
    const int kCoarseStep = coarse_outline_step(side);
    const int x00 = static_cast<int>(std::lround(expected.x - side / 2)), y00 = static_cast<int>(std::lround(expected.y - side / 2));
    Outline best;
    best.total = -1;
    int bx = 0, by = 0;
    for (int dy = -reach; dy <= reach; dy += kCoarseStep) {
        for (int dx = -reach; dx <= reach; dx += kCoarseStep) {
            const Outline o = outline_at(r, x00 + dx, y00 + dy, side, band, counted);
            if (o.total > best.total) best = o, bx = dx, by = dy;
        }
    }
    const int cx = bx, cy = by;
    for (int dy = cy - kCoarseStep + 1; dy < cy + kCoarseStep; ++dy) {
        for (int dx = cx - kCoarseStep + 1; dx < cx + kCoarseStep; ++dx) {
            const Outline o = outline_at(r, x00 + dx, y00 + dy, side, band, counted);
            if (o.total > best.total) best = o;
        }
    }
    return best;
}

// Marks in `lines` (sized to the top view) every row and column that find_outline(r, expected,
// side, reach, band) may read, with a px of slack: its coarse and fine steps stay within
// reach + step of the first corner, its bands within band / 2 of each side.
void mark_outline_search(ReadLines& lines, cv::Point2d expected, double side, int reach, int band) {
    const int step = coarse_outline_step(side);
    const int s = static_cast<int>(std::lround(side));
    const int x00 = static_cast<int>(std::lround(expected.x - side / 2)), y00 = static_cast<int>(std::lround(expected.y - side / 2));
    const int spread = reach + step + band / 2 + 1;
    auto mark = [&](std::vector<char>& marks, int first) {
        for (const int at : {first, first + s}) {
            const int from = std::max(0, at - spread), to = std::min(static_cast<int>(marks.size()) - 1, at + spread);
            for (int i = from; i <= to; ++i) marks[static_cast<std::size_t>(i)] = 1;
        }
    };
    mark(lines.rows, y00);
    mark(lines.cols, x00);
}

// The lines find_outline reads for each of `cells` on `view` (cell centres, no offsets).
ReadLines outline_search_lines(const LatticeView& view, cv::Size top_size, const std::vector<CellObservation>& cells, double side, int reach, int band) {
    ReadLines lines;
    lines.rows.assign(static_cast<std::size_t>(top_size.height), 0);
    lines.cols.assign(static_cast<std::size_t>(top_size.width), 0);
    for (const auto& c : cells) mark_outline_search(lines, view.cell_centre(c.col, c.row), side, reach, band);
    return lines;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// The cells' squares (pitch `pitch`) grown by `margin` px on every side, within `size`; empty
// for no cells.
cv::Rect around_cells(const std::vector<CellObservation>& cells, double pitch, double margin, cv::Size size) {
    if (cells.empty()) return {};
    int c0 = cells.front().col, c1 = c0, r0 = cells.front().row, r1 = r0;
    for (const auto& c : cells) c0 = std::min(c0, c.col), c1 = std::max(c1, c.col), r0 = std::min(r0, c.row), r1 = std::max(r1, c.row);
    const int x0 = static_cast<int>(std::floor(c0 * pitch - margin)), y0 = static_cast<int>(std::floor(r0 * pitch - margin));
    const int x1 = static_cast<int>(std::ceil((c1 + 1) * pitch + margin)), y1 = static_cast<int>(std::ceil((r1 + 1) * pitch + margin));
    return cv::Rect(cv::Point(x0, y0), cv::Point(x1, y1)) & cv::Rect(0, 0, size.width, size.height);
}

// The least share of a top view worth leaving out of a warp (the black image beyond is not free).
constexpr double kMinSkippedShare = 0.25;

// The region warp_within warps for `roi`: the whole view for an empty roi or one that leaves
// out less than kMinSkippedShare of it.
cv::Rect warped_region(cv::Rect roi, cv::Size size) {
    const cv::Rect whole(cv::Point(0, 0), size);
    return roi.area() <= 0 || roi.area() > (1 - kMinSkippedShare) * whole.area() ? whole : roi & whole;
}

// The top view of `size` warped from `image` only within `roi` (warped_region; black
// elsewhere), into a new image (views copied from this one keep theirs).
cv::Mat warp_within(const cv::Mat& image, const cv::Matx33d& image_to_top, cv::Size size, cv::Rect roi) {
    cv::Mat top;
    roi = warped_region(roi, size);
    if (roi.size() == size) {
        cv::warpPerspective(image, top, image_to_top, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
        return top;
    }
    // Black only outside the roi: the warp writes every pixel inside it.
    top.create(size, image.type());
    top(cv::Rect(0, 0, size.width, roi.y)).setTo(cv::Scalar::all(0));
    top(cv::Rect(0, roi.br().y, size.width, size.height - roi.br().y)).setTo(cv::Scalar::all(0));
    top(cv::Rect(0, roi.y, roi.x, roi.height)).setTo(cv::Scalar::all(0));
    top(cv::Rect(roi.br().x, roi.y, size.width - roi.br().x, roi.height)).setTo(cv::Scalar::all(0));
    cv::Mat inside = top(roi);
    const cv::Matx33d to_roi(1, 0, -roi.x, 0, 1, -roi.y, 0, 0, 1);
    cv::warpPerspective(image, inside, to_roi * image_to_top, roi.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    return top;
}

// The px around a cell's square that find_outline reads within `reach` (its band, the blur's
// and Sobel's reach, and slack).
int outline_margin(int reach, int band) { return reach + band + 8; }

// The px around the tiles' squares that the checks after the refit read (tile_contrast's and
// cell_alignment's squares half a pitch away, tile offsets included): a pitch and the refit's
// search.
int near_cells_margin(const LatticeView& view, const RefineOptions& o) {
    return static_cast<int>(std::ceil(view.pitch_px)) + outline_margin(std::max(1, static_cast<int>(std::lround(o.search * view.pitch_px))), o.band_px);
}

}  // namespace

Status RefineOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("refine options", what)); };
    if (!(search > 0 && search < 0.5)) return bad("search must be within (0, 0.5)");
    if (band_px < 1 || band_px > 9) return bad("band_px must be within [1, 9]");
    if (!(min_side_share >= 0 && min_side_share < 1)) return bad("min_side_share must be within [0, 1)");
    if (rounds < 0 || rounds > 6) return bad("rounds must be within [0, 6]");
    if (slower_rounds < 0 || slower_rounds > 4) return bad("slower_rounds must be within [0, 4]");
    if (first_radius < 1) return bad("first_radius must be at least 1");
    if (!(max_residual > 0 && max_residual < 0.5)) return bad("max_residual must be within (0, 0.5)");
    if (!(min_inlier_share > 0 && min_inlier_share <= 1)) return bad("min_inlier_share must be within (0, 1]");
    if (!(candidate_share > 0 && candidate_share < 1)) return bad("candidate_share must be within (0, 1)");
    if (!(weak_colour_factor >= 1)) return bad("weak_colour_factor must be at least 1");
    if (!(work_px_per_mm >= 0.25 && work_px_per_mm <= 10)) return bad("work_px_per_mm must be within [0.25, 10]");
    if (!(gradient_cap_quantile > 0.5 && gradient_cap_quantile <= 1)) return bad("gradient_cap_quantile must be within (0.5, 1]");
    return Ok{};
}

void shift_lattice(const cv::Mat& image, LatticeView& view, cv::Point2d shift) {
    const cv::Matx33d move(1, 0, -shift.x, 0, 1, -shift.y, 0, 0, 1);
    view.image_to_top = move * view.image_to_top;
    if (!view.top.empty()) cv::warpPerspective(image, view.top, view.image_to_top, view.top.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    view.top_near_cells = false;
    cv::Mat mask;
    cv::warpPerspective(view.not_table, mask, move, view.not_table.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
    view.not_table = mask;
}

void widen_view(const cv::Mat& image, LatticeView& view, const ViewMargin& margin) {
    if (margin.empty()) return;
    const cv::Matx33d move(1, 0, margin.left * view.pitch_px, 0, 1, margin.top * view.pitch_px, 0, 0, 1);
    view.image_to_top = move * view.image_to_top;
    view.cols += margin.left + margin.right;
    view.rows += margin.top + margin.bottom;
    const cv::Size size(static_cast<int>(std::ceil(view.cols * view.pitch_px)), static_cast<int>(std::ceil(view.rows * view.pitch_px)));
    // The mask as it was where the view was (the refit warped it along), from its source beyond.
    cv::Mat mask;
    if (!view.not_table.empty()) {
        const cv::Rect was(cv::Point(static_cast<int>(std::lround(margin.left * view.pitch_px)), static_cast<int>(std::lround(margin.top * view.pitch_px))),
                           view.not_table.size());
        cv::warpPerspective(view.not_table, mask, move, size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
        if (view.table_mask_source) {
            const auto& s = *view.table_mask_source;
            cv::Mat beyond, outside(size, CV_8UC1, cv::Scalar(255));
            cv::warpPerspective(s.source, beyond, view.image_to_top * s.to_frame, size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
            outside(was & cv::Rect(cv::Point(0, 0), size)).setTo(0);
            beyond.copyTo(mask, outside);
        }
    }
    view.not_table = mask;
    if (!view.top.empty()) {
        cv::Mat top;  // a new image: views copied from this one keep theirs
        cv::warpPerspective(image, top, view.image_to_top, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
        view.top = top;
    }
    view.top_near_cells = false;
}

namespace {

// The refit rounds, on a view of `image` (both at the working resolution; its top view is
// warped each round around the cells measured, and is left as the last round's).
void refit_on(const cv::Mat& image, LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& lo, const RefineOptions& o,
              int band) {
    const double side = lo.tile_mm * view.px_per_mm;  // the tile square (the pitch minus the gap)
    const int reach = std::max(1, static_cast<int>(std::lround(o.search * view.pitch_px)));
    const cv::Size top_size = view.not_table.size();
    // Grow the fit from the board's middle: a lattice a few percent off in pitch drifts by a
    // whole cell across a big board, but hardly within a few cells of where it is fitted.
    // A round whose tiles disagree (the plane's horizon a little off: cells a few away from the
    // last fit drift past max_residual) is tried again on the cells halfway out, at most
    // slower_rounds times.
    std::vector<int> radii;
    for (int round = 0; round < o.rounds; ++round) radii.push_back(round == o.rounds - 1 ? 1 << 20 : o.first_radius << round);
    int fitted = 0, slowed = 0;  // the radius last fitted (0: none yet); rounds inserted
    for (std::size_t round = 0; round < radii.size() && cells.size() >= 6; ++round) {
        if (round > 0) cells = occupied_cells(view, lo);
        if (cells.size() < 6) break;
        std::vector<int> cs, rs;
        for (const auto& c : cells) cs.push_back(c.col), rs.push_back(c.row);
        std::nth_element(cs.begin(), cs.begin() + static_cast<std::ptrdiff_t>(cs.size() / 2), cs.end());
        std::nth_element(rs.begin(), rs.begin() + static_cast<std::ptrdiff_t>(rs.size() / 2), rs.end());
        const int mc = cs[cs.size() / 2], mr = rs[rs.size() / 2];
        const int radius = radii[round];
        std::vector<CellObservation> near;
        int farthest = 0;  // the farthest cell measured this round
        for (const auto& c : cells) {
            const int d = std::max(std::abs(c.col - mc), std::abs(c.row - mr));
            if (d <= radius) near.push_back(c), farthest = std::max(farthest, d);
        }
        if (near.size() < 6) continue;
        // Warped (again) only around the cells measured: most of a lattice's rectangle is table.
        const cv::Rect roi = around_cells(near, view.pitch_px, outline_margin(reach, band), top_size);
        view.top = warp_within(image, view.image_to_top, top_size, roi);
        const ReadLines read = o.integrate_read_lines_only ? outline_search_lines(view, top_size, near, side, reach, band) : ReadLines{};
        const SideResponse response(view.top, std::max(0.0, view.px_per_mm - 1.0), roi, &read, o.gradient_cap_quantile);  // a shrunk frame is smooth already
        const cv::Matx33d top_to_image = view.image_to_top.inv();
        std::vector<cv::Point2f> src(near.size()), dst(near.size());
        cv::parallel_for_(cv::Range(0, static_cast<int>(near.size())), [&](const cv::Range& range) {
            for (int i = range.start; i < range.end; ++i) {
                const auto& c = near[static_cast<std::size_t>(i)];
                const Outline f = find_outline(response, view.cell_centre(c.col, c.row), side, reach, band);
                src[static_cast<std::size_t>(i)] = apply_homography(top_to_image, f.centre);
                dst[static_cast<std::size_t>(i)] = view.cell_centre(c.col, c.row);
            }
        });
        cv::Mat inliers;
        const cv::Mat h = cv::findHomography(src, dst, cv::RANSAC, o.max_residual * view.pitch_px, inliers);
        // Most tiles must agree: a lattice misread from table lines is not "refined" into another.
        if (h.empty() || cv::countNonZero(inliers) < o.min_inlier_share * static_cast<double>(near.size())) {
            const int halfway = (fitted + farthest) / 2;
            if (fitted == 0 || slowed >= o.slower_rounds || halfway <= fitted) break;
            radii.insert(radii.begin() + static_cast<std::ptrdiff_t>(round), halfway);
            ++slowed;
            --round;  // the same lattice, fitted on the cells halfway out first
            continue;
        }
        fitted = farthest;
        const cv::Matx33d image_to_top(h);
        const cv::Matx33d old_to_new = image_to_top * top_to_image;
        view.image_to_top = image_to_top;
        cv::Mat mask;
        cv::warpPerspective(view.not_table, mask, old_to_new, top_size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
        view.not_table = mask;
    }
}

// The cells a final (full-resolution) view measures: drifted cells were half on the table, so
// occupancy is read again (looser).
std::vector<CellObservation> candidate_cells(const LatticeView& view, const LatticeOptions& lo, const RefineOptions& o) {
    LatticeOptions loose = lo;
    loose.occupied_share = std::min(lo.occupied_share, o.candidate_share);
    return occupied_cells(view, loose);
}

// How far find_outline looks from a cell's centre on the final view.
int final_reach(const LatticeView& view, const RefineOptions& o) {
    const int reach = std::max(1, static_cast<int>(std::lround(o.search * view.pitch_px)));
    return o.rounds > 0 ? reach / 2 : reach;
}

// The candidate cells (candidate_cells) on the final (full-resolution) view, whose top view
// is warped at least within `roi`: each keeps its tile's residual offset, and cells with no
// square outline on a side are dropped.
void keep_tiles(LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& lo, const RefineOptions& o, cv::Rect roi) {
    const double side = lo.tile_mm * view.px_per_mm;
    std::vector<Outline> found;
    if (!cells.empty()) {
        const ReadLines read = o.integrate_read_lines_only ? outline_search_lines(view, view.top.size(), cells, side, final_reach(view, o), o.band_px)
                                                           : ReadLines{};
        const SideResponse response(view.top, 1.0, roi, &read);
        found.assign(cells.size(), Outline{});
        cv::parallel_for_(cv::Range(0, static_cast<int>(cells.size())), [&](const cv::Range& range) {
            for (int i = range.start; i < range.end; ++i) {
                const auto& c = cells[static_cast<std::size_t>(i)];
                found[static_cast<std::size_t>(i)] = find_outline(response, view.cell_centre(c.col, c.row), side, final_reach(view, o), o.band_px);
            }
        });
    }
    std::vector<double> weakest;
    for (const auto& f : found) weakest.push_back(f.weakest);
    const double floor = o.min_side_share * median_of(weakest);
    std::vector<CellObservation> kept;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        // A cell whose colours are half like the table (a city on wood) needs a clear outline.
        if (found[i].weakest < (cells[i].occupancy >= lo.occupied_share ? floor : floor * o.weak_colour_factor)) continue;
        auto c = cells[i];
        const cv::Point2d d = found[i].centre - view.cell_centre(c.col, c.row);
        c.offset_px = std::hypot(d.x, d.y) <= o.max_residual * view.pitch_px ? d : cv::Point2d(0, 0);
        kept.push_back(c);
    }
    cells = largest_group(std::move(kept));
}

}  // namespace

const cv::Mat& RefitFrame::shrunk(double k) const {
    if (k >= 1) return image_;
    if (k_ != k) {
        cv::resize(image_, shrunk_, cv::Size(), k, k, cv::INTER_AREA);
        k_ = k;
    }
    return shrunk_;
}

Status refine_lattice(const cv::Mat& image, LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& lo,
                      const RefineOptions& o) {
    return refine_lattice(RefitFrame(image), view, cells, lo, o);
}

Status refine_lattice(const RefitFrame& frame, LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& lo,
                      const RefineOptions& o) {
    if (auto st = o.check(); !st) return st;
    const cv::Mat& image = frame.image();
    const cv::Size top_size(static_cast<int>(std::ceil(view.cols * view.pitch_px)), static_cast<int>(std::ceil(view.rows * view.pitch_px)));
    if (!cells.empty() && !view.not_table.empty() && top_size.area() > 0) {
        // Work on a coarse copy: tile outlines are long straight lines, found as well at
        // work_px_per_mm, and each warp and edge image costs a quarter (at half the scale).
        const double k = std::min(1.0, o.work_px_per_mm / view.px_per_mm);
        const cv::Mat& small = frame.shrunk(k);
        const cv::Matx33d scale(k, 0, 0, 0, k, 0, 0, 0, 1), unscale(1 / k, 0, 0, 0, 1 / k, 0, 0, 0, 1);
        LatticeView coarse;
        coarse.px_per_mm = view.px_per_mm * k;
        coarse.pitch_px = view.pitch_px * k;
        coarse.cols = view.cols, coarse.rows = view.rows;
        coarse.image_to_top = scale * view.image_to_top * unscale;  // small frame px -> coarse top px
        const cv::Size coarse_size(static_cast<int>(std::ceil(coarse.cols * coarse.pitch_px)), static_cast<int>(std::ceil(coarse.rows * coarse.pitch_px)));
        cv::resize(view.not_table, coarse.not_table, coarse_size, 0, 0, cv::INTER_NEAREST);
        refit_on(small, coarse, cells, lo, o, std::max(1, static_cast<int>(std::lround(o.band_px * k))) | 1);
        view.image_to_top = unscale * coarse.image_to_top * scale;
        cv::resize(coarse.not_table, view.not_table, top_size, 0, 0, cv::INTER_NEAREST);
    }
    // The top view read by the later stages, sampled from the full-resolution frame: first
    // around the cells measured (most of the lattice's rectangle is table), all of it (or, with
    // warp_near_cells, within a pitch of the tiles) once the lattice is final.
    const auto whole_view = [&](const std::vector<CellObservation>& tiles) {
        return o.warp_near_cells ? around_cells(tiles, view.pitch_px, near_cells_margin(view, o), top_size) : cv::Rect(cv::Point(0, 0), top_size);
    };
    cv::Rect warped;  // the region of view.top warped with view.image_to_top
    const auto warp = [&](cv::Rect roi) {
        warped = warped_region(roi, top_size);
        view.top = warp_within(image, view.image_to_top, top_size, warped);
        view.top_near_cells = warped.size() != top_size;
    };
    if (cells.empty()) {
        warp({});
        return Ok{};
    }
    cells = candidate_cells(view, lo, o);
    const cv::Rect measured = around_cells(cells, view.pitch_px, outline_margin(final_reach(view, o), o.band_px), top_size);
    const bool refit_last = o.rounds > 0 && o.work_px_per_mm < view.px_per_mm;
    // Without a last fit this is the final view.
    warp(refit_last ? measured : whole_view(cells) | measured);
    keep_tiles(view, cells, lo, o, measured);
    bool final_view = !refit_last;
    if (refit_last && cells.size() >= 6) {
        // One last fit on the tile centres measured at full resolution (the coarse fit is
        // good to about a coarse pixel); each tile's offset moves with it.
        const cv::Matx33d top_to_image = view.image_to_top.inv();
        std::vector<cv::Point2f> src, dst;
        for (const auto& c : cells) {
            src.emplace_back(apply_homography(top_to_image, view.cell_centre(c.col, c.row) + c.offset_px));
            dst.emplace_back(view.cell_centre(c.col, c.row));
        }
        cv::Mat inliers;
        const cv::Mat h = cv::findHomography(src, dst, cv::RANSAC, o.max_residual * view.pitch_px, inliers);
        if (!h.empty() && cv::countNonZero(inliers) >= o.min_inlier_share * static_cast<double>(cells.size())) {
            const cv::Matx33d image_to_top(h);
            for (std::size_t i = 0; i < cells.size(); ++i) {
                const cv::Point2d d = apply_homography(image_to_top, src[i]) - view.cell_centre(cells[i].col, cells[i].row);
                cells[i].offset_px = std::hypot(d.x, d.y) <= o.max_residual * view.pitch_px ? d : cv::Point2d(0, 0);
            }
            cv::Mat mask;
            cv::warpPerspective(view.not_table, mask, image_to_top * top_to_image, top_size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
            view.not_table = mask;
            view.image_to_top = image_to_top;
            warp(whole_view(cells));
            final_view = true;
        }
    }
    // The same homography: warped again only where the final view needs more.
    if (const cv::Rect needed = warped_region(whole_view(cells) | measured, top_size); !final_view && (needed & warped) != needed) warp(needed);
    return Ok{};
}

namespace {

// The weakest side of a tile-sized square in the top view, measured at about 1 px/mm (a tile
// side is still ~45 px there, and the edge image costs a quarter), with small slack: the
// refit put the cells on the tiles already.
// Measured within a pitch of `cells` (what the squares half a pitch away reach).
class OutlineProbe {
public:
    OutlineProbe(const LatticeView& view, const LatticeOptions& lo, const std::vector<CellObservation>& cells)
        : k_(std::min(1.0, 1.0 / view.px_per_mm)), side_(lo.tile_mm * view.px_per_mm * k_), response_(scaled(view, cells, k_)) {}

    // Returns the weakest side's response of the square centred at `centre` (top-view px).
    double weakest_side(const cv::Point2d& centre) const { return find_outline(response_, centre * k_, side_, kReach, kBand).weakest; }
    // The same over the `counted` sides only.
    double weakest_side(const cv::Point2d& centre, const CountedSides& counted) const {
        return find_outline(response_, centre * k_, side_, kReach, kBand, counted).weakest;
    }
    // The sides of the square centred at `centre` (top-view px) that the photo shows (seen_sides).
    CountedSides seen_sides(const LatticeView& view, const cv::Point2d& centre) const { return vision::seen_sides(view, centre, side_ / k_ / 2, (kReach + kBand + 2) / k_); }

private:
    static constexpr int kReach = 2, kBand = 3;
    static SideResponse scaled(const LatticeView& view, const std::vector<CellObservation>& cells, double k) {
        const double margin = view.pitch_px + (kReach + kBand + 4) / k;
        const cv::Rect near = around_cells(cells, view.pitch_px, margin, view.top.size());
        if (k >= 1) return SideResponse(view.top, 0.0, near);
        cv::Mat small;
        cv::resize(view.top, small, cv::Size(), k, k, cv::INTER_AREA);
        const cv::Rect near_small = cv::Rect(cv::Point(static_cast<int>(std::floor(near.x * k)), static_cast<int>(std::floor(near.y * k))),
                                             cv::Point(static_cast<int>(std::ceil(near.br().x * k)), static_cast<int>(std::ceil(near.br().y * k)))) &
                                    cv::Rect(0, 0, small.cols, small.rows);
        return SideResponse(small, 0.0, near_small);
    }
    double k_, side_;
    SideResponse response_;
};

}  // namespace

TileContrast tile_contrast(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lo) {
    TileContrast out;
    if (cells.empty() || view.top.empty()) return out;
    const OutlineProbe probe(view, lo, cells);
    const double half = view.pitch_px / 2;
    const std::array<cv::Point2d, 4> shifts{cv::Point2d(0, 0), cv::Point2d(half, 0), cv::Point2d(0, half), cv::Point2d(half, half)};
    std::array<double, 4> medians{};
    for (std::size_t s = 0; s < shifts.size(); ++s) {
        std::vector<double> weakest;
        weakest.reserve(cells.size());
        for (const auto& c : cells) weakest.push_back(probe.weakest_side(view.cell_centre(c.col, c.row) + c.offset_px + shifts[s]));
        medians[s] = median_of(std::move(weakest));
    }
    out.sides = medians[0];
    const auto strongest = std::max_element(medians.begin() + 1, medians.end());
    out.shifted = *strongest;
    if (*strongest > out.sides) out.best_shift = shifts[static_cast<std::size_t>(strongest - medians.begin())];
    return out;
}

std::vector<double> cell_alignment(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lo) {
    std::vector<double> out(cells.size(), 0.0);
    if (cells.empty() || view.top.empty()) return out;
    // The same measure as tile_contrast, per cell: the cell's square against the squares half
    // a pitch away.
    const OutlineProbe probe(view, lo, cells);
    const double half = view.pitch_px / 2;
    const std::array<cv::Point2d, 3> shifts{cv::Point2d(half, 0), cv::Point2d(0, half), cv::Point2d(half, half)};
    const bool frame_known = view.frame.area() > 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const cv::Point2d centre = view.cell_centre(cells[i].col, cells[i].row) + cells[i].offset_px;
        if (const double seen = frame_known ? view.seen_share(cells[i].col, cells[i].row, cells[i].offset_px) : 1.0; seen > 0 && seen < 1) {
            // A cell the photo's edge cuts: each square measured on the sides the photo shows, the
            // cell's own on two at least; a square half a pitch away showing none is left out.
            const CountedSides own_sides = probe.seen_sides(view, centre);
            if (std::count(own_sides.begin(), own_sides.end(), true) < 2) continue;
            const double own = probe.weakest_side(centre, own_sides);
            double moved = 0;
            for (const auto& s : shifts) {
                const CountedSides sides = probe.seen_sides(view, centre + s);
                if (std::count(sides.begin(), sides.end(), true) > 0) moved = std::max(moved, probe.weakest_side(centre + s, sides));
            }
            out[i] = moved > 0 ? own / moved : 0;  // nothing to compare with: no evidence
            continue;
        }
        const double own = probe.weakest_side(centre);
        double moved = 0;
        for (const auto& s : shifts) moved = std::max(moved, probe.weakest_side(centre + s));
        out[i] = moved > 0 ? own / moved : (own > 0 ? 1e9 : 0);
    }
    return out;
}

std::vector<CellObservation> keep_board_colours(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lo) {
    constexpr double kSureTile = 1.5;   // a cell this aligned with the lattice is a tile (cell_alignment)...
    constexpr double kLikeTable = 1.1;  // ...below this it teaches the table's colours (a few tiles among them do not outvote it)
    constexpr int kSamples = 12;        // samples per cell side
    constexpr double kInset = 0.12;     // share of the pitch left out along each cell side
    constexpr int kL = 4, kAB = 16;     // Lab bins: coarse lightness (glare, shade), finer chroma
    constexpr std::size_t kMinSeeds = 8;
    if (cells.empty() || view.top.empty()) return cells;
    const auto aligned = cell_alignment(view, cells, lo);
    // Each cell's samples as colour bins.
    std::vector<std::vector<int>> bins(cells.size());
    {
        cv::Mat samples(static_cast<int>(cells.size()), kSamples * kSamples, CV_8UC3, cv::Scalar(0, 0, 0));
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const cv::Point2d origin = view.cell_centre(cells[i].col, cells[i].row) + cells[i].offset_px - cv::Point2d(view.pitch_px, view.pitch_px) * 0.5;
            auto* row = samples.ptr<cv::Vec3b>(static_cast<int>(i));
            for (int v = 0; v < kSamples; ++v) {
                for (int u = 0; u < kSamples; ++u) {
                    const double fx = kInset + (1 - 2 * kInset) * (u + 0.5) / kSamples, fy = kInset + (1 - 2 * kInset) * (v + 0.5) / kSamples;
                    const int x = std::clamp(static_cast<int>(origin.x + fx * view.pitch_px), 0, view.top.cols - 1);
                    const int y = std::clamp(static_cast<int>(origin.y + fy * view.pitch_px), 0, view.top.rows - 1);
                    row[v * kSamples + u] = view.top.at<cv::Vec3b>(y, x);
                }
            }
        }
        cv::cvtColor(samples, samples, cv::COLOR_BGR2Lab);
        for (std::size_t i = 0; i < cells.size(); ++i) {
            const auto* row = samples.ptr<cv::Vec3b>(static_cast<int>(i));
            for (int k = 0; k < kSamples * kSamples; ++k) bins[i].push_back((row[k][0] >> 6) * kAB * kAB + (row[k][1] >> 4) * kAB + (row[k][2] >> 4));
        }
    }
    // The cells teaching each side's colours: surely aligned ones the board's, unaligned the table's;
    // with too few sure ones (and lo.board_colour_seed_share), the most aligned share and those under the median.
    double tile_bound = kSureTile, table_bound = kLikeTable;
    if (lo.board_colour_seed_share > 0 &&
        static_cast<std::size_t>(std::count_if(aligned.begin(), aligned.end(), [&](double a) { return a >= kSureTile; })) < kMinSeeds) {
        std::vector<double> sorted = aligned;
        std::sort(sorted.begin(), sorted.end());
        const auto rank = [&](double share) { return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(share * static_cast<double>(sorted.size())))]; };
        tile_bound = std::max(1.0, rank(1 - lo.board_colour_seed_share));
        table_bound = std::min(kLikeTable, rank(0.5));
    }
    std::vector<double> tile(kL * kAB * kAB, 0.0), table(tile.size(), 0.0);
    std::size_t tiles_seen = 0, table_seen = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const bool sure_tile = aligned[i] >= tile_bound;
        if (!sure_tile && aligned[i] >= table_bound) continue;
        auto& h = sure_tile ? tile : table;
        (sure_tile ? tiles_seen : table_seen) += 1;
        for (const int b : bins[i]) h[static_cast<std::size_t>(b)] += 1;
    }
    if (tiles_seen < kMinSeeds || table_seen < kMinSeeds) return cells;
    const double nt = std::accumulate(tile.begin(), tile.end(), 0.0), nb = std::accumulate(table.begin(), table.end(), 0.0);
    std::vector<CellObservation> kept;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        double llr = 0;
        for (const int b : bins[i]) llr += std::log((tile[static_cast<std::size_t>(b)] + 0.5) / nt) - std::log((table[static_cast<std::size_t>(b)] + 0.5) / nb);
        if (llr > 0) kept.push_back(cells[i]);
    }
    return largest_group(std::move(kept));
}

}  // namespace meeplecam::vision
