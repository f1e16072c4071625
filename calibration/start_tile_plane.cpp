#include "calibration/start_tile_plane.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "calibration/calibration_file.h"
#include "calibration/camera_calibration.h"
#include "vision/tile_classifier.h"

namespace meeplecam::calibration {
namespace {

using Quad = std::array<cv::Point2d, 4>;

// Orders four corners clockwise (y down) starting from the one nearest the image's top-left.
Quad clockwise_from_top_left(const std::vector<cv::Point2d>& pts) {
    cv::Point2d c(0, 0);
    for (const auto& p : pts) c += p * 0.25;
    std::vector<cv::Point2d> sorted = pts;
    std::sort(sorted.begin(), sorted.end(), [&](const cv::Point2d& a, const cv::Point2d& b) {
        return std::atan2(a.y - c.y, a.x - c.x) < std::atan2(b.y - c.y, b.x - c.x);
    });
    std::size_t first = 0;
    for (std::size_t i = 1; i < 4; ++i) {
        if (sorted[i].x + sorted[i].y < sorted[first].x + sorted[first].y) first = i;
    }
    Quad q;
    for (std::size_t i = 0; i < 4; ++i) q[i] = sorted[(first + i) % 4];
    return q;
}

// Whether a quad is convex, its sides within [min_side, max_side] and each other's ratio, and
// its corners near right angles.
bool tile_shaped(const Quad& q, double min_side, double max_side, const StartTilePlaneOptions& o) {
    double shortest = 1e18, longest = 0;
    double turn_sign = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2d a = q[(i + 3) % 4], b = q[i], c = q[(i + 1) % 4];
        const cv::Point2d u = a - b, v = c - b;
        const double side = cv::norm(v);
        shortest = std::min(shortest, side);
        longest = std::max(longest, side);
        const double nu = cv::norm(u), nv = cv::norm(v);
        if (nu < 1e-9 || nv < 1e-9) return false;
        const double angle = std::acos(std::clamp(u.dot(v) / (nu * nv), -1.0, 1.0)) * 180 / CV_PI;
        if (std::abs(angle - 90) > o.max_corner_error_deg) return false;
        const double cross = u.x * v.y - u.y * v.x;
        if (turn_sign != 0 && cross * turn_sign < 0) return false;  // not convex
        turn_sign = cross;
    }
    return shortest >= min_side && longest <= max_side && longest <= o.max_side_ratio * shortest;
}

// Adds the four-sided outlines among `contours` (working-image pixels) to `out`.
void add_quads(const std::vector<std::vector<cv::Point>>& contours, double min_side, double max_side, const StartTilePlaneOptions& o,
               bool rectangles_too, std::vector<Quad>& out) {
    for (const auto& c : contours) {
        const double area = std::abs(cv::contourArea(c));
        if (area < min_side * min_side * 0.5 || area > max_side * max_side * 1.5) continue;
        std::vector<cv::Point> approx;
        cv::approxPolyDP(c, approx, 0.04 * cv::arcLength(c, true), true);
        if (approx.size() == 4) {
            std::vector<cv::Point2d> pts(approx.begin(), approx.end());
            const Quad q = clockwise_from_top_left(pts);
            if (tile_shaped(q, min_side, max_side, o)) out.push_back(q);
        }
        if (rectangles_too) {  // a blob whose outline a follower or a shadow broke: its rotated rectangle
            const cv::RotatedRect r = cv::minAreaRect(c);
            if (area < 0.8 * r.size.area()) continue;
            cv::Point2f p[4];
            r.points(p);
            const Quad q = clockwise_from_top_left({p[0], p[1], p[2], p[3]});
            if (tile_shaped(q, min_side, max_side, o)) out.push_back(q);
        }
    }
}

cv::Point2d centre_of(const Quad& q) { return (q[0] + q[1] + q[2] + q[3]) * 0.25; }

double mean_side(const Quad& q) {
    double s = 0;
    for (std::size_t i = 0; i < 4; ++i) s += cv::norm(q[(i + 1) % 4] - q[i]) / 4;
    return s;
}

// Drops quads that repeat an earlier one (same place and size).
std::vector<Quad> distinct(const std::vector<Quad>& quads) {
    std::vector<Quad> out;
    for (const Quad& q : quads) {
        const double side = mean_side(q);
        bool seen = false;
        for (const Quad& k : out) {
            double far = 0;
            for (std::size_t i = 0; i < 4; ++i) far = std::max(far, cv::norm(k[i] - q[i]));
            if (far < 0.08 * side) {
                seen = true;
                break;
            }
        }
        if (!seen) out.push_back(q);
    }
    return out;
}

// The quad grown (or shrunk) about its centre by `k`.
Quad scaled(const Quad& q, double k) {
    const cv::Point2d c = centre_of(q);
    Quad out;
    for (std::size_t i = 0; i < 4; ++i) out[i] = c + (q[i] - c) * k;
    return out;
}

cv::Mat quad_mask(cv::Size size, const Quad& q) {
    cv::Mat m(size, CV_8UC1, cv::Scalar(0));
    std::vector<cv::Point> pts;
    for (const auto& p : q) pts.emplace_back(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
    cv::fillConvexPoly(m, pts, cv::Scalar(255));
    return m;
}

// How far (Lab) the quad's inside is from the ring of table just around it.
double ring_contrast(const cv::Mat& lab, const Quad& q) {
    const cv::Point2d c = centre_of(q);
    const double side = mean_side(q);
    cv::Rect box(static_cast<int>(c.x - side), static_cast<int>(c.y - side), static_cast<int>(2 * side) + 1, static_cast<int>(2 * side) + 1);
    box &= cv::Rect(0, 0, lab.cols, lab.rows);
    if (box.area() == 0) return 0;
    Quad local;
    for (std::size_t i = 0; i < 4; ++i) local[i] = q[i] - cv::Point2d(box.x, box.y);
    const cv::Mat roi = lab(box);
    const cv::Mat inside = quad_mask(box.size(), scaled(local, 0.8));
    const cv::Mat ring = quad_mask(box.size(), scaled(local, 1.35)) & ~quad_mask(box.size(), scaled(local, 1.1));
    if (cv::countNonZero(inside) == 0 || cv::countNonZero(ring) == 0) return 0;
    const cv::Scalar a = cv::mean(roi, inside), b = cv::mean(roi, ring);
    return std::sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

// The homography taking the canonical square (0..n) to the quad.
cv::Matx33d square_to_quad(const Quad& q, int n) {
    const std::vector<cv::Point2f> src = {{0, 0}, {static_cast<float>(n), 0}, {static_cast<float>(n), static_cast<float>(n)},
                                          {0, static_cast<float>(n)}};
    std::vector<cv::Point2f> dst;
    for (const auto& p : q) dst.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
    return cv::Matx33d(cv::getPerspectiveTransform(src, dst));
}

// The value of a CV_32F image at a point between pixels (bilinear); the point must lie inside.
double bilinear(const cv::Mat& img, cv::Point2d p) {
    const int x = static_cast<int>(p.x), y = static_cast<int>(p.y);
    const double fx = p.x - x, fy = p.y - y;
    const auto* r0 = img.ptr<float>(y);
    const auto* r1 = img.ptr<float>(y + 1);
    return (1 - fy) * ((1 - fx) * r0[x] + fx * r0[x + 1]) + fy * ((1 - fx) * r1[x] + fx * r1[x + 1]);
}

// The edge points of each side of `q` (clockwise, image pixels): along the side, the strongest
// gradient across it within `reach` px (sub-pixel); a side with fewer than half its samples on
// an edge, or whose points do not lie on a line (1 px), gets none.
std::array<std::vector<cv::Point2f>, 4> side_edges(const cv::Mat& grey, const Quad& q, double reach) {
    std::array<std::vector<cv::Point2f>, 4> sides;
    // Gradients over the outline's box only (the tracker refines every tile of a frame).
    double x0 = 1e18, y0 = 1e18, x1 = -1e18, y1 = -1e18;
    for (const auto& p : q) x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
    const int margin = static_cast<int>(std::ceil(reach)) + 4;
    const cv::Rect box = cv::Rect(static_cast<int>(std::floor(x0)) - margin, static_cast<int>(std::floor(y0)) - margin,
                                  static_cast<int>(std::ceil(x1 - x0)) + 2 * margin, static_cast<int>(std::ceil(y1 - y0)) + 2 * margin) &
                         cv::Rect(0, 0, grey.cols, grey.rows);
    if (box.width < 8 || box.height < 8) return sides;
    cv::Mat gx, gy;
    cv::Sobel(grey(box), gx, CV_32F, 1, 0, 3);
    cv::Sobel(grey(box), gy, CV_32F, 0, 1, 3);
    const cv::Point2d origin(box.x, box.y);
    constexpr int kSamples = 24;
    for (std::size_t s = 0; s < 4; ++s) {
        const cv::Point2d a = q[s], b = q[(s + 1) % 4];
        const cv::Point2d d = (b - a) * (1.0 / std::max(1e-9, cv::norm(b - a)));
        const cv::Point2d nrm(-d.y, d.x);
        std::vector<cv::Point2f> edge;
        for (int i = 0; i < kSamples; ++i) {
            const cv::Point2d p = a + (b - a) * (0.12 + 0.76 * i / (kSamples - 1));
            // The gradient across the side, sampled every half pixel (bilinear), its peak found
            // to a fraction of a step by a parabola through the peak and its neighbours.
            std::vector<double> g;
            for (double t = -reach; t <= reach + 1e-9; t += 0.5) {
                const cv::Point2d x = p + nrm * t - origin;
                if (x.x < 1 || x.y < 1 || x.x >= gx.cols - 2 || x.y >= gx.rows - 2) {
                    g.push_back(0);
                    continue;
                }
                g.push_back(std::abs(bilinear(gx, x) * nrm.x + bilinear(gy, x) * nrm.y));
            }
            const auto top = std::max_element(g.begin(), g.end());
            if (*top <= 20) continue;
            const auto k = static_cast<std::size_t>(top - g.begin());
            double offset = 0;
            if (k > 0 && k + 1 < g.size()) {
                const double den = g[k - 1] - 2 * g[k] + g[k + 1];
                if (den < 0) offset = std::clamp(0.5 * (g[k - 1] - g[k + 1]) / den, -0.5, 0.5);
            }
            const cv::Point2d at = p + nrm * (-reach + 0.5 * (static_cast<double>(k) + offset));
            edge.emplace_back(static_cast<float>(at.x), static_cast<float>(at.y));
        }
        if (edge.size() < kSamples / 2) continue;
        cv::Vec4f line;
        cv::fitLine(edge, line, cv::DIST_HUBER, 0, 0.01, 0.01);
        std::vector<cv::Point2f> on_line;
        for (const auto& e : edge) {
            const double dist = std::abs((e.x - line[2]) * line[1] - (e.y - line[3]) * line[0]);
            if (dist <= 1.0) on_line.push_back(e);
        }
        if (on_line.size() >= kSamples / 2) sides[s] = std::move(on_line);
    }
    return sides;
}

// Moves each side of `q` (full-resolution pixels) onto its edge (side_edges), fits a line to
// each and intersects the lines. Returns nullopt when a side has no edge or a corner would
// move more than 2 * reach.
std::optional<Quad> refine_sides(const cv::Mat& grey, const Quad& q, double reach) {
    const auto sides = side_edges(grey, q, reach);
    std::array<cv::Vec4f, 4> lines{};
    for (std::size_t s = 0; s < 4; ++s) {
        if (sides[s].empty()) return std::nullopt;
        cv::fitLine(sides[s], lines[s], cv::DIST_HUBER, 0, 0.01, 0.01);
    }
    Quad out;
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Vec4f& l1 = lines[(i + 3) % 4];  // the side ending at corner i
        const cv::Vec4f& l2 = lines[i];            // the side starting at it
        const double det = l1[0] * -l2[1] - l1[1] * -l2[0];
        if (std::abs(det) < 1e-6) return std::nullopt;
        const double dx = l2[2] - l1[2], dy = l2[3] - l1[3];
        const double t = (dx * -l2[1] - dy * -l2[0]) / det;
        out[i] = cv::Point2d(l1[2] + t * l1[0], l1[3] + t * l1[1]);
        if (cv::norm(out[i] - q[i]) > 2 * reach) return std::nullopt;
    }
    return out;
}

}  // namespace

Status StartTilePlaneOptions::check() const {
    auto bad = [](const std::string& what) { return invalid("StartTilePlaneOptions", what); };
    if (!(tile_mm > 5 && tile_mm < 500)) return bad("tile_mm must be in (5, 500)");
    if (work_side < 200 || work_side > 8192) return bad("work_side must be in [200, 8192]");
    if (!(min_side_share > 0 && min_side_share < max_side_share && max_side_share <= 1)) {
        return bad("need 0 < min_side_share < max_side_share <= 1");
    }
    if (!(max_side_ratio >= 1 && max_side_ratio <= 3)) return bad("max_side_ratio must be in [1, 3]");
    if (!(max_corner_error_deg > 0 && max_corner_error_deg < 60)) return bad("max_corner_error_deg must be in (0, 60)");
    if (!(min_ring_delta_e >= 0 && min_ring_delta_e < 100)) return bad("min_ring_delta_e must be in [0, 100)");
    if (!(min_confidence >= 0 && min_confidence <= 1)) return bad("min_confidence must be in [0, 1]");
    if (!(refine_reach_px >= 0 && refine_reach_px <= 50)) return bad("refine_reach_px must be in [0, 50]");
    return Ok{};
}

Result<StartTilePlane> table_from_start_tile(const cv::Mat& image, const TileType& start, const vision::TileClassifier& classifier,
                                             const StartTilePlaneOptions& o, const CameraIntrinsics* camera,
                                             const std::string& where) {
    if (auto st = o.check(); !st) return st.error();
    if (image.empty() || image.type() != CV_8UC3) return invalid(where, "needs an 8-bit colour photo");
    if (std::min(image.cols, image.rows) < 64) return invalid(where, "is too small to find a tile in");
    if (camera) {
        if (auto scaled_k = intrinsics_for_size(*camera, image.size(), where); !scaled_k) return scaled_k.error();
    }
    // 1. Four-sided, tile-sized outlines in a working-size copy.
    const double s = std::min(1.0, static_cast<double>(o.work_side) / std::max(image.cols, image.rows));
    cv::Mat work;
    if (s < 1) {
        cv::resize(image, work, {}, s, s, cv::INTER_AREA);
    } else {
        work = image;
    }
    const double short_side = std::min(work.cols, work.rows);
    const double min_side = o.min_side_share * short_side, max_side = o.max_side_share * short_side;
    cv::Mat grey, lab;
    cv::cvtColor(work, grey, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(grey, grey, {3, 3}, 0);
    cv::cvtColor(work, lab, cv::COLOR_BGR2Lab);
    std::vector<Quad> quads;
    for (const auto& [lo, hi] : {std::pair{30, 90}, std::pair{60, 180}}) {
        cv::Mat edges;
        cv::Canny(grey, edges, lo, hi);
        cv::dilate(edges, edges, cv::Mat());
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(edges, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
        add_quads(contours, min_side, max_side, o, false, quads);
    }
    {  // Blobs unlike the table around them: the table's colour is the median over a window
       // several tiles wide (taken at a quarter of the working size), so light gradients and a
       // table of two colours do not matter.
        cv::Mat small;
        cv::resize(lab, small, {}, 0.25, 0.25, cv::INTER_AREA);
        const int k = std::max(3, static_cast<int>(0.25 * std::min(small.cols, small.rows)) | 1);
        cv::Mat background;
        cv::medianBlur(small, background, std::min(k, 255));
        cv::resize(background, background, lab.size(), 0, 0, cv::INTER_LINEAR);
        cv::Mat diff;
        cv::absdiff(lab, background, diff);
        diff.convertTo(diff, CV_32FC3);
        diff = diff.mul(diff);
        std::vector<cv::Mat> ch;
        cv::split(diff, ch);
        cv::Mat dist;
        cv::sqrt(ch[0] + ch[1] + ch[2], dist);
        for (const double delta : {18.0, 30.0}) {
            cv::Mat blob = dist > delta;
            cv::morphologyEx(blob, blob, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, {3, 3}));
            cv::morphologyEx(blob, blob, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_ELLIPSE, {5, 5}));
            std::vector<std::vector<cv::Point>> contours;
            cv::findContours(blob, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
            add_quads(contours, min_side, max_side, o, true, quads);
        }
    }
    quads = distinct(quads);
    if (quads.empty()) return invalid(where, "no tile-shaped outline found: put the start tile alone on a plain table, fully in view");

    // 2. The one the classifier reads as the start tile, standing out from the table.
    const int n = classifier.options().canonical_px;
    struct Pick {
        Quad quad;  // full-resolution pixels
        double cost = 1e18, confidence = 0;
        int rot = 0;
    };
    std::optional<Pick> best;
    int scored = 0, standing_out = 0;
    for (const Quad& q : quads) {
        if (ring_contrast(lab, q) < o.min_ring_delta_e) continue;
        ++standing_out;
        Quad full;
        for (std::size_t i = 0; i < 4; ++i) full[i] = q[i] * (1.0 / s);
        cv::Mat canonical;
        cv::warpPerspective(image, canonical, cv::Mat(square_to_quad(full, n)), {n, n}, cv::INTER_AREA | cv::WARP_INVERSE_MAP,
                            cv::BORDER_REPLICATE);
        const auto hyps = classifier.score_canonical(canonical);
        ++scored;
        const auto it = std::find_if(hyps.begin(), hyps.end(), [&](const vision::TileHypothesis& h) { return h.tile == start.id; });
        if (it == hyps.end() || it->confidence < o.min_confidence) continue;
        if (!best || it->cost < best->cost) best = Pick{full, it->cost, it->confidence, it->rot};
    }
    if (!best) {
        return invalid(where, std::to_string(quads.size()) + " tile-shaped outlines, " + std::to_string(standing_out) +
                                  " standing out from the table, none read as the start tile " + start.id +
                                  ": put the start tile alone on a plain table, fully in view, and light it evenly");
    }

    // 3. Sharpen the corners on the full photo, fit the plane.
    cv::Mat full_grey;
    cv::cvtColor(image, full_grey, cv::COLOR_BGR2GRAY);
    const Quad corners = refine_sides(full_grey, best->quad, std::max(o.refine_reach_px, 1.5 / s)).value_or(best->quad);
    const std::vector<cv::Point2d> table_mm = {o.origin_mm, o.origin_mm + cv::Point2d(o.tile_mm, 0),
                                               o.origin_mm + cv::Point2d(o.tile_mm, o.tile_mm), o.origin_mm + cv::Point2d(0, o.tile_mm)};
    auto plane = fit_table_plane(table_mm, std::vector<cv::Point2d>(corners.begin(), corners.end()));
    if (!plane) return invalid(where, "the start tile's corners give no plane: " + plane.error().message);
    StartTilePlane out;
    out.table.source = "start-tile";
    out.table.image_size = image.size();
    out.table.undistorted = camera != nullptr;
    out.table.plane = plane.value();
    out.corners_px = corners;
    out.rot_seen = best->rot;
    out.confidence = best->confidence;
    out.candidates = scored;
    return out;
}

std::optional<std::array<cv::Point2d, 4>> refine_tile_outline(const cv::Mat& grey, const std::array<cv::Point2d, 4>& corners, double reach_px) {
    if (grey.empty() || grey.type() != CV_8UC1) return std::nullopt;
    return refine_sides(grey, corners, reach_px);
}

std::array<std::vector<cv::Point2f>, 4> tile_side_edges(const cv::Mat& grey, const std::array<cv::Point2d, 4>& corners, double reach_px) {
    if (grey.empty() || grey.type() != CV_8UC1) return {};
    return side_edges(grey, corners, reach_px);
}

}  // namespace meeplecam::calibration
