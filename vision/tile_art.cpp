#include "vision/tile_art.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include <opencv2/imgproc.hpp>

#include "vision/homography.h"
#include "vision/random_source.h"

namespace meeplecam::vision {
namespace {

constexpr int kUnassigned = -2;  // label of a pixel no region has claimed yet
constexpr int kDecoration = -1;  // label of a pixel that belongs to no feature

// A point in a side's own frame: `a` runs along the side clockwise (0..1), `b` is the depth from it.
struct SideFrame {
    double a = 0;
    double b = 0;
};

// Expresses tile point p (0..1, x east, y south) in the frame of side s (0 N, 1 E, 2 S, 3 W).
SideFrame side_frame(cv::Point2d p, int side) {
    switch (side) {
        case 0: return {p.x, p.y};
        case 1: return {p.y, 1.0 - p.x};
        case 2: return {1.0 - p.x, 1.0 - p.y};
        default: return {1.0 - p.y, p.x};
    }
}

// The corner at the clockwise end of side s (N -> NE, E -> SE, S -> SW, W -> NW).
cv::Point2d corner_after(int side) {
    static const std::array<cv::Point2d, 4> kCorners = {
        cv::Point2d(1, 0), cv::Point2d(1, 1), cv::Point2d(0, 1), cv::Point2d(0, 0)};
    return kCorners[static_cast<std::size_t>(((side % 4) + 4) % 4)];
}

// A smooth, deterministic wiggle in [-1, 1] that vanishes at t = 0 and t = 1.
struct Wiggle {
    double f1 = 2, f2 = 3, p1 = 0, p2 = 0, w2 = 0.4;
    explicit Wiggle(std::uint64_t seed) {
        std::mt19937_64 engine(seed);
        RandomSource r(engine);
        f1 = r.integer(1, 2);
        f2 = r.integer(3, 4);
        p1 = r.uniform(0, 2 * kPi);
        p2 = r.uniform(0, 2 * kPi);
        w2 = r.uniform(0.2, 0.5);
    }
    double operator()(double t) const {
        const double v = std::sin(kPi * f1 * t + p1) * (1 - w2) + std::sin(kPi * f2 * t + p2) * w2;
        return v * std::sin(kPi * std::clamp(t, 0.0, 1.0));
    }
};

// Depth of a cap against one side at position a along it: a lens from corner to corner.
double cap_depth(double a, double depth, double wobble, const Wiggle& wiggle) {
    const double s = std::sin(kPi * std::clamp(a, 0.0, 1.0));
    return depth * std::pow(s, 0.55) + wobble * wiggle(a);
}

// The region of one city feature, derived from the sides (and loose ports) it owns.
class CityShape {
public:
    CityShape(const FeatureDef& def, const TileStyle& style, std::uint64_t seed) : style_(style) {
        for (int s = 0; s < 4; ++s) {
            int owned = 0;
            bool middle = false;
            for (const Port p : def.ports) {
                if (p == kCentre || side_of(p) != s) continue;
                ++owned;
                if (p % 3 == 1) middle = true;
            }
            if (middle || owned >= 2) sides_.push_back(s);
        }
        for (const Port p : def.ports) {
            if (p == kCentre) {
                centre_ = true;
            } else if (std::find(sides_.begin(), sides_.end(), side_of(p)) == sides_.end()) {
                loose_ports_.push_back(port_point(p));
            }
        }
        for (int s = 0; s < 4; ++s) wiggles_.emplace_back(seed + static_cast<std::uint64_t>(s) * 7919);
    }

    bool contains(cv::Point2d p) const {
        for (const auto& q : loose_ports_) {
            if (cv::norm(p - q) < 0.17) return true;
        }
        if (centre_ && cv::norm(p - cv::Point2d(0.5, 0.5)) < 0.2) return true;
        const auto k = sides_.size();
        if (k == 0) return false;
        if (k == 4) return true;
        if (k == 1) return in_cap(p, sides_[0], style_.city_depth);
        if (k == 3) {
            int missing = 0;
            while (std::find(sides_.begin(), sides_.end(), missing) != sides_.end()) ++missing;
            return !in_cap(p, missing, style_.field_depth);
        }
        const int s1 = sides_[0], s2 = sides_[1];
        if ((s2 - s1) % 2 == 0) {  // opposite sides: a band between two field caps
            return !in_cap(p, (s1 + 1) % 4, style_.field_depth) && !in_cap(p, (s1 + 3) % 4, style_.field_depth);
        }
        // Adjacent sides: the corner they share, up to a bulging diagonal.
        const int first = (s2 == (s1 + 1) % 4) ? s1 : s2;  // the side whose clockwise end is the shared corner
        const cv::Point2d c = corner_after(first);
        const cv::Point2d o(1.0 - c.x, 1.0 - c.y);
        const cv::Point2d e1 = corner_after(first + 3);  // free end of `first`
        const cv::Point2d e2 = corner_after(first + 1);  // free end of the other side
        const cv::Point2d co = o - c, ee = e2 - e1;
        const double w = (p - c).dot(co) / co.dot(co);
        const double t = std::clamp((p - e1).dot(ee) / ee.dot(ee), 0.0, 1.0);
        const double limit = 0.5 + style_.corner_bulge * std::pow(std::sin(kPi * t), 0.8) +
                             style_.edge_wobble * wiggles_[static_cast<std::size_t>(first)](t);
        return w < limit;
    }

private:
    bool in_cap(cv::Point2d p, int side, double depth) const {
        const SideFrame f = side_frame(p, side);
        return f.b < cap_depth(f.a, depth, style_.edge_wobble, wiggles_[static_cast<std::size_t>(side)]);
    }

    const TileStyle& style_;
    std::vector<int> sides_;
    std::vector<cv::Point2d> loose_ports_;
    bool centre_ = false;
    std::vector<Wiggle> wiggles_;
};

// Returns the feature owning the centre port, or -1.
int centre_feature(const TileType& type) { return type.feature_at_port[kCentre]; }

// The centre line of a road feature as polylines in tile coordinates (one per branch).
std::vector<std::vector<cv::Point2d>> road_lines(const FeatureDef& road, const TileStyle& style, std::uint64_t seed) {
    std::vector<Port> ends;
    for (const Port p : road.ports) {
        if (p != kCentre) ends.push_back(p);
    }
    const cv::Point2d centre(0.5, 0.5);
    // Beyond the tile edge, so the band reaches the edge whatever its wiggle.
    auto outside = [](Port p) {
        const cv::Point2d a = port_point(p), c(0.5, 0.5);
        return a + (a - c) * 0.08;
    };
    const Wiggle wiggle(seed);
    auto bend = [&](std::vector<cv::Point2d> line) {
        // Shifts interior points sideways by the wiggle, keeping both ends fixed.
        std::vector<cv::Point2d> out = line;
        for (std::size_t i = 1; i + 1 < line.size(); ++i) {
            const cv::Point2d d = line[i + 1] - line[i - 1];
            const double len = std::max(1e-9, cv::norm(d));
            const cv::Point2d normal(-d.y / len, d.x / len);
            const double t = static_cast<double>(i) / static_cast<double>(line.size() - 1);
            out[i] = line[i] + normal * (style.road_wobble * wiggle(t));
        }
        return out;
    };
    constexpr int kSteps = 32;
    std::vector<std::vector<cv::Point2d>> lines;
    if (ends.size() == 2) {
        const cv::Point2d a = outside(ends[0]), b = outside(ends[1]);
        const int sa = side_of(ends[0]), sb = side_of(ends[1]);
        cv::Point2d control = centre;
        if ((sa + 1) % 4 == sb) control = centre + (corner_after(sa) - centre) * 0.18;
        if ((sb + 1) % 4 == sa) control = centre + (corner_after(sb) - centre) * 0.18;
        std::vector<cv::Point2d> line;
        for (int i = 0; i <= kSteps; ++i) {
            const double t = static_cast<double>(i) / kSteps;
            line.push_back(a * ((1 - t) * (1 - t)) + control * (2 * t * (1 - t)) + b * (t * t));
        }
        lines.push_back(bend(line));
        return lines;
    }
    // One end, or three and more: each branch runs from its port to the centre.
    for (const Port p : ends) {
        const cv::Point2d a = outside(p);
        std::vector<cv::Point2d> line;
        for (int i = 0; i <= kSteps / 2; ++i) {
            const double t = static_cast<double>(i) / (kSteps / 2);
            line.push_back(a + (centre - a) * t);
        }
        lines.push_back(bend(line));
    }
    return lines;
}

// Rectangles (tile coordinates) of the monastery building around its centre.
struct MonasteryPlan {
    cv::Point2d c;
    double s = 0.3;
    cv::Rect2d footprint() const { return {c.x - 0.55 * s, c.y - 0.72 * s, 1.1 * s, 1.16 * s}; }
};

MonasteryPlan monastery_plan(const TileStyle& style) { return MonasteryPlan{cv::Point2d(0.5, 0.47), style.monastery_size}; }

// How a feature kind is drawn: The City's streets like roads, its markets like cities (a
// walled square with houses), its residential quarters like fields.
FeatureKind drawn_as(FeatureKind k) {
    switch (k) {
        case FeatureKind::Street: return FeatureKind::Road;
        case FeatureKind::Market: return FeatureKind::City;
        case FeatureKind::Residential: return FeatureKind::Field;
        default: return k;
    }
}

// True when the tile shows a little village at its centre: road ends meet there and nothing else does.
bool has_junction(const TileType& type) {
    if (centre_feature(type) >= 0) return false;
    int road_ends = 0;
    for (const auto& f : type.features) {
        if (drawn_as(f.kind) == FeatureKind::Road && f.ports.size() == 1) ++road_ends;
    }
    if (road_ends == 0) return false;
    // A lone road ending at a city needs no village: the city covers the centre.
    for (const auto& f : type.features) {
        if (drawn_as(f.kind) == FeatureKind::City && (f.side_mask & 0xF) != 0 && road_ends == 1) return false;
    }
    return true;
}

constexpr double kJunctionRadius = 0.085;
// Where an inn stands beside its road (tile fractions): along the road from its port, to the
// road's right, and half the side of its square footprint.
constexpr double kInnAlong = 0.27, kInnAside = 0.19, kInnHalf = 0.085;

cv::Point to_px(cv::Point2d p, int n, int shift) {
    const double scale = static_cast<double>(n) * (1 << shift);
    return {static_cast<int>(std::lround(p.x * scale - 0.5 * (1 << shift))),
            static_cast<int>(std::lround(p.y * scale - 0.5 * (1 << shift)))};
}

// Labels at rotation 0: the geometry every picture and mask of the type is drawn from.
cv::Mat labels_at_rest(const TileType& type, int n, const TileStyle& style) {
    const std::uint64_t seed = stable_hash(type.id, stable_hash(style.name));
    cv::Mat labels(n, n, CV_32SC1, cv::Scalar(kUnassigned));
    auto pixel_point = [n](int x, int y) {
        return cv::Point2d((x + 0.5) / n, (y + 0.5) / n);
    };

    // Cities first: everything else stops at their walls.
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        const auto& def = type.features[f];
        if (drawn_as(def.kind) != FeatureKind::City) continue;
        const CityShape shape(def, style, seed + f * 131);
        for (int y = 0; y < n; ++y) {
            auto* row = labels.ptr<int>(y);
            for (int x = 0; x < n; ++x) {
                if (row[x] == kUnassigned && shape.contains(pixel_point(x, y))) row[x] = static_cast<int>(f);
            }
        }
    }
    // Roads: bands along their centre lines, never over a city.
    const int road_px = std::max(2, static_cast<int>(std::lround(style.road_width * n)));
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        const auto& def = type.features[f];
        if (drawn_as(def.kind) != FeatureKind::Road) continue;
        cv::Mat band(n, n, CV_8UC1, cv::Scalar(0));
        for (const auto& line : road_lines(def, style, seed + 977 * (f + 1))) {
            std::vector<cv::Point> pts;
            for (const auto& p : line) pts.push_back(to_px(p, n, 0));
            cv::polylines(band, pts, false, cv::Scalar(255), road_px, cv::LINE_8);
        }
        for (int y = 0; y < n; ++y) {
            auto* row = labels.ptr<int>(y);
            const auto* b = band.ptr<std::uint8_t>(y);
            for (int x = 0; x < n; ++x) {
                if (b[x] && row[x] == kUnassigned) row[x] = static_cast<int>(f);
            }
        }
    }
    // Inns beside their roads: a building that belongs to no feature.
    for (const cv::Rect2d& box : inn_boxes(type)) {
        for (int y = 0; y < n; ++y) {
            auto* row = labels.ptr<int>(y);
            for (int x = 0; x < n; ++x) {
                if (row[x] == kUnassigned && box.contains(pixel_point(x, y))) row[x] = kDecoration;
            }
        }
    }
    // Centre features: monastery building, lake; a village where roads end.
    const int centre = centre_feature(type);
    if (centre >= 0) {
        const auto kind = type.features[static_cast<std::size_t>(centre)].kind;
        if (kind == FeatureKind::Monastery) {
            const cv::Rect2d r = monastery_plan(style).footprint();
            for (int y = 0; y < n; ++y) {
                auto* row = labels.ptr<int>(y);
                for (int x = 0; x < n; ++x) {
                    if (r.contains(pixel_point(x, y))) row[x] = centre;
                }
            }
        } else if (kind == FeatureKind::Lake) {
            for (int y = 0; y < n; ++y) {
                auto* row = labels.ptr<int>(y);
                for (int x = 0; x < n; ++x) {
                    if (cv::norm(pixel_point(x, y) - cv::Point2d(0.5, 0.5)) < 0.22) row[x] = centre;
                }
            }
        }
    } else if (has_junction(type)) {
        for (int y = 0; y < n; ++y) {
            auto* row = labels.ptr<int>(y);
            for (int x = 0; x < n; ++x) {
                const cv::Point2d d = pixel_point(x, y) - cv::Point2d(0.5, 0.5);
                if (std::max(std::abs(d.x), std::abs(d.y)) >= kJunctionRadius) continue;
                if (row[x] == kUnassigned || drawn_as(type.features[static_cast<std::size_t>(row[x])].kind) == FeatureKind::Road) {
                    row[x] = kDecoration;
                }
            }
        }
    }

    // Fields: what is left, split into connected parts, each given to the field whose ports it holds.
    struct Seed {
        int feature;
        cv::Point2d at;  // pixel coordinates
    };
    std::vector<Seed> seeds;
    const double inset = std::max(0.03, 2.5 / n);
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        const auto& def = type.features[f];
        if (drawn_as(def.kind) != FeatureKind::Field) continue;
        for (const Port p : def.ports) {
            seeds.push_back({static_cast<int>(f), port_point(p, inset) * static_cast<double>(n)});
        }
    }
    cv::Mat open = (labels == kUnassigned);
    cv::Mat parts;
    const int part_count = cv::connectedComponents(open, parts, 4, CV_32S);
    std::vector<std::vector<int>> seeds_in(static_cast<std::size_t>(part_count));
    for (std::size_t i = 0; i < seeds.size(); ++i) {
        const int x = std::clamp(static_cast<int>(seeds[i].at.x), 0, n - 1);
        const int y = std::clamp(static_cast<int>(seeds[i].at.y), 0, n - 1);
        const int part = parts.at<int>(y, x);
        if (part > 0) seeds_in[static_cast<std::size_t>(part)].push_back(static_cast<int>(i));
    }
    for (int y = 0; y < n; ++y) {
        auto* row = labels.ptr<int>(y);
        const auto* part_row = parts.ptr<int>(y);
        for (int x = 0; x < n; ++x) {
            if (row[x] != kUnassigned) continue;
            if (seeds.empty()) {
                row[x] = kDecoration;
                continue;
            }
            const auto& candidates = seeds_in[static_cast<std::size_t>(part_row[x])];
            const cv::Point2d here(x + 0.5, y + 0.5);
            double best = 1e18;
            int best_feature = kDecoration;
            auto consider = [&](const Seed& s) {
                const cv::Point2d d = here - s.at;
                const double dist = d.dot(d);
                if (dist < best) {
                    best = dist;
                    best_feature = s.feature;
                }
            };
            if (candidates.empty()) {
                for (const auto& s : seeds) consider(s);
            } else {
                for (const int i : candidates) consider(seeds[static_cast<std::size_t>(i)]);
            }
            row[x] = best_feature;
        }
    }
    return labels;
}

// Smooth noise in [-1, 1] with blobs about `scale` of the image side.
cv::Mat smooth_noise(int n, double scale, RandomSource& r) {
    const int grid = std::clamp(static_cast<int>(std::lround(1.0 / std::max(scale, 1e-3))) + 2, 3, 64);
    cv::Mat coarse(grid, grid, CV_32FC1);
    for (int y = 0; y < grid; ++y) {
        for (int x = 0; x < grid; ++x) coarse.at<float>(y, x) = static_cast<float>(r.uniform(-1, 1));
    }
    cv::Mat fine;
    cv::resize(coarse, fine, cv::Size(n, n), 0, 0, cv::INTER_CUBIC);
    return fine;
}

cv::Vec3f lerp(const cv::Scalar& a, const cv::Scalar& b, double t) {
    return {static_cast<float>(a[0] + (b[0] - a[0]) * t), static_cast<float>(a[1] + (b[1] - a[1]) * t),
            static_cast<float>(a[2] + (b[2] - a[2]) * t)};
}

cv::Scalar scaled(const cv::Scalar& c, double k) { return {c[0] * k, c[1] * k, c[2] * k}; }

// Draws a small house: walls and a roof seen slightly from the south, centred on `c` (pixels).
void draw_house(cv::Mat& img, cv::Point2d c, double size, double angle, const TileStyle& style, double roof_tint) {
    constexpr int kShift = 4;
    const double w = size, h = size * 0.7;
    const double ca = std::cos(angle), sa = std::sin(angle);
    auto at = [&](double dx, double dy) {
        const cv::Point2d p(c.x + dx * ca - dy * sa, c.y + dx * sa + dy * ca);
        return cv::Point(static_cast<int>(std::lround(p.x * (1 << kShift))),
                         static_cast<int>(std::lround(p.y * (1 << kShift))));
    };
    const std::array<cv::Point, 4> walls = {at(-w / 2, -h / 2), at(w / 2, -h / 2), at(w / 2, h / 2), at(-w / 2, h / 2)};
    cv::fillConvexPoly(img, walls.data(), 4, style.house, cv::LINE_AA, kShift);
    const std::array<cv::Point, 4> roof = {at(-w / 2 - 0.05 * w, -h / 2 - 0.1 * h), at(w / 2 + 0.05 * w, -h / 2 - 0.1 * h),
                                           at(w / 2 + 0.05 * w, h * 0.15), at(-w / 2 - 0.05 * w, h * 0.15)};
    cv::fillConvexPoly(img, roof.data(), 4, scaled(style.roof, roof_tint), cv::LINE_AA, kShift);
    const std::array<cv::Point, 4> roof_shade = {at(-w / 2 - 0.05 * w, -h * 0.18), at(w / 2 + 0.05 * w, -h * 0.18),
                                                 at(w / 2 + 0.05 * w, h * 0.15), at(-w / 2 - 0.05 * w, h * 0.15)};
    cv::fillConvexPoly(img, roof_shade.data(), 4, scaled(style.roof, roof_tint * 0.78), cv::LINE_AA, kShift);
    if (size >= 6) {
        const int thick = 1;
        cv::polylines(img, std::vector<cv::Point>(walls.begin(), walls.end()), true, scaled(style.wall_edge, 0.9),
                      thick, cv::LINE_AA, kShift);
    }
}

// Draws a pennant of the style's shape centred on `c` (pixels), `h` pixels tall.
void draw_pennant(cv::Mat& img, cv::Point2d c, double h, const TileStyle& style) {
    constexpr int kShift = 4;
    auto at = [&](double dx, double dy) {
        return cv::Point(static_cast<int>(std::lround((c.x + dx) * (1 << kShift))),
                         static_cast<int>(std::lround((c.y + dy) * (1 << kShift))));
    };
    const int line = std::max(1, static_cast<int>(std::lround(h * 0.06)));
    switch (style.pennant_shape) {
        case PennantShape::Shield: {
            const double w = h * 0.8;
            std::vector<cv::Point> shield = {at(-w / 2, -h / 2), at(w / 2, -h / 2), at(w / 2, 0.05 * h),
                                             at(w * 0.3, h * 0.32), at(0, h / 2),  at(-w * 0.3, h * 0.32),
                                             at(-w / 2, 0.05 * h)};
            cv::fillPoly(img, std::vector<std::vector<cv::Point>>{shield}, style.pennant, cv::LINE_AA, kShift);
            cv::line(img, at(0, -h * 0.32), at(0, h * 0.3), style.pennant_mark, line * 2, cv::LINE_AA, kShift);
            cv::line(img, at(-w * 0.3, -h * 0.12), at(w * 0.3, -h * 0.12), style.pennant_mark, line * 2, cv::LINE_AA,
                     kShift);
            cv::polylines(img, shield, true, style.wall_edge, line, cv::LINE_AA, kShift);
            break;
        }
        case PennantShape::Banner: {
            cv::line(img, at(-h * 0.35, -h / 2), at(-h * 0.35, h / 2), style.wall_edge, line * 2, cv::LINE_AA, kShift);
            std::vector<cv::Point> flag = {at(-h * 0.35, -h / 2), at(h * 0.45, -h * 0.25), at(-h * 0.35, 0)};
            cv::fillConvexPoly(img, flag, style.pennant, cv::LINE_AA, kShift);
            cv::circle(img, at(-h * 0.1, -h * 0.25), std::max(1, static_cast<int>(h * 0.08 * (1 << kShift))),
                       style.pennant_mark, cv::FILLED, cv::LINE_AA, kShift);
            break;
        }
        case PennantShape::Disc: {
            const int r = static_cast<int>(h * 0.45 * (1 << kShift));
            cv::circle(img, at(0, 0), r, style.pennant, cv::FILLED, cv::LINE_AA, kShift);
            cv::circle(img, at(0, 0), r * 6 / 10, style.pennant_mark, std::max(1, line * 2), cv::LINE_AA, kShift);
            cv::circle(img, at(0, 0), r, style.wall_edge, line, cv::LINE_AA, kShift);
            break;
        }
    }
}

// Draws the monastery: a nave with a pitched roof and a tower with a spire, in tile pixels.
void draw_monastery(cv::Mat& img, const MonasteryPlan& plan, int n, const TileStyle& style) {
    constexpr int kShift = 4;
    const double s = plan.s * n;
    const cv::Point2d c = plan.c * static_cast<double>(n);
    auto at = [&](double dx, double dy) {
        return cv::Point(static_cast<int>(std::lround((c.x + dx * s) * (1 << kShift))),
                         static_cast<int>(std::lround((c.y + dy * s) * (1 << kShift))));
    };
    auto quad = [&](std::array<cv::Point, 4> q, const cv::Scalar& colour) {
        cv::fillConvexPoly(img, q.data(), 4, colour, cv::LINE_AA, kShift);
    };
    const cv::Scalar shadow = scaled(style.monastery, 0.75);
    const int line = std::max(1, static_cast<int>(std::lround(s * 0.02)));
    // Ground shadow to the south-east.
    quad({at(-0.45, 0.2), at(0.55, 0.2), at(0.55, 0.42), at(-0.45, 0.42)}, scaled(style.field_shade, 0.75));
    // Nave walls and roof.
    quad({at(-0.15, -0.05), at(0.5, -0.05), at(0.5, 0.35), at(-0.15, 0.35)}, style.monastery);
    quad({at(-0.2, -0.35), at(0.55, -0.35), at(0.55, 0.05), at(-0.2, 0.05)}, style.roof);
    quad({at(-0.2, -0.15), at(0.55, -0.15), at(0.55, 0.05), at(-0.2, 0.05)}, scaled(style.roof, 0.8));
    // Door, facing south.
    quad({at(0.1, 0.18), at(0.22, 0.18), at(0.22, 0.35), at(0.1, 0.35)}, scaled(style.wall_edge, 0.7));
    // Tower: walls, a lit side and a spire.
    quad({at(-0.5, -0.3), at(-0.1, -0.3), at(-0.1, 0.38), at(-0.5, 0.38)}, style.monastery);
    quad({at(-0.3, -0.3), at(-0.1, -0.3), at(-0.1, 0.38), at(-0.3, 0.38)}, shadow);
    std::array<cv::Point, 3> spire_left = {at(-0.55, -0.3), at(-0.3, -0.68), at(-0.3, -0.3)};
    std::array<cv::Point, 3> spire_right = {at(-0.3, -0.3), at(-0.3, -0.68), at(-0.05, -0.3)};
    cv::fillConvexPoly(img, spire_left.data(), 3, style.roof, cv::LINE_AA, kShift);
    cv::fillConvexPoly(img, spire_right.data(), 3, scaled(style.roof, 0.75), cv::LINE_AA, kShift);
    // Windows.
    quad({at(-0.36, -0.15), at(-0.26, -0.15), at(-0.26, 0.0), at(-0.36, 0.0)}, scaled(style.wall_edge, 0.7));
    cv::polylines(img, std::vector<cv::Point>{at(-0.5, -0.3), at(-0.1, -0.3), at(-0.1, 0.38), at(-0.5, 0.38)}, true,
                  style.wall_edge, line, cv::LINE_AA, kShift);
    cv::polylines(img, std::vector<cv::Point>{at(-0.1, -0.05), at(0.5, -0.05), at(0.5, 0.35), at(-0.1, 0.35)}, false,
                  style.wall_edge, line, cv::LINE_AA, kShift);
}

// Draws the village at a road junction: a square with one or two houses.
void draw_junction(cv::Mat& img, int n, const TileStyle& style) {
    const double r = kJunctionRadius * n;
    const cv::Point2d c(0.5 * n, 0.5 * n);
    const cv::Rect square(static_cast<int>(std::lround(c.x - r)), static_cast<int>(std::lround(c.y - r)),
                          static_cast<int>(std::lround(2 * r)), static_cast<int>(std::lround(2 * r)));
    cv::rectangle(img, square, style.road, cv::FILLED);
    draw_house(img, c + cv::Point2d(-0.3 * r, -0.25 * r), r * 1.1, 0.1, style, 1.0);
    draw_house(img, c + cv::Point2d(0.35 * r, 0.3 * r), r * 0.8, -0.2, style, 0.9);
}

// Draws a market stall (the bazaar icon) centred on the tile: a counter under a striped awning.
void draw_bazaar(cv::Mat& img, int n, const TileStyle& style) {
    const double w = 0.2 * n, h = 0.14 * n;
    const cv::Point2d c(0.5 * n, 0.5 * n);
    const cv::Rect counter(static_cast<int>(std::lround(c.x - w / 2)), static_cast<int>(std::lround(c.y - h * 0.1)),
                           static_cast<int>(std::lround(w)), static_cast<int>(std::lround(h * 0.6)));
    cv::rectangle(img, counter, style.house, cv::FILLED);
    cv::rectangle(img, counter, style.wall_edge, 1);
    constexpr int kStripes = 5;
    for (int i = 0; i < kStripes; ++i) {
        const double x0 = c.x - w / 2 - 0.05 * w + i * (1.1 * w / kStripes);
        const cv::Rect stripe(static_cast<int>(std::lround(x0)), static_cast<int>(std::lround(c.y - h * 0.5)),
                              std::max(1, static_cast<int>(std::lround(1.1 * w / kStripes))), static_cast<int>(std::lround(h * 0.42)));
        cv::rectangle(img, stripe, i % 2 ? style.pennant_mark : style.roof, cv::FILLED);
    }
    cv::rectangle(img, cv::Rect(static_cast<int>(std::lround(c.x - w * 0.55)), static_cast<int>(std::lround(c.y - h * 0.5)),
                                static_cast<int>(std::lround(w * 1.1)), static_cast<int>(std::lround(h * 0.42))),
                  style.wall_edge, 1);
}

}  // namespace

Status TileStyle::check() const {
    const std::string where = "tile style '" + name + "'";
    if (name.empty()) return invalid("tile style", "the name is empty");
    auto fraction = [&](double v, double lo, double hi, const char* what) -> Status {
        if (!(v >= lo && v <= hi)) {
            return invalid(where, std::string(what) + " must be in [" + std::to_string(lo) + ", " +
                                      std::to_string(hi) + "], not " + std::to_string(v));
        }
        return Ok{};
    };
    const std::array<std::tuple<double, double, double, const char*>, 19> ranges = {{
        {road_width, 0.02, 0.3, "road_width"},
        {road_edge_width, 0.0, 0.05, "road_edge_width"},
        {road_wobble, 0.0, 0.08, "road_wobble"},
        {city_depth, 0.12, 0.42, "city_depth"},
        {field_depth, 0.12, 0.42, "field_depth"},
        {corner_bulge, -0.1, 0.15, "corner_bulge"},
        {edge_wobble, 0.0, 0.05, "edge_wobble"},
        {wall_width, 0.0, 0.1, "wall_width"},
        {house_size, 0.02, 0.15, "house_size"},
        {house_density, 0.0, 60.0, "house_density"},
        {monastery_size, 0.15, 0.45, "monastery_size"},
        {pennant_size, 0.05, 0.25, "pennant_size"},
        {outline_width, 0.0, 0.03, "outline_width"},
        {mottle, 0.0, 1.0, "mottle"},
        {mottle_scale, 0.05, 1.0, "mottle_scale"},
        {grain, 0.0, 40.0, "grain"},
        {tuft_density, 0.0, 400.0, "tuft_density"},
        {softness, 0.0, 0.02, "softness"},
        {print_variation, 0.0, 0.2, "print_variation"},
    }};
    for (const auto& [v, lo, hi, what] : ranges) {
        if (auto st = fraction(v, lo, hi, what); !st) return st;
    }
    if (2 * road_edge_width >= road_width) return invalid(where, "road_edge_width must be under half of road_width");
    return Ok{};
}

const std::vector<TileStyle>& builtin_tile_styles() {
    static const std::vector<TileStyle> styles = [] {
        std::vector<TileStyle> out;
        // classic: bright yellow-green grass, tan cities with red roofs, pale roads, blue shields.
        out.push_back(TileStyle{});

        // muted: painted, desaturated, soft edges, brown dirt roads, no road border.
        TileStyle muted;
        muted.name = "muted";
        muted.field = {70, 150, 125};
        muted.field_shade = {55, 115, 100};
        muted.tuft = {50, 90, 80};
        muted.road = {120, 160, 185};
        muted.road_edge = {95, 130, 150};
        muted.city = {130, 160, 185};
        muted.city_shade = {105, 135, 160};
        muted.wall = {155, 170, 180};
        muted.wall_edge = {85, 95, 105};
        muted.house = {175, 190, 200};
        muted.roof = {80, 90, 150};
        muted.monastery = {160, 175, 185};
        muted.pennant = {120, 60, 40};
        muted.pennant_mark = {200, 210, 215};
        muted.road_width = 0.075;
        muted.road_edge_width = 0.006;
        muted.road_wobble = 0.04;
        muted.city_depth = 0.34;
        muted.field_depth = 0.27;
        muted.corner_bulge = 0.04;
        muted.edge_wobble = 0.03;
        muted.wall_width = 0.02;
        muted.house_size = 0.06;
        muted.house_density = 20;
        muted.pennant_shape = PennantShape::Banner;
        muted.mottle = 0.8;
        muted.mottle_scale = 0.4;
        muted.grain = 3;
        muted.tuft_density = 15;
        muted.softness = 0.008;
        out.push_back(muted);

        // contrast: flat, saturated colours with dark outlines; grey stone cities, sand roads.
        TileStyle contrast;
        contrast.name = "contrast";
        contrast.field = {40, 150, 30};
        contrast.field_shade = {35, 135, 28};
        contrast.tuft = {20, 90, 15};
        contrast.road = {120, 215, 240};
        contrast.road_edge = {20, 30, 35};
        contrast.city = {170, 165, 160};
        contrast.city_shade = {150, 145, 140};
        contrast.wall = {210, 205, 200};
        contrast.wall_edge = {25, 25, 25};
        contrast.house = {230, 230, 230};
        contrast.roof = {30, 110, 235};
        contrast.monastery = {215, 215, 215};
        contrast.pennant = {40, 40, 200};
        contrast.pennant_mark = {60, 230, 250};
        contrast.road_width = 0.11;
        contrast.road_edge_width = 0.018;
        contrast.road_wobble = 0.0;
        contrast.city_depth = 0.26;
        contrast.field_depth = 0.33;
        contrast.corner_bulge = 0.0;
        contrast.edge_wobble = 0.0;
        contrast.wall_width = 0.045;
        contrast.house_size = 0.09;
        contrast.house_density = 6;
        contrast.monastery_size = 0.34;
        contrast.pennant_shape = PennantShape::Disc;
        contrast.pennant_size = 0.14;
        contrast.outline_width = 0.012;
        contrast.mottle = 0.1;
        contrast.grain = 1.5;
        contrast.tuft_density = 0;
        out.push_back(contrast);

        // dusk: an older printing: olive grass, orange-brown cities, grey roads, heavy grain.
        TileStyle dusk;
        dusk.name = "dusk";
        dusk.field = {60, 160, 150};
        dusk.field_shade = {40, 120, 120};
        dusk.tuft = {35, 80, 80};
        dusk.road = {180, 185, 190};
        dusk.road_edge = {70, 75, 80};
        dusk.city = {70, 130, 200};
        dusk.city_shade = {50, 100, 165};
        dusk.wall = {140, 165, 190};
        dusk.wall_edge = {40, 55, 75};
        dusk.house = {170, 190, 210};
        dusk.roof = {45, 55, 150};
        dusk.monastery = {140, 170, 200};
        dusk.pennant = {150, 60, 60};
        dusk.pennant_mark = {235, 235, 240};
        dusk.road_width = 0.095;
        dusk.road_wobble = 0.035;
        dusk.city_depth = 0.32;
        dusk.corner_bulge = 0.09;
        dusk.edge_wobble = 0.025;
        dusk.wall_width = 0.03;
        dusk.house_density = 10;
        dusk.mottle = 0.7;
        dusk.mottle_scale = 0.15;
        dusk.grain = 12;
        dusk.tuft_density = 60;
        dusk.print_variation = 0.06;
        out.push_back(dusk);
        return out;
    }();
    return styles;
}

Result<TileStyle> find_tile_style(std::string_view name) {
    std::string known;
    for (const auto& s : builtin_tile_styles()) {
        if (s.name == name) return s;
        known += (known.empty() ? "" : ", ") + s.name;
    }
    return invalid("--style", "unknown tile style '" + std::string(name) + "' (known: " + known + ")");
}

cv::Point2d port_point(Port port, double inset) {
    if (port == kCentre) return {0.5, 0.5};
    const int side = side_of(port);
    const double t = (port % 3 == 0) ? 1.0 / 6 : (port % 3 == 1 ? 0.5 : 5.0 / 6);
    switch (side) {
        case 0: return {t, inset};
        case 1: return {1.0 - inset, t};
        case 2: return {1.0 - t, 1.0 - inset};
        default: return {inset, 1.0 - t};
    }
}

std::vector<cv::Rect2d> inn_boxes(const TileType& type) {
    std::vector<cv::Rect2d> out;
    for (const auto& f : type.features) {
        if (drawn_as(f.kind) != FeatureKind::Road || f.ports.empty()) continue;
        if (std::find(f.tags.begin(), f.tags.end(), "inn") == f.tags.end()) continue;
        const cv::Point2d edge = port_point(f.ports.front());
        cv::Point2d in = cv::Point2d(0.5, 0.5) - edge;
        const double len = cv::norm(in);
        if (len < 1e-9) continue;
        in *= 1.0 / len;
        const cv::Point2d right(-in.y, in.x);  // clockwise of the inward direction (y points south)
        const cv::Point2d c = edge + in * kInnAlong + right * kInnAside;
        out.emplace_back(c.x - kInnHalf, c.y - kInnHalf, 2 * kInnHalf, 2 * kInnHalf);
    }
    return out;
}

cv::Mat feature_labels(const TileType& type, int rot, int size_px, const TileStyle& style) {
    MEEPLECAM_CHECK(size_px >= 16, "tile art needs at least 16 pixels");
    cv::Mat labels = labels_at_rest(type, size_px, style);
    const int q = ((rot % 4) + 4) % 4;
    if (q == 0) return labels;
    cv::Mat turned;
    cv::rotate(labels, turned, q == 1 ? cv::ROTATE_90_CLOCKWISE : q == 2 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE);
    return turned;
}

std::vector<cv::Mat> feature_masks(const TileType& type, int rot, int size_px, const TileStyle& style) {
    const cv::Mat labels = feature_labels(type, rot, size_px, style);
    std::vector<cv::Mat> masks;
    for (std::size_t f = 0; f < type.features.size(); ++f) masks.push_back(labels == static_cast<int>(f));
    return masks;
}

std::vector<cv::Point> pennant_points(const cv::Mat& city, int count, double pennant_px) {
    // Room for a pennant: distance to the wall and to the tile border alike.
    cv::Mat padded, room;
    cv::copyMakeBorder(city, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::distanceTransform(padded, room, cv::DIST_L2, 3);
    room = room(cv::Rect(1, 1, city.cols, city.rows)).clone();
    std::vector<cv::Point> out;
    for (int k = 0; k < count; ++k) {
        cv::Point best;
        cv::minMaxLoc(room, nullptr, nullptr, nullptr, &best);
        out.push_back(best);
        cv::circle(room, best, static_cast<int>(pennant_px * 1.2), cv::Scalar(0), cv::FILLED);
    }
    return out;
}

cv::Mat render_tile(const TileType& type, int rot, int size_px, const TileStyle& style, std::mt19937_64& rng) {
    MEEPLECAM_CHECK(size_px >= 16, "tile art needs at least 16 pixels");
    const int n = size_px;
    RandomSource r(rng);
    std::mt19937_64 layout_engine(stable_hash(type.id, stable_hash(style.name, 77)));
    RandomSource layout(layout_engine);  // same houses and tufts on every copy, like a printed tile
    const cv::Mat labels = labels_at_rest(type, n, style);

    auto kind_at = [&](int label) {
        return label < 0 ? FeatureKind::Field : drawn_as(type.features[static_cast<std::size_t>(label)].kind);
    };
    cv::Mat city_mask(n, n, CV_8UC1, cv::Scalar(0)), road_mask(n, n, CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const int l = labels.at<int>(y, x);
            if (l < 0) continue;
            const auto k = kind_at(l);
            if (k == FeatureKind::City) city_mask.at<std::uint8_t>(y, x) = 255;
            if (k == FeatureKind::Road) road_mask.at<std::uint8_t>(y, x) = 255;
        }
    }

    // Ground colours with mottling.
    const cv::Mat mottle = smooth_noise(n, style.mottle_scale, r);
    const cv::Mat mottle_fine = smooth_noise(n, style.mottle_scale / 3, r);
    cv::Mat road_dist, city_dist, outside_city_dist;
    cv::distanceTransform(road_mask, road_dist, cv::DIST_L2, 3);
    cv::distanceTransform(city_mask, city_dist, cv::DIST_L2, 3);
    cv::distanceTransform(255 - city_mask, outside_city_dist, cv::DIST_L2, 3);
    // Distance to the edge of each individual city, so touching cities show a wall between them.
    cv::Mat own_city_dist(n, n, CV_32FC1, cv::Scalar(1e6));
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        if (drawn_as(type.features[f].kind) != FeatureKind::City) continue;
        cv::Mat own = labels == static_cast<int>(f), d;
        cv::distanceTransform(own, d, cv::DIST_L2, 3);
        d.copyTo(own_city_dist, own);
    }

    const double wall_px = style.wall_width * n;
    const double edge_px = style.road_edge_width * n;
    const double shadow_px = 0.03 * n;
    cv::Mat art(n, n, CV_32FC3);
    for (int y = 0; y < n; ++y) {
        auto* out = art.ptr<cv::Vec3f>(y);
        for (int x = 0; x < n; ++x) {
            const int l = labels.at<int>(y, x);
            const auto kind = kind_at(l);
            const double m = std::clamp(0.5 + 0.5 * style.mottle * (0.7 * mottle.at<float>(y, x) + 0.3 * mottle_fine.at<float>(y, x)), 0.0, 1.0);
            cv::Vec3f c;
            if (kind == FeatureKind::City) {
                const double d = own_city_dist.at<float>(y, x);
                if (wall_px > 0 && d <= wall_px) {
                    c = d <= std::max(1.0, wall_px * 0.35) ? lerp(style.wall_edge, style.wall_edge, 0)
                                                            : lerp(style.wall, style.city_shade, d / wall_px * 0.4);
                } else {
                    c = lerp(style.city, style.city_shade, m);
                }
            } else if (kind == FeatureKind::Road && l >= 0) {
                c = road_dist.at<float>(y, x) <= edge_px ? lerp(style.road_edge, style.road_edge, 0)
                                                           : lerp(style.road, style.road_edge, 0.15 * m);
            } else if (kind == FeatureKind::Lake) {
                c = lerp(style.lake, scaled(style.lake, 0.8), m);
            } else {
                c = lerp(style.field, style.field_shade, m);
                // Walls cast a short shadow onto the grass.
                const double d = outside_city_dist.at<float>(y, x);
                if (wall_px > 0 && d < shadow_px) c *= static_cast<float>(0.8 + 0.2 * d / shadow_px);
            }
            out[x] = c;
        }
    }
    cv::Mat img;
    art.convertTo(img, CV_8UC3);

    // Grass tufts and a few bushes, in fields only.
    const double field_share = static_cast<double>(n * n - cv::countNonZero(city_mask) - cv::countNonZero(road_mask)) / (n * n);
    const int tufts = static_cast<int>(std::lround(style.tuft_density * field_share));
    const double tuft_len = std::max(1.5, 0.018 * n);
    for (int i = 0; i < tufts; ++i) {
        const cv::Point2d p(layout.uniform(0.03, 0.97) * n, layout.uniform(0.03, 0.97) * n);
        const int l = labels.at<int>(static_cast<int>(p.y), static_cast<int>(p.x));
        if (l < 0 || kind_at(l) != FeatureKind::Field || outside_city_dist.at<float>(static_cast<int>(p.y), static_cast<int>(p.x)) < 3) {
            continue;
        }
        if (road_mask.at<std::uint8_t>(static_cast<int>(p.y), static_cast<int>(p.x))) continue;
        for (int k = -1; k <= 1; ++k) {
            const double a = -kPi / 2 + k * 0.45;
            cv::line(img, p, p + cv::Point2d(std::cos(a), std::sin(a)) * tuft_len, style.tuft, 1, cv::LINE_AA);
        }
    }

    // Houses inside each city, away from its wall.
    const double house_px = style.house_size * n;
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        if (drawn_as(type.features[f].kind) != FeatureKind::City) continue;
        const cv::Mat own = labels == static_cast<int>(f);
        const double area = static_cast<double>(cv::countNonZero(own)) / (n * n);
        const int wanted = static_cast<int>(std::lround(style.house_density * area));
        std::vector<cv::Point2d> houses;
        for (int attempt = 0; attempt < wanted * 12 && static_cast<int>(houses.size()) < wanted; ++attempt) {
            const cv::Point2d p(layout.uniform(0, n - 1), layout.uniform(0, n - 1));
            const auto px = static_cast<int>(p.x), py = static_cast<int>(p.y);
            if (labels.at<int>(py, px) != static_cast<int>(f)) continue;
            if (own_city_dist.at<float>(py, px) < wall_px + house_px * 0.75 + 1) continue;
            bool crowded = false;
            for (const auto& h : houses) crowded = crowded || cv::norm(h - p) < house_px * 0.95;
            if (!crowded) houses.push_back(p);
        }
        std::sort(houses.begin(), houses.end(), [](const cv::Point2d& a, const cv::Point2d& b) { return a.y < b.y; });
        for (const auto& h : houses) {
            draw_house(img, h, house_px * layout.uniform(0.8, 1.2), layout.uniform(-0.5, 0.5), style, layout.uniform(0.85, 1.1));
        }
        // Pennants where the city is widest (farthest from its wall).
        const double h = style.pennant_size * n;
        for (const cv::Point& at : pennant_points(own, type.features[f].pennants, h)) draw_pennant(img, cv::Point2d(at), h, style);
    }

    // Centre features.
    const int centre = centre_feature(type);
    if (centre >= 0 && type.features[static_cast<std::size_t>(centre)].kind == FeatureKind::Monastery) {
        draw_monastery(img, monastery_plan(style), n, style);
    } else if (type.has_tag("bazaar")) {
        draw_bazaar(img, n, style);
    } else if (centre < 0 && has_junction(type)) {
        draw_junction(img, n, style);
    }

    // Inns: a large house with a hanging sign, in the square inn_boxes() keeps free.
    for (const cv::Rect2d& box : inn_boxes(type)) {
        const cv::Point2d c(box.x + box.width / 2, box.y + box.height / 2);
        const double size = box.width * 0.95 * n;
        draw_house(img, c * static_cast<double>(n), size, 0.0, style, 1.15);
        const cv::Point2d sign = (c + cv::Point2d(0, box.height * 0.28)) * static_cast<double>(n);
        const double half = std::max(1.0, 0.12 * size);
        cv::rectangle(img, cv::Point2d(sign.x - half, sign.y - half * 0.7), cv::Point2d(sign.x + half, sign.y + half * 0.7),
                      style.pennant, cv::FILLED, cv::LINE_AA);
    }

    // Outlines between features.
    if (style.outline_width > 0) {
        cv::Mat small;
        labels.convertTo(small, CV_16S);
        cv::Mat hi, lo;
        cv::dilate(small, hi, cv::Mat());
        cv::erode(small, lo, cv::Mat());
        cv::Mat edge = hi != lo;
        const int w = std::max(1, static_cast<int>(std::lround(style.outline_width * n / 2)));
        if (w > 1) cv::dilate(edge, edge, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(w, w)));
        img.setTo(style.outline, edge);
    }

    // Grain, softness and the per-copy print variation.
    cv::Mat out;
    img.convertTo(out, CV_32FC3);
    if (style.grain > 0) {
        cv::Mat grain(n, n, CV_32FC1);
        cv::RNG cv_rng(r.bits());
        cv_rng.fill(grain, cv::RNG::NORMAL, 0.0, style.grain);
        cv::Mat grain3;
        cv::merge(std::vector<cv::Mat>{grain, grain, grain}, grain3);
        out += grain3;
    }
    if (style.softness > 0) {
        const double sigma = style.softness * n;
        if (sigma > 0.3) cv::GaussianBlur(out, out, cv::Size(), sigma);
    }
    const cv::Scalar gain(1 + r.uniform(-style.print_variation, style.print_variation),
                          1 + r.uniform(-style.print_variation, style.print_variation),
                          1 + r.uniform(-style.print_variation, style.print_variation));
    cv::multiply(out, gain, out);
    out.convertTo(img, CV_8UC3);

    const int q = ((rot % 4) + 4) % 4;
    if (q != 0) {
        cv::rotate(img, img, q == 1 ? cv::ROTATE_90_CLOCKWISE : q == 2 ? cv::ROTATE_180 : cv::ROTATE_90_COUNTERCLOCKWISE);
    }
    return img;
}


namespace {

// Variants of the region maps (printed_geometry_variants), tile fractions: the field cap beside a
// band or 3-side city (the renderer's is 0.30), and how far a corner city's wall bulges past the
// diagonal (the renderer's 0.07; negative: bowed towards the corner; 0: a straight wall from
// corner to corner, as the 2nd edition prints most of its corner cities).
constexpr double kThinFieldDepth = 0.20, kBowedCornerBulge = -0.08, kStraightCornerBulge = 0.0;

// The sides a city owns as the art draws it (tile_art.cpp): the side's middle port, or two of its three.
std::vector<int> city_sides(const FeatureDef& city) {
    std::vector<int> sides;
    for (int side = 0; side < 4; ++side) {
        int owned = 0;
        bool middle = false;
        for (const Port p : city.ports) {
            if (p == kCentre || side_of(p) != side) continue;
            ++owned;
            middle = middle || p % 3 == 1;
        }
        if (middle || owned >= 2) sides.push_back(side);
    }
    return sides;
}

}  // namespace

std::vector<std::pair<TileType, TileStyle>> printed_geometry_variants(const TileType& type) {
    const TileStyle& drawn = builtin_tile_styles().front();
    std::vector<std::pair<TileType, TileStyle>> out = {{type, drawn}};
    bool wide_city = false, corner_city = false;
    for (const FeatureDef& f : type.features) {
        if (f.kind != FeatureKind::City) continue;
        const auto sides = city_sides(f);
        wide_city = wide_city || sides.size() == 3 || (sides.size() == 2 && (sides[1] - sides[0]) % 2 == 0);
        corner_city = corner_city || (sides.size() == 2 && (sides[1] - sides[0]) % 2 == 1);
    }
    if (wide_city) {
        TileStyle thin_caps = drawn;
        thin_caps.field_depth = kThinFieldDepth;
        out.emplace_back(type, thin_caps);
    }
    if (corner_city) {
        TileStyle bowed = drawn;
        bowed.corner_bulge = kBowedCornerBulge;
        out.emplace_back(type, bowed);
        TileStyle straight = drawn;
        straight.corner_bulge = kStraightCornerBulge;
        out.emplace_back(type, straight);
    }
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        const FeatureDef& road = type.features[f];
        std::vector<Port> ends;
        for (const Port p : road.ports) {
            if (p != kCentre) ends.push_back(p);
        }
        if (road.kind != FeatureKind::Road || ends.size() != 2 || (side_of(ends[0]) - side_of(ends[1]) + 4) % 2 == 0) continue;
        TileType elbow = type;  // the bend as two arms to the centre: the second arm a feature of its own
        FeatureDef arm = road;
        elbow.features[f].ports = {ends[0]};
        arm.ports = {ends[1]};
        elbow.features.push_back(arm);
        out.emplace_back(std::move(elbow), drawn);
    }
    return out;
}

}  // namespace meeplecam::vision
