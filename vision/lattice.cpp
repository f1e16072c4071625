// Stage 1-2 of the board reader: the plane homography and the tile lattice, estimated from
// the tiles alone (vanishing points of the tile edges, periodic gaps), and occupancy.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <queue>
#include <random>
#include <set>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"
#include "vision/homography.h"

namespace meeplecam::vision {
namespace {

constexpr int kAngleBins = 180;           // direction histogram: one bin per degree
constexpr double kAngleSmoothDeg = 2.0;   // its smoothing
constexpr double kMinFamilySeparationDeg = 55;  // the second family differs at least this much (square tiles seen at up to ~40 degrees tilt)
constexpr double kAssumedFocal = 1.6;     // focal length (half the frame's longer side is 1) when the vanishing points cannot give it: ~64 degrees across
constexpr double kMinFocal = 0.7, kMaxFocal = 4.0;  // focal lengths taken from the vanishing points (110 to 28 degrees across)
constexpr double kMaxFiniteVanishing = 8; // vanishing points farther out (half-widths) are too near infinity to give the focal length
constexpr double kBlurSigma = 1.0;        // smoothing before the valley (dark line) response
constexpr int kMinTeeth = 3;              // the board spans at least this many pitches
constexpr int kDirectionCandidates = 3;   // direction histogram peaks tried as line families (the fold's own choice)...
constexpr int kMoreDirectionCandidates = 5;  // ...and this many for candidates checked against the tiles (a tartan's stripes can outvote the tiles)
constexpr int kCalibratedDirectionCandidates = 5;  // ... with a calibrated plane (pairs not at right angles on the table cost nothing)
constexpr double kCalibratedRightAngleDeg = 8;  // with a calibrated plane, edge families this close to 90 degrees apart are tiles
constexpr int kPeakSuppressDeg = 10;      // peaks at least this far apart (degrees)
constexpr double kMaxAffineStretch = 4.0; // an affine view this many times affine_side is a bad rectification
constexpr std::size_t kMinSideGroup = 4;   // a group of cells apart from the largest is kept from this size...
constexpr double kSideGroupShare = 0.2;   // ...and this share of the largest (occupancy can split a board where tiles look like the table)
constexpr int kTableTurnDeg = 3;         // a table line's direction in the edge band and near the board differ by up to this (perspective)
constexpr int kBandSamples = 16;         // points along a segment telling how much of it lies in the frame's edge band
constexpr int kLineReach = 7;             // edges used for the vanishing points end within this (work px, diameter) of the board's colours
constexpr double kKeepComponent = 0.1;    // board blobs smaller than this share of the largest are table

// Pixels whose colour is much rarer in a band along the frame's edge than overall.
cv::Mat not_table_mask(const cv::Mat& bgr, double band, double ratio, int lightness_reach, double table_share_of_median) {
    cv::Mat lab;
    cv::blur(bgr, lab, cv::Size(3, 3));
    cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);
    constexpr int kL = 4, kAB = 32;  // coarse lightness: light gradients do not matter
    std::vector<double> all(kL * kAB * kAB, 0.0), edge(all.size(), 0.0);
    const int bx = std::max(1, static_cast<int>(band * bgr.cols)), by = std::max(1, static_cast<int>(band * bgr.rows));
    auto bin = [](const cv::Vec3b& p) { return (p[0] >> 6) * kAB * kAB + (p[1] >> 3) * kAB + (p[2] >> 3); };
    double n_all = 0, n_edge = 0;
    for (int y = 0; y < lab.rows; ++y) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        for (int x = 0; x < lab.cols; ++x) {
            const auto b = static_cast<std::size_t>(bin(p[x]));
            all[b] += 1;
            n_all += 1;
            if (x < bx || y < by || x >= lab.cols - bx || y >= lab.rows - by) edge[b] += 1, n_edge += 1;
        }
    }
    // Glare, vignettes and light gradients move the table's lightness by a bin or so across
    // the frame: a colour counts as the table's when its chroma is along the edge at the
    // same or a neighbouring lightness.
    const auto edge_seen = edge;  // before the lightness spread: the edge band's own mass per colour
    if (lightness_reach > 0) {
        auto spread = edge;
        for (int l = 0; l < kL; ++l) {
            for (int ab = 0; ab < kAB * kAB; ++ab) {
                double most = 0;
                for (int m = std::max(0, l - lightness_reach); m <= std::min(kL - 1, l + lightness_reach); ++m) {
                    most = std::max(most, edge[static_cast<std::size_t>(m * kAB * kAB + ab)]);
                }
                spread[static_cast<std::size_t>(l * kAB * kAB + ab)] = most;
            }
        }
        edge = std::move(spread);
    }
    // How much commoner along the edge than overall each colour is. A board running off the
    // frame puts its own colours in the edge band too, yet less often there than the table's:
    // a colour is table only when this is at least table_share_of_median times the edge band's
    // median (each edge pixel's colour counted).
    auto edge_over_all = [&](std::size_t b) { return ((edge[b] + 0.5) / n_edge) / ((all[b] + 0.5) / n_all); };
    double limit = ratio;
    if (table_share_of_median > 0) {
        std::vector<std::pair<double, double>> by_ratio;  // (ratio, edge pixels)
        for (std::size_t b = 0; b < all.size(); ++b) {
            if (edge_seen[b] > 0) by_ratio.emplace_back(edge_over_all(b), edge_seen[b]);
        }
        std::sort(by_ratio.begin(), by_ratio.end());
        double seen = 0;
        for (const auto& [r, n] : by_ratio) {
            seen += n;
            if (seen >= 0.5 * n_edge) {
                limit = std::max(ratio, table_share_of_median * r);
                break;
            }
        }
    }
    cv::Mat out(lab.size(), CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < lab.rows; ++y) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        auto* o = out.ptr<std::uint8_t>(y);
        for (int x = 0; x < lab.cols; ++x) {
            const auto b = static_cast<std::size_t>(bin(p[x]));
            if (edge_over_all(b) < limit) o[x] = 255;
        }
    }
    cv::medianBlur(out, out, 5);
    return out;
}

struct Segment {
    cv::Vec3d line;    // normalised coordinates, a^2 + b^2 = 1
    cv::Point2d mid;   // normalised coordinates
    cv::Point2d dir;   // unit direction
    double angle = 0;  // degrees in [0, 180)
    double length = 0; // work px
    cv::Point2f from, to;  // work px
};

// The angle (degrees) between a segment and the direction from its middle to point v.
double angle_to(const Segment& s, const cv::Vec3d& v) {
    cv::Point2d d;
    if (std::abs(v[2]) < 1e-9) {
        d = {v[0], v[1]};
    } else {
        d = cv::Point2d(v[0] / v[2], v[1] / v[2]) - s.mid;
    }
    const double n = std::hypot(d.x, d.y);
    if (n < 1e-12) return 90;
    const double c = std::abs(d.x * s.dir.x + d.y * s.dir.y) / n;
    return std::acos(std::min(1.0, c)) * 180 / kPi;
}

// With a calibrated plane: normalised work coordinates -> table mm, turned so both edge
// families run along the axes. Nullopt when the families are not at right angles on the table.
std::optional<cv::Matx33d> calibrated_norm_to_axes(const cv::Matx33d& norm_to_table, const std::vector<Segment>& fam1,
                                                   const std::vector<Segment>& fam2) {
    // Length-weighted mean direction on the table of a family, as a doubled (period 180) or
    // quadrupled (period 90) angle vector.
    auto table_angle = [&](const Segment& s) {
        const cv::Point2d a = apply_homography(norm_to_table, s.mid - 0.01 * s.dir), b = apply_homography(norm_to_table, s.mid + 0.01 * s.dir);
        return std::atan2(b.y - a.y, b.x - a.x);
    };
    auto mean_angle = [&](const std::vector<Segment>& fam, double period_factor) {
        cv::Point2d sum(0, 0);
        for (const auto& s : fam) sum += s.length * cv::Point2d(std::cos(period_factor * table_angle(s)), std::sin(period_factor * table_angle(s)));
        return std::atan2(sum.y, sum.x) / period_factor;
    };
    const double a1 = mean_angle(fam1, 2), a2 = mean_angle(fam2, 2);
    if (std::abs(std::abs(std::remainder(a1 - a2, kPi)) - kPi / 2) > kCalibratedRightAngleDeg * kPi / 180) return std::nullopt;
    std::vector<Segment> both = fam1;
    both.insert(both.end(), fam2.begin(), fam2.end());
    const double turn = mean_angle(both, 4);
    const cv::Matx33d unturn(std::cos(turn), std::sin(turn), 0, -std::sin(turn), std::cos(turn), 0, 0, 0, 1);
    return unturn * norm_to_table;
}

// A vanishing point for a family of segments: RANSAC on pairs, then least squares.
cv::Vec3d vanishing_point(const std::vector<Segment>& family, const LatticeOptions& o) {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<std::size_t> pick(0, family.size() - 1);
    double best_score = -1;
    cv::Vec3d best(0, 0, 0);
    for (int it = 0; it < o.ransac_iterations; ++it) {
        const auto i = pick(rng), j = pick(rng);
        if (i == j) continue;
        cv::Vec3d v = family[i].line.cross(family[j].line);
        const double n = cv::norm(v);
        if (n < 1e-12) continue;
        v /= n;
        double score = 0;
        for (const auto& s : family) {
            if (angle_to(s, v) < o.inlier_deg) score += s.length;
        }
        if (score > best_score) best_score = score, best = v;
    }
    // Least squares over the inliers: the v minimising sum w (l . v)^2.
    for (int round = 0; round < 2; ++round) {
        cv::Matx33d m = cv::Matx33d::zeros();
        for (const auto& s : family) {
            if (angle_to(s, best) >= o.inlier_deg * 1.5) continue;
            m += s.length * (s.line * s.line.t());
        }
        cv::Mat values, vectors;
        cv::eigen(cv::Mat(m), values, vectors);
        cv::Vec3d v(vectors.at<double>(2, 0), vectors.at<double>(2, 1), vectors.at<double>(2, 2));
        if (cv::norm(v) > 0) best = v / cv::norm(v);
    }
    return best;
}

// Whether the line `horizon` (normalised coordinates) leaves every board point (work px / 4,
// as `pts`) on one side, at least `margin` away.
bool misses_board(const cv::Vec3d& horizon, const std::vector<cv::Point>& pts, const cv::Matx33d& work_to_norm, double margin) {
    const double n = std::hypot(horizon[0], horizon[1]);
    if (!(n > 1e-12)) return true;  // the horizon at infinity: a view from straight above
    double lo = 1e18, hi = -1e18;
    for (const auto& p : pts) {
        const cv::Vec3d q = work_to_norm * cv::Vec3d(p.x * 4.0 + 2, p.y * 4.0 + 2, 1);
        const double d = horizon.dot(q) / (n * q[2]);
        lo = std::min(lo, d), hi = std::max(hi, d);
    }
    return lo >= margin || hi <= -margin;
}

// The camera turned to look straight down on the table, in normalised work coordinates (the
// frame's centre at 0, half its longer side 1): a homography that sends `horizon` to infinity
// and undoes the foreshortening, so squares on the table come out square up to the error of
// the focal length. Only for steep views (an estimated tilt over `level_tilt_deg`; nullopt
// otherwise): the plain affine view keeps the tilt's foreshortening, which the pitches,
// measured per axis, absorb up to max_aspect (1/cos 46 degrees); at 50-60 degrees the axes'
// pitches differ by 1.6-2 and a doubled or halved one was taken instead. The focal length
// comes from the two vanishing points when both are finite (orthogonal directions:
// v1 . v2 = -f^2, principal point at the centre), else an assumed one (kAssumedFocal).
std::optional<cv::Matx33d> level_view(const cv::Vec3d& v1, const cv::Vec3d& v2, const cv::Vec3d& horizon, double level_tilt_deg) {
    double f = kAssumedFocal;
    if (std::abs(v1[2]) > 1e-12 && std::abs(v2[2]) > 1e-12) {
        const cv::Point2d a(v1[0] / v1[2], v1[1] / v1[2]), b(v2[0] / v2[2], v2[1] / v2[2]);
        const double ff = -(a.x * b.x + a.y * b.y);
        if (std::hypot(a.x, a.y) <= kMaxFiniteVanishing && std::hypot(b.x, b.y) <= kMaxFiniteVanishing && ff >= kMinFocal * kMinFocal &&
            ff <= kMaxFocal * kMaxFocal) {
            f = std::sqrt(ff);
        }
    }
    // The table's normal in camera coordinates, and the turn taking it onto the optical axis (Rodrigues).
    cv::Vec3d n(f * horizon[0], f * horizon[1], horizon[2]);
    n /= cv::norm(n);
    if (n[2] < 0) n = -n;
    if (std::acos(std::min(1.0, n[2])) * 180 / kPi < level_tilt_deg) return std::nullopt;
    const cv::Vec3d axis = n.cross(cv::Vec3d(0, 0, 1));
    const double sin_a = cv::norm(axis), cos_a = n[2];
    const cv::Vec3d k = axis / sin_a;
    const cv::Matx33d cross(0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0);
    const cv::Matx33d turn = cv::Matx33d::eye() + sin_a * cross + (1 - cos_a) * cross * cross;
    const cv::Matx33d focal(f, 0, 0, 0, f, 0, 0, 0, 1), unfocal(1 / f, 0, 0, 0, 1 / f, 0, 0, 0, 1);
    return focal * turn * unfocal;
}

// Mean valley (dark line) response per column of `grey` where `mask` is set.
std::vector<double> valley_profile(const cv::Mat& d2, const cv::Mat& mask, bool columns) {
    const int n = columns ? d2.cols : d2.rows;
    std::vector<double> sum(static_cast<std::size_t>(n), 0.0), count(static_cast<std::size_t>(n), 0.0);
    for (int y = 0; y < d2.rows; ++y) {
        const auto* d = d2.ptr<float>(y);
        const auto* m = mask.ptr<std::uint8_t>(y);
        // Without branches (the mask is ragged): adding 0 leaves a sum as it was.
        if (columns) {
            for (int x = 0; x < d2.cols; ++x) {
                const bool in = m[x] != 0;
                sum[static_cast<std::size_t>(x)] += in ? std::max(0.0f, d[x]) : 0.0f;
                count[static_cast<std::size_t>(x)] += in ? 1.0 : 0.0;
            }
        } else {
            double s = sum[static_cast<std::size_t>(y)], seen = count[static_cast<std::size_t>(y)];
            for (int x = 0; x < d2.cols; ++x) {
                const bool in = m[x] != 0;
                s += in ? std::max(0.0f, d[x]) : 0.0f;
                seen += in ? 1.0 : 0.0;
            }
            sum[static_cast<std::size_t>(y)] = s, count[static_cast<std::size_t>(y)] = seen;
        }
    }
    const double most = *std::max_element(count.begin(), count.end());
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] = count[k] > 0.1 * most ? sum[k] / count[k] : 0;
    return sum;
}

struct Period {
    double pitch = 0;  // px
    double phase = 0;  // px: where the gap lines are (mod pitch)
    double score = 0;  // fold peak over mean
};

// Fold sharpness of a profile at period p.
Period fold_at(const std::vector<double>& profile, double p) {
    const int phases = std::max(8, static_cast<int>(std::lround(p)));
    std::vector<double> f(static_cast<std::size_t>(phases), 0.0);
    for (std::size_t i = 0; i < profile.size(); ++i) {
        const double t = static_cast<double>(i) / p;
        f[static_cast<std::size_t>(std::min(phases - 1, static_cast<int>((t - std::floor(t)) * phases)))] += profile[i];
    }
    std::vector<double> s(f.size(), 0.0);  // light circular smoothing
    for (int i = 0; i < phases; ++i) {
        s[static_cast<std::size_t>(i)] = 0.25 * f[static_cast<std::size_t>((i + phases - 1) % phases)] + 0.5 * f[static_cast<std::size_t>(i)] +
                                         0.25 * f[static_cast<std::size_t>((i + 1) % phases)];
    }
    const auto best = std::max_element(s.begin(), s.end());
    const double mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    Period out;
    out.pitch = p;
    out.phase = (static_cast<double>(best - s.begin()) + 0.5) / phases * p;
    out.score = mean > 0 ? *best / mean : 0;
    return out;
}

// Normalised autocorrelation (correlation coefficient per lag) of a profile over the
// board's extent (non-zero entries), for lags 0..max_lag (fewer if the board is short).
std::vector<double> autocorrelation(const std::vector<double>& profile, int max_lag) {
    int first = 0, last = static_cast<int>(profile.size()) - 1;
    while (first < last && profile[static_cast<std::size_t>(first)] <= 0) ++first;
    while (last > first && profile[static_cast<std::size_t>(last)] <= 0) --last;
    const int top = std::min(max_lag, (last - first) / kMinTeeth);
    std::vector<double> r(static_cast<std::size_t>(std::max(0, top + 2)), 0.0);
    double mean = 0;
    int n = 0;
    for (int i = first; i <= last; ++i) {
        if (profile[static_cast<std::size_t>(i)] > 0) mean += profile[static_cast<std::size_t>(i)], ++n;
    }
    if (n == 0) return r;
    mean /= n;
    double var = 0;
    for (int i = first; i <= last; ++i) {
        const double v = profile[static_cast<std::size_t>(i)];
        if (v > 0) var += (v - mean) * (v - mean);
    }
    var /= n;
    if (var <= 0) return r;
    for (int lag = 0; lag <= top + 1; ++lag) {
        double sum = 0;
        int pairs = 0;
        for (int i = first; i + lag <= last; ++i) {
            const double x = profile[static_cast<std::size_t>(i)], y = profile[static_cast<std::size_t>(i + lag)];
            if (x <= 0 || y <= 0) continue;
            sum += (x - mean) * (y - mean);
            ++pairs;
        }
        r[static_cast<std::size_t>(lag)] = pairs > 0 ? sum / pairs / var : 0;
    }
    return r;
}

// Local maxima of an autocorrelation within [lo, size - 2].
std::vector<int> peaks_of(const std::vector<double>& r, int lo) {
    std::vector<int> out;
    for (int lag = std::max(1, lo); lag + 1 < static_cast<int>(r.size()); ++lag) {
        const auto k = static_cast<std::size_t>(lag);
        if (r[k] > 0 && r[k] >= r[k - 1] && r[k] >= r[k + 1]) out.push_back(lag);
    }
    return out;
}

// The fold's best period within a pixel of `lag`, and its phase.
Period refine_period(const std::vector<double>& profile, double lag) {
    Period best;
    for (double p = lag - 1.0; p <= lag + 1.0 + 1e-9; p += 0.02) {
        const Period f = fold_at(profile, p);
        if (f.score > best.score) best = f;
    }
    return best;
}

// The pitches along both axes of the affine view. Multiples of the pitch correlate as well
// as the pitch itself, and the aspect of the affine view is near 1 (a tilted camera
// squeezes one axis by at most the tilt's cosine): of the pairs of autocorrelation peaks
// within max_aspect of each other, the shortest nearly as strong as the strongest wins.
// That pair comes first; after it, up to `alternatives` other pairs: the strongest ones and
// the winner's pitch doubled on either or both axes (a pitch misread as half the true one
// gives too many cells; the reader checks each against the tiles).
std::vector<std::pair<Period, Period>> find_pitches(const std::vector<double>& prof_x, const std::vector<double>& prof_y, const LatticeOptions& o,
                                                    int alternatives) {
    const int lo = static_cast<int>(o.min_pitch_px), hi = static_cast<int>(o.max_pitch_px);
    const auto rx = autocorrelation(prof_x, hi), ry = autocorrelation(prof_y, hi);
    const auto px = peaks_of(rx, lo), py = peaks_of(ry, lo);
    auto fits = [&](int a, int b) {
        const double ratio = static_cast<double>(a) / b;
        return ratio <= o.max_aspect && ratio >= 1 / o.max_aspect;
    };
    double best = -1;
    for (const int a : px) {
        for (const int b : py) {
            if (fits(a, b)) best = std::max(best, rx[static_cast<std::size_t>(a)] + ry[static_cast<std::size_t>(b)]);
        }
    }
    if (best <= 0) return {};
    double best_x = 0, best_y = 0;
    for (const int a : px) best_x = std::max(best_x, rx[static_cast<std::size_t>(a)]);
    for (const int b : py) best_y = std::max(best_y, ry[static_cast<std::size_t>(b)]);
    int ca = -1, cb = -1;
    for (const int a : px) {
        for (const int b : py) {
            if (!fits(a, b)) continue;
            if (rx[static_cast<std::size_t>(a)] + ry[static_cast<std::size_t>(b)] < o.harmonic_share * best) continue;
            if (rx[static_cast<std::size_t>(a)] < o.axis_share * best_x || ry[static_cast<std::size_t>(b)] < o.axis_share * best_y) continue;
            if (ca < 0 || a + b < ca + cb) ca = a, cb = b;
        }
    }
    std::vector<std::pair<int, int>> lags;
    if (ca > 0) lags.emplace_back(ca, cb);
    if (alternatives > 0) {
        std::vector<std::pair<double, std::pair<int, int>>> strong;
        for (const int a : px) {
            for (const int b : py) {
                if (fits(a, b)) strong.push_back({rx[static_cast<std::size_t>(a)] + ry[static_cast<std::size_t>(b)], {a, b}});
            }
        }
        std::sort(strong.begin(), strong.end(), [](const auto& l, const auto& r) { return l.first > r.first; });
        std::vector<std::pair<int, int>> more;
        if (ca > 0) more = {{2 * ca, cb}, {ca, 2 * cb}, {2 * ca, 2 * cb}};
        for (const auto& s : strong) more.push_back(s.second);
        for (const auto& lag : more) {
            const int a = lag.first, b = lag.second;  // plain names: clang 14 cannot capture structured bindings
            if (static_cast<int>(lags.size()) > alternatives) break;
            if (a > hi || b > hi || !fits(a, b)) continue;
            const bool seen = std::any_of(lags.begin(), lags.end(), [&](const auto& l) { return std::abs(l.first - a) <= 1 && std::abs(l.second - b) <= 1; });
            if (!seen) lags.emplace_back(a, b);
        }
    }
    // The doubled pitches repeat lags: each axis' lag is refined once.
    std::map<int, Period> refined_x, refined_y;
    auto refined = [](std::map<int, Period>& done, const std::vector<double>& profile, int lag) -> const Period& {
        auto it = done.find(lag);
        if (it == done.end()) it = done.emplace(lag, refine_period(profile, lag)).first;
        return it->second;
    };
    std::vector<std::pair<Period, Period>> out;
    for (const auto& [a, b] : lags) out.emplace_back(refined(refined_x, prof_x, a), refined(refined_y, prof_y, b));
    return out;
}

}  // namespace

int lattice_cells(double lo, double hi, double pitch, int max_cells) {
    const double first = std::floor(lo / pitch);
    const double cells = std::ceil(hi / pitch) - first;
    if (!std::isfinite(first) || !(cells >= 1)) return 0;
    return static_cast<int>(std::min(cells, static_cast<double>(max_cells)));
}

Status LatticeOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("lattice options", what)); };
    if (work_side < 200 || work_side > 4000) return bad("work_side must be within [200, 4000]");
    if (mask_side < 100 || mask_side > work_side) return bad("mask_side must be within [100, work_side]");
    if (!(border_band > 0 && border_band < 0.3)) return bad("border_band must be within (0, 0.3)");
    if (!(not_table_ratio > 0 && not_table_ratio < 1)) return bad("not_table_ratio must be within (0, 1)");
    if (!(min_seen_share > 0 && min_seen_share <= 1)) return bad("min_seen_share must be within (0, 1]");
    if (table_lightness_reach < 0 || table_lightness_reach > 3) return bad("table_lightness_reach must be within [0, 3]");
    if (!(table_share_of_median >= 0 && table_share_of_median < 1)) return bad("table_share_of_median must be within [0, 1)");
    if (!(board_colour_seed_share >= 0 && board_colour_seed_share < 0.5)) return bad("board_colour_seed_share must be within [0, 0.5)");
    if (!(min_board_share >= 0 && min_board_share < 1)) return bad("min_board_share must be within [0, 1)");
    if (!(table_line_discount >= 0)) return bad("table_line_discount must be at least 0");
    if (!(pair_region_reach >= 0 && pair_region_reach < 0.5)) return bad("pair_region_reach must be within [0, 0.5)");
    if (!(min_segment > 0 && min_segment < 0.5)) return bad("min_segment must be within (0, 0.5)");
    if (!(min_board_segment > 0 && min_board_segment <= min_segment)) return bad("min_board_segment must be within (0, min_segment]");
    if (!(family_deg > 1 && family_deg < 45)) return bad("family_deg must be within (1, 45)");
    if (!(inlier_deg > 0 && inlier_deg < 10)) return bad("inlier_deg must be within (0, 10)");
    if (ransac_iterations < 10) return bad("ransac_iterations must be at least 10");
    if (!(horizon_margin >= 0 && horizon_margin <= 4)) return bad("horizon_margin must be within [0, 4]");
    if (!(level_tilt_deg >= 0 && level_tilt_deg <= 90)) return bad("level_tilt_deg must be within [0, 90]");
    if (!(min_pitch_px >= 4 && max_pitch_px > 2 * min_pitch_px)) return bad("need 4 <= min_pitch_px and max_pitch_px > 2 min_pitch_px");
    if (!(affine_side >= 200 && affine_side <= 4000)) return bad("affine_side must be within [200, 4000]");
    if (!(harmonic_share > 0 && harmonic_share <= 1)) return bad("harmonic_share must be within (0, 1]");
    if (!(max_aspect >= 1 && max_aspect < 4)) return bad("max_aspect must be within [1, 4)");
    if (!(axis_share >= 0 && axis_share <= 1)) return bad("axis_share must be within [0, 1]");
    if (!(min_lattice_score >= 1)) return bad("min_lattice_score must be at least 1");
    if (!(min_candidate_score >= 1 && min_candidate_score <= min_lattice_score)) return bad("min_candidate_score must be within [1, min_lattice_score]");
    if (pitch_alternatives < 0 || pitch_alternatives > 8) return bad("pitch_alternatives must be within [0, 8]");
    if (max_candidates < 1 || max_candidates > 64) return bad("max_candidates must be within [1, 64]");
    if (!(tile_mm > 5 && tile_mm < 500)) return bad("tile_mm must be within (5, 500)");
    if (!(gap_mm >= 0 && gap_mm < tile_mm / 4)) return bad("gap_mm must be within [0, tile_mm / 4)");
    if (!(px_per_mm >= 0.2 && px_per_mm <= 10)) return bad("px_per_mm must be within [0.2, 10]");
    if (max_top_side < 64) return bad("max_top_side must be at least 64");
    if (!(occupied_share > 0 && occupied_share < 1)) return bad("occupied_share must be within (0, 1)");
    if (!(cell_inset >= 0 && cell_inset < 0.4)) return bad("cell_inset must be within [0, 0.4)");
    if (image_to_table_mm) {
        const cv::Matx33d& h = *image_to_table_mm;
        if (!cv::checkRange(h) || std::abs(cv::determinant(h)) <= 1e-12 * std::pow(cv::norm(h), 3)) {
            return bad("image_to_table_mm must be a finite, invertible homography");
        }
    }
    return Ok{};
}

// What the lattice views of one search share: the frame's scales and its table mask.
struct SearchFrame {
    cv::Matx33d image_to_work;
    double mask_scale = 1;
    cv::Mat mask_small;      // not-table mask at mask_side
    bool colours_fail = false;
    bool whole_frame = false;
};

// The lattice view of one attempt: square cells of the pitch at px_per_mm, gap lines on multiples of it.
Result<LatticeView> lattice_view_of(const cv::Mat& image, const LatticeOptions& o, const cv::Matx33d& work_to_affine, const Period& px,
                                    const Period& py, const std::vector<cv::Point>& pts, const SearchFrame& frame, const cv::Mat& pair_board) {
    LatticeView view;
    view.px_per_mm = o.px_per_mm;
    view.frame = image.size();
    view.whole_frame = frame.whole_frame;
    view.table_in_tile_colours = frame.colours_fail;
    const cv::Matx33d& image_to_work = frame.image_to_work;
    const double mask_scale = frame.mask_scale;
    double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
    const double pitch = (o.tile_mm + o.gap_mm) * o.px_per_mm;
    view.pitch_px = pitch;
    cv::Matx33d affine_to_top(pitch / px.pitch, 0, -px.phase * pitch / px.pitch, 0, pitch / py.pitch, -py.phase * pitch / py.pitch, 0, 0, 1);
    cv::Matx33d work_to_top = affine_to_top * work_to_affine;
    for (const auto& p : pts) {
        const cv::Point2d q = apply_homography(work_to_top, cv::Point2d(p.x * 4.0 + 2, p.y * 4.0 + 2));
        x0 = std::min(x0, q.x), y0 = std::min(y0, q.y), x1 = std::max(x1, q.x), y1 = std::max(y1, q.y);
    }
    const double c0 = std::floor(x0 / pitch), r0 = std::floor(y0 / pitch);
    // A degenerate plane estimate can put points ~1e17 px away: count cells in double, then cap.
    view.cols = lattice_cells(x0, x1, pitch, static_cast<int>(o.max_top_side / pitch));
    view.rows = lattice_cells(y0, y1, pitch, static_cast<int>(o.max_top_side / pitch));
    if (view.cols < 1 || view.rows < 1) return invalid("lattice", "no board found");
    work_to_top = cv::Matx33d(1, 0, -c0 * pitch, 0, 1, -r0 * pitch, 0, 0, 1) * work_to_top;
    view.image_to_top = work_to_top * image_to_work;
    const cv::Size top_size(static_cast<int>(std::ceil(view.cols * pitch)), static_cast<int>(std::ceil(view.rows * pitch)));
    // The top view is sampled from the full-resolution frame: the work image is for geometry only.
    if (o.warp_top) cv::warpPerspective(image, view.top, view.image_to_top, top_size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    const cv::Matx33d small_to_work(1 / mask_scale, 0, 0, 0, 1 / mask_scale, 0, 0, 0, 1);
    auto pending = std::make_shared<PendingTableMask>();
    pending->size = top_size;
    if (frame.colours_fail && !pair_board.empty()) {
        // The colours cannot tell the board from the table: the cells near the direction pair's
        // own edges are the board's (on a cloth at other angles, the tiles).
        pending->source = pair_board;
        pending->to_top = work_to_top;
    } else {
        pending->source = frame.colours_fail ? cv::Mat(frame.mask_small.size(), CV_8UC1, cv::Scalar(255)) : frame.mask_small;
        pending->to_top = work_to_top * small_to_work;
    }
    view.pending_table_mask = std::move(pending);
    if (!o.defer_table_mask) make_table_mask(view);
    return view;
}


// The part of a search that depends only on the image and the options below (not on `whole`
// or the segments' least length): made once per frame when the reader searches it again. The
// line segments depend on the image and `work_side` alone, so a search with another table
// mask (the off-frame search) redoes only the mask.
struct LineSearchCache {
    const uchar* data = nullptr;
    cv::Size size;
    std::size_t step = 0;
    int work_side = 0, mask_side = 0, table_lightness_reach = 0;
    double border_band = 0, not_table_ratio = 0, table_share_of_median = 0;
    cv::Mat work, mask_small, board_work, grey;
    std::vector<cv::Vec4f> all;  // every line segment of `grey`
    cv::Mat extent_work;         // when set (find_lattices_within): the board the view must cover, else board_work's

    bool holds_segments(const cv::Mat& image, const LatticeOptions& o) const {
        return data != nullptr && data == image.data && size == image.size() && step == image.step[0] && work_side == o.work_side;
    }
    bool holds(const cv::Mat& image, const LatticeOptions& o) const {
        return holds_segments(image, o) && mask_side == o.mask_side && table_lightness_reach == o.table_lightness_reach &&
               border_band == o.border_band && not_table_ratio == o.not_table_ratio && table_share_of_median == o.table_share_of_median;
    }
    void fill(const cv::Mat& image, const LatticeOptions& o) {
        if (!holds_segments(image, o)) {
            const double work_scale = std::min(1.0, static_cast<double>(o.work_side) / std::max(image.cols, image.rows));  // never upscale
            cv::resize(image, work, cv::Size(), work_scale, work_scale, work_scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
            cv::cvtColor(work, grey, cv::COLOR_BGR2GRAY);
            all.clear();
            cv::createLineSegmentDetector(cv::LSD_REFINE_NONE)->detect(grey, all);
            data = image.data, size = image.size(), step = image.step[0], work_side = o.work_side;
        }
        // The board: colours unlike the table (the frame's edge band).
        const double mask_scale = static_cast<double>(o.mask_side) / std::max(work.cols, work.rows);
        cv::Mat small;
        cv::resize(work, small, cv::Size(), mask_scale, mask_scale, cv::INTER_AREA);
        mask_small = not_table_mask(small, o.border_band, o.not_table_ratio, o.table_lightness_reach, o.table_share_of_median);
        cv::resize(mask_small, board_work, work.size(), 0, 0, cv::INTER_NEAREST);
        mask_side = o.mask_side, table_lightness_reach = o.table_lightness_reach;
        border_band = o.border_band, not_table_ratio = o.not_table_ratio, table_share_of_median = o.table_share_of_median;
    }
};

std::shared_ptr<LineSearchCache> make_line_search_cache() { return std::make_shared<LineSearchCache>(); }

cv::Mat board_colour_mask(const cv::Mat& image, const LatticeOptions& o, LineSearchCache& cache) {
    if (!cache.holds(image, o)) cache.fill(image, o);
    return cache.mask_small.clone();
}

void make_table_mask(LatticeView& view) {
    if (!view.pending_table_mask) return;
    const PendingTableMask& p = *view.pending_table_mask;
    cv::warpPerspective(p.source, view.not_table, p.to_top, p.size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
    view.table_mask_source = std::make_shared<const TableMaskSource>(TableMaskSource{p.source, view.image_to_top.inv() * p.to_top});
    view.pending_table_mask.reset();
}

// The candidate lattices, searched near the board (colours unlike the table) or, with `whole`, in the whole frame.
Result<std::vector<LatticeView>> find_lattices_in(const cv::Mat& image, const LatticeOptions& o, bool whole, LineSearchCache& cache) {
    if (!cache.holds(image, o)) cache.fill(image, o);
    const double work_scale = std::min(1.0, static_cast<double>(o.work_side) / std::max(image.cols, image.rows));  // never upscale
    const cv::Mat& work = cache.work;
    const cv::Matx33d image_to_work(work_scale, 0, 0, 0, work_scale, 0, 0, 0, 1);

    // The board: colours unlike the table (the frame's edge band).
    const double mask_scale = static_cast<double>(o.mask_side) / std::max(work.cols, work.rows);
    const cv::Mat& mask_small = cache.mask_small;
    const cv::Mat& board_work = cache.board_work;
    const bool colours_fail = cv::countNonZero(board_work) < o.min_board_share * static_cast<double>(board_work.total());
    const SearchFrame frame{image_to_work, mask_scale, mask_small, colours_fail, whole || colours_fail};
    cv::Mat region, lines_region;  // where gaps are read; where edges may lie (tight: table lines near the board stay out)
    if (frame.whole_frame) {
        region = cv::Mat(work.size(), CV_8UC1, cv::Scalar(255));
        lines_region = region;
    } else {
        const int r = std::max(3, o.work_side / 60) | 1;
        cv::dilate(board_work, region, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(r, r)));
        cv::dilate(board_work, lines_region, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(kLineReach, kLineReach)));
    }

    // Straight edges near the board.
    const cv::Mat& grey = cache.grey;
    const std::vector<cv::Vec4f>& all = cache.all;
    std::vector<cv::Vec4f> raw;
    const double min_len = o.min_segment * o.work_side;
    {
        auto inside = [&](double x, double y) {
            return lines_region.at<std::uint8_t>(std::clamp(static_cast<int>(y), 0, lines_region.rows - 1), std::clamp(static_cast<int>(x), 0, lines_region.cols - 1)) != 0;
        };
        for (const auto& l : all) {
            if (std::hypot(l[2] - l[0], l[3] - l[1]) >= min_len && inside((l[0] + l[2]) / 2, (l[1] + l[3]) / 2) && inside(l[0], l[1]) && inside(l[2], l[3])) {
                raw.push_back(l);
            }
        }
    }
    const cv::Point2d centre(work.cols / 2.0, work.rows / 2.0);
    const double norm = std::max(work.cols, work.rows) / 2.0;
    const cv::Matx33d work_to_norm(1 / norm, 0, -centre.x / norm, 0, 1 / norm, -centre.y / norm, 0, 0, 1);
    // With a calibrated plane, directions are measured on the table, where a family's edges
    // are parallel (no perspective spread) and tile edges meet at right angles.
    std::optional<cv::Matx33d> norm_to_table;
    if (o.image_to_table_mm) norm_to_table = *o.image_to_table_mm * image_to_work.inv() * work_to_norm.inv();
    std::vector<Segment> segments;
    std::vector<double> hist(kAngleBins, 0.0);
    for (const auto& l : raw) {
        Segment s;
        const cv::Point2d a = (cv::Point2d(l[0], l[1]) - centre) / norm, b = (cv::Point2d(l[2], l[3]) - centre) / norm;
        s.length = std::hypot(l[2] - l[0], l[3] - l[1]);
        s.from = {l[0], l[1]};
        s.to = {l[2], l[3]};
        s.mid = (a + b) * 0.5;
        s.dir = (b - a) / cv::norm(b - a);
        s.line = cv::Vec3d(a.x, a.y, 1).cross(cv::Vec3d(b.x, b.y, 1));
        s.line /= std::hypot(s.line[0], s.line[1]);
        s.angle = std::fmod(std::atan2(s.dir.y, s.dir.x) * 180 / kPi + 360.0, 180.0);
        if (norm_to_table) {
            const cv::Point2d ta = apply_homography(*norm_to_table, a), tb = apply_homography(*norm_to_table, b);
            s.angle = std::fmod(std::atan2(tb.y - ta.y, tb.x - ta.x) * 180 / kPi + 360.0, 180.0);
        }
        hist[static_cast<std::size_t>(std::min(kAngleBins - 1, static_cast<int>(s.angle)))] += s.length;
        segments.push_back(s);
    }
    if (segments.size() < 8) return invalid("lattice", "no board found: too few straight edges");
    std::vector<double> smooth(kAngleBins, 0.0);
    for (int i = 0; i < kAngleBins; ++i) {
        for (int k = -6; k <= 6; ++k) {
            smooth[static_cast<std::size_t>(i)] += hist[static_cast<std::size_t>(((i + k) % kAngleBins + kAngleBins) % kAngleBins)] *
                                                   std::exp(-0.5 * k * k / (kAngleSmoothDeg * kAngleSmoothDeg));
        }
    }
    // When the colours do not tell the board (a cloth in the tiles' colours), every edge of the
    // frame votes and a cloth's stripes outvote the tiles. The table's own lines run through the
    // frame's edge band as densely as anywhere on the table: per direction, the length the band's
    // density predicts over the rest is taken off, so the directions only the board shows lead.
    // (A calibrated plane measures directions on the table, the band's in the frame: not done.)
    if (o.table_line_discount > 0 && frame.colours_fail && !norm_to_table) {
        const int bx = std::max(1, static_cast<int>(o.border_band * work.cols)), by = std::max(1, static_cast<int>(o.border_band * work.rows));
        std::vector<double> band(kAngleBins, 0.0);
        for (const auto& l : all) {
            const double len = std::hypot(l[2] - l[0], l[3] - l[1]);
            if (len < min_len) continue;
            int in_band = 0;  // of kBandSamples points along the segment
            for (int k = 0; k < kBandSamples; ++k) {
                const double t = (k + 0.5) / kBandSamples, x = l[0] + t * (l[2] - l[0]), y = l[1] + t * (l[3] - l[1]);
                in_band += x < bx || y < by || x >= work.cols - bx || y >= work.rows - by;
            }
            const double angle = std::fmod(std::atan2(l[3] - l[1], l[2] - l[0]) * 180 / kPi + 360.0, 180.0);
            band[static_cast<std::size_t>(std::min(kAngleBins - 1, static_cast<int>(angle)))] += len * in_band / kBandSamples;
        }
        const double band_area = static_cast<double>(work.total()) - static_cast<double>(work.cols - 2 * bx) * (work.rows - 2 * by);
        cv::Mat table_near;
        cv::bitwise_and(lines_region, ~board_work, table_near);
        const double share = o.table_line_discount * cv::countNonZero(table_near) / std::max(1.0, band_area);
        // Smoothed like the histogram, then the most within kTableTurnDeg: perspective turns a
        // stripe by a few degrees between the frame's edge and the board.
        std::vector<double> predicted(kAngleBins, 0.0);
        for (int i = 0; i < kAngleBins; ++i) {
            for (int k = -6; k <= 6; ++k) {
                predicted[static_cast<std::size_t>(i)] += band[static_cast<std::size_t>(((i + k) % kAngleBins + kAngleBins) % kAngleBins)] *
                                                          std::exp(-0.5 * k * k / (kAngleSmoothDeg * kAngleSmoothDeg));
            }
        }
        for (int i = 0; i < kAngleBins; ++i) {
            double most = 0;
            for (int k = -kTableTurnDeg; k <= kTableTurnDeg; ++k) most = std::max(most, predicted[static_cast<std::size_t>(((i + k) % kAngleBins + kAngleBins) % kAngleBins)]);
            smooth[static_cast<std::size_t>(i)] = std::max(0.0, smooth[static_cast<std::size_t>(i)] - share * most);
        }
    }
    auto circ = [](double a, double b) { return std::abs(std::remainder(a - b, 180.0)); };
    std::vector<cv::Point> pts;
    cv::Mat region_small;
    cv::resize(!cache.extent_work.empty() ? cache.extent_work : colours_fail ? region : board_work, region_small, cv::Size(), 0.25, 0.25, cv::INTER_NEAREST);
    {
        // The board is the big blob(s): specks of table colour far away do not stretch the view.
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(region_small, labels, stats, centroids, 8);
        int largest = 0;
        for (int i = 1; i < n; ++i) largest = std::max(largest, stats.at<int>(i, cv::CC_STAT_AREA));
        for (int y = 0; y < labels.rows; ++y) {
            for (int x = 0; x < labels.cols; ++x) {
                const int l = labels.at<int>(y, x);
                if (l > 0 && stats.at<int>(l, cv::CC_STAT_AREA) >= kKeepComponent * largest) pts.emplace_back(x, y);
            }
        }
    }
    if (pts.empty()) return invalid("lattice", "no board found");
    // Direction families: the strongest peaks of the direction histogram; every pair far
    // enough apart is tried (a table's own lines, like plank seams, can make a peak) and the
    // pair whose lattice folds most sharply wins.
    std::vector<double> peaks;
    {
        auto left = smooth;
        for (int n = 0; n < (o.image_to_table_mm ? kCalibratedDirectionCandidates : kMoreDirectionCandidates); ++n) {
            const auto top = std::max_element(left.begin(), left.end());
            if (*top <= 0) break;
            const int at = static_cast<int>(top - left.begin());
            peaks.push_back(at + 0.5);
            for (int k = -kPeakSuppressDeg; k <= kPeakSuppressDeg; ++k) left[static_cast<std::size_t>(((at + k) % kAngleBins + kAngleBins) % kAngleBins)] = 0;
        }
    }
    struct Attempt {
        cv::Matx33d work_to_affine;
        Period px, py;
        double score = -1;
        bool first = false;  // the pitch pair the fold prefers for its direction pair, folding at least min_lattice_score
        double support = 0;  // the weaker of its two directions' (smoothed, discounted) edge lengths
        cv::Mat pair_board;  // when the colours fail: where its pair's edges lie (work px), else empty
    };
    // Each pair of directions is tried on its own (one per core); their results are merged in
    // pair order, as a sequential loop would make them.
    struct PairResult {
        std::vector<Attempt> attempts;
        std::string failure;  // empty: the pair set no failure
    };
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < peaks.size(); ++i) {
        for (std::size_t j = i + 1; j < peaks.size(); ++j) {
            if (circ(peaks[i], peaks[j]) >= kMinFamilySeparationDeg) pairs.emplace_back(i, j);
        }
    }
    std::vector<PairResult> results(pairs.size());
    auto try_pair = [&](std::size_t i, std::size_t j, PairResult& out) {
        const double dir1 = peaks[i], dir2 = peaks[j];
        std::vector<Segment> fam1, fam2;
        for (const auto& s : segments) {
            if (circ(s.angle, dir1) < o.family_deg) fam1.push_back(s);
            else if (circ(s.angle, dir2) < o.family_deg) fam2.push_back(s);
        }
        if (fam1.size() < 3 || fam2.size() < 3) {
            out.failure = "no board found: too few edges in one direction";
            return;
        }
        std::optional<cv::Matx33d> calibrated;  // work px -> turned table mm
        if (o.image_to_table_mm) {
            if (const auto turned = calibrated_norm_to_axes(*norm_to_table, fam1, fam2)) calibrated = *turned * work_to_norm;
            if (!calibrated) {
                out.failure = "no board found: no two edge directions at right angles on the calibrated table";
                return;
            }
        }
        // Calibrated: the vanishing points of the turned table axes lie at infinity along x and y.
        const cv::Vec3d v1 = calibrated ? cv::Vec3d(1, 0, 0) : vanishing_point(fam1, o);
        const cv::Vec3d v2 = calibrated ? cv::Vec3d(0, 1, 0) : vanishing_point(fam2, o);
        // Affine rectification: send the horizon (through both vanishing points) to infinity.
        cv::Vec3d horizon = v1.cross(v2);
        // The horizon must miss the board: the table under it lies on one side. (A steep view of a
        // table sees the horizon just above the frame, or the wall behind the table inside it.)
        if (!misses_board(horizon, pts, work_to_norm, o.horizon_margin)) {
            out.failure = "no board found: edge directions do not fit a table seen from above";
            return;
        }
        if (std::abs(horizon[2]) <= 1e-9 * std::hypot(horizon[0], horizon[1])) {
            out.failure = "no board found: edge directions do not fit a table seen from above";  // a camera looking level, not down
            return;
        }
        horizon /= horizon[2];
        const cv::Matx33d plain(1, 0, 0, 0, 1, 0, horizon[0], horizon[1], 1);
        const cv::Matx33d hp = calibrated ? plain : level_view(v1, v2, horizon, o.level_tilt_deg).value_or(plain);
        auto direction = [&](const cv::Vec3d& v) {
            const cv::Vec3d d = hp * v;
            const cv::Point2d u(d[0], d[1]);
            return u / cv::norm(u);
        };
        cv::Point2d d1 = direction(v1), d2 = direction(v2);
        if (d1.x * d2.y - d1.y * d2.x < 0) d2 = -d2;
        const cv::Matx22d basis(d1.x, d2.x, d1.y, d2.y);
        const cv::Matx22d to_axes = basis.inv();
        const cv::Matx33d affine(to_axes(0, 0), to_axes(0, 1), 0, to_axes(1, 0), to_axes(1, 1), 0, 0, 0, 1);
        cv::Matx33d work_to_affine = calibrated ? *calibrated : affine * hp * work_to_norm;
        // Fit the board's region into an affine view of about affine_side pixels.
        double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
        for (const auto& p : pts) {
            const cv::Point2d q = apply_homography(work_to_affine, cv::Point2d(p.x * 4.0 + 2, p.y * 4.0 + 2));
            x0 = std::min(x0, q.x), y0 = std::min(y0, q.y), x1 = std::max(x1, q.x), y1 = std::max(y1, q.y);
        }
        if (!std::isfinite(x1 - x0) || !std::isfinite(y1 - y0)) return;  // a point at the horizon
        const double fit = o.affine_side / std::max({x1 - x0, y1 - y0, 1e-9});
        work_to_affine = cv::Matx33d(fit, 0, -x0 * fit, 0, fit, -y0 * fit, 0, 0, 1) * work_to_affine;
        const cv::Size affine_size(static_cast<int>((x1 - x0) * fit) + 1, static_cast<int>((y1 - y0) * fit) + 1);
        if (affine_size.width > kMaxAffineStretch * o.affine_side || affine_size.height > kMaxAffineStretch * o.affine_side) return;
        cv::Mat affine_grey, affine_mask;
        cv::warpPerspective(grey, affine_grey, work_to_affine, affine_size, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        // When the colours cannot tell the board from the table, the gaps are read near this
        // pair's own edges (on a cloth at other angles: the tiles), not over the whole table.
        cv::Mat pair_region = region;
        if (frame.colours_fail && o.pair_region_reach > 0) {
            pair_region = cv::Mat(work.size(), CV_8UC1, cv::Scalar(0));
            const int reach = std::max(1, static_cast<int>(o.pair_region_reach * o.work_side));
            for (const auto* fam : {&fam1, &fam2}) {
                for (const auto& seg : *fam) cv::line(pair_region, seg.from, seg.to, cv::Scalar(255), 2 * reach + 1);
            }
        }
        cv::warpPerspective(pair_region, affine_mask, work_to_affine, affine_size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
        cv::Mat g, dxx, dyy;
        affine_grey.convertTo(g, CV_32F);
        cv::GaussianBlur(g, g, cv::Size(), kBlurSigma);
        cv::Sobel(g, dxx, CV_32F, 2, 0, 3);
        cv::Sobel(g, dyy, CV_32F, 0, 2, 3);
        const auto pitches = find_pitches(valley_profile(dxx, affine_mask, true), valley_profile(dyy, affine_mask, false), o, o.pitch_alternatives);
        bool any = false;
        for (std::size_t k = 0; k < pitches.size(); ++k) {
            const auto& [px, py] = pitches[k];
            const double score = std::min(px.score, py.score);
            if (px.pitch <= 0 || py.pitch <= 0 || score < o.min_candidate_score) continue;
            const bool preferred = k == 0 && score >= o.min_lattice_score && (o.image_to_table_mm || j < static_cast<std::size_t>(kDirectionCandidates));
            out.attempts.push_back({work_to_affine, px, py, score, preferred, std::min(smooth[static_cast<std::size_t>(dir1)], smooth[static_cast<std::size_t>(dir2)]),
                                    frame.colours_fail ? pair_region : cv::Mat()});
            any = any || out.attempts.back().first;
        }
        if (!any) out.failure = "no board found: no periodic gaps between tiles";
    };
    cv::parallel_for_(cv::Range(0, static_cast<int>(pairs.size())), [&](const cv::Range& range) {
        for (int p = range.start; p < range.end; ++p) {
            const auto& [i, j] = pairs[static_cast<std::size_t>(p)];
            try_pair(i, j, results[static_cast<std::size_t>(p)]);
        }
    });
    std::vector<Attempt> attempts;
    std::string failure = "no board found: edges run one way only";
    for (auto& r : results) {
        if (!r.failure.empty()) failure = r.failure;
        attempts.insert(attempts.end(), r.attempts.begin(), r.attempts.end());
    }
    // The lattices the fold prefers come first (sharpest first), then the weaker ones and the
    // other pitches; the reader checks them against the tiles in this order.
    std::stable_sort(attempts.begin(), attempts.end(), [&](const Attempt& l, const Attempt& r) {
        // Without the board's colours a cloth's stripes fold more sharply than the tiles' gaps
        // (a printed pattern repeats exactly): the pair of directions the tiles' edges support
        // best comes first, its pitches in the fold's order.
        if (frame.colours_fail && o.table_line_discount > 0 && l.support != r.support) return l.support > r.support;
        if (l.first != r.first) return l.first;
        return l.score > r.score;
    });
    std::vector<LatticeView> out;
    std::vector<const Attempt*> kept;
    for (const auto& attempt : attempts) {
        if (static_cast<int>(out.size()) >= o.max_candidates) break;
        // Two direction pairs can split the edges into the same two families: the same lattice
        // twice would take the place of another candidate in the reader's checks.
        const bool repeated = std::any_of(kept.begin(), kept.end(), [&](const Attempt* k) {
            return std::abs(k->px.pitch - attempt.px.pitch) < 1e-6 && std::abs(k->py.pitch - attempt.py.pitch) < 1e-6 &&
                   std::abs(k->px.phase - attempt.px.phase) < 1e-6 && std::abs(k->py.phase - attempt.py.phase) < 1e-6 &&
                   cv::norm(k->work_to_affine - attempt.work_to_affine) <= 1e-9 * cv::norm(attempt.work_to_affine);
        });
        if (repeated) continue;
        kept.push_back(&attempt);
        auto built = lattice_view_of(image, o, attempt.work_to_affine, attempt.px, attempt.py, pts, frame, attempt.pair_board);
        if (!built) continue;
        built->score = attempt.score;
        built->strong = attempt.first;
        out.push_back(std::move(built.value()));
    }
    if (out.empty()) return invalid("lattice", failure);
    return out;
}

Result<std::vector<LatticeView>> find_lattices(const cv::Mat& image, const LatticeOptions& o, bool whole_frame, std::shared_ptr<LineSearchCache> cache) {
    if (auto st = o.check(); !st) return st.error();
    if (image.empty() || image.type() != CV_8UC3) return invalid("lattice", "expects a non-empty 8-bit colour image");
    if (!cache) cache = make_line_search_cache();
    auto found = find_lattices_in(image, o, whole_frame, *cache);
    if (found || whole_frame || found.error().kind != ErrorKind::Invalid || o.min_board_segment >= o.min_segment) return found;
    // Small tiles (a far or wide camera) have sides shorter than min_segment and give too few
    // long edges near the board: look again with the tiles' own short sides. (Only then: on
    // other boards the short edges of roads and the table add wrong direction pairs.)
    LatticeOptions shorter = o;
    shorter.min_segment = o.min_board_segment;
    auto again = find_lattices_in(image, shorter, false, *cache);
    return again ? again : found;
}

Result<std::vector<LatticeView>> find_lattices_within(const cv::Mat& image, const LatticeOptions& o, const cv::Mat& board, const cv::Mat& not_table,
                                                      std::shared_ptr<LineSearchCache> cache) {
    if (auto st = o.check(); !st) return st.error();
    if (image.empty() || image.type() != CV_8UC3) return invalid("lattice", "expects a non-empty 8-bit colour image");
    if (board.size() != image.size() || board.type() != CV_8UC1) return invalid("lattice", "expects a board mask of the image's size");
    if (!not_table.empty() && (not_table.size() != image.size() || not_table.type() != CV_8UC1)) return invalid("lattice", "expects a table mask of the image's size");
    if (!cache) cache = make_line_search_cache();
    if (!cache->holds(image, o)) cache->fill(image, o);
    // A copy of the frame's search with `board` as its board: the segments and the work image
    // are shared, the board (where edges vote and gaps are read) is the mask's.
    LineSearchCache within = *cache;
    within.board_work = cv::Mat();  // new images: the cache's are shared
    cv::resize(board, within.board_work, within.work.size(), 0, 0, cv::INTER_NEAREST);
    if (cv::countNonZero(within.board_work) == 0) return invalid("lattice", "no board found");
    // The table mask, and the board the view covers, stay the colours' where they told a board;
    // else they are `not_table` (or `board`).
    within.extent_work = cache->board_work;
    if (cv::countNonZero(cache->board_work) < o.min_board_share * static_cast<double>(cache->board_work.total())) {
        const cv::Size small = within.mask_small.size();
        within.mask_small = cv::Mat();
        cv::resize(not_table.empty() ? board : not_table, within.mask_small, small, 0, 0, cv::INTER_AREA);
        cv::threshold(within.mask_small, within.mask_small, 127, 255, cv::THRESH_BINARY);
        within.extent_work = cv::Mat();
        cv::resize(within.mask_small, within.extent_work, within.work.size(), 0, 0, cv::INTER_NEAREST);
    }
    return find_lattices_in(image, o, false, within);
}

Result<LatticeView> find_lattice(const cv::Mat& image, const LatticeOptions& o) {
    // The sharpest fold of the preferred pitches, as before the reader checked candidates.
    auto first_strong = [&](bool whole) -> Result<LatticeView> {
        auto found = find_lattices(image, o, whole);
        if (!found) return found.error();
        if (!found->front().strong) return invalid("lattice", "no board found: no periodic gaps between tiles");
        return std::move(found->front());
    };
    auto near_board = first_strong(false);
    if (near_board || near_board.error().kind != ErrorKind::Invalid) return near_board;
    // The table's colours can hide the board (tiles like wood): look at the whole frame.
    auto whole = first_strong(true);
    return whole ? whole : near_board;
}

cv::Rect board_bounds(const cv::Mat& image, const LatticeOptions& o) {
    if (image.empty() || image.type() != CV_8UC3 || !o.check()) return {};
    // The same colours find_lattices reads the board from: the frame at work_side, its mask at mask_side.
    const double work_scale = std::min(1.0, static_cast<double>(o.work_side) / std::max(image.cols, image.rows));
    const double scale = work_scale * std::min(1.0, static_cast<double>(o.mask_side) / (std::max(image.cols, image.rows) * work_scale));
    cv::Mat small;
    cv::resize(image, small, cv::Size(std::max(1, static_cast<int>(image.cols * scale)), std::max(1, static_cast<int>(image.rows * scale))), 0, 0,
               cv::INTER_AREA);
    const cv::Mat mask = not_table_mask(small, o.border_band, o.not_table_ratio, o.table_lightness_reach, o.table_share_of_median);
    if (cv::countNonZero(mask) < o.min_board_share * static_cast<double>(mask.total())) return {};
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8);
    int largest = 0;
    for (int i = 1; i < n; ++i) largest = std::max(largest, stats.at<int>(i, cv::CC_STAT_AREA));
    cv::Rect box;
    for (int i = 1; i < n; ++i) {
        if (stats.at<int>(i, cv::CC_STAT_AREA) < kKeepComponent * largest) continue;
        const cv::Rect blob(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP), stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
        box = box.area() == 0 ? blob : (box | blob);
    }
    if (box.area() == 0) return {};
    const double sx = static_cast<double>(image.cols) / small.cols, sy = static_cast<double>(image.rows) / small.rows;
    const cv::Rect out(static_cast<int>(std::floor(box.x * sx)), static_cast<int>(std::floor(box.y * sy)), static_cast<int>(std::ceil(box.width * sx)),
                       static_cast<int>(std::ceil(box.height * sy)));
    return out & cv::Rect(0, 0, image.cols, image.rows);
}

std::vector<CellObservation> occupied_cells(const LatticeView& view, const LatticeOptions& o) {
    std::vector<CellObservation> cells;
    if (view.not_table.empty()) return cells;
    // Each cell's inset square is counted on its own (they do not overlap): the same counts as
    // an integral image's, without one the size of the view (this runs several times a check).
    const cv::Mat& mask = view.not_table;
    cv::Mat sum;
    if (mask.type() != CV_8UC1) cv::integral(mask / 255, sum, CV_64F);
    const auto count = [&](int xa, int xb, int ya, int yb) {
        if (!sum.empty()) return sum.at<double>(yb, xb) - sum.at<double>(ya, xb) - sum.at<double>(yb, xa) + sum.at<double>(ya, xa);
        int n = 0;  // pixels that `mask / 255` rounds to 1
        for (int y = ya; y < yb; ++y) {
            const auto* m = mask.ptr<std::uint8_t>(y);
            for (int x = xa; x < xb; ++x) n += m[x] >= 128;
        }
        return static_cast<double>(n);
    };
    const double p = view.pitch_px, inset = o.cell_inset * p;
    for (int r = 0; r < view.rows; ++r) {
        for (int c = 0; c < view.cols; ++c) {
            const int xa = std::clamp(static_cast<int>(std::lround(c * p + inset)), 0, view.not_table.cols);
            const int xb = std::clamp(static_cast<int>(std::lround((c + 1) * p - inset)), 0, view.not_table.cols);
            const int ya = std::clamp(static_cast<int>(std::lround(r * p + inset)), 0, view.not_table.rows);
            const int yb = std::clamp(static_cast<int>(std::lround((r + 1) * p - inset)), 0, view.not_table.rows);
            if (xb <= xa || yb <= ya) continue;
            const double n = count(xa, xb, ya, yb);
            const double share = n / ((xb - xa) * (yb - ya));
            if (share >= o.occupied_share) cells.push_back({c, r, share});
        }
    }
    return largest_group(std::move(cells));
}

std::vector<CellObservation> largest_group(std::vector<CellObservation> cells) {
    std::map<std::pair<int, int>, std::size_t> at;
    for (std::size_t i = 0; i < cells.size(); ++i) at[{cells[i].col, cells[i].row}] = i;
    // Tiles of a board touch: keep the largest 4-connected group.
    std::vector<int> group(cells.size(), -1);
    std::map<int, std::size_t> sizes;
    std::size_t best_size = 0;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (group[i] >= 0) continue;
        const int g = static_cast<int>(i);
        std::queue<std::size_t> todo;
        todo.push(i);
        group[i] = g;
        std::size_t size = 0;
        while (!todo.empty()) {
            const auto k = todo.front();
            todo.pop();
            ++size;
            for (const auto& [dc, dr] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) {
                const auto it = at.find({cells[k].col + dc, cells[k].row + dr});
                if (it != at.end() && group[it->second] < 0) group[it->second] = g, todo.push(it->second);
            }
        }
        sizes[g] = size;
        best_size = std::max(best_size, size);
    }
    std::vector<CellObservation> out;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const std::size_t size = sizes[group[i]];
        if (size == best_size || (size >= kMinSideGroup && static_cast<double>(size) >= kSideGroupShare * static_cast<double>(best_size))) out.push_back(cells[i]);
    }
    return out;
}

}  // namespace meeplecam::vision
