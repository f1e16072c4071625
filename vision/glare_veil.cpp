// Stage 0b of the board reader: a glare veil measured on the frame and lifted off it
// (vision/glare_veil.h).
#include "vision/glare_veil.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

namespace meeplecam::vision {

Status VeilOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("veil options", what)); };
    if (work_side < 64 || work_side > 4096) return bad("work_side must be within [64, 4096]");
    if (block_px < 4 || block_px > work_side / 4) return bad("block_px must be within [4, work_side / 4]");
    if (!(dark_quantile > 0 && dark_quantile < 1)) return bad("dark_quantile must be within (0, 1)");
    if (!(common_quantile > 0 && common_quantile < 1)) return bad("common_quantile must be within (0, 1)");
    if (!(colour_reach > 0)) return bad("colour_reach must be positive");
    if (!(min_common_dark >= 1 && min_common_dark < 255)) return bad("min_common_dark must be within [1, 255)");
    if (min_alike_blocks < 1) return bad("min_alike_blocks must be at least 1");
    if (!(smooth_blocks >= 0 && smooth_blocks <= 20)) return bad("smooth_blocks must be within [0, 20]");
    if (!(max_veil >= 0 && max_veil < 1)) return bad("max_veil must be within [0, 1)");
    if (!(min_peak >= 0 && min_peak <= 1)) return bad("min_peak must be within [0, 1]");
    if (!(min_spot_blocks > 0 && max_spot_blocks >= min_spot_blocks && max_spot_blocks <= 50)) return bad("spot sizes must satisfy 0 < min_spot_blocks <= max_spot_blocks <= 50");
    if (!(max_ring_share >= 0 && max_ring_share <= 1)) return bad("max_ring_share must be within [0, 1]");
    if (min_ring_quarters < 0 || min_ring_quarters > 4) return bad("min_ring_quarters must be within [0, 4]");
    return Ok{};
}

namespace {

constexpr double kWhiteDamping = 8;  // added to the distance to white in the colour measure (sensor noise on near-white pixels)
constexpr std::size_t kSpotCentresTried = 60;  // blocks of highest smoothed veil a spot's centre is searched on

// The q-quantile of a list of byte values (the list is reordered).
double quantile_of(std::vector<std::uint8_t>& values, double q) {
    if (values.empty()) return 0;
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(std::min(values.size() - 1, static_cast<std::size_t>(q * static_cast<double>(values.size()))));
    std::nth_element(values.begin(), at, values.end());
    return *at;
}

// What one block of the frame shows, measured so glare does not change it: its dark level
// (the `q`-quantile of 255 minus the brightest channel: glare shrinks it by (1 - s)) and its
// colour (the mean opponent chroma R - G, (R + G) / 2 - B over the distance to white of the
// darkest channel: glare shrinks both by the same factor, so their ratio is its own).
struct Block {
    double dark = 0;
    cv::Point2d colour;
};

std::vector<Block> measure_blocks(const cv::Mat& work, int bw, int bh, double q) {
    std::vector<Block> blocks(static_cast<std::size_t>(bw * bh));
    std::vector<std::uint8_t> values;
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            values.clear();
            cv::Point2d colour(0, 0);
            const int x0 = bx * work.cols / bw, x1 = (bx + 1) * work.cols / bw, y0 = by * work.rows / bh, y1 = (by + 1) * work.rows / bh;
            for (int y = y0; y < y1; ++y) {
                const auto* px = work.ptr<cv::Vec3b>(y);
                for (int x = x0; x < x1; ++x) {
                    const int b = px[x][0], g = px[x][1], r = px[x][2];
                    values.push_back(static_cast<std::uint8_t>(255 - std::max({b, g, r})));
                    const double to_white = 255 - std::min({b, g, r}) + kWhiteDamping;
                    colour += cv::Point2d((r - g) / to_white, ((r + g) / 2.0 - b) / to_white);
                }
            }
            auto& block = blocks[static_cast<std::size_t>(by * bw + bx)];
            block.dark = quantile_of(values, q);
            block.colour = colour / std::max(1, (x1 - x0) * (y1 - y0));
        }
    }
    return blocks;
}

}  // namespace

namespace {

// The frame shrunk to the work size, and its block grid.
struct WorkFrame {
    cv::Mat work;
    int bw = 0, bh = 0;
};

std::optional<WorkFrame> shrink_to_work(const cv::Mat& bgr, const VeilOptions& o) {
    if (bgr.empty() || bgr.type() != CV_8UC3 || !o.check()) return std::nullopt;
    WorkFrame w;
    const double scale = std::min(1.0, static_cast<double>(o.work_side) / std::max(bgr.cols, bgr.rows));
    cv::resize(bgr, w.work, cv::Size(), scale, scale, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    if (w.work.cols < 2 * o.block_px || w.work.rows < 2 * o.block_px) return std::nullopt;
    w.bw = std::max(1, w.work.cols / o.block_px);
    w.bh = std::max(1, w.work.rows / o.block_px);
    return w;
}

// The veil per block (CV_32FC1, bh x bw): how far its dark level fell below the common dark
// level of the blocks of its colour (a white table is compared with the table, the tiles' art
// with the art), 1 - dark / common, at most max_veil and at least -1 (darker than its kind);
// `seen` (CV_8UC1) marks the blocks that have such a reference level.
void measure_block_veils(const WorkFrame& w, const VeilOptions& o, cv::Mat& veil, cv::Mat& seen) {
    const auto blocks = measure_blocks(w.work, w.bw, w.bh, o.dark_quantile);
    veil = cv::Mat(w.bh, w.bw, CV_32FC1, cv::Scalar(0));
    seen = cv::Mat(w.bh, w.bw, CV_8UC1, cv::Scalar(0));
    std::vector<std::uint8_t> alike;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        alike.clear();
        for (const auto& other : blocks) {
            if (cv::norm(other.colour - blocks[i].colour) <= o.colour_reach) alike.push_back(static_cast<std::uint8_t>(other.dark));
        }
        if (static_cast<int>(alike.size()) < o.min_alike_blocks) continue;
        const double common = quantile_of(alike, o.common_quantile);
        if (common < o.min_common_dark) continue;  // a light plain table: a gradient across it would pass for a veil
        const int by = static_cast<int>(i) / w.bw, bx = static_cast<int>(i) % w.bw;
        veil.at<float>(by, bx) = static_cast<float>(std::clamp(1.0 - blocks[i].dark / common, -1.0, o.max_veil));
        seen.at<std::uint8_t>(by, bx) = 1;
    }
}

// One spot shape in block units: centre, short-axis sigma, stretch of the long axis, angle.
struct SpotShape {
    cv::Point2d centre;
    double sigma = 1, stretch = 1, angle = 0;
    double ca = 1, sa = 0, k = 0.5;  // cos and sin of the angle, 1 / (2 sigma^2)
    SpotShape(cv::Point2d c, double s, double st, double a)
        : centre(c), sigma(s), stretch(st), angle(a), ca(std::cos(a)), sa(std::sin(a)), k(1.0 / (2 * s * s)) {}
    double at(cv::Point2d p) const {
        const cv::Point2d g = p - centre;
        const double u = (g.x * ca + g.y * sa) / stretch, v = -g.x * sa + g.y * ca;
        return std::exp(-(u * u + v * v) * k);
    }
};

struct SpotFit {
    SpotShape shape{{0, 0}, 1, 1, 0};
    double strength = 0, gain = -1;  // gain: the squared error the spot removes from the block veils
};

// Fits the strength of one shape to the seen block veils by least squares (within [0, max]).
SpotFit fit_strength(const SpotShape& shape, const cv::Mat& veil, const cv::Mat& seen, double max_strength) {
    double gy = 0, gg = 0;
    const double reach = 3.5 * shape.sigma * shape.stretch;
    const int x0 = std::max(0, static_cast<int>(shape.centre.x - reach)), x1 = std::min(veil.cols - 1, static_cast<int>(shape.centre.x + reach));
    const int y0 = std::max(0, static_cast<int>(shape.centre.y - reach)), y1 = std::min(veil.rows - 1, static_cast<int>(shape.centre.y + reach));
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            if (!seen.at<std::uint8_t>(y, x)) continue;
            const double g = shape.at({x + 0.5, y + 0.5});
            gy += g * veil.at<float>(y, x);
            gg += g * g;
        }
    }
    SpotFit f{shape, 0, 0};
    if (gg <= 0) return f;
    f.strength = std::clamp(gy / gg, 0.0, max_strength);
    f.gain = 2 * f.strength * gy - f.strength * f.strength * gg;
    return f;
}

// Searches the spot that removes most of the block veils' squared error: first round spots
// of every size centred on every block, then the best few turned and stretched.
SpotFit search_spot(const cv::Mat& veil, const cv::Mat& seen, const VeilOptions& o) {
    std::vector<double> sizes;
    for (double s = o.min_spot_blocks; s <= o.max_spot_blocks * 1.0001; s *= 1.33) sizes.push_back(s);
    // Round spots are centred on the blocks where the smoothed veil is highest (a spot's centre
    // lies in its brightest part).
    cv::Mat smooth;
    veil.copyTo(smooth);
    smooth.setTo(0, seen == 0);
    cv::max(smooth, 0.0, smooth);
    cv::GaussianBlur(smooth, smooth, cv::Size(), o.min_spot_blocks, o.min_spot_blocks, cv::BORDER_REPLICATE);
    std::vector<std::pair<float, cv::Point>> centres;
    for (int y = 0; y < veil.rows; ++y) {
        for (int x = 0; x < veil.cols; ++x) centres.push_back({smooth.at<float>(y, x), {x, y}});
    }
    const std::size_t tried = std::min<std::size_t>(kSpotCentresTried, centres.size());
    std::partial_sort(centres.begin(), centres.begin() + static_cast<std::ptrdiff_t>(tried), centres.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<SpotFit> round;
    for (std::size_t i = 0; i < tried; ++i) {
        const cv::Point2d c(centres[i].second.x + 0.5, centres[i].second.y + 0.5);
        for (const double s : sizes) round.push_back(fit_strength({c, s, 1, 0}, veil, seen, o.max_veil));
    }
    const std::size_t keep = std::min<std::size_t>(6, round.size());
    std::partial_sort(round.begin(), round.begin() + static_cast<std::ptrdiff_t>(keep), round.end(),
                      [](const SpotFit& a, const SpotFit& b) { return a.gain > b.gain; });
    SpotFit best = round.empty() ? SpotFit{} : round.front();
    for (std::size_t k = 0; k < keep; ++k) {
        const SpotShape base = round[k].shape;
        for (const double dx : {-0.5, 0.0, 0.5}) {
            for (const double dy : {-0.5, 0.0, 0.5}) {
                for (const double stretch : {1.0, 1.5, 2.0}) {
                    for (int a = 0; a < (stretch > 1 ? 4 : 1); ++a) {
                        for (const double grow : {0.85, 1.0}) {
                            SpotShape shape{base.centre + cv::Point2d(dx, dy), base.sigma * grow, stretch, a * std::acos(-1.0) / 4};
                            const SpotFit f = fit_strength(shape, veil, seen, o.max_veil);
                            if (f.gain > best.gain) best = f;
                        }
                    }
                }
            }
        }
    }
    return best;
}

// Measures how the veil falls off around a fitted spot: the mean veil of each quarter of the
// ring where the spot is 5-25 % of its peak, over the spot's strength (the highest quarter),
// and how many quarters hold seen blocks.
void measure_ring(const SpotFit& fit, const cv::Mat& veil, const cv::Mat& seen, double& worst_share, int& quarters) {
    double sum[4] = {0, 0, 0, 0};
    int count[4] = {0, 0, 0, 0};
    for (int y = 0; y < veil.rows; ++y) {
        for (int x = 0; x < veil.cols; ++x) {
            if (!seen.at<std::uint8_t>(y, x)) continue;
            const cv::Point2d p(x + 0.5, y + 0.5);
            const double g = fit.shape.at(p);
            if (g < 0.05 || g > 0.25) continue;
            const cv::Point2d d = p - fit.shape.centre;
            const double turn = std::atan2(d.y, d.x) + std::acos(-1.0) / 4;
            const int q = (static_cast<int>(std::floor(turn / (std::acos(-1.0) / 2))) % 4 + 4) % 4;
            sum[q] += veil.at<float>(y, x);
            ++count[q];
        }
    }
    worst_share = 0;
    quarters = 0;
    for (int q = 0; q < 4; ++q) {
        if (count[q] < 2) continue;
        ++quarters;
        worst_share = std::max(worst_share, sum[q] / count[q] / std::max(1e-6, fit.strength));
    }
}

}  // namespace

double GlareSpot::share_at(cv::Point2d p) const {
    if (strength <= 0 || sigma_px <= 0) return 0;
    const SpotShape shape{centre_px, sigma_px, stretch, angle_rad};
    return strength * shape.at(p);
}

namespace {

// The spot fitted to measured block veils, in frame pixels, with its tests.
GlareSpot fit_spot(const WorkFrame& w, const cv::Mat& veil, const cv::Mat& seen, cv::Size frame, const VeilOptions& o) {
    GlareSpot spot;
    const SpotFit fit = search_spot(veil, seen, o);
    if (fit.strength <= 0) return spot;
    measure_ring(fit, veil, seen, spot.ring_share, spot.ring_quarters);
    // Block units to frame pixels (blocks are near square: one scale for the sizes).
    const double sx = static_cast<double>(frame.width) / w.bw, sy = static_cast<double>(frame.height) / w.bh;
    spot.centre_px = {fit.shape.centre.x * sx - 0.5, fit.shape.centre.y * sy - 0.5};
    spot.sigma_px = fit.shape.sigma * std::sqrt(sx * sy);
    spot.stretch = fit.shape.stretch;
    spot.angle_rad = fit.shape.angle;
    spot.strength = fit.strength;
    spot.found = spot.strength >= o.min_peak && spot.ring_quarters >= o.min_ring_quarters && spot.ring_share <= o.max_ring_share;
    return spot;
}

}  // namespace

GlareSpot fit_glare_spot(const cv::Mat& bgr, const VeilOptions& o) {
    const auto w = shrink_to_work(bgr, o);
    if (!w) return {};
    cv::Mat veil, seen;
    measure_block_veils(*w, o, veil, seen);
    return fit_spot(*w, veil, seen, bgr.size(), o);
}

cv::Mat estimate_glare_veil(const cv::Mat& bgr, const VeilOptions& o) {
    const auto w = shrink_to_work(bgr, o);
    if (!w) return {};
    cv::Mat veil, seen;
    measure_block_veils(*w, o, veil, seen);
    cv::Mat map;
    if (o.spot_only) {
        // Only the fitted spot is lifted: smooth, so drawn at a sixteenth of the frame.
        const GlareSpot spot = fit_spot(*w, veil, seen, bgr.size(), o);
        if (!spot.found) return {};
        map.create(std::max(4, bgr.rows / 16), std::max(4, bgr.cols / 16), CV_32FC1);
        for (int y = 0; y < map.rows; ++y) {
            for (int x = 0; x < map.cols; ++x) {
                map.at<float>(y, x) = static_cast<float>(spot.share_at({(x + 0.5) * bgr.cols / map.cols - 0.5, (y + 0.5) * bgr.rows / map.rows - 0.5}));
            }
        }
    } else {
        cv::max(veil, 0.0, map);  // only glare is lifted: a block darker than its kind keeps its colours
        if (o.smooth_blocks > 0) cv::GaussianBlur(map, map, cv::Size(), o.smooth_blocks, o.smooth_blocks, cv::BORDER_REPLICATE);
        double peak = 0;
        cv::minMaxLoc(map, nullptr, &peak);
        if (peak < o.min_peak) return {};
    }
    cv::Mat full;
    cv::resize(map, full, bgr.size(), 0, 0, cv::INTER_LINEAR);
    return full;
}

bool lift_glare_veil(cv::Mat& bgr, const VeilOptions& o) {
    const cv::Mat veil = estimate_glare_veil(bgr, o);
    if (veil.empty()) return false;
    lift_veil(bgr, veil);
    return true;
}

void lift_veil(cv::Mat& bgr, const cv::Mat& veil) {
    if (veil.empty() || veil.size() != bgr.size() || veil.type() != CV_32FC1 || bgr.type() != CV_8UC3) return;
    // The rows are split over the cores.
    cv::parallel_for_(cv::Range(0, bgr.rows), [&](const cv::Range& rows) {
        for (int y = rows.start; y < rows.end; ++y) {
            auto* px = bgr.ptr<std::uint8_t>(y);
            const auto* s = veil.ptr<float>(y);
            for (int x = 0; x < bgr.cols; ++x) {
                if (s[x] <= 0) continue;
                const float k = 1.0f / (1.0f - s[x]);
                for (int ch = 0; ch < 3; ++ch) {
                    const float v = 255.0f - (255.0f - static_cast<float>(px[3 * x + ch])) * k + 0.5f;
                    px[3 * x + ch] = static_cast<std::uint8_t>(std::clamp(v, 0.0f, 255.0f));
                }
            }
        }
    });
}

}  // namespace meeplecam::vision
