// Stage 5 of the vision pipeline: followers on the read board (see piece_detector.h).
#include "vision/piece_detector.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <bit>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include <opencv2/imgproc.hpp>

#include "vision/glare_veil.h"
#include "vision/table_renderer.h"
#include "vision/homography.h"
#include "vision/tile_art.h"

namespace meeplecam::vision {
namespace {

constexpr int kNoTile = -2;       // label of a top-view pixel outside every decoded tile
constexpr int kDecorationTerrain = 8;  // terrain index of decorations (after the 8 FeatureKind values)
constexpr int kTableTerrain = 9;       // terrain index of the table (around the board and in the gaps)
constexpr int kTerrainKinds = 10;

double hue_distance_deg(double a, double b) {
    double d = std::fmod(std::abs(a - b), 360.0);
    return d > 180 ? 360 - d : d;
}

// True when a Lab pixel could be a face of a piece of colour `m` (lit or in shade).
bool passes_gate(const ColourModel& m, const cv::Vec3f& lab) {
    const double chroma = std::hypot(lab[1], lab[2]);
    if (lab[0] < m.min_l || lab[0] > m.max_l) return false;
    if (m.achromatic) return chroma <= m.max_chroma;
    if (chroma < m.min_chroma) return false;
    const double hue = std::atan2(lab[2], lab[1]) * 180 / kPi, want = std::atan2(m.lab[2], m.lab[1]) * 180 / kPi;
    return hue_distance_deg(hue, want) <= m.hue_tolerance_deg;
}

// How far a Lab pixel is from a colour model's mean, in rough tolerance units (for confidence).
double gate_distance(const ColourModel& m, const cv::Vec3f& lab) {
    if (m.achromatic) return std::hypot(lab[1], lab[2]) / std::max(1.0, m.max_chroma);
    const double hue = std::atan2(lab[2], lab[1]) * 180 / kPi, want = std::atan2(m.lab[2], m.lab[1]) * 180 / kPi;
    return hue_distance_deg(hue, want) / std::max(1.0, m.hue_tolerance_deg);
}

// How far a Lab pixel is from a piece colour, in Lab units along (a, b): the arc between its
// hue and the model's at its own chroma (shading keeps the hue), or its chroma for black and grey.
double piece_distance(const ColourModel& m, const cv::Vec3f& lab) {
    const double chroma = std::hypot(lab[1], lab[2]);
    if (m.achromatic) return chroma;
    const double hue = std::atan2(lab[2], lab[1]) * 180 / kPi, want = std::atan2(m.lab[2], m.lab[1]) * 180 / kPi;
    return chroma * hue_distance_deg(hue, want) * kPi / 180 + std::max(0.0, m.min_chroma - chroma);
}

// The colours a terrain shows in this frame: k-means clusters of its pixels with their
// spread; only the common ones (a share of the terrain) explain a pixel.
struct TerrainColours {
    std::vector<cv::Vec3f> centres, spreads;
    std::vector<double> shares;
};

TerrainColours learn_terrain(const std::vector<cv::Vec3f>& samples) {
    TerrainColours t;
    if (samples.size() < 50) return t;
    cv::Mat data(static_cast<int>(samples.size()), 3, CV_32F);
    for (std::size_t i = 0; i < samples.size(); ++i) {
        for (int c = 0; c < 3; ++c) data.at<float>(static_cast<int>(i), c) = samples[i][c];
    }
    const int k = std::min(5, static_cast<int>(samples.size() / 20));
    cv::Mat labels, centres;
    cv::setRNGSeed(11);
    cv::kmeans(data, k, labels, cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 20, 0.1), 2, cv::KMEANS_PP_CENTERS,
               centres);
    std::vector<cv::Vec3d> sum2(static_cast<std::size_t>(k), cv::Vec3d(0, 0, 0));
    std::vector<int> count(static_cast<std::size_t>(k), 0);
    for (int i = 0; i < data.rows; ++i) {
        const int l = labels.at<int>(i);
        ++count[static_cast<std::size_t>(l)];
        for (int c = 0; c < 3; ++c) {
            const double d = data.at<float>(i, c) - centres.at<float>(l, c);
            sum2[static_cast<std::size_t>(l)][c] += d * d;
        }
    }
    for (int l = 0; l < k; ++l) {
        const auto n = static_cast<std::size_t>(l);
        if (count[n] == 0) continue;
        cv::Vec3f spread;
        const std::array<float, 3> floor = {4.0f, 3.0f, 3.0f};
        for (int c = 0; c < 3; ++c) {
            spread[c] = std::max(floor[static_cast<std::size_t>(c)], static_cast<float>(std::sqrt(sum2[n][c] / count[n])));
        }
        t.centres.emplace_back(centres.at<float>(l, 0), centres.at<float>(l, 1), centres.at<float>(l, 2));
        t.spreads.push_back(spread);
        t.shares.push_back(static_cast<double>(count[n]) / data.rows);
    }
    return t;
}

// Distance (Lab units, lightness counted a quarter: shading) from a pixel to the nearest
// common colour of a terrain. With `grey_chroma` set, colours of at most that chroma (a grey
// road) count lightness `grey_lightness_weight` instead (nothing else tells grey from grey).
double terrain_distance(const TerrainColours& t, const cv::Vec3f& lab, double min_share, double lightness_weight = 0.25, double grey_chroma = -1,
                        double grey_lightness_weight = 0.25) {
    double best = 1e9;
    for (std::size_t i = 0; i < t.centres.size(); ++i) {
        if (t.shares[i] < min_share) continue;
        const bool grey = std::hypot(t.centres[i][1], t.centres[i][2]) <= grey_chroma;
        const double dl = (lab[0] - t.centres[i][0]) * (grey ? grey_lightness_weight : lightness_weight), da = lab[1] - t.centres[i][1],
                     db = lab[2] - t.centres[i][2];
        best = std::min(best, std::sqrt(dl * dl + da * da + db * db));
    }
    return best;
}

// Where the camera is, on the plane of `image_to_plane` (mm): its foot point and height.
struct CameraFoot {
    cv::Point2d foot_mm;
    double height_mm = 0;
    double focal_px = 0;
};

CameraFoot camera_foot(const cv::Matx33d& image_to_plane, cv::Size image_size, double default_fov_deg) {
    const cv::Matx33d shift(1, 0, -(image_size.width - 1) / 2.0, 0, 1, -(image_size.height - 1) / 2.0, 0, 0, 1);
    const cv::Matx33d a = shift * image_to_plane.inv();  // plane mm -> centred pixels
    const cv::Vec3d h1(a(0, 0), a(1, 0), a(2, 0)), h2(a(0, 1), a(1, 1), a(2, 1));
    // Orthogonal, equal-length columns of K^-1 H (square pixels, principal point at the centre).
    std::vector<double> f2;
    const double d1 = h1[2] * h2[2];
    if (std::abs(d1) > 1e-12) {
        const double v = -(h1[0] * h2[0] + h1[1] * h2[1]) / d1;
        if (v > 0) f2.push_back(v);
    }
    const double d2 = h1[2] * h1[2] - h2[2] * h2[2];
    if (std::abs(d2) > 1e-12) {
        const double v = (h2[0] * h2[0] + h2[1] * h2[1] - h1[0] * h1[0] - h1[1] * h1[1]) / d2;
        if (v > 0) f2.push_back(v);
    }
    const double fallback = (image_size.width / 2.0) / std::tan(default_fov_deg * kPi / 360);
    double f = fallback;
    if (!f2.empty()) {
        double s = 0;
        for (double v : f2) s += std::sqrt(v);
        f = s / static_cast<double>(f2.size());
        if (!(f > 0.3 * fallback && f < 3 * fallback)) f = fallback;  // ill-conditioned (a camera looking straight down)
    }
    const cv::Matx33d k_inv(1 / f, 0, 0, 0, 1 / f, 0, 0, 0, 1);
    const cv::Matx33d b = k_inv * a;
    cv::Vec3d r1(b(0, 0), b(1, 0), b(2, 0)), r2(b(0, 1), b(1, 1), b(2, 1)), t(b(0, 2), b(1, 2), b(2, 2));
    const double scale = (cv::norm(r1) + cv::norm(r2)) / 2;
    r1 *= 1 / cv::norm(r1);
    r2 *= 1 / cv::norm(r2);
    t *= 1 / scale;
    if (t[2] < 0) r1 = -r1, r2 = -r2, t = -t;  // the plane lies in front of the camera
    const cv::Vec3d r3 = r1.cross(r2);
    const cv::Matx33d rot(r1[0], r2[0], r3[0], r1[1], r2[1], r3[1], r1[2], r2[2], r3[2]);
    const cv::Vec3d centre = -(rot.t() * t);
    return {cv::Point2d(centre[0], centre[1]), std::abs(centre[2]), f};
}

// A meeple pose matched against a blob: standing with its feet at `base_mm`, or lying with the
// middle of its body over it, turned by `yaw`; `iou` is how well its silhouette covers the blob.
struct SilhouetteFit {
    double iou = 0;
    double yaw = 0;
    cv::Point2d base_mm;
};

// Draws into `mask` (pixels at `px_per_mm`, `origin_mm` at its top-left corner) the top-view
// silhouette of a meeple `h` mm high: its slab's every face, each corner projected onto the
// plane along the ray from the camera (a point z mm over the plane moves away from the foot
// point by z / (zc - z) of its distance: the smear of a standing piece).
void draw_meeple_top(cv::Mat& mask, cv::Point2d origin_mm, double px_per_mm, const CameraFoot& foot, double h, bool lying, double yaw,
                     cv::Point2d base_mm) {
    const double zc = std::max(foot.height_mm, 2 * h), half = 0.5 * kMeepleThickness * h;
    const cv::Vec3d across(std::cos(yaw), std::sin(yaw), 0), depth(-std::sin(yaw), std::cos(yaw), 0), up(0, 0, 1);
    const cv::Vec3d ox = across, oy = lying ? depth : up, oz = lying ? up : depth;
    const cv::Vec3d base(base_mm.x, base_mm.y, 0);
    const cv::Vec3d origin = lying ? base - depth * (0.5 * h) + up * half : base;
    constexpr int kShift = 3;
    auto project = [&](const cv::Point2d& p, double d) {
        const cv::Vec3d w = origin + ox * (p.x * h) + oy * (p.y * h) + oz * d;
        const cv::Point2d xy(w[0], w[1]);
        const cv::Point2d q = foot.foot_mm + (xy - foot.foot_mm) * (zc / std::max(1e-3, zc - w[2]));
        const cv::Point2d px = (q - origin_mm) * px_per_mm * static_cast<double>(1 << kShift);
        return cv::Point(static_cast<int>(std::lround(px.x)), static_cast<int>(std::lround(px.y)));
    };
    const auto& outline = meeple_outline();
    std::vector<std::vector<cv::Point>> faces(2);
    for (const auto& p : outline) {
        faces[0].push_back(project(p, half));
        faces[1].push_back(project(p, -half));
    }
    for (std::size_t i = 0; i < outline.size(); ++i) {
        const auto& a = outline[i];
        const auto& b = outline[(i + 1) % outline.size()];
        faces.push_back({project(a, half), project(b, half), project(b, -half), project(a, -half)});
    }
    for (const auto& f : faces) cv::fillConvexPoly(mask, f, cv::Scalar(255), cv::LINE_8, kShift);
    // (front and back faces are not convex: fill them whole)
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{faces[0], faces[1]}, cv::Scalar(255), cv::LINE_8, kShift);
}

// Matches a blob (`blob`, CV_8UC1, its top-left pixel at `blob_origin_mm` on the plane at
// `px_per_mm`) against a meeple's silhouette, standing or lying, over `yaws` turns (a half turn
// for standing: its slab looks the same from behind): each silhouette is moved so that its
// centroid meets the blob's, then nudged a pixel either way; the best overlap (intersection over union).
SilhouetteFit fit_silhouette(const cv::Mat& blob, cv::Point2d blob_origin_mm, double px_per_mm, const CameraFoot& foot, double h, bool lying,
                             int yaws) {
    const int pad = static_cast<int>(std::ceil(0.8 * h * px_per_mm));
    cv::Mat target(blob.rows + 2 * pad, blob.cols + 2 * pad, CV_8UC1, cv::Scalar(0));
    blob.copyTo(target(cv::Rect(pad, pad, blob.cols, blob.rows)));
    const cv::Point2d origin_mm = blob_origin_mm - cv::Point2d(pad, pad) * (1.0 / px_per_mm);
    const cv::Moments mb = cv::moments(target, true);
    if (mb.m00 <= 0) return {};
    const cv::Point2d centroid_px(mb.m10 / mb.m00, mb.m01 / mb.m00);
    const cv::Point2d centroid_mm = origin_mm + centroid_px * (1.0 / px_per_mm);
    const int target_area = cv::countNonZero(target);
    SilhouetteFit best;
    cv::Mat hyp(target.size(), CV_8UC1);
    auto overlap = [&](double yaw, cv::Point2d base) {
        hyp.setTo(0);
        draw_meeple_top(hyp, origin_mm, px_per_mm, foot, h, lying, yaw, base);
        const int both = cv::countNonZero(hyp & target);
        return both / static_cast<double>(cv::countNonZero(hyp) + target_area - both);
    };
    const double turn = (lying ? 2 : 1) * kPi / yaws;
    for (int k = 0; k < yaws; ++k) {
        const double yaw = k * turn;
        // Where the silhouette's centroid falls for a base at the blob's centroid; then move it onto the blob's.
        hyp.setTo(0);
        draw_meeple_top(hyp, origin_mm, px_per_mm, foot, h, lying, yaw, centroid_mm);
        const cv::Moments mh = cv::moments(hyp, true);
        if (mh.m00 <= 0) continue;
        const cv::Point2d base = centroid_mm + (centroid_px - cv::Point2d(mh.m10 / mh.m00, mh.m01 / mh.m00)) * (1.0 / px_per_mm);
        const double iou = overlap(yaw, base);
        if (iou > best.iou) best = {iou, yaw, base};
    }
    // Then the best turn nudged a pixel either way (the centroid of a partly hidden blob is off).
    const SilhouetteFit start = best;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const cv::Point2d base = start.base_mm + cv::Point2d(dx, dy) * (1.0 / px_per_mm);
            const double iou = (dx == 0 && dy == 0) ? start.iou : overlap(start.yaw, base);
            if (iou > best.iou) best = {iou, start.yaw, base};
        }
    }
    return best;
}

// Estimates the white veil a glare spot lays over the tiles of the top view `det` (8-bit BGR):
// a glare mixes white into every pixel (v -> v + (255 - v) s), which lifts the darkest art off
// black. Per block of `veil_block_mm` and per terrain in it (`terrain`: the decoded terrain kind
// per pixel, negative off the tiles), the `veil_percentile` of the darkest channel; each
// terrain's own dark level is a low percentile of its blocks' (where no glare reaches: a glare is
// a spot); a block's veil is the least lift (level - own) / (255 - own) any of its terrains
// shows (a glare lifts them all; one terrain's print or art may vary alone). Returns the veil share per pixel (CV_32F, 0..1, smooth), 0
// where it is under `min_veil` (the light's gradient and the print's variation, not a glare).
// Whether the veil map `veil` (per block; `on_tiles`: the blocks over decoded tiles) is a glare spot: from its
// peak, along each of the four axis directions, the veil on the tiles falls to under half the peak before the map
// ends on at least `veil_spot_sides` of them (a glare is a spot, lit from one place; a haze or the light's gradient
// rises to the board's rim and stays there). A strong veil (veil_inner_min_peak) peaking inside the board (tiles on
// the peak block's four sides) needs to fall on veil_inner_spot_sides only: a glare wider than the board runs off
// it on the other sides, while a haze or a gradient peaks at the rim.
bool glare_spot(const cv::Mat& veil, const cv::Mat& on_tiles, const PieceDetectorOptions& o) {
    double peak = 0;
    cv::Point at;
    cv::minMaxLoc(veil, nullptr, &peak, nullptr, &at, on_tiles);
    if (peak <= 0) return false;
    const auto on_map = [&](cv::Point p) { return p.x >= 0 && p.y >= 0 && p.x < veil.cols && p.y < veil.rows; };
    int falling = 0, tiles_beside = 0;
    for (const cv::Point step : {cv::Point(1, 0), cv::Point(-1, 0), cv::Point(0, 1), cv::Point(0, -1)}) {
        tiles_beside += on_map(at + step) && on_tiles.at<std::uint8_t>(at + step);
        for (cv::Point p = at + step; on_map(p); p += step) {
            if (on_tiles.at<std::uint8_t>(p) && veil.at<float>(p) < 0.5 * peak) {
                ++falling;
                break;
            }
        }
    }
    if (falling >= o.veil_spot_sides) return true;
    const bool inner = o.veil_inner_spot_sides > 0 && tiles_beside == 4 && peak >= o.veil_inner_min_peak;
    return inner && falling >= o.veil_inner_spot_sides;
}

cv::Mat estimate_veil(const cv::Mat& det, const cv::Mat& terrain, const PieceDetectorOptions& o) {
    constexpr int kKinds = 9;  // the FeatureKind values and decoration
    const int block = std::max(8, static_cast<int>(std::lround(o.veil_block_mm * o.px_per_mm)));
    const int bw = (det.cols + block - 1) / block, bh = (det.rows + block - 1) / block;
    // Per block and terrain: dark level (-1: too few pixels) and pixel count.
    std::vector<std::array<float, kKinds>> dark(static_cast<std::size_t>(bw * bh));
    std::vector<std::array<int, kKinds>> count(static_cast<std::size_t>(bw * bh));
    std::array<std::vector<float>, kKinds> levels;
    std::array<std::vector<std::uint8_t>, kKinds> values;
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            const cv::Rect r = cv::Rect(bx * block, by * block, block, block) & cv::Rect(0, 0, det.cols, det.rows);
            for (auto& v : values) v.clear();
            for (int y = r.y; y < r.y + r.height; ++y) {
                const auto* in = det.ptr<cv::Vec3b>(y);
                const auto* t = terrain.ptr<int>(y);
                for (int x = r.x; x < r.x + r.width; ++x) {
                    if (t[x] >= 0 && t[x] < kKinds) values[static_cast<std::size_t>(t[x])].push_back(std::min({in[x][0], in[x][1], in[x][2]}));
                }
            }
            const auto b = static_cast<std::size_t>(by * bw + bx);
            for (std::size_t k = 0; k < kKinds; ++k) {
                auto& v = values[k];
                dark[b][k] = -1;
                count[b][k] = static_cast<int>(v.size());
                if (v.size() < static_cast<std::size_t>(block * block / 8)) continue;  // too little of it here to say
                const auto at = static_cast<std::ptrdiff_t>(o.veil_percentile * static_cast<double>(v.size() - 1));
                std::nth_element(v.begin(), v.begin() + at, v.end());
                dark[b][k] = v[static_cast<std::size_t>(at)];
                levels[k].push_back(dark[b][k]);
            }
        }
    }
    std::array<double, kKinds> own{};
    for (std::size_t k = 0; k < kKinds; ++k) {
        own[k] = -1;
        if (levels[k].size() < 4) continue;
        std::sort(levels[k].begin(), levels[k].end());
        own[k] = levels[k][levels[k].size() / 10];
    }
    cv::Mat share(bh, bw, CV_32F, cv::Scalar(0)), weight(bh, bw, CV_32F, cv::Scalar(0));
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            const auto b = static_cast<std::size_t>(by * bw + bx);
            double least = 1e9;  // a glare lifts every terrain here: the least lift any of them shows (one terrain's print may vary)
            for (std::size_t k = 0; k < kKinds; ++k) {
                if (dark[b][k] < 0 || own[k] < 0) continue;
                least = std::min(least, (dark[b][k] - own[k]) / (255.0 - own[k]));
            }
            if (least > 1) continue;
            share.at<float>(by, bx) = static_cast<float>(std::clamp(least, 0.0, 0.8));
            weight.at<float>(by, bx) = 1;
        }
    }
    // Smooth over neighbouring blocks (a glare spans many: a block alone is a hand, a follower's shadow, art), blocks off
    // the tiles taking their neighbours'.
    cv::medianBlur(share, share, 5);
    cv::GaussianBlur(share, share, cv::Size(), 1.5);
    cv::GaussianBlur(weight, weight, cv::Size(), 1.5);
    cv::Mat on_tiles = weight > 0.5f;
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            const float w = weight.at<float>(by, bx);
            share.at<float>(by, bx) = w > 1e-3f ? share.at<float>(by, bx) / w : 0.0f;
        }
    }
    if (o.veil_spot_sides > 0 && !glare_spot(share, on_tiles, o)) return cv::Mat(det.size(), CV_32F, cv::Scalar(0));
    for (int by = 0; by < bh; ++by) {
        for (int bx = 0; bx < bw; ++bx) {
            float& v = share.at<float>(by, bx);
            // A soft start: none under min_veil, all of it from twice that.
            v *= static_cast<float>(std::clamp((v - o.min_veil) / std::max(1e-6, o.min_veil), 0.0, 1.0));
        }
    }
    cv::Mat veil;
    cv::resize(share, veil, cv::Size(bw * block, bh * block), 0, 0, cv::INTER_LINEAR);
    return veil(cv::Rect(0, 0, det.cols, det.rows)).clone();
}

// The detection top view's place: reading cells to its pixels and back to the frame.
struct Frame {
    cv::Matx33d top_to_det, det_to_image;
    double pitch = 0;  // detection px per cell
    int c0 = 0, r0 = 0;
    double scale = 1;  // detection px per top-view px
    const LatticeView& view;
};

// Lab of a BGR colour (0..255).
cv::Vec3f lab_of(const cv::Scalar& bgr) {
    cv::Mat px(1, 1, CV_32FC3, cv::Scalar(bgr[0] / 255.0, bgr[1] / 255.0, bgr[2] / 255.0)), lab;
    cv::cvtColor(px, lab, cv::COLOR_BGR2Lab);
    return lab.at<cv::Vec3f>(0, 0);
}

// A side's outward unit step (0 N, 1 E, 2 S, 3 W) in reading axes.
cv::Point2d step_of(int side) { return {static_cast<double>(kSideDx[static_cast<std::size_t>(side)]), static_cast<double>(kSideDy[static_cast<std::size_t>(side)])}; }

// Share of the pixels of a rotated rectangle (detection px) set in `mask`; 0 when it holds none. With
// `hidden`, the share of its pixels not hidden, and 0 when under `min_seen` of the rectangle is seen.
double footprint_share(const cv::Mat& mask, cv::Point2d centre, cv::Point2d along, double length, double width, const cv::Mat& hidden = {},
                       double min_seen = 0) {
    const cv::Point2d across(-along.y, along.x);
    const std::vector<cv::Point2d> corners = {centre - along * (length / 2) - across * (width / 2), centre + along * (length / 2) - across * (width / 2),
                                              centre + along * (length / 2) + across * (width / 2), centre - along * (length / 2) + across * (width / 2)};
    std::vector<cv::Point> poly;
    for (const auto& c : corners) poly.emplace_back(static_cast<int>(std::lround(c.x)), static_cast<int>(std::lround(c.y)));
    const cv::Rect box = cv::boundingRect(poly) & cv::Rect(0, 0, mask.cols, mask.rows);
    if (box.area() == 0) return 0;
    cv::Mat area(box.size(), CV_8UC1, cv::Scalar(0));
    for (auto& p : poly) p -= box.tl();
    cv::fillConvexPoly(area, poly, cv::Scalar(255));
    const int all = cv::countNonZero(area);
    if (!hidden.empty()) {
        area &= ~hidden(box);
        if (cv::countNonZero(area) < min_seen * all) return 0;
    }
    const int seen = cv::countNonZero(area);
    return seen > 0 ? cv::countNonZero(area & mask(box)) / static_cast<double>(seen) : 0.0;
}

// Finds bridges, ferries and castle tokens where the rules allow them (see PieceDetectorOptions)
// into out.tokens; a bridge is looked for on every tile (the reader may take a bridge for a
// printed road). A ferry is judged on the part of its footprint no follower may cover (`covered`:
// a player's colour no terrain explains; a follower standing on the boat hides its wood).
// Returns where their shadows may fall (detection px): footprints widened by their height.
cv::Mat find_tokens(const cv::Mat& lab, const cv::Mat& on_board, const cv::Mat& covered, const std::array<cv::Mat, kTerrainKinds>& near,
                   const std::array<TerrainColours, kTerrainKinds>& terrain_colours, const std::map<std::pair<int, int>, const DecodedTile*>& by_cell,
                   const std::vector<TileType>& types, const Frame& f, const PieceDetectorOptions& o, PieceDetection& out) {
    const double px = o.px_per_mm;
    const TokenSizes z;
    cv::Mat zone(lab.size(), CV_8UC1, cv::Scalar(0));
    // Candidates first: nothing to look for on a board without lake tiles, field crossings or small cities.
    struct Candidate {
        std::string kind;
        const DecodedTile* tile = nullptr;
        const DecodedTile* other = nullptr;
        Port a = 0, b = 0;
        cv::Point2d centre, along;  // detection px, unit
        double length = 0, width = 0;  // detection px
    };
    auto tile_centre = [&](const DecodedTile& t) {
        return cv::Point2d((t.col - f.c0 + o.margin_tiles + 0.5) * f.pitch + t.offset_px.x * f.scale,
                           (t.row - f.r0 + o.margin_tiles + 0.5) * f.pitch + t.offset_px.y * f.scale);
    };
    auto feature_on = [&](const DecodedTile& t, Port port) -> const FeatureDef* {
        const TileType& type = types[static_cast<std::size_t>(t.type)];
        const int fi = type.feature_at(port, t.rot);
        return fi >= 0 ? &type.features[static_cast<std::size_t>(fi)] : nullptr;
    };
    std::vector<Candidate> bridges, ferries, castles;
    const double tile_px = o.tile_mm * px;
    for (const auto& [cell, tp] : by_cell) {
        const DecodedTile& t = *tp;
        const TileType& type = types[static_cast<std::size_t>(t.type)];
        const cv::Point2d centre = tile_centre(t);
        for (int axis = 0; axis < 2 && o.find_bridges; ++axis) {  // 0: north-south in the reading frame
            bridges.push_back({"bridge", &t, &t, static_cast<Port>(3 * axis + 1), static_cast<Port>(3 * (axis + 2) + 1), centre, step_of(axis + 2),
                               0.8 * z.bridge_length * px, z.bridge_width * px});
        }
        std::vector<Port> jetties;
        for (int side = 0; side < 4; ++side) {
            const FeatureDef* def = feature_on(t, static_cast<Port>(3 * side + 1));
            if (def != nullptr && def->has_tag("jetty")) jetties.push_back(static_cast<Port>(3 * side + 1));
        }
        if (jetties.size() >= 2 && std::any_of(type.features.begin(), type.features.end(), [](const FeatureDef& d) { return d.kind == FeatureKind::Lake; })) {
            for (std::size_t i = 0; i < jetties.size(); ++i) {
                for (std::size_t k = i + 1; k < jetties.size(); ++k) {
                    const cv::Point2d da = step_of(side_of(jetties[i])), db = step_of(side_of(jetties[k]));
                    cv::Point2d at = centre, along = da;
                    if (da + db != cv::Point2d(0, 0)) {
                        at += (da + db) * (z.ferry_offset * tile_px / std::sqrt(2.0));
                        along = (da - db) * (1 / std::sqrt(2.0));
                    }
                    ferries.push_back({"ferry", &t, &t, jetties[i], jetties[k], at, along, 0.8 * z.ferry_length * px, 0.7 * z.ferry_width * px});
                }
            }
        }
        for (int side : {1, 2}) {  // east and south neighbours: each pair once
            if (!o.find_castles) break;
            const auto it = by_cell.find({cell.first + kSideDx[static_cast<std::size_t>(side)], cell.second + kSideDy[static_cast<std::size_t>(side)]});
            if (it == by_cell.end()) continue;
            const DecodedTile& u = *it->second;
            const Port pa = static_cast<Port>(3 * side + 1), pb = static_cast<Port>(3 * ((side + 2) % 4) + 1);
            const FeatureDef* fa = feature_on(t, pa);
            const FeatureDef* fb = feature_on(u, pb);
            auto one_side_city = [](const FeatureDef* d) {
                return d != nullptr && d->kind == FeatureKind::City && !d->has_tag("no-castle") && std::popcount(static_cast<unsigned>(d->side_mask)) == 1;
            };
            if (!one_side_city(fa) || !one_side_city(fb)) continue;
            castles.push_back({"castle", &t, &u, pa, pb, (centre + tile_centre(u)) * 0.5, step_of(side), 0.8 * z.castle_length * px, 0.8 * z.castle_width * px});
        }
    }
    if (bridges.empty() && ferries.empty() && castles.empty()) return zone;

    // Pixels of a token colour that no terrain nearby explains. A ferry covers much of its small
    // lake, so the lake's learned colours hold the boat's: water never explains a piece.
    auto token_mask = [&](const ColourModel& m) {
        cv::Mat mask(lab.size(), CV_8UC1, cv::Scalar(0));
        for (int y = 0; y < lab.rows; ++y) {
            const auto* in = lab.ptr<cv::Vec3f>(y);
            const auto* ob = on_board.ptr<std::uint8_t>(y);
            auto* mk = mask.ptr<std::uint8_t>(y);
            for (int x = 0; x < lab.cols; ++x) {
                if (!ob[x] || !passes_gate(m, in[x])) continue;
                const double to_piece = piece_distance(m, in[x]) * o.piece_bias;
                bool explained = false;
                for (int k = 0; k < kTerrainKinds && !explained; ++k) {
                    const auto& n = near[static_cast<std::size_t>(k)];
                    if (k == static_cast<int>(FeatureKind::Lake) || n.empty() || !n.at<std::uint8_t>(y, x)) continue;
                    explained = terrain_distance(terrain_colours[static_cast<std::size_t>(k)], in[x], o.common_share) < to_piece + o.terrain_margin;
                }
                if (!explained) mk[x] = 255;
            }
        }
        return mask;
    };
    const cv::Vec3f wood_lab = lab_of(o.wood_bgr), stone_lab = lab_of(o.stone_bgr);
    ColourModel wood{"wood", cv::Vec3d(wood_lab[0], wood_lab[1], wood_lab[2]), o.wood_hue_deg, 10, 0, 8, std::min(100.0, wood_lab[0] + 30.0), false};
    ColourModel stone{"stone", cv::Vec3d(stone_lab[0], stone_lab[1], stone_lab[2]), 0, 0, 12, std::max(0.0, stone_lab[0] - 35.0),
                      std::min(100.0, stone_lab[0] + 22.0), true};
    const cv::Mat wood_mask = bridges.empty() && ferries.empty() ? cv::Mat() : token_mask(wood);
    const cv::Mat stone_mask = castles.empty() ? cv::Mat() : token_mask(stone);  // (grey followers' pixels count: the stone's shade is grey)

    auto report = [&](const Candidate& c, double share, double height) {
        const cv::Point2d across(-c.along.y, c.along.x);
        const double grow = (0.4 + 1.5 * height) * px;  // shadows reach about 1.5 x the height
        std::vector<cv::Point> area;
        for (const auto& corner : {c.centre - c.along * (c.length / 2 + grow) - across * (c.width / 2 + grow),
                                   c.centre + c.along * (c.length / 2 + grow) - across * (c.width / 2 + grow),
                                   c.centre + c.along * (c.length / 2 + grow) + across * (c.width / 2 + grow),
                                   c.centre - c.along * (c.length / 2 + grow) + across * (c.width / 2 + grow)}) {
            area.emplace_back(static_cast<int>(std::lround(corner.x)), static_cast<int>(std::lround(corner.y)));
        }
        cv::fillConvexPoly(zone, area, cv::Scalar(255));
        DetectedPiece d;
        d.kind = c.kind;
        d.col = c.tile->col, d.row = c.tile->row;
        d.col2 = c.other->col, d.row2 = c.other->row;
        d.on_tile = true;
        d.port = c.a, d.port2 = c.b;
        d.confidence = share;
        d.top_px = apply_homography(f.top_to_det.inv(), c.centre);
        d.image_px = apply_homography(f.det_to_image, c.centre);
        d.table_mm = d.top_px * (1.0 / f.view.px_per_mm);
        const TileType& type = types[static_cast<std::size_t>(c.tile->type)];
        if (c.kind == "bridge") {
            d.feature = static_cast<int>(type.features.size());
            d.feature_kind = FeatureKind::Road;
        } else {
            d.feature = type.feature_at(c.a, c.tile->rot);
            d.feature_kind = c.kind == "ferry" ? FeatureKind::Road : FeatureKind::City;
        }
        for (const auto& corner : {c.centre - c.along * (c.length / 2) - across * (c.width / 2), c.centre + c.along * (c.length / 2) - across * (c.width / 2),
                                   c.centre + c.along * (c.length / 2) + across * (c.width / 2), c.centre - c.along * (c.length / 2) + across * (c.width / 2)}) {
            const cv::Point2d q = apply_homography(f.det_to_image, corner);
            d.outline_px.emplace_back(static_cast<int>(std::lround(q.x)), static_cast<int>(std::lround(q.y)));
        }
        out.tokens.push_back(std::move(d));
    };
    // Bridges: per tile the better axis (bridges never cross); ferries: the best jetty pair of each lake.
    auto best_of_tile = [&](const std::vector<Candidate>& list, const cv::Mat& mask, double height, const cv::Mat& hidden = {}) {
        std::map<const DecodedTile*, std::pair<double, const Candidate*>> best;
        for (const auto& c : list) {
            const double share = footprint_share(mask, c.centre, c.along, c.length, c.width, hidden, o.ferry_seen_share);
            auto& b = best[c.tile];
            if (b.second == nullptr || share > b.first) b = {share, &c};
        }
        for (const auto& [tile, b] : best) {
            (void)tile;
            if (b.first >= o.token_share) report(*b.second, b.first, height);
        }
    };
    // A read lake tile may be a bridged tile misread (the bridge looks like jetties): wood along
    // the whole length of a bridge is a bridge (a ferry covers about half of that footprint).
    std::set<const DecodedTile*> lake_tiles, bridged;
    for (const auto& c : ferries) lake_tiles.insert(c.tile);
    std::vector<Candidate> bridge_list;
    for (const auto& c : bridges) {
        if (!lake_tiles.count(c.tile) || footprint_share(wood_mask, c.centre, c.along, c.length, c.width) >= o.lake_bridge_share) {
            bridge_list.push_back(c);
            if (lake_tiles.count(c.tile)) bridged.insert(c.tile);
        }
    }
    std::vector<Candidate> ferry_list;
    for (const auto& c : ferries) {
        if (!bridged.count(c.tile)) ferry_list.push_back(c);
    }
    best_of_tile(bridge_list, wood_mask, z.bridge_height);
    // A road never ends at a field side: where a read tile's two opposite field sides face a neighbour's
    // road (and the other a road or no tile), a bridge carries it, even when its wood is hard to tell
    // from the art under it (a brown monastery); less wood than a bridge elsewhere needs is then enough.
    std::set<std::pair<int, int>> reported;
    for (const auto& t : out.tokens) {
        if (t.kind == "bridge") reported.insert({t.col, t.row});
    }
    auto edge_at = [&](const DecodedTile& t, int side) { return types[static_cast<std::size_t>(t.type)].edge_at(t.rot, side); };
    for (const auto& c : bridge_list) {
        if (reported.count({c.tile->col, c.tile->row})) continue;
        int roads = 0;
        bool possible = true;
        for (const int side : {side_of(c.a), side_of(c.b)}) {
            possible = possible && edge_at(*c.tile, side) == EdgeKind::Field;
            const auto it = by_cell.find({c.tile->col + kSideDx[static_cast<std::size_t>(side)], c.tile->row + kSideDy[static_cast<std::size_t>(side)]});
            if (it == by_cell.end()) continue;
            const EdgeKind facing = edge_at(*it->second, (side + 2) % 4);
            possible = possible && facing == EdgeKind::Road;
            roads += facing == EdgeKind::Road;
        }
        if (!possible || roads == 0) continue;
        const double share = footprint_share(wood_mask, c.centre, c.along, c.length, c.width);
        if (share >= o.needed_bridge_share) {
            report(c, share, z.bridge_height);
            reported.insert({c.tile->col, c.tile->row});
        }
    }
    best_of_tile(ferry_list, wood_mask, z.ferry_height, o.ferry_seen_share < 1 ? covered : cv::Mat());
    for (const auto& c : castles) {
        const double share = footprint_share(stone_mask, c.centre, c.along, c.length, c.width);
        if (share >= o.token_share) report(c, share, z.castle_height);
    }

    return zone;
}

// A player owns max_followers_per_colour followers: of more blobs of one colour (art of that
// colour on a misread board) only the surest stay (silhouette fit, then colour), less the ones standing on castles.
void keep_owned_followers(const PieceDetectorOptions& o, PieceDetection& out) {
    if (o.max_followers_per_colour <= 0) return;
    std::map<std::string, int> left;
    for (const auto& p : out.pieces) left[p.colour] = o.max_followers_per_colour;
    for (const auto& t : out.tokens) {
        if (t.kind == "castle" && !t.colour.empty() && left.count(t.colour)) --left[t.colour];
    }
    std::vector<std::size_t> order(out.pieces.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // The surest first: the meeple silhouette's fit (art of a player's colour has no meeple's outline), then the colour.
    auto sureness = [&](const DetectedPiece& p) { return std::max(p.fit_standing, p.fit_lying) + o.owned_confidence_weight * p.confidence; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sureness(out.pieces[a]) > sureness(out.pieces[b]); });
    std::vector<bool> keep(out.pieces.size(), false);
    for (const std::size_t i : order) keep[i] = left[out.pieces[i].colour]-- > 0;
    std::vector<DetectedPiece> kept;
    for (std::size_t i = 0; i < out.pieces.size(); ++i) {
        if (keep[i]) {
            kept.push_back(std::move(out.pieces[i]));
        } else if (o.keep_rejected) {
            out.pieces[i].kind = "over the colour's count";
            out.rejected.push_back(std::move(out.pieces[i]));
        }
    }
    out.pieces = std::move(kept);
}

// Gives each castle token the colour of the follower on it (taken out of the followers) and
// puts standing followers on a bridge's deck on the bridge.
void attach_followers(const Frame& f, const PieceDetectorOptions& o, PieceDetection& out) {
    const double px = o.px_per_mm;
    const TokenSizes z;
    // A follower whose base lies on a castle stands on it: the castle takes its colour (the
    // nearest one's; grey blobs there are the castle's own shaded stone, so a grey owner is
    // not told). A standing follower on a bridge's deck stands on the bridge.
    std::vector<DetectedPiece> kept;
    std::map<std::size_t, double> owner_distance;  // per castle token: how far its owner's base lies
    for (auto& piece : out.pieces) {
        const cv::Point2d at = apply_homography(f.top_to_det, piece.top_px);
        bool taken = false;
        for (std::size_t k = 0; k < out.tokens.size() && !taken; ++k) {
            auto& t = out.tokens[k];
            const cv::Point2d centre = apply_homography(f.top_to_det, t.top_px);
            const cv::Point2d d = at - centre;
            if (t.kind == "castle" && cv::norm(d) < 0.75 * z.castle_length * px) {
                taken = true;
                if (piece.colour == "grey") continue;
                const auto seen = owner_distance.find(k);
                if (seen == owner_distance.end() || cv::norm(d) < seen->second) {
                    t.colour = piece.colour;
                    owner_distance[k] = cv::norm(d);
                }
                continue;
            }
            if (t.kind == "bridge" && !piece.lying && piece.col == t.col && piece.row == t.row) {
                const cv::Point2d along = step_of(side_of(t.port2));
                if (std::abs(d.dot(along)) < 0.5 * z.bridge_length * px && std::abs(d.dot(cv::Point2d(-along.y, along.x))) < 0.45 * z.bridge_width * px) {
                    piece.feature = t.feature;
                    piece.feature_kind = FeatureKind::Road;
                    piece.port = t.port;
                }
            }
        }
        if (!taken) kept.push_back(std::move(piece));
    }
    out.pieces = std::move(kept);
}

std::string colour_summary(const ColourModel& m) { return "colour model '" + m.name + "'"; }

}  // namespace

bool colour_matches(const ColourModel& model, const cv::Vec3f& lab) { return passes_gate(model, lab); }

ColourModels ColourModels::daylight() {
    ColourModels m;
    // Lit faces of the usual wooden pieces (hue from a, b); shaded faces keep the hue but lose
    // lightness and chroma, so the lightness ranges are wide.
    m.colours = {
        {"red", {45, 60, 40}, 16, 25, 14, 12, 70, false},
        {"blue", {40, 15, -53}, 24, 20, 14, 8, 65, false},
        {"green", {55, -50, 43}, 14, 22, 14, 12, 75, false},
        {"yellow", {80, -5, 78}, 16, 32, 14, 25, 100, false},
        {"black", {14, 0, 0}, 0, 0, 11, 0, 22, true},
        {"grey", {58, 0, 0}, 0, 0, 11, 25, 66, true},
    };
    return m;
}

Result<ColourModel> colour_model_from_lab(const std::string& name, const cv::Vec3d& mean, const cv::Matx33d& covariance) {
    for (int i = 0; i < 3; ++i) {
        if (!std::isfinite(mean[i])) return invalid(name, "the Lab mean must be three finite numbers");
        for (int k = 0; k < 3; ++k) {
            if (!std::isfinite(covariance(i, k))) return invalid(name, "the Lab covariance must be finite");
        }
        if (covariance(i, i) < 0) return invalid(name, "the Lab covariance has a negative variance");
    }
    if (!(mean[0] >= 0 && mean[0] <= 100)) return invalid(name, "the Lab mean's L must be within [0, 100]");
    ColourModel m;
    m.name = name;
    m.lab = mean;
    const double sl = std::sqrt(covariance(0, 0));
    const double chroma = std::hypot(mean[1], mean[2]);
    m.min_l = std::max(0.0, mean[0] - 3 * sl - (chroma < 12 ? 8 : 30));
    m.max_l = std::min(100.0, mean[0] + 3 * sl + 10);
    if (m.max_l <= m.min_l) m.max_l = std::min(100.0, m.min_l + 10);
    if (chroma < 12) {
        m.achromatic = true;
        m.max_chroma = chroma + 3 * std::sqrt(std::max(covariance(1, 1), covariance(2, 2))) + 4;
        return m;
    }
    // The spread across the hue direction sets the hue tolerance.
    const cv::Vec2d across(-mean[2] / chroma, mean[1] / chroma);
    const double var_across = across[0] * across[0] * covariance(1, 1) + 2 * across[0] * across[1] * covariance(1, 2) +
                              across[1] * across[1] * covariance(2, 2);
    m.hue_tolerance_deg = std::clamp(std::atan2(3 * std::sqrt(std::max(0.0, var_across)), chroma) * 180 / kPi + 4, 8.0, 40.0);
    m.min_chroma = std::max(8.0, 0.35 * chroma);
    return m;
}

const ColourModel* ColourModels::find(const std::string& name) const {
    for (const auto& c : colours) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

Status ColourModels::check() const {
    if (colours.empty()) return invalid("colour models", "at least one colour is needed");
    for (std::size_t i = 0; i < colours.size(); ++i) {
        const auto& c = colours[i];
        if (c.name.empty()) return invalid("colour models", "colour " + std::to_string(i) + " has no name");
        for (std::size_t j = 0; j < i; ++j) {
            if (colours[j].name == c.name) return invalid("colour models", "two models for '" + c.name + "'");
        }
        if (!(c.min_l >= 0 && c.min_l < c.max_l && c.max_l <= 100)) {
            return invalid(colour_summary(c), "lightness range must satisfy 0 <= min_l < max_l <= 100");
        }
        if (!(c.hue_tolerance_deg > 0 && c.hue_tolerance_deg <= 90) && !c.achromatic) {
            return invalid(colour_summary(c), "hue_tolerance_deg must be within (0, 90]");
        }
        if (!(c.min_chroma >= 0 && c.max_chroma >= 0)) return invalid(colour_summary(c), "chroma limits must be >= 0");
    }
    return Ok{};
}

Status PieceDetectorOptions::check() const {
    auto bad = [](const std::string& m) { return Status(invalid("piece detector options", m)); };
    if (!(px_per_mm >= 0.5 && px_per_mm <= 10)) return bad("px_per_mm must be within [0.5, 10]");
    if (!(tile_mm >= 10 && tile_mm <= 200)) return bad("tile_mm must be within [10, 200]");
    if (!(meeple_mm >= 2 && meeple_mm <= tile_mm)) return bad("meeple_mm must be within [2, tile_mm]");
    if (!(margin_tiles >= 0 && margin_tiles <= 2)) return bad("margin_tiles must be within [0, 2]");
    if (!(min_area_mm2 > 0 && min_area_mm2 < max_area_mm2)) return bad("need 0 < min_area_mm2 < max_area_mm2");
    if (!(min_solidity >= 0 && min_solidity <= 1)) return bad("min_solidity must be within [0, 1]");
    if (!(min_solidity_rim >= 0 && min_solidity_rim <= min_solidity)) return bad("min_solidity_rim must be within [0, min_solidity]");
    if (!(min_width_mm >= 0 && min_width_mm <= meeple_mm)) return bad("min_width_mm must be within [0, meeple_mm]");
    if (!(min_interior_share >= 0 && min_interior_share <= 1)) return bad("min_interior_share must be within [0, 1]");
    if (!(min_on_board_share >= 0 && min_on_board_share <= 1)) return bad("min_on_board_share must be within [0, 1]");
    if (!(open_mm >= 0 && open_mm <= 10)) return bad("open_mm must be within [0, 10]");
    if (!(piece_bias > 0)) return bad("piece_bias must be positive");
    if (!(terrain_margin >= 0)) return bad("terrain_margin must be >= 0");
    if (!(common_share >= 0 && common_share <= 1)) return bad("common_share must be within [0, 1]");
    if (!(terrain_reach_mm >= 0 && terrain_reach_mm <= tile_mm / 2)) return bad("terrain_reach_mm must be within [0, tile_mm / 2]");
    if (!(gap_band_mm >= 0 && gap_band_mm <= tile_mm / 4)) return bad("gap_band_mm must be within [0, tile_mm / 4]");
    if (!(feature_search_mm >= 0 && feature_search_mm <= tile_mm)) return bad("feature_search_mm must be within [0, tile_mm]");
    if (!(split_below_fit >= 0 && split_below_fit <= 1)) return bad("split_below_fit must be within [0, 1]");
    if (!(split_fit_gain >= 0 && split_fit_gain < 1)) return bad("split_fit_gain must be within [0, 1)");
    if (!(own_colour_tile_share >= 0 && own_colour_tile_share <= 1)) return bad("own_colour_tile_share must be within [0, 1]");
    if (!(own_colour_min_mm2 > 0)) return bad("own_colour_min_mm2 must be positive");
    if (!(rim_cut_off_share > 0)) return bad("rim_cut_off_share must be positive (above 1: never cut)");
    if (max_followers_per_colour < 0) return bad("max_followers_per_colour must be >= 0");
    if (!(owned_confidence_weight >= 0 && owned_confidence_weight <= 10)) return bad("owned_confidence_weight must be within [0, 10]");
    if (!(local_min_mm2 >= 0)) return bad("local_min_mm2 must be >= 0");
    if (!(grow_mm >= 0 && grow_mm <= meeple_mm)) return bad("grow_mm must be within [0, meeple_mm]");
    if (!(grow_fit_gain > -1 && grow_fit_gain < 1)) return bad("grow_fit_gain must be within (-1, 1)");
    if (!(achromatic_shade_mm >= 0 && achromatic_shade_mm <= meeple_mm)) return bad("achromatic_shade_mm must be within [0, meeple_mm]");
    if (!(shade_lit_share >= 0 && shade_lit_share <= 1)) return bad("shade_lit_share must be within [0, 1]");
    if (!(grey_grow_mm >= 0 && grey_grow_mm <= meeple_mm)) return bad("grey_grow_mm must be within [0, meeple_mm]");
    if (!(own_colour_lightness >= 0 && own_colour_lightness <= 4)) return bad("own_colour_lightness must be within [0, 4]");
    if (!(achromatic_lightness >= 0 && achromatic_lightness <= 4)) return bad("achromatic_lightness must be within [0, 4]");
    if (!(terrain_piece_share >= 0 && terrain_piece_share <= 1)) return bad("terrain_piece_share must be within [0, 1]");
    if (!(lying_width > 0 && lying_width < 2)) return bad("lying_width must be within (0, 2)");
    if (!(pose_doubt >= 0 && pose_doubt < 1)) return bad("pose_doubt must be within [0, 1)");
    if (!(standing_yaws >= 1 && standing_yaws <= 180 && lying_yaws >= 1 && lying_yaws <= 360)) return bad("standing_yaws and lying_yaws must be within [1, 180] and [1, 360]");
    if (!(pose_fit_doubt >= 0 && pose_fit_doubt < 1)) return bad("pose_fit_doubt must be within [0, 1)");
    if (!(lying_fit_bias > -1 && lying_fit_bias < 1)) return bad("lying_fit_bias must be within (-1, 1)");
    if (!(min_fit >= 0 && min_fit < 1)) return bad("min_fit must be within [0, 1)");
    if (!(field_pose_slack >= 0 && field_pose_slack <= 1)) return bad("field_pose_slack must be within [0, 1]");
    if (!(pose_tie_fit >= 0 && pose_tie_fit <= 1 && pose_room_gap >= 0 && pose_room_gap <= 1)) return bad("pose_tie_fit and pose_room_gap must be within [0, 1]");
    if (!(default_fov_deg >= 10 && default_fov_deg <= 150)) return bad("default_fov_deg must be within [10, 150]");
    if (!(wood_hue_deg > 0 && wood_hue_deg <= 90)) return bad("wood_hue_deg must be within (0, 90]");
    if (!(token_share > 0 && token_share < 1)) return bad("token_share must be within (0, 1)");
    if (!(lake_bridge_share >= token_share && lake_bridge_share <= 1)) return bad("lake_bridge_share must be within [token_share, 1]");
    if (!(needed_bridge_share > 0 && needed_bridge_share <= 1)) return bad("needed_bridge_share must be within (0, 1]");
    if (!(ferry_seen_share > 0 && ferry_seen_share <= 1)) return bad("ferry_seen_share must be within (0, 1]");
    if (!(veil_block_mm >= 2 && veil_block_mm <= 4 * tile_mm)) return bad("veil_block_mm must be within [2, 4 x tile_mm]");
    if (!(veil_percentile >= 0 && veil_percentile <= 0.5)) return bad("veil_percentile must be within [0, 0.5]");
    if (!(min_veil > 0 && min_veil < 0.5)) return bad("min_veil must be within (0, 0.5)");
    if (!(veil_spot_sides >= 0 && veil_spot_sides <= 4)) return bad("veil_spot_sides must be within [0, 4]");
    if (!(veil_inner_spot_sides >= 0 && veil_inner_spot_sides <= 4)) return bad("veil_inner_spot_sides must be within [0, 4]");
    if (!(veil_inner_min_peak >= 0 && veil_inner_min_peak <= 1)) return bad("veil_inner_min_peak must be within [0, 1]");
    if (auto st = light_cast.check(); !st) return st;
    return Ok{};
}

// Draws the bridges, ferries and castle tokens found: footprint, kind and owner.
static void draw_tokens(cv::Mat& out, const PieceDetection& detection) {
    const double scale = std::max(1.0, out.cols / 1600.0);
    const int thick = static_cast<int>(std::lround(2 * scale));
    for (const auto& d : detection.tokens) {
        if (!d.outline_px.empty()) cv::polylines(out, std::vector<std::vector<cv::Point>>{d.outline_px}, true, cv::Scalar(0, 255, 255), thick, cv::LINE_AA);
        const std::string label = d.kind + (d.colour.empty() ? "" : " " + d.colour);
        const cv::Point at(static_cast<int>(d.image_px.x + 8 * scale), static_cast<int>(d.image_px.y + 14 * scale));
        cv::putText(out, label, at, cv::FONT_HERSHEY_SIMPLEX, 0.5 * scale, cv::Scalar(0, 0, 0), thick + 2, cv::LINE_AA);
        cv::putText(out, label, at, cv::FONT_HERSHEY_SIMPLEX, 0.5 * scale, cv::Scalar(0, 255, 255), std::max(1, thick / 2), cv::LINE_AA);
    }
}

cv::Mat draw_pieces(const cv::Mat& image, const PieceDetection& detection) {
    cv::Mat out = image.clone();
    const double scale = std::max(1.0, image.cols / 1600.0);
    const int thick = static_cast<int>(std::lround(2 * scale));
    for (const auto& d : detection.pieces) {
        if (!d.outline_px.empty()) cv::polylines(out, std::vector<std::vector<cv::Point>>{d.outline_px}, true, cv::Scalar(255, 0, 255), thick, cv::LINE_AA);
        cv::circle(out, d.image_px, thick + 2, cv::Scalar(255, 255, 255), cv::FILLED, cv::LINE_AA);
        cv::circle(out, d.image_px, thick + 2, cv::Scalar(0, 0, 0), 1, cv::LINE_AA);
        const std::string label = d.colour + (d.lying ? " lying" : "") + (d.feature >= 0 ? " " + std::string(feature_kind_name(d.feature_kind)) : "");
        const cv::Point at(static_cast<int>(d.image_px.x + 8 * scale), static_cast<int>(d.image_px.y));
        cv::putText(out, label, at, cv::FONT_HERSHEY_SIMPLEX, 0.5 * scale, cv::Scalar(0, 0, 0), thick + 2, cv::LINE_AA);
        cv::putText(out, label, at, cv::FONT_HERSHEY_SIMPLEX, 0.5 * scale, cv::Scalar(255, 255, 255), std::max(1, thick / 2), cv::LINE_AA);
    }
    draw_tokens(out, detection);
    return out;
}

namespace {

// The style whose feature regions say where a follower stands: the default one with the largest
// monastery the styles draw (a monk stands anywhere on the building or its yard, and a printed
// monastery is larger still).
const TileStyle& follower_label_style() {
    static const TileStyle style = [] {
        TileStyle s = builtin_tile_styles().front();
        for (const auto& other : builtin_tile_styles()) s.monastery_size = std::max(s.monastery_size, other.monastery_size);
        return s;
    }();
    return style;
}

}  // namespace

int feature_at_point(const TileType& type, int rot, cv::Point2d uv, double search, FeaturePreference prefer) {
    constexpr int kSide = 96;
    const cv::Mat labels = feature_labels(type, rot, kSide, follower_label_style());
    const int x = std::clamp(static_cast<int>(uv.x * kSide), 0, kSide - 1), y = std::clamp(static_cast<int>(uv.y * kSide), 0, kSide - 1);
    // No follower stands on a lake (the rules: lakes take none).
    auto takes_follower = [&](int f) { return f >= 0 && type.features[static_cast<std::size_t>(f)].kind != FeatureKind::Lake; };
    auto allowed = [&](int f, FeaturePreference p) {
        if (!takes_follower(f)) return false;
        const bool field = type.features[static_cast<std::size_t>(f)].kind == FeatureKind::Field;
        return p == FeaturePreference::Any || (p == FeaturePreference::Field) == field;
    };
    // The nearest feature `p` allows within `reach_frac` of the tile; -1 when none.
    auto nearest = [&](double reach_frac, FeaturePreference p) {
        const int reach = static_cast<int>(std::ceil(reach_frac * kSide));
        int best = -1;
        double best_d = 1e18;
        for (int dy = -reach; dy <= reach; ++dy) {
            for (int dx = -reach; dx <= reach; ++dx) {
                const int xx = x + dx, yy = y + dy;
                if (xx < 0 || yy < 0 || xx >= kSide || yy >= kSide) continue;
                const double d = dx * dx + dy * dy;
                if (d > reach * reach || d >= best_d) continue;
                const int l = labels.at<int>(yy, xx);
                if (allowed(l, p)) best = l, best_d = d;
            }
        }
        return best;
    };
    const int here = labels.at<int>(y, x);
    if (allowed(here, prefer)) return here;
    if (const int f = nearest(search, prefer); f >= 0) return f;
    if (takes_follower(here)) return here;                                 // the point's own feature when no preferred one is near
    if (here >= 0) return nearest(2.0, FeaturePreference::Any);           // on a lake: the nearest feature that takes a follower
    return prefer == FeaturePreference::Any ? -1 : nearest(search, FeaturePreference::Any);  // on decoration: any feature near
}

double feature_room_share(const TileType& type, int rot, cv::Point2d uv, FeaturePreference prefer) {
    constexpr int kSide = 96;
    const cv::Mat labels = feature_labels(type, rot, kSide, follower_label_style());
    const int x = std::clamp(static_cast<int>(uv.x * kSide), 0, kSide - 1), y = std::clamp(static_cast<int>(uv.y * kSide), 0, kSide - 1);
    const int f = labels.at<int>(y, x);
    if (f < 0 || f >= static_cast<int>(type.features.size())) return 0;
    const FeatureKind kind = type.features[static_cast<std::size_t>(f)].kind;
    if (kind == FeatureKind::Lake) return 0;
    if (prefer != FeaturePreference::Any && (prefer == FeaturePreference::Field) != (kind == FeatureKind::Field)) return 0;
    // Distance to the feature's edge, the tile's sides counting as edges (a follower sits on its own tile).
    cv::Mat padded, room;
    cv::copyMakeBorder(labels == f, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::distanceTransform(padded, room, cv::DIST_L2, 3);
    double deepest = 0;
    cv::minMaxLoc(room, nullptr, &deepest);
    return deepest > 0 ? room.at<float>(y + 1, x + 1) / deepest : 0;
}

Result<PieceDetection> detect_pieces(const cv::Mat& image, const BoardReading& reading, const Catalog& catalog,
                                     const ColourModels& colours, const PieceDetectorOptions& o) {
    const auto started = std::chrono::steady_clock::now();
    if (image.empty() || image.type() != CV_8UC3) return invalid("detect pieces", "the image is empty or not 8-bit colour");
    if (!reading.found || reading.tiles.empty()) return invalid("detect pieces", "no board was read in the image");
    if (auto st = o.check(); !st) return st.error();
    if (auto st = colours.check(); !st) return st.error();
    const auto& types = catalog.tiles();
    const LatticeView& view = reading.view;
    for (const auto& t : reading.tiles) {
        if (t.type < 0 || t.type >= static_cast<int>(types.size())) return invalid("detect pieces", "the reading names a tile type the catalog lacks");
    }

    // 1. The detection top view over the decoded cells.
    int c0 = reading.tiles[0].col, c1 = c0, r0 = reading.tiles[0].row, r1 = r0;
    for (const auto& t : reading.tiles) c0 = std::min(c0, t.col), c1 = std::max(c1, t.col), r0 = std::min(r0, t.row), r1 = std::max(r1, t.row);
    const double s = o.px_per_mm / view.px_per_mm;  // detection px per top-view px
    const double pitch = view.pitch_px * s;          // detection px per cell
    const double ox = (c0 - o.margin_tiles) * view.pitch_px, oy = (r0 - o.margin_tiles) * view.pitch_px;
    const cv::Matx33d top_to_det(s, 0, -s * ox, 0, s, -s * oy, 0, 0, 1);
    const cv::Matx33d image_to_det = top_to_det * view.image_to_top;
    const cv::Size det_size(static_cast<int>(std::ceil((c1 - c0 + 1 + 2 * o.margin_tiles) * pitch)),
                            static_cast<int>(std::ceil((r1 - r0 + 1 + 2 * o.margin_tiles) * pitch)));
    if (det_size.area() > 40'000'000) return invalid("detect pieces", "the board is too large for the detection top view");
    cv::Mat det;
    cv::warpPerspective(image, det, image_to_det, det_size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    cv::Mat inside;
    cv::warpPerspective(cv::Mat(image.size(), CV_8UC1, cv::Scalar(255)), inside, image_to_det, det_size, cv::INTER_NEAREST);

    // 2. What each pixel should show: the decoded tile's terrain there.
    cv::Mat terrain(det_size, CV_32SC1, cv::Scalar(kNoTile));
    cv::Mat tile_of(det_size, CV_32SC1, cv::Scalar(-1));  // index into reading.tiles of the tile drawn at each pixel
    const int cell_px = std::max(16, static_cast<int>(std::lround(pitch)));
    std::map<std::pair<int, int>, const DecodedTile*> by_cell;
    for (const auto& t : reading.tiles) {
        by_cell[{t.col, t.row}] = &t;
        const TileType& type = types[static_cast<std::size_t>(t.type)];
        const cv::Mat labels = feature_labels(type, t.rot, cell_px);
        // The tile as the reader found it: its cell, shifted by its offset off the cell.
        const int x0 = static_cast<int>(std::lround((t.col - c0 + o.margin_tiles) * pitch + t.offset_px.x * s));
        const int y0 = static_cast<int>(std::lround((t.row - r0 + o.margin_tiles) * pitch + t.offset_px.y * s));
        const cv::Rect dst = cv::Rect(x0, y0, cell_px, cell_px) & cv::Rect(0, 0, det_size.width, det_size.height);
        for (int y = dst.y; y < dst.y + dst.height; ++y) {
            for (int x = dst.x; x < dst.x + dst.width; ++x) {
                const int l = labels.at<int>(y - y0, x - x0);
                terrain.at<int>(y, x) = l < 0 ? kDecorationTerrain : static_cast<int>(type.features[static_cast<std::size_t>(l)].kind);
                tile_of.at<int>(y, x) = static_cast<int>(&t - reading.tiles.data());
            }
        }
    }
    // Where the table may show: around the board, and in the gaps along every cell's sides
    // (tiles lie a little off their cells).
    cv::Mat on_board = terrain != kNoTile;
    cv::Mat table_near;
    {
        const int reach = std::max(1, static_cast<int>(std::lround(0.3 * o.tile_mm * o.px_per_mm)));
        cv::dilate(on_board, on_board, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * reach + 1, 2 * reach + 1)));
        on_board &= inside;
        const int band = std::max(1, static_cast<int>(std::lround(o.gap_band_mm * o.px_per_mm)));
        cv::dilate(terrain == kNoTile, table_near, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * band + 1, 2 * band + 1)));
        for (const auto& t : reading.tiles) {
            const cv::Point2d a((t.col - c0 + o.margin_tiles) * pitch, (t.row - r0 + o.margin_tiles) * pitch);
            cv::rectangle(table_near, cv::Rect(cv::Point(static_cast<int>(a.x), static_cast<int>(a.y)), cv::Size(cell_px, cell_px)), cv::Scalar(255),
                          2 * band);
        }
    }
    // 1b. A glare spot's white veil lifted (the colours it washes out pass no gate), then Lab.
    PieceDetection out;
    if (o.lift_veil) {
        const cv::Mat veil = estimate_veil(det, terrain, o);
        double peak = 0;
        cv::minMaxLoc(veil, nullptr, &peak);
        out.veil_peak = peak;
        if (peak > 0) lift_veil(det, veil);
    }
    // 1c. The light's colour, from the decoded terrains against the known art, taken off.
    if (o.adapt_to_light) {
        LightCastOptions light = o.light_cast;
        light.road_white = light.road_white && out.veil_peak <= light.road_max_veil;
        light.px_per_mm = o.px_per_mm;
        light.tile_mm = o.tile_mm;
        out.light_cast = estimate_light_cast(det, terrain, catalog, light);
        remove_light_cast(det, out.light_cast);
    }
    cv::Mat lab;
    det.convertTo(lab, CV_32FC3, 1.0 / 255);
    cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);

    // Each terrain's common colours, from a sparse sample of its pixels. Pixels a piece colour
    // admits are left out (the pieces stand on the terrains and would teach them their colour)
    // unless that colour is a large share of the terrain: then it is the terrain's own colour.
    const std::size_t n_models = colours.colours.size();
    std::array<std::vector<cv::Vec3f>, kTerrainKinds> samples;
    std::array<std::vector<std::vector<cv::Vec3f>>, kTerrainKinds> gated;  // per terrain, per colour model
    for (auto& g : gated) g.resize(n_models);
    struct TileSample {
        cv::Vec3f lab;
        std::uint8_t terrain, admitted;  // admitted: the colour model whose gate passes it (n_models: none)
    };
    std::vector<std::vector<TileSample>> tile_samples(reading.tiles.size());
    const int step = std::max(1, static_cast<int>(o.px_per_mm));
    for (int y = 0; y < det_size.height; y += step) {
        for (int x = 0; x < det_size.width; x += step) {
            if (!inside.at<std::uint8_t>(y, x)) continue;
            int k = terrain.at<int>(y, x);
            if (k < 0) {
                if (!on_board.at<std::uint8_t>(y, x)) continue;
                k = kTableTerrain;
            }
            const cv::Vec3f v = lab.at<cv::Vec3f>(y, x);
            std::size_t admitted = n_models;
            for (std::size_t c = 0; c < n_models && admitted == n_models; ++c) {
                if (passes_gate(colours.colours[c], v)) admitted = c;
            }
            if (admitted < n_models) gated[static_cast<std::size_t>(k)][admitted].push_back(v);
            else samples[static_cast<std::size_t>(k)].push_back(v);
            if (const int ti = tile_of.at<int>(y, x); ti >= 0 && k != kTableTerrain) {
                tile_samples[static_cast<std::size_t>(ti)].push_back({v, static_cast<std::uint8_t>(k), static_cast<std::uint8_t>(admitted)});
            }
        }
    }
    // Per terrain: the tiles showing it, and per colour model those on which that colour is a large share of it.
    std::array<int, kTerrainKinds> tiles_showing{};
    std::array<std::vector<int>, kTerrainKinds> tiles_coloured;
    for (auto& t : tiles_coloured) t.assign(n_models, 0);
    for (const auto& tile : tile_samples) {
        std::array<int, kTerrainKinds> seen{};
        std::array<std::vector<int>, kTerrainKinds> seen_gated;
        for (auto& g : seen_gated) g.assign(n_models + 1, 0);
        for (const auto& sample : tile) ++seen[sample.terrain], ++seen_gated[sample.terrain][sample.admitted];
        for (std::size_t k = 0; k < seen.size(); ++k) {
            if (seen[k] * step * step < o.own_colour_min_mm2 * o.px_per_mm * o.px_per_mm) continue;
            ++tiles_showing[k];
            for (std::size_t c = 0; c < n_models; ++c) tiles_coloured[k][c] += seen_gated[k][c] >= o.terrain_piece_share * seen[k];
        }
    }
    std::array<TerrainColours, kTerrainKinds> terrain_colours;
    std::array<std::vector<bool>, kTerrainKinds> own_colour;  // per terrain: the piece colours that are its own
    for (std::size_t k = 0; k < samples.size(); ++k) {
        std::size_t all = samples[k].size();
        for (const auto& g : gated[k]) all += g.size();
        own_colour[k].assign(n_models + 1, false);
        own_colour[k][n_models] = true;
        for (std::size_t c = 0; c < n_models; ++c) {
            const auto& g = gated[k][c];
            // (A player has at most max_followers_per_colour followers: on more tiles than that it is the print's colour.)
            const bool on_most_tiles = tiles_coloured[k][c] >= o.own_colour_tile_share * tiles_showing[k] ||
                                       (o.max_followers_per_colour > 0 && tiles_coloured[k][c] > o.max_followers_per_colour);
            own_colour[k][c] = static_cast<double>(g.size()) >= o.terrain_piece_share * static_cast<double>(all) && on_most_tiles;
            if (own_colour[k][c]) samples[k].insert(samples[k].end(), g.begin(), g.end());
        }
        terrain_colours[k] = learn_terrain(samples[k]);
    }
    // The same per tile, from the tile and its eight neighbours: the light and the print vary over
    // a board (a gradient, a vignette, each copy's colour gain), so a terrain far off shows other
    // colours than one here. Which piece colours are a terrain's own is the whole board's call.
    std::vector<std::array<TerrainColours, kTerrainKinds>> local_colours(o.local_terrain ? reading.tiles.size() : 0);
    for (std::size_t i = 0; i < local_colours.size(); ++i) {
        const DecodedTile& t = reading.tiles[i];
        std::array<std::vector<cv::Vec3f>, kTerrainKinds> block;
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
                const auto it = by_cell.find({t.col + dx, t.row + dy});
                if (it == by_cell.end()) continue;
                for (const auto& sample : tile_samples[static_cast<std::size_t>(it->second - reading.tiles.data())]) {
                    if (own_colour[sample.terrain][sample.admitted]) block[sample.terrain].push_back(sample.lab);
                }
            }
        }
        for (std::size_t k = 0; k < block.size(); ++k) {
            if (static_cast<double>(block[k].size()) >= o.local_min_mm2 * o.px_per_mm * o.px_per_mm / (step * step)) {
                local_colours[i][k] = learn_terrain(block[k]);
            }
        }
    }
    // The tile whose neighbourhood explains pixel (x, y): the one drawn there, else the cell's (a gap), else none (-1).
    auto local_tile = [&](int x, int y) {
        if (local_colours.empty()) return -1;
        if (const int ti = tile_of.at<int>(y, x); ti >= 0) return ti;
        const auto it = by_cell.find({c0 + static_cast<int>(std::floor(x / pitch - o.margin_tiles)), r0 + static_cast<int>(std::floor(y / pitch - o.margin_tiles))});
        return it == by_cell.end() ? -1 : static_cast<int>(it->second - reading.tiles.data());
    };
    // Terrains near each pixel (a few mm, for the jitter of the tiles off their cells).
    const int near_px = std::max(1, static_cast<int>(std::lround(o.terrain_reach_mm * o.px_per_mm)));
    const cv::Mat disc = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * near_px + 1, 2 * near_px + 1));
    std::array<cv::Mat, kTerrainKinds> near;
    for (int k = 0; k < kTerrainKinds; ++k) {
        if (terrain_colours[static_cast<std::size_t>(k)].centres.empty()) continue;
        if (k == kTableTerrain) {
            near[static_cast<std::size_t>(k)] = table_near;
            continue;
        }
        cv::Mat m = terrain == k;
        cv::dilate(m, near[static_cast<std::size_t>(k)], disc);
    }

    // Bridges, ferries and castle tokens first: their shadows darken the terrain around them.
    const cv::Matx33d det_to_image = image_to_det.inv();
    const Frame frame{top_to_det, det_to_image, pitch, c0, r0, s, view};
    cv::Mat shadow_zone;
    {
        // Pixels a colourful player's colour admits are no wood (a red or yellow follower lying across a tile is no bridge).
        // Pixels any player's colour admits that no terrain nearby explains may be a follower standing on a ferry (`covered`).
        cv::Mat claimed(det_size, CV_8UC1, cv::Scalar(0)), covered(det_size, CV_8UC1, cv::Scalar(0));
        const bool ferries_possible = o.ferry_seen_share < 1 && std::any_of(reading.tiles.begin(), reading.tiles.end(), [&](const DecodedTile& t) {
            const auto& fs = types[static_cast<std::size_t>(t.type)].features;
            return std::any_of(fs.begin(), fs.end(), [](const FeatureDef& d) { return d.kind == FeatureKind::Lake; });
        });
        for (int y = 0; y < det_size.height; ++y) {
            const auto* in = lab.ptr<cv::Vec3f>(y);
            const auto* ob = on_board.ptr<std::uint8_t>(y);
            auto* cl = claimed.ptr<std::uint8_t>(y);
            auto* cov = covered.ptr<std::uint8_t>(y);
            for (int x = 0; x < det_size.width; ++x) {
                const ColourModel* admits = nullptr;
                for (const auto& m : colours.colours) {
                    if (!passes_gate(m, in[x])) continue;
                    if (!m.achromatic) cl[x] = 255;
                    if (admits == nullptr) admits = &m;
                }
                if (admits == nullptr || !ob[x] || !ferries_possible) continue;
                const double to_piece = piece_distance(*admits, in[x]) * o.piece_bias;
                bool explained = false;
                for (int k = 0; k < kTerrainKinds && !explained; ++k) {
                    const auto& n = near[static_cast<std::size_t>(k)];
                    if (n.empty() || !n.at<std::uint8_t>(y, x)) continue;
                    explained = terrain_distance(terrain_colours[static_cast<std::size_t>(k)], in[x], o.common_share) < to_piece + o.terrain_margin;
                }
                if (!explained) cov[x] = 255;
            }
        }
        // (The board's terrain colours only: a bridge is a large share of the terrain around it, which
        // a neighbourhood's colours would learn.)
        shadow_zone = find_tokens(lab, on_board & ~claimed, covered, near, terrain_colours, by_cell, types, frame, o, out);
    }
    // Terrain colours in shade (near a token): each common colour darkened in RGB.
    std::array<TerrainColours, kTerrainKinds> shaded_colours;
    for (std::size_t k = 0; k < terrain_colours.size(); ++k) {
        const auto& t = terrain_colours[k];
        for (std::size_t i = 0; i < t.centres.size(); ++i) {
            cv::Mat c(1, 1, CV_32FC3, cv::Scalar(t.centres[i][0], t.centres[i][1], t.centres[i][2])), bgr;
            cv::cvtColor(c, bgr, cv::COLOR_Lab2BGR);
            for (const double dim : {0.5, 0.62, 0.75, 0.88}) {
                cv::Mat dark = bgr * dim, back;
                cv::cvtColor(dark, back, cv::COLOR_BGR2Lab);
                shaded_colours[k].centres.push_back(back.at<cv::Vec3f>(0, 0));
                shaded_colours[k].spreads.push_back(t.spreads[i]);
                shaded_colours[k].shares.push_back(t.shares[i]);
            }
        }
    }

    // 3. Per colour: pixels passing its gate that no nearby terrain explains; blobs of them.
    const int n_colours = static_cast<int>(colours.colours.size());
    cv::Mat best(det_size, CV_8UC1, cv::Scalar(255));  // index of the passing colour, 255: none
    cv::Mat passing(det_size, CV_8UC1, cv::Scalar(255));  // the same before the terrains explain any: where a piece may grow
    cv::Mat closeness(det_size, CV_32FC1, cv::Scalar(0));
    // The lightest achromatic colour (grey): its shaded faces fall under its gate's lightness, as dark as a black
    // piece's or between the two gates. Such dark achromatic pixels no terrain explains are `shade`, which a blob
    // of that colour may take in (step 3).
    int shade_model = -1;
    for (int c = 0; c < n_colours && (o.achromatic_shade_mm > 0 || o.grey_grow_mm > 0); ++c) {
        const auto& m = colours.colours[static_cast<std::size_t>(c)];
        if (m.achromatic && m.min_l > 0 && (shade_model < 0 || m.min_l > colours.colours[static_cast<std::size_t>(shade_model)].min_l)) shade_model = c;
    }
    cv::Mat shade(det_size, CV_8UC1, cv::Scalar(0));
    // A road with a common grey colour (a light grey road) explains a grey follower's lit faces away: those
    // pixels are `grey_lit`, which a grey blob may take in too (step 3).
    std::array<bool, kTerrainKinds> greyish{};
    if (shade_model >= 0 && o.grey_grow_mm > 0) {
        const auto& road = terrain_colours[static_cast<std::size_t>(FeatureKind::Road)];
        for (std::size_t i = 0; i < road.centres.size(); ++i) {
            greyish[static_cast<std::size_t>(FeatureKind::Road)] =
                greyish[static_cast<std::size_t>(FeatureKind::Road)] ||
                (road.shares[i] >= o.common_share &&
                 std::hypot(road.centres[i][1], road.centres[i][2]) <= colours.colours[static_cast<std::size_t>(shade_model)].max_chroma);
        }
    }
    cv::Mat grey_lit(det_size, CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < det_size.height; ++y) {
        const auto* in = lab.ptr<cv::Vec3f>(y);
        const auto* ob = on_board.ptr<std::uint8_t>(y);
        auto* b = best.ptr<std::uint8_t>(y);
        auto* cl = closeness.ptr<float>(y);
        for (int x = 0; x < det_size.width; ++x) {
            if (!ob[x]) continue;
            int pick = -1;
            double pick_d = 1e9;
            for (int c = 0; c < n_colours; ++c) {
                const auto& m = colours.colours[static_cast<std::size_t>(c)];
                if (!passes_gate(m, in[x])) continue;
                const double d = gate_distance(m, in[x]);
                if (d < pick_d) pick = c, pick_d = d;
            }
            const bool dark_achromatic = shade_model >= 0 && o.achromatic_shade_mm > 0 && in[x][0] < colours.colours[static_cast<std::size_t>(shade_model)].min_l &&
                                         std::hypot(in[x][1], in[x][2]) <= colours.colours[static_cast<std::size_t>(shade_model)].max_chroma;
            if (pick < 0 && !dark_achromatic) continue;
            // (A dark pixel no gate passes is judged as a face of the shade's colour.)
            const int judged = pick >= 0 ? pick : shade_model;
            if (pick >= 0) {
                // (Not within reach of a terrain whose own colour this is: its art may show there.)
                bool own_near = terrain.at<int>(y, x) < 0;
                for (int k = 0; k < kTerrainKinds && !own_near; ++k) {
                    const auto& n = near[static_cast<std::size_t>(k)];
                    own_near = !n.empty() && n.at<std::uint8_t>(y, x) && own_colour[static_cast<std::size_t>(k)][static_cast<std::size_t>(pick)];
                }
                if (!own_near) passing.at<std::uint8_t>(y, x) = static_cast<std::uint8_t>(pick);
            }
            // Background when a common colour of a terrain nearby (the board's, or this neighbourhood's) is
            // about as close as the piece colour.
            const int ti = local_tile(x, y);
            const double to_piece = piece_distance(colours.colours[static_cast<std::size_t>(judged)], in[x]) * o.piece_bias;
            bool explained = false;
            for (int k = 0; k < kTerrainKinds && !explained; ++k) {
                const auto& n = near[static_cast<std::size_t>(k)];
                if (n.empty() || !n.at<std::uint8_t>(y, x)) continue;
                // A terrain of the piece's own colour (green grass, a green follower) explains by lightness too:
                // a follower's faces are shaded, the flat print is not.
                const bool own = own_colour[static_cast<std::size_t>(k)][static_cast<std::size_t>(judged)];
                const double lw = own ? o.own_colour_lightness : 0.25;
                // Black and grey against a grey terrain colour (a light grey road) are told by lightness
                // alone: it counts more there. (A shadow on a coloured terrain keeps its hue, and the table
                // beside the board is left as it was: no follower in play stands there.)
                const auto& m = colours.colours[static_cast<std::size_t>(judged)];
                const double grey_chroma = m.achromatic && k != kTableTerrain ? m.max_chroma : -1;
                explained = terrain_distance(terrain_colours[static_cast<std::size_t>(k)], in[x], o.common_share, lw, grey_chroma, o.achromatic_lightness) <
                            to_piece + o.terrain_margin;
                if (!explained && k != kTableTerrain && ti >= 0) {
                    explained = terrain_distance(local_colours[static_cast<std::size_t>(ti)][static_cast<std::size_t>(k)], in[x], o.common_share, lw,
                                                 grey_chroma, o.achromatic_lightness) < to_piece + o.terrain_margin;
                }
                if (!explained && !shadow_zone.empty() && shadow_zone.at<std::uint8_t>(y, x)) {
                    explained = terrain_distance(shaded_colours[static_cast<std::size_t>(k)], in[x], o.common_share) < to_piece + o.terrain_margin;
                }
                if (explained && pick >= 0 && pick == shade_model && greyish[static_cast<std::size_t>(k)]) grey_lit.at<std::uint8_t>(y, x) = 255;
            }
            if (explained) continue;
            if (dark_achromatic) shade.at<std::uint8_t>(y, x) = 255;
            if (pick < 0) continue;
            b[x] = static_cast<std::uint8_t>(pick);
            cl[x] = static_cast<float>(std::max(0.0, 1.0 - pick_d));
        }
    }

    const double mm_per_px = 1.0 / o.px_per_mm;
    const CameraFoot foot = camera_foot(cv::Matx33d(mm_per_px, 0, 0, 0, mm_per_px, 0, 0, 0, 1) * image_to_det, image.size(), o.default_fov_deg);
    out.focal_px = foot.focal_px;
    out.foot_top_px = apply_homography(top_to_det.inv(), foot.foot_mm * o.px_per_mm);
    const int open_px = static_cast<int>(std::lround(o.open_mm * o.px_per_mm));
    const cv::Mat opener = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * open_px + 1, 2 * open_px + 1));
    const double px2_per_mm2 = o.px_per_mm * o.px_per_mm;
    // Puts a follower's base at `base_mm` (detection top view, mm) and on the feature there its pose prefers.
    // How deep a base at `base_mm` (detection top view, mm) lies in a feature `prefer` allows (feature_room_share; 0 off the tiles).
    auto room_share_at = [&](cv::Point2d base_mm, FeaturePreference prefer) {
        const cv::Point2d cell_f = apply_homography(top_to_det.inv(), base_mm * o.px_per_mm) * (1.0 / view.pitch_px);
        const int col = static_cast<int>(std::floor(cell_f.x)), row = static_cast<int>(std::floor(cell_f.y));
        const auto it = by_cell.find({col, row});
        if (it == by_cell.end()) return 0.0;
        const DecodedTile& t = *it->second;
        const cv::Point2d uv(cell_f.x - col - t.offset_px.x / view.pitch_px, cell_f.y - row - t.offset_px.y / view.pitch_px);
        return feature_room_share(types[static_cast<std::size_t>(t.type)], t.rot, uv, prefer);
    };
    auto place = [&](DetectedPiece& piece, cv::Point2d base_mm, FeaturePreference prefer) {
        const cv::Point2d base_det = base_mm * o.px_per_mm;
        piece.top_px = apply_homography(top_to_det.inv(), base_det);
        piece.image_px = apply_homography(det_to_image, base_det);
        piece.table_mm = piece.top_px * (1.0 / view.px_per_mm);
        const cv::Point2d cell_f = piece.top_px * (1.0 / view.pitch_px);
        piece.col = static_cast<int>(std::floor(cell_f.x));
        piece.row = static_cast<int>(std::floor(cell_f.y));
        piece.on_tile = false;
        piece.feature = -1;
        piece.feature_kind = FeatureKind::Field;
        const auto it = by_cell.find({piece.col, piece.row});
        if (it == by_cell.end()) return;
        piece.on_tile = true;
        const DecodedTile& t = *it->second;
        const TileType& type = types[static_cast<std::size_t>(t.type)];
        const cv::Point2d uv(cell_f.x - piece.col - t.offset_px.x / view.pitch_px, cell_f.y - piece.row - t.offset_px.y / view.pitch_px);
        piece.feature = feature_at_point(type, t.rot, uv, o.feature_search_mm / o.tile_mm, prefer);
        if (piece.feature >= 0) {
            const auto& def = type.features[static_cast<std::size_t>(piece.feature)];
            piece.feature_kind = def.kind;
            piece.port = rotate_port(def.ports.front(), t.rot);
        }
    };
    for (int c = 0; c < n_colours; ++c) {
        const auto& model = colours.colours[static_cast<std::size_t>(c)];
        // Blobs: what no terrain explains (`seeds`), and the same grown over the pixels its colour's
        // gate passes that a terrain explained (`grown`: a grey follower's faces on a grey road).
        auto tidy = [&](cv::Mat& m) {
            if (open_px > 0) cv::morphologyEx(m, m, cv::MORPH_OPEN, opener);
            cv::morphologyEx(m, m, cv::MORPH_CLOSE, opener);  // close small holes (a face in deep shade, glare on a face)
        };
        cv::Mat seeds = best == c;
        tidy(seeds);
        cv::Mat grown;
        if (o.grow_mm > 0) {
            // As far as a follower reaches, and not over a terrain whose own colour this is (grass of a
            // green follower's colour would grow without end).
            const int grow_px = static_cast<int>(std::lround(o.grow_mm * o.px_per_mm));
            cv::Mat reach;
            cv::dilate(seeds, reach, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * grow_px + 1, 2 * grow_px + 1)));
            grown = (reach & (passing == c)) | seeds;
        }
        if (c == shade_model) {
            // A grey follower's shaded faces (the shade: darker than its gate) beside its lit ones, and its lit
            // faces that a light grey road (or the road in a token's shadow) explained.
            if (grown.empty()) grown = seeds.clone();
            cv::Mat reach;
            for (const auto& [mm, over] : {std::pair<double, const cv::Mat*>{o.achromatic_shade_mm, &shade}, {o.grey_grow_mm, &grey_lit}}) {
                if (mm <= 0) continue;
                const int px = static_cast<int>(std::lround(mm * o.px_per_mm));
                cv::dilate(seeds, reach, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * px + 1, 2 * px + 1)));
                grown |= reach & *over;
            }
        }
        if (!grown.empty()) tidy(grown);
        // A follower lies mostly on the tiles' interiors, not along the gaps between them; at the
        // board's rim it may lean over the table, which then counts for neither.
        auto on_interiors = [&](const cv::Mat& blob, const cv::Rect& box, int area) {
            const int interior = cv::countNonZero(blob & ~table_near(box));
            const int in_cells = cv::countNonZero(blob & (terrain(box) != kNoTile));
            return interior >= o.min_interior_share * in_cells && interior >= o.min_on_board_share * area;
        };
        bool judging_part = false;  // (a part of a blob, cut in two or to the tiles: its rejection is not reported)
        // The follower blob `i` of the labels `comp` (with their `stats`) would be; none when it is not one.
        auto evaluate = [&](const cv::Mat& comp, const cv::Mat& stats, int i) -> std::optional<DetectedPiece> {
            const double area_mm2 = stats.at<int>(i, cv::CC_STAT_AREA) / px2_per_mm2;
            // (--dump: why a blob is no follower, for blobs of at least a third of a follower's least area)
            auto reject = [&](const char* why) -> std::optional<DetectedPiece> {
                if (o.keep_rejected && !judging_part && area_mm2 >= o.min_area_mm2 / 3) {
                    DetectedPiece r;
                    r.kind = why;
                    r.colour = model.name;
                    r.area_mm2 = area_mm2;
                    const cv::Point2d middle(stats.at<int>(i, cv::CC_STAT_LEFT) + 0.5 * stats.at<int>(i, cv::CC_STAT_WIDTH),
                                        stats.at<int>(i, cv::CC_STAT_TOP) + 0.5 * stats.at<int>(i, cv::CC_STAT_HEIGHT));
                    r.top_px = apply_homography(top_to_det.inv(), middle);
                    out.rejected.push_back(std::move(r));
                }
                return std::nullopt;
            };
            if (area_mm2 < o.min_area_mm2) return reject("small");
            if (area_mm2 > o.max_area_mm2) return reject("large");
            const cv::Rect box(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP), stats.at<int>(i, cv::CC_STAT_WIDTH),
                               stats.at<int>(i, cv::CC_STAT_HEIGHT));
            cv::Mat blob = comp(box) == i;
            std::vector<std::vector<cv::Point>> contours;
            cv::findContours(blob.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
            if (contours.empty()) return reject("no outline");
            std::size_t biggest = 0;
            for (std::size_t k = 1; k < contours.size(); ++k) {
                if (cv::contourArea(contours[k]) > cv::contourArea(contours[biggest])) biggest = k;
            }
            std::vector<cv::Point> hull;
            cv::convexHull(contours[biggest], hull);
            const double solidity = stats.at<int>(i, cv::CC_STAT_AREA) / std::max(1.0, cv::contourArea(hull));
            // Off the cells (at the board's rim) the table cuts or joins a follower's outline: a looser test there.
            const bool at_rim = cv::countNonZero(blob & (terrain(box) == kNoTile)) > 0.1 * stats.at<int>(i, cv::CC_STAT_AREA);
            if (solidity < (at_rim ? o.min_solidity_rim : o.min_solidity)) return reject("not solid");
            if (!on_interiors(comp(box) == i, box, stats.at<int>(i, cv::CC_STAT_AREA))) return reject("on the gaps");
            if (std::min(cv::minAreaRect(contours[biggest]).size.width, cv::minAreaRect(contours[biggest]).size.height) * mm_per_px <
                o.min_width_mm) {
                return reject("thin");
            }
            // Geometry on the plane (mm): centroid, and extents along and across the ray from the foot point.
            std::vector<cv::Point2d> pts;
            double conf = 0;
            for (int y = 0; y < blob.rows; ++y) {
                for (int x = 0; x < blob.cols; ++x) {
                    if (!blob.at<std::uint8_t>(y, x)) continue;
                    pts.emplace_back((box.x + x + 0.5) * mm_per_px, (box.y + y + 0.5) * mm_per_px);
                    conf += closeness.at<float>(box.y + y, box.x + x);
                }
            }
            cv::Point2d centre(0, 0);
            for (const auto& p : pts) centre += p;
            centre *= 1.0 / static_cast<double>(pts.size());
            cv::Point2d along = centre - foot.foot_mm;
            const double radius = cv::norm(along);
            along = radius > 1e-6 ? along * (1.0 / radius) : cv::Point2d(0, 1);
            const cv::Point2d across(-along.y, along.x);
            double lo = 1e18, hi = -1e18, left = 1e18, right = -1e18;
            for (const auto& p : pts) {
                const cv::Point2d d = p - centre;
                lo = std::min(lo, d.dot(along)), hi = std::max(hi, d.dot(along));
                left = std::min(left, d.dot(across)), right = std::max(right, d.dot(across));
            }
            const double length = hi - lo, width = right - left;
            const double h = o.meeple_mm, zc = std::max(foot.height_mm, 2 * h);
            const double stand_smear = h * radius / (zc - h), lie_smear = 0.44 * h * radius / (zc - 0.44 * h);
            DetectedPiece piece;
            piece.colour = model.name;
            // Seen from above, a lying follower is as wide as it is tall, and its arms and legs
            // make it less solid than a standing one's shoulders and smeared front face.
            const cv::RotatedRect rect = cv::minAreaRect(contours[biggest]);
            const double rect_short = std::min(rect.size.width, rect.size.height) * mm_per_px;
            const double pose_margin = (rect_short - 0.94 * h * (solidity - 0.9)) / h - o.lying_width;  // > 0: lying
            piece.lying = pose_margin > 0;
            // Just over the threshold "lying" is a guess: the feature under the base (the blob's middle, which
            // lies on the follower's body either way) decides, not the pose's preference. A standing guess keeps
            // its preference: its base (feet) is uncertain along the ray by more than a road is wide.
            bool pose_sure = !piece.lying || pose_margin >= o.pose_doubt;
            // Base: a standing piece's feet are at the blob's end nearest the foot point (plus
            // half its thickness); a lying piece's middle is the middle of its footprint.
            const double base_along = piece.lying ? lo + 0.5 * (length - lie_smear) : lo + 0.22 * h;
            cv::Point2d base_mm = centre + along * base_along;
            cv::Point2d lying_base_mm = base_mm;  // where the body's middle lies if it is a lying follower after all
            double lying_fit_gap = 1.0;           // how much worse the lying silhouette fits than the standing one
            if (o.silhouette_pose) {
                // The meeple silhouette (standing or lying, turned, smeared along the camera's ray)
                // that covers the blob best gives the pose and the base.
                const cv::Point2d blob_origin_mm(box.x * mm_per_px, box.y * mm_per_px);
                const SilhouetteFit stand = fit_silhouette(blob, blob_origin_mm, o.px_per_mm, foot, h, false, o.standing_yaws);
                const SilhouetteFit lie = fit_silhouette(blob, blob_origin_mm, o.px_per_mm, foot, h, true, o.lying_yaws);
                piece.fit_standing = stand.iou;
                piece.fit_lying = lie.iou;
                if (std::max(stand.iou, lie.iou) < o.min_fit && !at_rim) return reject("no silhouette fits");  // (the table cuts or joins a rim blob's outline)
                const double lying_margin = lie.iou - stand.iou + o.lying_fit_bias;
                piece.lying = lying_margin > 0;
                pose_sure = !piece.lying || lying_margin >= o.pose_fit_doubt;
                if (std::abs(lie.iou - stand.iou) < o.pose_tie_fit) {
                    // Both silhouettes fit about as well: the pose whose base lies well inside a feature it may
                    // take wins (a lying body's middle on a field, standing feet on a road, city or monastery).
                    const double room_lying = room_share_at(lie.base_mm, FeaturePreference::Field);
                    const double room_standing = room_share_at(stand.base_mm, FeaturePreference::NotField);
                    if (std::abs(room_lying - room_standing) >= o.pose_room_gap) {
                        piece.lying = room_lying > room_standing;
                        pose_sure = true;
                    }
                }
                base_mm = piece.lying ? lie.base_mm : stand.base_mm;
                lying_base_mm = lie.base_mm;
                lying_fit_gap = stand.iou - lie.iou;
            }
            piece.area_mm2 = area_mm2;
            piece.length_mm = length;
            piece.width_mm = width;
            piece.smear_mm = stand_smear;
            piece.solidity = solidity;
            piece.rect_short_mm = rect_short;
            piece.rect_long_mm = std::max(rect.size.width, rect.size.height) * mm_per_px;
            piece.confidence = conf / static_cast<double>(pts.size());
            for (const auto& p : contours[biggest]) {
                const cv::Point2d q = apply_homography(det_to_image, cv::Point2d(p.x + box.x, p.y + box.y));
                piece.outline_px.emplace_back(static_cast<int>(std::lround(q.x)), static_cast<int>(std::lround(q.y)));
            }
            // 5. The feature under the base.
            place(piece, base_mm, !pose_sure ? FeaturePreference::Any : piece.lying ? FeaturePreference::Field : FeaturePreference::NotField);
            // Nobody stands on a field (farmers lie): a standing silhouette with no road, city or
            // monastery near its feet is a lying follower when its lying silhouette fitted nearly as
            // well. (Else it stays: a real standing follower whose shaded faces its colour missed
            // leaves only its lit top, whose feet then land on the field beside.)
            if (o.silhouette_pose && piece.on_tile && !piece.lying && piece.feature_kind == FeatureKind::Field &&
                lying_fit_gap <= o.field_pose_slack) {
                piece.lying = true;
                place(piece, lying_base_mm, FeaturePreference::Field);
            }
            if (!piece.on_tile) return reject("off the tiles");
            return piece;
        };
        cv::Mat seed_comp, seed_stats, seed_centroids;
        const int n = cv::connectedComponentsWithStats(seeds, seed_comp, seed_stats, seed_centroids, 8, CV_32S);
        std::vector<std::optional<DetectedPiece>> by_seed(static_cast<std::size_t>(n));
        for (int i = 1; i < n; ++i) by_seed[static_cast<std::size_t>(i)] = evaluate(seed_comp, seed_stats, i);
        auto fit_of = [](const std::optional<DetectedPiece>& p) { return p ? std::max(p->fit_standing, p->fit_lying) : -1.0; };
        cv::Mat part_comp;  // parts of one blob judged alone, labelled 1, 2 (cleared after each blob)
        // Labels `mask`'s (within `box`) largest connected piece `label` in part_comp and puts its stats in row `label` of
        // `part_stats`; returns its area (px; 0: none).
        auto keep_largest_piece = [&](const cv::Mat& mask, const cv::Rect& box, int label, cv::Mat& part_stats) {
            cv::Mat cc, cs, cm;
            const int m = cv::connectedComponentsWithStats(mask, cc, cs, cm, 8, CV_32S);
            int largest = 0;
            for (int j = 1; j < m; ++j) {
                if (largest == 0 || cs.at<int>(j, cv::CC_STAT_AREA) > cs.at<int>(largest, cv::CC_STAT_AREA)) largest = j;
            }
            if (largest == 0) return 0;
            if (part_comp.empty()) part_comp = cv::Mat(det_size, CV_32SC1, cv::Scalar(0));
            part_comp(box).setTo(label, cc == largest);
            part_stats.at<int>(label, cv::CC_STAT_LEFT) = box.x + cs.at<int>(largest, cv::CC_STAT_LEFT);
            part_stats.at<int>(label, cv::CC_STAT_TOP) = box.y + cs.at<int>(largest, cv::CC_STAT_TOP);
            part_stats.at<int>(label, cv::CC_STAT_WIDTH) = cs.at<int>(largest, cv::CC_STAT_WIDTH);
            part_stats.at<int>(label, cv::CC_STAT_HEIGHT) = cs.at<int>(largest, cv::CC_STAT_HEIGHT);
            part_stats.at<int>(label, cv::CC_STAT_AREA) = cs.at<int>(largest, cv::CC_STAT_AREA);
            return cs.at<int>(largest, cv::CC_STAT_AREA);
        };
        // A rejected blob reaching well off the tiles (a follower joined to the table beside it) is judged again as
        // its largest connected piece on the tiles' cells.
        for (int i = 1; i < n && o.rim_cut_off_share <= 1; ++i) {
            const int area_px = seed_stats.at<int>(i, cv::CC_STAT_AREA);
            if (by_seed[static_cast<std::size_t>(i)] || area_px < o.min_area_mm2 * px2_per_mm2) continue;
            const cv::Rect box(seed_stats.at<int>(i, cv::CC_STAT_LEFT), seed_stats.at<int>(i, cv::CC_STAT_TOP), seed_stats.at<int>(i, cv::CC_STAT_WIDTH),
                               seed_stats.at<int>(i, cv::CC_STAT_HEIGHT));
            const cv::Mat on_cells = (seed_comp(box) == i) & (terrain(box) != kNoTile);
            if (area_px - cv::countNonZero(on_cells) < o.rim_cut_off_share * area_px) continue;
            cv::Mat part_stats(2, 5, CV_32SC1, cv::Scalar(0));
            if (keep_largest_piece(on_cells, box, 1, part_stats) < o.min_area_mm2 * px2_per_mm2) {
                if (!part_comp.empty()) part_comp(box).setTo(0);
                continue;
            }
            judging_part = true;  // (a cut that is no follower is not reported: its whole blob was)
            by_seed[static_cast<std::size_t>(i)] = evaluate(part_comp, part_stats, 1);
            judging_part = false;
            part_comp(box).setTo(0);
        }
        // Two touching followers of one colour make one blob that one silhouette fits badly: cut such a follower's blob in two
        // (k-means of its pixels' positions) and keep the two parts when each is a follower whose silhouette fits clearly better.
        std::vector<std::optional<DetectedPiece>> second_of(static_cast<std::size_t>(n));
        for (int i = 1; i < n && o.split_below_fit > 0; ++i) {
            const int area_px = seed_stats.at<int>(i, cv::CC_STAT_AREA);
            if (area_px < 2 * o.min_area_mm2 * px2_per_mm2 || area_px > 2 * o.max_area_mm2 * px2_per_mm2) continue;
            const cv::Rect box(seed_stats.at<int>(i, cv::CC_STAT_LEFT), seed_stats.at<int>(i, cv::CC_STAT_TOP), seed_stats.at<int>(i, cv::CC_STAT_WIDTH),
                               seed_stats.at<int>(i, cv::CC_STAT_HEIGHT));
            const cv::Mat blob = seed_comp(box) == i;
            const double whole_fit = fit_of(by_seed[static_cast<std::size_t>(i)]);
            if (whole_fit < 0 || whole_fit >= o.split_below_fit) continue;
            std::vector<cv::Point> pts;
            cv::findNonZero(blob, pts);
            cv::Mat data(static_cast<int>(pts.size()), 2, CV_32F), labels, centres;
            for (std::size_t k = 0; k < pts.size(); ++k) {
                data.at<float>(static_cast<int>(k), 0) = static_cast<float>(pts[k].x);
                data.at<float>(static_cast<int>(k), 1) = static_cast<float>(pts[k].y);
            }
            cv::setRNGSeed(17);
            cv::kmeans(data, 2, labels, cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 20, 0.1), 3, cv::KMEANS_PP_CENTERS, centres);
            cv::Mat part_stats(3, 5, CV_32SC1, cv::Scalar(0));
            for (int part = 1; part <= 2; ++part) {
                // (each part's largest connected piece)
                cv::Mat mask(box.size(), CV_8UC1, cv::Scalar(0));
                for (std::size_t k = 0; k < pts.size(); ++k) {
                    if (labels.at<int>(static_cast<int>(k)) == part - 1) mask.at<std::uint8_t>(pts[k]) = 255;
                }
                keep_largest_piece(mask, box, part, part_stats);
            }
            // (the parts judged as any blob; a part that is no follower is not reported as rejected)
            judging_part = true;
            auto first = part_stats.at<int>(1, cv::CC_STAT_AREA) > 0 ? evaluate(part_comp, part_stats, 1) : std::nullopt;
            auto second = first && part_stats.at<int>(2, cv::CC_STAT_AREA) > 0 ? evaluate(part_comp, part_stats, 2) : std::nullopt;
            judging_part = false;
            if (!part_comp.empty()) part_comp(box).setTo(0);
            if (!first || !second || std::min(fit_of(first), fit_of(second)) < whole_fit + o.split_fit_gain) continue;
            by_seed[static_cast<std::size_t>(i)] = std::move(first);
            second_of[static_cast<std::size_t>(i)] = std::move(second);
        }
        std::vector<bool> replaced(static_cast<std::size_t>(n), false);
        if (!grown.empty()) {
            // A grown blob replaces the seeds in it when its silhouette fits better than every one of
            // theirs (the follower's explained faces joined to the rest); else the seeds stay (the
            // growth took in a shadow or the art beside, or joined two followers).
            cv::Mat grown_comp, grown_stats, grown_centroids;
            const int m = cv::connectedComponentsWithStats(grown, grown_comp, grown_stats, grown_centroids, 8, CV_32S);
            std::vector<std::vector<int>> seeds_in(static_cast<std::size_t>(m));
            std::vector<bool> seen(static_cast<std::size_t>(n), false);
            for (int y = 0; y < seeds.rows; ++y) {
                const auto* sc = seed_comp.ptr<int>(y);
                const auto* gc = grown_comp.ptr<int>(y);
                for (int x = 0; x < seeds.cols; ++x) {
                    if (sc[x] > 0 && gc[x] > 0 && !seen[static_cast<std::size_t>(sc[x])]) {
                        seen[static_cast<std::size_t>(sc[x])] = true;
                        seeds_in[static_cast<std::size_t>(gc[x])].push_back(sc[x]);
                    }
                }
            }
            for (int g = 1; g < m; ++g) {
                const auto& in = seeds_in[static_cast<std::size_t>(g)];
                int seed_area = 0;
                for (const int i : in) seed_area += seed_stats.at<int>(i, cv::CC_STAT_AREA);
                if (in.empty() || grown_stats.at<int>(g, cv::CC_STAT_AREA) == seed_area) continue;  // nothing grew
                if (c == shade_model) {
                    // (Mostly the colour's own lit faces, and no black piece's worth of pixels taken in: a black follower beside.)
                    const cv::Rect gbox(grown_stats.at<int>(g, cv::CC_STAT_LEFT), grown_stats.at<int>(g, cv::CC_STAT_TOP),
                                        grown_stats.at<int>(g, cv::CC_STAT_WIDTH), grown_stats.at<int>(g, cv::CC_STAT_HEIGHT));
                    const cv::Mat in_grown = grown_comp(gbox) == g;
                    const int other_colours = cv::countNonZero(in_grown & (best(gbox) != 255) & (best(gbox) != c));
                    if (seed_area < o.shade_lit_share * grown_stats.at<int>(g, cv::CC_STAT_AREA) ||
                        other_colours > 0.5 * o.min_area_mm2 * px2_per_mm2) {
                        continue;
                    }
                }
                double best_seed_fit = -1;
                for (const int i : in) best_seed_fit = std::max(best_seed_fit, fit_of(by_seed[static_cast<std::size_t>(i)]));
                auto piece = evaluate(grown_comp, grown_stats, g);
                if (!piece || fit_of(piece) <= best_seed_fit + o.grow_fit_gain) continue;
                for (const int i : in) replaced[static_cast<std::size_t>(i)] = true;
                out.pieces.push_back(std::move(*piece));
            }
        }
        for (int i = 1; i < n; ++i) {
            if (replaced[static_cast<std::size_t>(i)]) continue;
            if (by_seed[static_cast<std::size_t>(i)]) out.pieces.push_back(std::move(*by_seed[static_cast<std::size_t>(i)]));
            if (second_of[static_cast<std::size_t>(i)]) out.pieces.push_back(std::move(*second_of[static_cast<std::size_t>(i)]));
        }
    }
    attach_followers(frame, o, out);
    keep_owned_followers(o, out);
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return out;
}

}  // namespace meeplecam::vision
