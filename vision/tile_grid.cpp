#include "vision/tile_grid.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <opencv2/imgproc.hpp>

#include "vision/homography.h"

namespace meeplecam::vision {
namespace {


// Erodes a mask by `px` (Euclidean), treating everything outside the image as empty.
cv::Mat erode_from_outside(const cv::Mat& mask, int px) {
    if (px <= 0) return mask.clone();
    cv::Mat padded, distance;
    cv::copyMakeBorder(mask, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::distanceTransform(padded, distance, cv::DIST_L2, 3);
    return distance(cv::Rect(1, 1, mask.cols, mask.rows)) > px;
}

// Colour statistics over Lab bins: coarse lightness (8) x chroma (32 x 32). Lookups pool
// each lightness bin with two neighbours either side, so light gradients, vignetting and
// glare across a surface do not change what it looks like.
class ColourModel {
public:
    static constexpr int kL = 8, kAB = 32;

    static int bin(const cv::Vec3b& lab) { return (lab[0] >> 5) * kAB * kAB + (lab[1] >> 3) * kAB + (lab[2] >> 3); }

    // Counts the colours of `lab` (CV_8UC3 Lab) under `mask`.
    void add(const cv::Mat& lab, const cv::Mat& mask) {
        for (int y = 0; y < lab.rows; ++y) {
            const auto* p = lab.ptr<cv::Vec3b>(y);
            const auto* m = mask.ptr<std::uint8_t>(y);
            for (int x = 0; x < lab.cols; ++x) {
                if (!m[x]) continue;
                counts_[static_cast<std::size_t>(bin(p[x]))] += 1;
                total_ += 1;
            }
        }
    }
    double total() const { return total_; }
    // Returns the share of counted pixels whose colour falls in `b`'s pooled bin (smoothed).
    double share(int b) const {
        const int l = b / (kAB * kAB), ab = b % (kAB * kAB);
        double n = 0;
        for (int k = std::max(0, l - 2); k <= std::min(kL - 1, l + 2); ++k) n += counts_[static_cast<std::size_t>(k * kAB * kAB + ab)];
        return (n + 0.25) / std::max(1.0, total_);
    }

private:
    std::vector<double> counts_ = std::vector<double>(kL * kAB * kAB, 0.0);
    double total_ = 0;
};

cv::Mat smoothed_lab(const cv::Mat& bgr) {
    cv::Mat smooth, lab;
    cv::blur(bgr, smooth, cv::Size(3, 3));
    cv::cvtColor(smooth, lab, cv::COLOR_BGR2Lab);
    return lab;
}

// Marks pixels (inside `inside`) whose colour is much rarer under `reference` than overall.
cv::Mat rarer_than(const cv::Mat& lab, const cv::Mat& inside, const cv::Mat& reference, double ratio_limit) {
    ColourModel all, ref;
    all.add(lab, inside);
    ref.add(lab, reference & inside);
    cv::Mat out(lab.size(), CV_8UC1, cv::Scalar(0));
    if (ref.total() < 1 || all.total() < 1) return out;
    for (int y = 0; y < lab.rows; ++y) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        const auto* in = inside.ptr<std::uint8_t>(y);
        auto* o = out.ptr<std::uint8_t>(y);
        for (int x = 0; x < lab.cols; ++x) {
            const int b = ColourModel::bin(p[x]);
            if (in[x] && ref.share(b) < ratio_limit * all.share(b)) o[x] = 255;
        }
    }
    cv::medianBlur(out, out, 5);
    return out;
}

// Marks pixels (inside `inside`) whose colour is likelier under the tile model than the table model.
cv::Mat likelier_tile(const cv::Mat& lab, const cv::Mat& inside, const cv::Mat& tile, const cv::Mat& table) {
    ColourModel tiles, tables;
    tiles.add(lab, tile & inside);
    tables.add(lab, table & inside);
    cv::Mat out(lab.size(), CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < lab.rows; ++y) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        const auto* in = inside.ptr<std::uint8_t>(y);
        auto* o = out.ptr<std::uint8_t>(y);
        for (int x = 0; x < lab.cols; ++x) {
            const int b = ColourModel::bin(p[x]);
            if (in[x] && tiles.share(b) > tables.share(b)) o[x] = 255;
        }
    }
    cv::medianBlur(out, out, 5);
    return out;
}

// Folds a profile with period `p` (bins) into `phases` bins and returns the smoothed fold.
std::vector<double> fold(const std::vector<double>& profile, double p, int phases, double sigma_bins) {
    std::vector<double> folded(static_cast<std::size_t>(phases), 0.0);
    for (std::size_t i = 0; i < profile.size(); ++i) {
        if (profile[i] == 0) continue;
        const double turns = static_cast<double>(i) / p;
        const double phase = (turns - std::floor(turns)) * phases;
        const int lo = static_cast<int>(std::floor(phase)) % phases;
        const double w = phase - std::floor(phase);
        folded[static_cast<std::size_t>(lo)] += profile[i] * (1 - w);
        folded[static_cast<std::size_t>((lo + 1) % phases)] += profile[i] * w;
    }
    std::vector<double> out(folded.size(), 0.0);
    const int reach = static_cast<int>(std::ceil(3 * sigma_bins));
    for (int i = 0; i < phases; ++i) {
        double s = 0;
        for (int k = -reach; k <= reach; ++k) {
            s += folded[static_cast<std::size_t>(((i + k) % phases + phases) % phases)] * std::exp(-0.5 * k * k / (sigma_bins * sigma_bins));
        }
        out[static_cast<std::size_t>(i)] = s;
    }
    return out;
}

struct AxisFit {
    double score = 0;  // peak over mean of the fold
    double phase = 0;  // bins (profile units) of the strongest gap line
};

AxisFit fit_axis(const std::vector<double>& profile, double p) {
    const int phases = std::max(8, static_cast<int>(std::lround(p * 2)));  // half-bin resolution
    const auto f = fold(profile, p, phases, 2.0);
    const auto best = std::max_element(f.begin(), f.end());
    const double mean = std::accumulate(f.begin(), f.end(), 0.0) / static_cast<double>(f.size());
    AxisFit fit;
    fit.score = mean > 0 ? *best / mean : 0;
    fit.phase = static_cast<double>(best - f.begin()) / phases * p;
    return fit;
}

// Second derivatives of the smoothed grey board, for valley (dark line) responses.
struct Hessian {
    cv::Mat xx, xy, yy;  // CV_32F
    cv::Mat mask;        // CV_8UC1: where to look
};

Hessian hessian_of(const cv::Mat& grey, const cv::Mat& mask) {
    Hessian h;
    cv::Mat g;
    grey.convertTo(g, CV_32F);
    cv::GaussianBlur(g, g, cv::Size(), 1.0);
    cv::Sobel(g, h.xx, CV_32F, 2, 0, 3);
    cv::Sobel(g, h.yy, CV_32F, 0, 2, 3);
    cv::Sobel(g, h.xy, CV_32F, 1, 1, 3);
    h.mask = mask;
    return h;
}

// Valley responses projected along the axes of a lattice turned by `theta` (radians): u[i]
// sums the second derivative across the u axis over the pixels with floor(u - u0) == i
// (dark lines running along v show up as peaks), v[j] likewise across v. Every `step`-th
// pixel is visited.
struct Projection {
    std::vector<double> u, v;
    double u0 = 0, v0 = 0;  // lattice coordinates of bin 0
};

Projection project(const Hessian& h, double theta, int step) {
    const double ct = std::cos(theta), st = std::sin(theta);
    const int w = h.xx.cols, ht = h.xx.rows;
    double u_min = 1e18, v_min = 1e18, u_max = -1e18, v_max = -1e18;
    for (const auto& c : {cv::Point2d(0, 0), cv::Point2d(w, 0), cv::Point2d(w, ht), cv::Point2d(0, ht)}) {
        const double u = c.x * ct + c.y * st, v = -c.x * st + c.y * ct;
        u_min = std::min(u_min, u), u_max = std::max(u_max, u), v_min = std::min(v_min, v), v_max = std::max(v_max, v);
    }
    Projection out;
    out.u0 = u_min;
    out.v0 = v_min;
    out.u.assign(static_cast<std::size_t>(u_max - u_min) + 2, 0.0);
    out.v.assign(static_cast<std::size_t>(v_max - v_min) + 2, 0.0);
    const auto cc = static_cast<float>(ct * ct), ss = static_cast<float>(st * st), cs2 = static_cast<float>(2 * ct * st);
    for (int y = 0; y < ht; y += step) {
        const auto* m = h.mask.ptr<std::uint8_t>(y);
        const auto* xx = h.xx.ptr<float>(y);
        const auto* yy = h.yy.ptr<float>(y);
        const auto* xy = h.xy.ptr<float>(y);
        for (int x = 0; x < w; x += step) {
            if (!m[x]) continue;
            const float across_u = xx[x] * cc + xy[x] * cs2 + yy[x] * ss;
            const float across_v = xx[x] * ss - xy[x] * cs2 + yy[x] * cc;
            if (across_u > 0) out.u[static_cast<std::size_t>(x * ct + y * st - u_min)] += across_u;
            if (across_v > 0) out.v[static_cast<std::size_t>(-x * st + y * ct - v_min)] += across_v;
        }
    }
    return out;
}

// How well a lattice at `theta_deg` explains the valleys: the sharpest pitch and its phases.
struct LatticeFit {
    double score = -1;
    double theta_deg = 0;
    double pitch = 0;  // px
    AxisFit u, v;
    Projection proj;
};

LatticeFit fit_lattice(const Hessian& h, double theta_deg, int step, const TileGridOptions& o, double ppm, double pitch_step_mm) {
    LatticeFit fit;
    fit.theta_deg = theta_deg;
    fit.proj = project(h, theta_deg * kPi / 180, step);
    for (double gap = o.min_gap_mm; gap <= o.max_gap_mm + 1e-9; gap += pitch_step_mm) {
        const double p = (o.tile_mm + gap) * ppm;
        const AxisFit fu = fit_axis(fit.proj.u, p), fv = fit_axis(fit.proj.v, p);
        if (fu.score + fv.score > fit.score) {
            fit.score = fu.score + fv.score;
            fit.pitch = p;
            fit.u = fu;
            fit.v = fv;
        }
    }
    return fit;
}

// Candidate lattice directions (degrees, in [0, 90)): the strongest peaks of the edge
// direction histogram, at least 2 degrees apart.
std::vector<double> direction_candidates(const cv::Mat& grey, const cv::Mat& mask, int count) {
    cv::Mat gx, gy, magnitude;
    cv::Sobel(grey, gx, CV_32F, 1, 0, 3);
    cv::Sobel(grey, gy, CV_32F, 0, 1, 3);
    cv::magnitude(gx, gy, magnitude);
    std::vector<float> strengths;
    for (int y = 0; y < grey.rows; y += 2) {
        const auto* m = magnitude.ptr<float>(y);
        const auto* k = mask.ptr<std::uint8_t>(y);
        for (int x = 0; x < grey.cols; x += 2) {
            if (k[x]) strengths.push_back(m[x]);
        }
    }
    if (strengths.empty()) return {};
    const auto cut = strengths.begin() + static_cast<std::ptrdiff_t>(strengths.size() * 7 / 10);
    std::nth_element(strengths.begin(), cut, strengths.end());
    const float strong = std::max(1.0f, *cut);
    constexpr int kBins = 360;  // quarter degrees over 90
    std::vector<double> hist(kBins, 0.0);
    for (int y = 0; y < grey.rows; ++y) {
        const auto* m = magnitude.ptr<float>(y);
        const auto* k = mask.ptr<std::uint8_t>(y);
        const auto* dx = gx.ptr<float>(y);
        const auto* dy = gy.ptr<float>(y);
        for (int x = 0; x < grey.cols; ++x) {
            if (!k[x] || m[x] < strong) continue;
            const double a = std::fmod(std::atan2(dy[x], dx[x]) * 180 / kPi + 360.0, 90.0);
            hist[static_cast<std::size_t>(std::min(kBins - 1, static_cast<int>(a * 4)))] += std::sqrt(m[x]);
        }
    }
    std::vector<double> smooth(kBins, 0.0);
    for (int i = 0; i < kBins; ++i) {
        for (int k = -6; k <= 6; ++k) {
            smooth[static_cast<std::size_t>(i)] += hist[static_cast<std::size_t>(((i + k) % kBins + kBins) % kBins)] * std::exp(-0.5 * k * k / 9.0);
        }
    }
    std::vector<double> out;
    for (int n = 0; n < count; ++n) {
        const auto peak = static_cast<int>(std::max_element(smooth.begin(), smooth.end()) - smooth.begin());
        if (smooth[static_cast<std::size_t>(peak)] <= 0) break;
        out.push_back((peak + 0.5) / 4.0);
        for (int k = -8; k <= 8; ++k) smooth[static_cast<std::size_t>(((peak + k) % kBins + kBins) % kBins)] = 0;
    }
    return out;
}

}  // namespace

Status TileGridOptions::check() const {
    if (!(tile_mm > 5 && tile_mm < 500)) return invalid("tile grid options", "tile_mm must be within (5, 500)");
    if (!(min_gap_mm >= 0 && max_gap_mm >= min_gap_mm && max_gap_mm <= tile_mm / 4)) {
        return invalid("tile grid options", "gaps must satisfy 0 <= min_gap_mm <= max_gap_mm <= tile_mm / 4");
    }
    if (!(pitch_step_mm > 0 && pitch_step_mm <= 1)) return invalid("tile grid options", "pitch_step_mm must be within (0, 1]");
    if (!(table_ring_mm > 0)) return invalid("tile grid options", "table_ring_mm must be positive");
    if (!(not_table_ratio > 0 && not_table_ratio < 1)) return invalid("tile grid options", "not_table_ratio must be within (0, 1)");
    if (!(occupied_share > 0 && occupied_share < 1)) return invalid("tile grid options", "occupied_share must be within (0, 1)");
    return Ok{};
}

cv::Point2d TileGrid::cell_centre(int col, int row) const {
    const double a = angle_deg * kPi / 180;
    const cv::Point2d ax(std::cos(a), std::sin(a)), ay(-std::sin(a), std::cos(a));
    return origin_mm + ax * (col * pitch_mm) + ay * (row * pitch_mm);
}

Result<TileGrid> find_tile_grid(const TopView& top, const TileGridOptions& o) {
    if (auto st = o.check(); !st) return st.error();
    if (top.image.empty() || top.valid.size() != top.image.size()) return invalid("tile grid", "the top view is empty");
    const double ppm = top.px_per_mm;
    const double tile_px = o.tile_mm * ppm;

    // 1. What is table: colours common along the view's edge.
    const cv::Mat inside = erode_from_outside(top.valid, 3);
    const cv::Mat core = erode_from_outside(inside, std::max(1, static_cast<int>(o.table_ring_mm * ppm)));
    const cv::Mat ring = inside & ~core;
    TileGrid grid;
    {
        // Colour statistics need no detail: work at half size.
        cv::Mat small, small_inside, small_ring;
        cv::resize(top.image, small, cv::Size(), 0.5, 0.5, cv::INTER_AREA);
        cv::resize(inside, small_inside, small.size(), 0, 0, cv::INTER_NEAREST);
        cv::resize(ring, small_ring, small.size(), 0, 0, cv::INTER_NEAREST);
        const cv::Mat small_mask = rarer_than(smoothed_lab(small), small_inside, small_ring, o.not_table_ratio);
        cv::resize(small_mask, grid.not_table, top.image.size(), 0, 0, cv::INTER_NEAREST);
        grid.not_table &= inside;
    }
    if (cv::countNonZero(grid.not_table) < 0.5 * tile_px * tile_px) return invalid("tile grid", "no board found: nothing unlike the table");

    // 2. The board's surroundings, where the lattice is looked for.
    cv::Mat near_board;
    const int reach = 2 * static_cast<int>(tile_px / 4) + 1;
    cv::dilate(grid.not_table, near_board, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(reach, reach)));
    near_board &= erode_from_outside(top.valid, 4);
    const cv::Rect box = cv::boundingRect(near_board) & cv::Rect(0, 0, top.image.cols, top.image.rows);
    if (box.area() == 0) return invalid("tile grid", "no board found: nothing unlike the table");
    cv::Mat grey;
    cv::cvtColor(top.image(box), grey, cv::COLOR_BGR2GRAY);
    const cv::Mat board_mask = near_board(box);

    // 3. Gaps between tiles are long, straight, dark lines repeating every pitch. Candidate
    // directions come from the edge directions; each is refined (coarse, then fine) by how
    // sharply the valley projections fold at a tile pitch, and the best lattice wins.
    const Hessian hess = hessian_of(grey, board_mask);
    LatticeFit best;
    // Directions: edges on and right by the tiles (a table's own lines, like plank seams, stay out).
    cv::Mat on_tiles;
    cv::dilate(grid.not_table(box), on_tiles, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(9, 9)));
    on_tiles &= board_mask;
    std::vector<double> candidates = direction_candidates(grey, on_tiles, 3);
    {
        // A coarse sweep of all directions on a sparse sample of pixels, in case the edges
        // mislead (glare, a table's own lines): its two best directions join the candidates.
        std::vector<std::pair<double, double>> sweep;  // (score, degrees)
        for (int deg = 0; deg < 90; ++deg) sweep.emplace_back(fit_lattice(hess, deg, 4, o, ppm, 0.2).score, deg);
        std::sort(sweep.begin(), sweep.end(), std::greater<>());
        int taken = 0;
        for (const auto& [score, deg] : sweep) {
            if (taken == 2) break;
            bool near = false;
            for (const double c : candidates) near = near || std::abs(std::remainder(c - deg, 90.0)) < 1.5;
            if (!near) {
                candidates.push_back(deg);
                ++taken;
            }
        }
    }
    for (const double candidate : candidates) {
        LatticeFit local = fit_lattice(hess, candidate, 2, o, ppm, 0.1);
        const double centre = candidate;
        for (int k = -5; k <= 5; ++k) {
            if (k == 0) continue;
            LatticeFit f = fit_lattice(hess, centre + k * 0.25, 2, o, ppm, 0.1);
            if (f.score > local.score) local = std::move(f);
        }
        if (local.score > best.score) best = std::move(local);
    }
    if (best.score < 0) return invalid("tile grid", "no board found: no edges");
    {
        const double centre = best.theta_deg;
        for (int k = -5; k <= 5; ++k) {
            if (k == 0) continue;
            LatticeFit f = fit_lattice(hess, centre + k * 0.05, 2, o, ppm, 0.1);
            if (f.score > best.score) best = std::move(f);
        }
        best = fit_lattice(hess, best.theta_deg, 1, o, ppm, o.pitch_step_mm);
    }
    if (best.score <= 2.2) return invalid("tile grid", "no board found: no periodic gaps between tiles");
    double theta_deg = best.theta_deg;
    if (theta_deg >= 45) theta_deg -= 90;  // the same lattice, axes renamed
    const double theta = best.theta_deg * kPi / 180;
    const double ct = std::cos(theta), st = std::sin(theta);
    // Lattice coordinates of the full view: the crop's bin 0 moved by the crop's offset.
    const double u_min = best.proj.u0 + (box.x * ct + box.y * st);
    const double v_min = best.proj.v0 + (-box.x * st + box.y * ct);
    const double best_pitch = best.pitch;
    const AxisFit best_u = best.u, best_v = best.v;

    // 4. Occupancy in the lattice's own frame; of the gap phase and its half-shift (road
    // edges also repeat every pitch, mid-tile), keep the one whose cells are most clear-cut.
    const cv::Matx23d to_lattice(ct, st, -u_min, -st, ct, -v_min);
    const cv::Size lattice_size(static_cast<int>(best.proj.u.size()), static_cast<int>(best.proj.v.size()));
    cv::Mat lattice_tile, lattice_valid;
    cv::warpAffine(grid.not_table, lattice_tile, to_lattice, lattice_size, cv::INTER_NEAREST);
    cv::warpAffine(inside, lattice_valid, to_lattice, lattice_size, cv::INTER_NEAREST);
    cv::Mat sum_tile, sum_valid;
    cv::integral(lattice_tile / 255, sum_tile, CV_64F);
    cv::integral(lattice_valid / 255, sum_valid, CV_64F);
    auto box_sum = [](const cv::Mat& s, int x0, int y0, int x1, int y1) {
        return s.at<double>(y1, x1) - s.at<double>(y0, x1) - s.at<double>(y1, x0) + s.at<double>(y0, x0);
    };
    struct CellRead {
        int col, row;
        double occupancy;
    };
    auto read_cells = [&](double phase_u, double phase_v) {
        std::vector<CellRead> out;
        const double p = best_pitch;
        const double margin = 0.12 * p;
        const int k0 = static_cast<int>(std::floor(-phase_u / p)) - 1, k1 = static_cast<int>(std::ceil((lattice_size.width - phase_u) / p));
        const int l0 = static_cast<int>(std::floor(-phase_v / p)) - 1, l1 = static_cast<int>(std::ceil((lattice_size.height - phase_v) / p));
        for (int l = l0; l <= l1; ++l) {
            for (int k = k0; k <= k1; ++k) {
                const int x0 = static_cast<int>(std::lround(phase_u + k * p + margin)), x1 = static_cast<int>(std::lround(phase_u + (k + 1) * p - margin));
                const int y0 = static_cast<int>(std::lround(phase_v + l * p + margin)), y1 = static_cast<int>(std::lround(phase_v + (l + 1) * p - margin));
                if (x0 < 0 || y0 < 0 || x1 > lattice_size.width || y1 > lattice_size.height || x1 <= x0 || y1 <= y0) continue;
                const double area = static_cast<double>(x1 - x0) * (y1 - y0);
                const double seen = box_sum(sum_valid, x0, y0, x1, y1);
                if (seen < 0.6 * area) continue;
                out.push_back({k, l, box_sum(sum_tile, x0, y0, x1, y1) / seen});
            }
        }
        return out;
    };
    double best_clarity = -1;
    std::vector<CellRead> cells;
    cv::Point2d phase;
    for (const double du : {0.0, 0.5}) {
        for (const double dv : {0.0, 0.5}) {
            const double pu = best_u.phase + du * best_pitch, pv = best_v.phase + dv * best_pitch;
            auto read = read_cells(pu, pv);
            // Clarity: how far occupancies sit from one half, over cells touching the board.
            double clarity = 0;
            int counted = 0;
            for (const auto& c : read) {
                if (c.occupancy < 0.05) continue;
                clarity += std::abs(c.occupancy - 0.5) * 2;
                ++counted;
            }
            clarity = counted ? clarity / counted : 0;
            if (clarity > best_clarity) {
                best_clarity = clarity;
                cells = std::move(read);
                phase = {pu, pv};
            }
        }
    }

    // 5. A second look with colour models of this image's own tiles and table, taken from
    // the clear cells (and the edge band): a lit or shaded table is no longer taken for tiles.
    {
        const double p = best_pitch;
        cv::Mat clear_tile(lattice_size, CV_8UC1, cv::Scalar(0)), clear_table(lattice_size, CV_8UC1, cv::Scalar(0));
        auto cell_rect = [&](const CellRead& c) {
            const double margin = 0.12 * p;
            return cv::Rect(cv::Point(static_cast<int>(std::lround(phase.x + c.col * p + margin)), static_cast<int>(std::lround(phase.y + c.row * p + margin))),
                            cv::Point(static_cast<int>(std::lround(phase.x + (c.col + 1) * p - margin)), static_cast<int>(std::lround(phase.y + (c.row + 1) * p - margin))));
        };
        int sure_tiles = 0;
        for (const auto& c : cells) {
            if (c.occupancy >= 0.8) {
                clear_tile(cell_rect(c)).setTo(255);
                ++sure_tiles;
            } else if (c.occupancy <= 0.15) {
                clear_table(cell_rect(c)).setTo(255);
            }
        }
        if (sure_tiles > 0) {
            cv::Mat lattice_image, lattice_ring;
            cv::warpAffine(top.image, lattice_image, to_lattice, lattice_size, cv::INTER_LINEAR);
            cv::warpAffine(ring, lattice_ring, to_lattice, lattice_size, cv::INTER_NEAREST);
            clear_table |= lattice_ring;
            const cv::Mat tile_like = likelier_tile(smoothed_lab(lattice_image), lattice_valid, clear_tile, clear_table);
            cv::integral(tile_like / 255, sum_tile, CV_64F);
            cells = read_cells(phase.x, phase.y);
            cv::Mat back;
            cv::warpAffine(tile_like, back, to_lattice, top.image.size(), cv::INTER_NEAREST | cv::WARP_INVERSE_MAP);
            grid.not_table = back;
        }
    }

    // 6. Tiles have straight edges all round (against the table or in a gap); a patch of
    // tile-like colour on the table (a flower on a cloth) has them only where tiles border it.
    cv::Mat lattice_grey, across_u, across_v;
    {
        cv::Mat lattice_image;
        cv::warpAffine(top.image, lattice_image, to_lattice, lattice_size, cv::INTER_LINEAR);
        cv::cvtColor(lattice_image, lattice_grey, cv::COLOR_BGR2GRAY);
        cv::Sobel(lattice_grey, across_u, CV_32F, 1, 0, 3);
        cv::Sobel(lattice_grey, across_v, CV_32F, 0, 1, 3);
        across_u = cv::abs(across_u);
        across_v = cv::abs(across_v);
    }
    // The typical gradient near the board: straight tile edges stand well above it.
    const float typical = [&] {
        std::vector<float> levels;
        cv::Mat lattice_board;
        cv::warpAffine(near_board, lattice_board, to_lattice, lattice_size, cv::INTER_NEAREST);
        for (int y = 0; y < lattice_size.height; y += 2) {
            for (int x = 0; x < lattice_size.width; x += 2) {
                if (lattice_board.at<std::uint8_t>(y, x)) levels.push_back(std::max(across_u.at<float>(y, x), across_v.at<float>(y, x)));
            }
        }
        if (levels.empty()) return 1.0f;
        const auto cut = levels.begin() + static_cast<std::ptrdiff_t>(levels.size() / 2);
        std::nth_element(levels.begin(), cut, levels.end());
        return std::max(1.0f, *cut);
    }();
    // Counts the sides of cell (col, row) along which one straight edge runs near the tile's
    // border: the best line (offset within the gap and jitter, slope within the tile turn)
    // must average well above the typical gradient. Texture (wood grain) averages out.
    auto edged_sides = [&](int col, int row) {
        const double p = best_pitch, half = o.tile_mm / 2 * ppm, slack = o.max_gap_mm * ppm + 2.5 * ppm;
        const double cu = phase.x + (col + 0.5) * p, cv_ = phase.y + (row + 0.5) * p;
        const double along = 0.38 * 2 * half;
        int sides = 0;
        for (int side = 0; side < 4; ++side) {
            const bool vertical = side % 2 == 1;  // east and west sides run along v
            const double line = vertical ? cu + (side == 1 ? half : -half) : cv_ + (side == 2 ? half : -half);
            const double mid = vertical ? cv_ : cu;
            const cv::Mat& across = vertical ? across_u : across_v;
            double best_mean = 0;
            for (const double slope : {-0.05, -0.025, 0.0, 0.025, 0.05}) {
                for (double d = -slack; d <= slack; d += 1.0) {
                    double sum = 0;
                    int count = 0;
                    for (double t = -along; t <= along; t += 1.0) {
                        const double off = line + d + slope * t;
                        const int x = static_cast<int>(std::lround(vertical ? off : mid + t));
                        const int y = static_cast<int>(std::lround(vertical ? mid + t : off));
                        if (x < 0 || y < 0 || x >= lattice_size.width || y >= lattice_size.height) continue;
                        sum += across.at<float>(y, x);
                        ++count;
                    }
                    if (count > along) best_mean = std::max(best_mean, sum / count);
                }
            }
            sides += best_mean >= 2.5 * typical;
        }
        return sides;
    };

    // 7. The occupied cells, numbered from the board's top-left in the lattice frame.
    std::vector<CellRead> occupied;
    for (const auto& c : cells) {
        if (c.occupancy > o.occupied_share && edged_sides(c.col, c.row) >= 3) occupied.push_back(c);
    }
    if (occupied.empty()) return invalid("tile grid", "no board found: no cell looks like a tile");
    int col0 = occupied[0].col, row0 = occupied[0].row;
    for (const auto& c : occupied) col0 = std::min(col0, c.col), row0 = std::min(row0, c.row);

    grid.angle_deg = theta_deg;
    grid.pitch_mm = best_pitch / ppm;
    auto lattice_to_plane = [&](double u, double v) {
        // Lattice px -> top px -> plane mm.
        const double uu = u + u_min, vv = v + v_min;
        return top.to_plane({uu * ct - vv * st, uu * st + vv * ct});
    };
    grid.origin_mm = lattice_to_plane(phase.x + (col0 + 0.5) * best_pitch, phase.y + (row0 + 0.5) * best_pitch);
    const double half = o.tile_mm / 2 * ppm;
    for (const auto& c : occupied) {
        GridCell cell;
        cell.col = c.col - col0;
        cell.row = c.row - row0;
        cell.occupancy = c.occupancy;
        const double u = phase.x + (c.col + 0.5) * best_pitch, v = phase.y + (c.row + 0.5) * best_pitch;
        cell.centre_mm = lattice_to_plane(u, v);
        cell.corners_mm = {lattice_to_plane(u - half, v - half), lattice_to_plane(u + half, v - half),
                           lattice_to_plane(u + half, v + half), lattice_to_plane(u - half, v + half)};
        grid.cells.push_back(cell);
    }
    return grid;
}

}  // namespace meeplecam::vision
