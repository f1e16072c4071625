#include "vision/table_renderer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <tuple>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "engine/atomic_file.h"
#include "engine/modules/castles.h"
#include "engine/modules/ferries.h"
#include "vision/homography.h"
#include "vision/random_source.h"
#include "vision/tile_art.h"

namespace meeplecam::vision {
namespace {


double radians(double deg) { return deg * kPi / 180.0; }
double degrees(double rad) { return rad * 180.0 / kPi; }

// Draws a value of a span (a fixed span still consumes a draw, so other draws stay put).
double draw(RandomSource& r, const Span& s) {
    const double v = r.uniform(s.lo, s.hi);
    return s.lo == s.hi ? s.lo : v;
}

// ---------------------------------------------------------------------------------------
// Layout: where each tile lies on the table.

struct TilePose {
    cv::Point2d centre;  // mm
    double turn = 0;     // radians, clockwise (x east, y south)
};

// The corners of a tile's square in the cell's orientation: NW, NE, SE, SW.
std::array<cv::Point2d, 4> square_corners(const TilePose& pose, double side) {
    const double h = side / 2, c = std::cos(pose.turn), s = std::sin(pose.turn);
    const std::array<cv::Point2d, 4> local = {cv::Point2d(-h, -h), cv::Point2d(h, -h), cv::Point2d(h, h), cv::Point2d(-h, h)};
    std::array<cv::Point2d, 4> out;
    for (std::size_t i = 0; i < 4; ++i) {
        out[i] = pose.centre + cv::Point2d(c * local[i].x - s * local[i].y, s * local[i].x + c * local[i].y);
    }
    return out;
}

double overlap_area(const std::array<cv::Point2d, 4>& a, const std::array<cv::Point2d, 4>& b) {
    std::vector<cv::Point2f> pa, pb, inter;
    for (const auto& p : a) pa.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
    for (const auto& p : b) pb.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
    return static_cast<double>(cv::intersectConvexConvex(pa, pb, inter, true));
}

// Places tiles on a grid of pitch tile+gap with random offsets and turns, then calms the
// jitter of neighbours that would overlap (real tiles push each other away), and centres the board.
std::vector<TilePose> lay_out(const std::vector<SceneTile>& tiles, const RenderOptions& o, double gap, RandomSource& r,
                              cv::Point2d* origin = nullptr) {
    const double pitch = o.tile_mm + gap;
    std::vector<TilePose> poses;
    std::vector<cv::Point2d> offsets;
    std::vector<double> turns;
    for (const auto& t : tiles) {
        offsets.emplace_back(r.uniform(-o.jitter_mm, o.jitter_mm), r.uniform(-o.jitter_mm, o.jitter_mm));
        turns.push_back(radians(r.uniform(-o.jitter_deg, o.jitter_deg)));
        poses.push_back({cv::Point2d(t.at.x * pitch, t.at.y * pitch), 0});
    }
    std::map<std::pair<int, int>, std::size_t> by_cell;
    for (std::size_t i = 0; i < tiles.size(); ++i) by_cell[{tiles[i].at.x, tiles[i].at.y}] = i;
    std::vector<double> calm(tiles.size(), 1.0);
    auto pose_of = [&](std::size_t i) {
        return TilePose{cv::Point2d(tiles[i].at.x * pitch, tiles[i].at.y * pitch) + offsets[i] * calm[i], turns[i] * calm[i]};
    };
    for (int pass = 0; pass < 12; ++pass) {
        bool clash = false;
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const auto it = by_cell.find({tiles[i].at.x + dx, tiles[i].at.y + dy});
                    if (it == by_cell.end() || it->second <= i) continue;
                    const std::size_t j = it->second;
                    if (overlap_area(square_corners(pose_of(i), o.tile_mm), square_corners(pose_of(j), o.tile_mm)) > 1e-3) {
                        clash = true;
                        const double k = pass < 11 ? 0.6 : 0.0;
                        calm[i] *= k;
                        calm[j] *= k;
                    }
                }
            }
        }
        if (!clash) break;
    }
    cv::Point2d lo(1e18, 1e18), hi(-1e18, -1e18);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        poses[i] = pose_of(i);
        for (const auto& c : square_corners(poses[i], o.tile_mm)) {
            lo = {std::min(lo.x, c.x), std::min(lo.y, c.y)};
            hi = {std::max(hi.x, c.x), std::max(hi.y, c.y)};
        }
    }
    const cv::Point2d middle = (lo + hi) * 0.5;
    for (auto& p : poses) p.centre -= middle;
    if (origin != nullptr) *origin = -middle;
    return poses;
}

// ---------------------------------------------------------------------------------------
// Camera: a pinhole looking at the table from above.

cv::Matx33d rot_x(double a) { return {1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a)}; }
cv::Matx33d rot_z(double a) { return {std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a), 0, 0, 0, 1}; }

struct Camera {
    cv::Matx33d K = cv::Matx33d::eye();
    cv::Matx33d R = cv::Matx33d::eye();
    cv::Vec3d t;

    cv::Point2d project(const cv::Vec3d& world) const {
        const cv::Vec3d p = K * (R * world + t);
        return {p[0] / p[2], p[1] / p[2]};
    }
    double depth(const cv::Vec3d& world) const { return (R * world + t)[2]; }
    // Homography of the plane z = `z`: (x, y) in mm -> pixels.
    cv::Matx33d plane(double z) const {
        cv::Matx33d m;
        for (int i = 0; i < 3; ++i) {
            m(i, 0) = R(i, 0);
            m(i, 1) = R(i, 1);
            m(i, 2) = z * R(i, 2) + t[i];
        }
        return K * m;
    }
};

// Builds a camera `distance` mm from `target` (on the table), tilted, turned and rolled.
Camera look_at(const cv::Matx33d& K, double tilt, double roll, double azimuth, cv::Point2d target, double distance) {
    Camera cam;
    cam.K = K;
    cam.R = rot_z(roll) * rot_x(tilt) * rot_z(azimuth);
    const cv::Vec3d centre = cv::Vec3d(target.x, target.y, 0) - cam.R.t() * cv::Vec3d(0, 0, distance);
    cam.t = -(cam.R * centre);
    return cam;
}

cv::Rect2d bounds(const std::vector<cv::Point2d>& pts) {
    cv::Point2d lo(1e18, 1e18), hi(-1e18, -1e18);
    for (const auto& p : pts) {
        lo = {std::min(lo.x, p.x), std::min(lo.y, p.y)};
        hi = {std::max(hi.x, p.x), std::max(hi.y, p.y)};
    }
    return {lo, hi};
}

// ---------------------------------------------------------------------------------------
// Light.

// Returns BGR gains for light of `kelvin` that the white balance corrected only half-way.
cv::Vec3d light_colour(double kelvin) {
    auto blackbody = [](double k) {
        const double t = k / 100.0;
        const double red = t <= 66 ? 255 : 329.698727446 * std::pow(t - 60, -0.1332047592);
        const double green = t <= 66 ? 99.4708025861 * std::log(t) - 161.1195681661 : 288.1221695283 * std::pow(t - 60, -0.0755148492);
        const double blue = t >= 66 ? 255 : (t <= 19 ? 0 : 138.5177312231 * std::log(t - 10) - 305.0447927307);
        return cv::Vec3d(std::clamp(blue, 0.0, 255.0), std::clamp(green, 0.0, 255.0), std::clamp(red, 0.0, 255.0));
    };
    const cv::Vec3d c = blackbody(kelvin), white = blackbody(6500);
    cv::Vec3d gain;
    for (int i = 0; i < 3; ++i) gain[i] = 1.0 + 0.5 * (c[i] / white[i] - 1.0);
    const double top = std::max({gain[0], gain[1], gain[2]});
    return gain / top;
}

// ---------------------------------------------------------------------------------------
// Drawing helpers.

std::vector<cv::Point> fixed_point(const std::vector<cv::Point2d>& pts, int shift) {
    std::vector<cv::Point> out;
    for (const auto& p : pts) {
        out.emplace_back(static_cast<int>(std::lround(p.x * (1 << shift))), static_cast<int>(std::lround(p.y * (1 << shift))));
    }
    return out;
}

// Blends `patch` into `dst` (both CV_8UC3, same size) with `alpha` (CV_8UC1) scaled by `gain`.
void blend_into(cv::Mat& dst, const cv::Mat& patch, const cv::Mat& alpha, double gain) {
    for (int y = 0; y < dst.rows; ++y) {
        auto* d = dst.ptr<cv::Vec3b>(y);
        const auto* p = patch.ptr<cv::Vec3b>(y);
        const auto* a = alpha.ptr<std::uint8_t>(y);
        for (int x = 0; x < dst.cols; ++x) {
            if (a[x] == 0) continue;
            const double w = a[x] / 255.0;
            for (int c = 0; c < 3; ++c) {
                d[x][c] = cv::saturate_cast<std::uint8_t>(d[x][c] * (1 - w) + p[x][c] * gain * w);
            }
        }
    }
}

// The art of one tile type at a few sizes (mip levels), with rounded corners and a cut edge.
struct TileArt {
    std::vector<cv::Mat> levels;  // CV_8UC3, halving in size
    std::vector<cv::Mat> alpha;   // CV_8UC1, same sizes
};

cv::Mat rounded_alpha(int n, double radius_px) {
    cv::Mat a(n, n, CV_8UC1, cv::Scalar(0));
    const double r = std::max(0.5, radius_px);
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const double cx = std::clamp(x + 0.5, r, n - r), cy = std::clamp(y + 0.5, r, n - r);
            const double d = std::hypot(x + 0.5 - cx, y + 0.5 - cy);
            a.at<std::uint8_t>(y, x) = cv::saturate_cast<std::uint8_t>((r + 0.5 - d) * 255.0);
        }
    }
    return a;
}

TileArt make_tile_art(const TileType& type, int n, const TileStyle& style, double tile_mm, std::mt19937_64& rng) {
    TileArt art;
    cv::Mat img = render_tile(type, 0, n, style, rng);
    // The cut edge: the cardboard core shows as a thin light rim.
    const int rim = std::max(1, static_cast<int>(std::lround(n * 0.012)));
    cv::Mat rim_mask(n, n, CV_8UC1, cv::Scalar(255));
    rim_mask(cv::Rect(rim, rim, n - 2 * rim, n - 2 * rim)).setTo(0);
    cv::Mat light;
    cv::addWeighted(img, 0.55, cv::Mat(img.size(), img.type(), cv::Scalar(215, 222, 225)), 0.45, 0, light);
    light.copyTo(img, rim_mask);
    const double corner_mm = 1.5;
    while (true) {
        art.levels.push_back(img);
        art.alpha.push_back(rounded_alpha(img.cols, corner_mm / tile_mm * img.cols));
        if (img.cols < 48) break;
        cv::Mat smaller;
        cv::pyrDown(img, smaller);
        img = smaller;
    }
    return art;
}

// Maps art pixel coordinates of an n-pixel art image to table mm for a tile pose and rotation.
cv::Matx33d art_to_table(int n, double tile_mm, int rot, const TilePose& pose) {
    const double s = tile_mm / n, o = s * (0.5 - n / 2.0);
    const cv::Matx33d local(s, 0, o, 0, s, o, 0, 0, 1);
    const double a = rot * kPi / 2 + pose.turn;
    const cv::Matx33d turn(std::cos(a), -std::sin(a), pose.centre.x, std::sin(a), std::cos(a), pose.centre.y, 0, 0, 1);
    return turn * local;
}

// ---------------------------------------------------------------------------------------
// The hand: palm, fingers, thumb and a sleeved arm reaching in from the frame edge.

struct Hand {
    cv::Mat mask;     // CV_8UC1, full image
    cv::Mat colour;   // CV_8UC3, valid under mask
    cv::Mat shadow;   // CV_32FC1 darkening 0..1
};

Hand draw_hand(cv::Size size, cv::Point2d target, cv::Point2d direction, double tile_px, RandomSource& r) {
    Hand hand;
    hand.mask = cv::Mat(size, CV_8UC1, cv::Scalar(0));
    cv::Mat sleeve(size, CV_8UC1, cv::Scalar(0));
    const double scale = tile_px * r.uniform(0.8, 1.1);
    const cv::Point2d d = direction * (1.0 / std::max(1e-9, cv::norm(direction)));  // from the board out to the arm
    const cv::Point2d across(-d.y, d.x);
    const cv::Point2d palm = target + d * (1.4 * scale);
    constexpr int kShift = 3;
    auto fp = [&](cv::Point2d p) {
        return cv::Point(static_cast<int>(std::lround(p.x * (1 << kShift))), static_cast<int>(std::lround(p.y * (1 << kShift))));
    };
    auto capsule = [&](cv::Mat& m, cv::Point2d a, cv::Point2d b, double width) {
        cv::line(m, fp(a), fp(b), cv::Scalar(255), std::max(1, static_cast<int>(width)), cv::LINE_AA, kShift);
    };
    // Palm.
    cv::ellipse(hand.mask, cv::RotatedRect(cv::Point2f(palm), cv::Size2f(static_cast<float>(2.0 * scale), static_cast<float>(1.8 * scale)),
                                           static_cast<float>(degrees(std::atan2(d.y, d.x)))),
                cv::Scalar(255), cv::FILLED, cv::LINE_AA);
    // Fingers fan out towards the board; the middle ones are longest.
    const std::array<double, 4> lengths = {1.15, 1.45, 1.4, 1.05};
    const double curl = r.uniform(-0.15, 0.15);
    for (std::size_t i = 0; i < 4; ++i) {
        const double offset = (static_cast<double>(i) - 1.5) * 0.38 * scale;
        const cv::Point2d base = palm - d * (0.75 * scale) + across * offset;
        const double fan = (static_cast<double>(i) - 1.5) * 0.12 + curl;
        const cv::Point2d dir = -d * std::cos(fan) + across * std::sin(fan);
        capsule(hand.mask, base, base + dir * (lengths[i] * scale), 0.36 * scale);
    }
    // Thumb, on one side.
    const double side = r.chance(0.5) ? 1.0 : -1.0;
    const cv::Point2d thumb_base = palm + across * (side * 0.75 * scale);
    capsule(hand.mask, thumb_base, thumb_base + (across * side * 0.6 - d * 0.8) * scale, 0.42 * scale);
    // Arm to (and past) the frame edge, in a sleeve after the wrist.
    const cv::Point2d wrist = palm + d * (1.1 * scale);
    const cv::Point2d far = wrist + d * (4.0 * (size.width + size.height));
    capsule(hand.mask, palm, wrist, 1.5 * scale);
    capsule(sleeve, wrist + d * (0.3 * scale), far, 2.1 * scale);
    hand.mask |= sleeve;

    // Colour: skin or sleeve, shaded across the limb, darker at the rims.
    const std::vector<cv::Vec3f> skins = {{150, 185, 235}, {130, 165, 215}, {105, 140, 190}, {75, 105, 150}, {50, 70, 105}};
    const std::vector<cv::Vec3f> fabrics = {{40, 40, 45}, {120, 60, 30}, {50, 50, 150}, {170, 170, 175}, {60, 100, 60}, {30, 60, 120}};
    const cv::Vec3f skin = skins[static_cast<std::size_t>(r.integer(0, static_cast<int>(skins.size()) - 1))];
    const cv::Vec3f fabric = fabrics[static_cast<std::size_t>(r.integer(0, static_cast<int>(fabrics.size()) - 1))];
    cv::Mat rim_dist;
    cv::distanceTransform(hand.mask, rim_dist, cv::DIST_L2, 3);
    hand.colour = cv::Mat(size, CV_8UC3, cv::Scalar(0, 0, 0));
    const double light_side = r.uniform(-1, 1);
    for (int y = 0; y < size.height; ++y) {
        const auto* m = hand.mask.ptr<std::uint8_t>(y);
        const auto* s = sleeve.ptr<std::uint8_t>(y);
        const auto* rd = rim_dist.ptr<float>(y);
        auto* c = hand.colour.ptr<cv::Vec3b>(y);
        for (int x = 0; x < size.width; ++x) {
            if (!m[x]) continue;
            const cv::Point2d p(x - palm.x, y - palm.y);
            const double lateral = std::clamp(p.dot(across) / (1.2 * scale), -1.0, 1.0);
            const double rim = std::clamp(rd[x] / (0.18 * scale), 0.0, 1.0);
            const double shade = (0.8 + 0.2 * light_side * lateral) * (0.65 + 0.35 * rim);
            const cv::Vec3f base = s[x] ? fabric : skin;
            c[x] = cv::Vec3b(cv::saturate_cast<std::uint8_t>(base[0] * shade), cv::saturate_cast<std::uint8_t>(base[1] * shade),
                             cv::saturate_cast<std::uint8_t>(base[2] * shade));
        }
    }
    // A soft shadow on the table and tiles, offset away from the light.
    cv::Mat small, blurred;
    cv::resize(hand.mask, small, cv::Size(), 0.25, 0.25, cv::INTER_AREA);
    const cv::Point2d offset = (across * r.uniform(-0.5, 0.5) + d * r.uniform(-0.3, 0.5)) * (0.25 * scale);
    const cv::Matx23d shift(1, 0, offset.x, 0, 1, offset.y);
    cv::warpAffine(small, small, shift, small.size());
    cv::GaussianBlur(small, blurred, cv::Size(), std::max(1.0, 0.12 * scale));
    cv::Mat full;
    cv::resize(blurred, full, size, 0, 0, cv::INTER_LINEAR);
    full.convertTo(hand.shadow, CV_32FC1, r.uniform(0.3, 0.5) / 255.0);
    return hand;
}

// The table top as the camera sees it: the surface texture drawn from `engine` at `ppm` px/mm
// into `texture_size` and warped into the frame by `texture_to_image`. With `keep` (a fixed
// scene: every frame of a footage shows the same table) the last table warped on this thread
// is kept, and a table asked for again with the same surface, engine state, sizes and warp is
// copied from it instead of drawn (drawing a texture of up to 4 Mpx was ~60 % of a 960x540
// footage frame's rendering); the copy is byte for byte the table drawn anew.
cv::Mat seen_table(TableSurface surface, const std::mt19937_64& engine, cv::Size texture_size, double ppm, const cv::Matx33d& texture_to_image,
                   cv::Size size, bool keep) {
    struct Kept {
        TableSurface surface;
        std::mt19937_64 engine;
        cv::Size texture_size, size;
        double ppm;
        cv::Matx33d texture_to_image;
        cv::Mat image;
    };
    thread_local std::optional<Kept> kept;
    if (keep && kept && kept->surface == surface && kept->engine == engine && kept->texture_size == texture_size && kept->size == size &&
        kept->ppm == ppm && kept->texture_to_image == texture_to_image) {
        return kept->image.clone();
    }
    std::mt19937_64 draws = engine;
    const cv::Mat texture = render_table_surface(surface, texture_size, ppm, draws);
    cv::Mat image;
    cv::warpPerspective(texture, image, texture_to_image, size, cv::INTER_LINEAR, cv::BORDER_REFLECT);
    if (keep) {
        kept = Kept{surface, engine, texture_size, size, ppm, texture_to_image, image.clone()};
    } else {
        kept.reset();  // a one-off render frees what a footage kept
    }
    return image;
}

// ---------------------------------------------------------------------------------------
// Pieces: a meeple is its outline (in a vertical plane) extruded to a slab.

}  // namespace

const std::vector<cv::Point2d>& meeple_outline() {
    static const std::vector<cv::Point2d> outline = [] {
        std::vector<cv::Point2d> pts = {{-0.5, 0}, {-0.19, 0}, {0, 0.25}, {0.19, 0}, {0.5, 0}, {0.34, 0.44},
                                        {0.5, 0.6}, {0.5, 0.69}, {0.19, 0.72}};
        for (int k = 0; k <= 10; ++k) {  // the head, from its right side over the top
            const double a = -0.35 + (3.14159265358979323846 + 0.7) * k / 10.0;
            pts.emplace_back(0.175 * std::cos(a), 0.83 + 0.175 * std::sin(a));
        }
        for (const cv::Point2d p : std::vector<cv::Point2d>{{-0.19, 0.72}, {-0.5, 0.69}, {-0.5, 0.6}, {-0.34, 0.44}}) pts.push_back(p);
        return pts;
    }();
    return outline;
}

namespace {

Result<cv::Scalar> piece_colour(const std::string& name) {
    static const std::map<std::string, cv::Scalar> colours = {
        {"red", {40, 40, 200}},    {"blue", {180, 90, 30}},   {"green", {50, 150, 40}},
        {"yellow", {30, 200, 230}}, {"black", {35, 35, 38}}, {"grey", {140, 140, 140}}};
    const auto it = colours.find(name);
    if (it == colours.end()) return invalid("render", "unknown piece colour '" + name + "' (red, blue, green, yellow, black, grey)");
    return it->second;
}

// Draws a prism: `outline` (counter-clockwise, in the plane of `ox` and `oy`, world units from
// `origin`) extruded `half_thick` either way along `oz`; faces far to near, each lit by how it
// faces `light`. Its silhouette also goes into `silhouette` (CV_8UC1, image size) when that is not empty.
void draw_prism(cv::Mat& image, const Camera& cam, const std::vector<cv::Point2d>& outline, const cv::Vec3d& origin, const cv::Vec3d& ox,
                const cv::Vec3d& oy, const cv::Vec3d& oz, double half_thick, const cv::Scalar& colour, const cv::Vec3d& light, cv::Mat& silhouette) {
    auto world = [&](const cv::Point2d& p, double d) { return origin + ox * p.x + oy * p.y + oz * d; };
    struct Face {
        std::vector<cv::Vec3d> corners;
        cv::Vec3d normal;
    };
    std::vector<Face> faces;
    Face front, back;
    for (const auto& p : outline) {
        front.corners.push_back(world(p, half_thick));
        back.corners.push_back(world(p, -half_thick));
    }
    front.normal = oz;
    back.normal = -oz;
    faces.push_back(back);
    faces.push_back(front);
    for (std::size_t i = 0; i < outline.size(); ++i) {
        const cv::Point2d a = outline[i], b = outline[(i + 1) % outline.size()];
        const cv::Point2d edge = b - a;
        // Outward normal of a counter-clockwise outline edge (x along ox, y along oy).
        const cv::Point2d out(edge.y, -edge.x);
        cv::Vec3d n = ox * out.x + oy * out.y;
        n *= 1.0 / std::max(1e-9, cv::norm(n));
        faces.push_back({{world(a, half_thick), world(b, half_thick), world(b, -half_thick), world(a, -half_thick)}, n});
    }
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t f = 0; f < faces.size(); ++f) {
        cv::Vec3d mid(0, 0, 0);
        for (const auto& c : faces[f].corners) mid += c;
        mid *= 1.0 / static_cast<double>(faces[f].corners.size());
        order.emplace_back(cam.depth(mid), f);
    }
    std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [d, f] : order) {
        (void)d;
        const double lit = 0.45 + 0.55 * std::max(0.0, -faces[f].normal.dot(light));
        std::vector<cv::Point2d> pts;
        for (const auto& c : faces[f].corners) pts.push_back(cam.project(c));
        const std::vector<std::vector<cv::Point>> poly = {fixed_point(pts, 3)};
        cv::fillPoly(image, poly, colour * lit, cv::LINE_AA, 3);
        if (!silhouette.empty()) cv::fillPoly(silhouette, poly, cv::Scalar(255), cv::LINE_8, 3);
    }
}

// Draws a meeple at `base` (world, on a tile top) turned by `yaw`, lit from `light` (a unit ray):
// standing on its feet, or lying on its back with `base` under the middle of its body. Its
// silhouette is also drawn into `silhouette` (CV_8UC1, image size) when that is not empty.
void draw_meeple(cv::Mat& image, const Camera& cam, cv::Vec3d base, double yaw, double height, bool lying,
                 const cv::Scalar& colour, const cv::Vec3d& light, cv::Mat& silhouette) {
    const cv::Vec3d across(std::cos(yaw), std::sin(yaw), 0), depth(-std::sin(yaw), std::cos(yaw), 0), up(0, 0, -1);
    const double half_thick = 0.5 * kMeepleThickness * height;
    // The outline's x runs along `ox`, its y along `oy`; the slab's thickness along `oz`.
    const cv::Vec3d ox = across, oy = lying ? depth : up, oz = lying ? up : depth;
    const cv::Vec3d origin = lying ? base - depth * (0.5 * height) + up * half_thick : base;
    std::vector<cv::Point2d> outline;
    for (const auto& p : meeple_outline()) outline.push_back(p * height);
    draw_prism(image, cam, outline, origin, ox, oy, oz, half_thick, colour, light, silhouette);
}

// The wooden colours of the expansion pieces (BGR): bridges and ferries are stained wood, castles stone.
const cv::Scalar kBridgeColour(55, 100, 150), kFerryColour(45, 85, 135), kCastleColour(168, 174, 178);

// The side view of a bridge (mm): x along the bridge, y up; ends on the tile, an arch beneath the deck.
std::vector<cv::Point2d> bridge_outline(const TokenSizes& z) {
    const double l = z.bridge_length / 2, h = z.bridge_height, foot = 0.1 * z.bridge_length;
    std::vector<cv::Point2d> pts = {{-l, 0}};
    const double span = l - foot, rise = h - 2.5;
    for (int k = 0; k <= 12; ++k) {  // the arch's underside, left to right
        const double a = kPi - kPi * k / 12.0;
        pts.emplace_back(span * std::cos(a), rise * std::sin(a));
    }
    for (const cv::Point2d p : std::vector<cv::Point2d>{{l, 0}, {l, h - 1.5}, {l - foot, h}, {-l + foot, h}, {-l, h - 1.5}}) pts.push_back(p);
    return pts;
}

// The top view of a ferry (mm): a hull pointed at both ends, x along it.
std::vector<cv::Point2d> ferry_outline(const TokenSizes& z) {
    std::vector<cv::Point2d> pts;
    for (int k = 0; k < 20; ++k) {
        const double a = 2 * kPi * k / 20.0, sn = std::sin(a);
        pts.emplace_back(0.5 * z.ferry_length * std::cos(a), 0.5 * z.ferry_width * (sn < 0 ? -1 : 1) * std::pow(std::abs(sn), 0.6));
    }
    return pts;
}

// The side view of a castle (mm): x across the shared side, y up; a block with merlons.
std::vector<cv::Point2d> castle_outline(const TokenSizes& z) {
    const double l = z.castle_length / 2, h = z.castle_height, m = h - 2.5;
    return {{-l, 0}, {l, 0}, {l, h}, {l - 4, h}, {l - 4, m}, {2, m}, {2, h}, {-2, h}, {-2, m}, {-l + 4, m}, {-l + 4, h}, {-l, h}};
}

nlohmann::json to_json(const Span& s) { return nlohmann::json::array({s.lo, s.hi}); }
nlohmann::json to_json(const cv::Point2d& p) { return nlohmann::json::array({p.x, p.y}); }
nlohmann::json to_json(const cv::Matx33d& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (int i = 0; i < 3; ++i) rows.push_back({m(i, 0), m(i, 1), m(i, 2)});
    return rows;
}

Status span_in(const Span& s, double lo, double hi, const char* name) {
    if (!(s.lo <= s.hi) || !(s.lo >= lo) || !(s.hi <= hi)) {
        return invalid("render options", std::string(name) + " must be a range lo <= hi within [" + std::to_string(lo) + ", " +
                                             std::to_string(hi) + "], not [" + std::to_string(s.lo) + ", " +
                                             std::to_string(s.hi) + "]");
    }
    return Ok{};
}

// The middle of side `side` of a tile (0 N, 1 E, 2 S, 3 W) as a unit step in board axes.
cv::Point2d side_step(int side) { return {static_cast<double>(kSideDx[static_cast<std::size_t>(side)]), static_cast<double>(kSideDy[static_cast<std::size_t>(side)])}; }

// Turns a board-axis vector by a tile's off-grid turn.
cv::Point2d turned(const TilePose& pose, cv::Point2d v) {
    const double c = std::cos(pose.turn), s = std::sin(pose.turn);
    return {c * v.x - s * v.y, s * v.x + c * v.y};
}

// Draws the bridges, ferries and castle tokens of `scene` (with their shadows and, on an
// occupied castle, its owner's follower) and writes their truth. Errors (Invalid): a token on
// a cell without a tile, a ferry port that is no jetty, castle cells that are not neighbours.
Status draw_tokens(const Scene& scene, const std::map<std::pair<int, int>, std::size_t>& tile_at, const std::vector<TilePose>& poses,
                   const RenderOptions& o, const Camera& cam, const cv::Matx33d& top_h, cv::Point2d light_dir, double light_elevation,
                   const TokenSizes& z, double px_per_mm, cv::Mat& image, RenderTruth& truth) {
    if (scene.bridges.empty() && scene.ferries.empty() && scene.castles.empty()) return Ok{};
    const double h = o.tile_thickness_mm;
    struct Token {
        std::vector<cv::Point2d> outline;
        cv::Vec3d origin, ox, oy, oz;
        double half_thick = 0;
        cv::Scalar colour;
        std::vector<cv::Point2d> footprint;  // on the tile tops (mm), for the shadow
        double height = 0;
        std::optional<cv::Scalar> follower;  // an occupied castle's follower
        double yaw = 0;
    };
    std::vector<Token> drawn;
    auto pose_at = [&](Cell c) -> const TilePose* {
        const auto it = tile_at.find({c.x, c.y});
        return it == tile_at.end() ? nullptr : &poses[it->second];
    };
    auto rectangle = [](cv::Point2d centre, cv::Point2d along, double length, double width) {
        const cv::Point2d across(-along.y, along.x);
        return std::vector<cv::Point2d>{centre - along * (length / 2) - across * (width / 2), centre + along * (length / 2) - across * (width / 2),
                                        centre + along * (length / 2) + across * (width / 2), centre - along * (length / 2) + across * (width / 2)};
    };
    auto to3 = [](cv::Point2d v) { return cv::Vec3d(v.x, v.y, 0); };
    const cv::Vec3d up(0, 0, -1);
    for (const auto& b : scene.bridges) {
        const TilePose* pose = pose_at(b.at);
        if (pose == nullptr) return invalid("render", "a bridge at " + to_string(b.at) + " has no tile under it");
        if (b.axis != 0 && b.axis != 1) return invalid("render", "a bridge at " + to_string(b.at) + " has axis " + std::to_string(b.axis) + " (0 or 1)");
        const cv::Point2d along = turned(*pose, b.axis == 0 ? cv::Point2d(0, 1) : cv::Point2d(1, 0)), across(-along.y, along.x);
        Token t{bridge_outline(z), cv::Vec3d(pose->centre.x, pose->centre.y, -h), to3(along), up, to3(across), z.bridge_width / 2, kBridgeColour,
                rectangle(pose->centre, along, z.bridge_length, z.bridge_width), z.bridge_height, std::nullopt, 0};
        drawn.push_back(t);
        TokenTruth tt;
        tt.kind = "bridge";
        tt.at = tt.other = b.at;
        tt.ports = {static_cast<Port>(b.axis == 0 ? 1 : 4), static_cast<Port>(b.axis == 0 ? 7 : 10)};
        tt.centre_mm = pose->centre;
        tt.centre_px = apply_homography(top_h, pose->centre);
        truth.tokens.push_back(tt);
    }
    for (const auto& f : scene.ferries) {
        const TilePose* pose = pose_at(f.at);
        if (pose == nullptr) return invalid("render", "a ferry at " + to_string(f.at) + " has no tile under it");
        if (f.a == f.b || f.a % 3 != 1 || f.b % 3 != 1 || f.a >= kSidePorts || f.b >= kSidePorts) {
            return invalid("render", "a ferry at " + to_string(f.at) + " must join two different jetties (middle ports of two sides)");
        }
        const cv::Point2d da = side_step(side_of(f.a)), db = side_step(side_of(f.b));
        cv::Point2d local(0, 0), along = da;
        if (da + db != cv::Point2d(0, 0)) {  // neighbouring jetties: towards their corner, across it
            local = (da + db) * (z.ferry_offset * o.tile_mm / std::sqrt(2.0));
            along = (da - db) * (1 / std::sqrt(2.0));
        }
        const cv::Point2d centre = pose->centre + turned(*pose, local), dir = turned(*pose, along), across(-dir.y, dir.x);
        Token t{ferry_outline(z), cv::Vec3d(centre.x, centre.y, -h - z.ferry_height / 2), to3(dir), to3(across), up, z.ferry_height / 2, kFerryColour,
                rectangle(centre, dir, z.ferry_length * 0.9, z.ferry_width * 0.8), z.ferry_height, std::nullopt, 0};
        drawn.push_back(t);
        TokenTruth tt;
        tt.kind = "ferry";
        tt.at = tt.other = f.at;
        tt.ports = {f.a, f.b};
        tt.centre_mm = centre;
        tt.centre_px = apply_homography(top_h, centre);
        truth.tokens.push_back(tt);
    }
    for (const auto& c : scene.castles) {
        const TilePose* p0 = pose_at(c.cells[0]);
        const TilePose* p1 = pose_at(c.cells[1]);
        const int dx = c.cells[1].x - c.cells[0].x, dy = c.cells[1].y - c.cells[0].y;
        if (p0 == nullptr || p1 == nullptr || std::abs(dx) + std::abs(dy) != 1) {
            return invalid("render", "a castle at " + to_string(c.cells[0]) + "-" + to_string(c.cells[1]) + " needs two neighbouring tiles");
        }
        auto colour = piece_colour(c.colour);
        if (!colour) return colour.error();
        const cv::Point2d centre = (p0->centre + p1->centre) * 0.5;
        cv::Point2d along = p1->centre - p0->centre;
        along *= 1.0 / std::max(1e-9, cv::norm(along));
        const cv::Point2d across(-along.y, along.x);
        const double yaw = std::fmod(0.7 * (c.cells[0].x * 31 + c.cells[0].y * 17), 2 * kPi);
        Token t{castle_outline(z), cv::Vec3d(centre.x, centre.y, -h), to3(along), up, to3(across), z.castle_width / 2, kCastleColour,
                rectangle(centre, along, z.castle_length, z.castle_width), z.castle_height,
                c.occupied ? std::optional<cv::Scalar>(colour.value()) : std::nullopt, yaw};
        drawn.push_back(t);
        int side = 0;
        while (kSideDx[static_cast<std::size_t>(side)] != dx || kSideDy[static_cast<std::size_t>(side)] != dy) ++side;
        TokenTruth tt;
        tt.kind = "castle";
        tt.at = c.cells[0];
        tt.other = c.cells[1];
        tt.ports = {static_cast<Port>(3 * side + 1), static_cast<Port>(3 * ((side + 2) % 4) + 1)};
        tt.colour = c.colour;
        tt.occupied = c.occupied;
        tt.centre_mm = centre;
        tt.centre_px = apply_homography(top_h, centre);
        truth.tokens.push_back(tt);
    }
    // Shadows: each footprint pushed away from the light by its height, softened.
    cv::Mat shade(image.size(), CV_8UC1, cv::Scalar(0));
    for (const auto& t : drawn) {
        const cv::Point2d push = light_dir * (0.5 * t.height * light_elevation);
        std::vector<cv::Point2d> ring;
        for (const auto& p : t.footprint) ring.push_back(apply_homography(top_h, p));
        for (auto it = t.footprint.rbegin(); it != t.footprint.rend(); ++it) ring.push_back(apply_homography(top_h, *it + push));
        std::vector<cv::Point> hull;
        cv::convexHull(fixed_point(ring, 0), hull);
        cv::fillConvexPoly(shade, hull, cv::Scalar(255), cv::LINE_AA);
    }
    cv::GaussianBlur(shade, shade, cv::Size(), std::max(1.0, 1.5 * px_per_mm));
    for (int y = 0; y < image.rows; ++y) {
        auto* row = image.ptr<cv::Vec3b>(y);
        const auto* sh = shade.ptr<std::uint8_t>(y);
        for (int x = 0; x < image.cols; ++x) {
            if (sh[x]) row[x] = row[x] * (1.0 - 0.4 * sh[x] / 255.0);
        }
    }
    const cv::Vec3d ray = [&] {
        cv::Vec3d v(light_dir.x * light_elevation, light_dir.y * light_elevation, 1.0);
        return v * (1.0 / cv::norm(v));
    }();
    std::vector<std::pair<double, std::size_t>> order;
    for (std::size_t k = 0; k < drawn.size(); ++k) order.emplace_back(cam.depth(drawn[k].origin), k);
    std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    cv::Mat none;
    for (const auto& [d, k] : order) {
        (void)d;
        const Token& t = drawn[k];
        draw_prism(image, cam, t.outline, t.origin, t.ox, t.oy, t.oz, t.half_thick, t.colour, ray, none);
        if (t.follower) {
            draw_meeple(image, cam, t.origin + cv::Vec3d(0, 0, -(z.castle_height - 2.5)), t.yaw, o.meeple_mm, false, *t.follower, ray, none);
        }
    }
    return Ok{};
}

Status value_in(double v, double lo, double hi, const char* name) {
    if (!(v >= lo && v <= hi)) {
        return invalid("render options", std::string(name) + " must be within [" + std::to_string(lo) + ", " +
                                             std::to_string(hi) + "], not " + std::to_string(v));
    }
    return Ok{};
}

}  // namespace

std::vector<SceneTile> scene_tiles(const Board& board) {
    std::vector<SceneTile> out;
    for (const auto& t : board.tiles()) out.push_back({t.type, t.at, t.rot});
    return out;
}

Scene scene_of(const Game& game) {
    Scene scene;
    scene.tiles = scene_tiles(game.board());
    const Board& board = game.board();
    // Bridges: a tile with a bridge is a variant of its printed type (tag bridge-ns or bridge-ew, catalog axes).
    for (auto& t : scene.tiles) {
        const bool ns = t.type->has_tag("bridge-ns"), ew = t.type->has_tag("bridge-ew");
        if (!ns && !ew) continue;
        t.printed = game.catalog().find(t.type->id);
        scene.bridges.push_back({t.at, ((ns ? 0 : 1) + t.rot) % 2});
    }
    for (const auto& module : game.modules()) {
        if (const auto* ferries = dynamic_cast<const FerriesModule*>(module.get())) {
            for (std::size_t i = 0; i < board.tiles().size(); ++i) {
                if (const auto f = ferries->ferry_on(static_cast<int>(i))) scene.ferries.push_back({board.tiles()[i].at, f->first, f->second});
            }
        }
        if (const auto* castles = dynamic_cast<const CastlesModule*>(module.get())) {
            for (const auto& c : castles->castles()) {
                scene.castles.push_back({c.cells, game.players()[static_cast<std::size_t>(c.builder)].color, !c.scored && !c.followers.empty()});
            }
        }
    }
    for (const auto& f : board.followers()) {
        if (!f.on_board) continue;
        scene.pieces.push_back({f.at, board.node_feature(f.node), game.players()[static_cast<std::size_t>(f.player)].color, f.loc});
    }
    return scene;
}

std::string_view difficulty_name(Difficulty d) {
    switch (d) {
        case Difficulty::Easy: return "easy";
        case Difficulty::Medium: return "medium";
        case Difficulty::Hard: return "hard";
    }
    return "?";
}

Result<Difficulty> parse_difficulty(std::string_view name) {
    for (const auto d : {Difficulty::Easy, Difficulty::Medium, Difficulty::Hard}) {
        if (difficulty_name(d) == name) return d;
    }
    return invalid("--preset", "must be easy, medium or hard, not '" + std::string(name) + "'");
}

Status RenderOptions::check() const {
    if (width < 64 || width > 8192 || height < 64 || height > 8192) {
        return invalid("render options", "width and height must be within [64, 8192], not " + std::to_string(width) + "x" +
                                             std::to_string(height));
    }
    if (!style.empty()) {
        if (auto s = find_tile_style(style); !s) return s.error();
    }
    if (surfaces.empty()) return invalid("render options", "surfaces must name at least one table surface");
    if (preset.empty()) return invalid("render options", "preset must name where the options came from");
    if (!layout_cells.empty() && !scene_seed) return invalid("render options", "layout_cells needs scene_seed");
    const std::array<Status, 30> checks = {
        value_in(exposure_gain, 0.2, 5, "exposure_gain"),
        value_in(colour_shift_k, -5000, 5000, "colour_shift_k"),
        value_in(hand_reach, 0, 1, "hand_reach"),
        value_in(tile_mm, 10, 200, "tile_mm"),
        value_in(tile_thickness_mm, 0, 10, "tile_thickness_mm"),
        span_in(gap_mm, 0, 10, "gap_mm"),
        value_in(jitter_mm, 0, 10, "jitter_mm"),
        value_in(jitter_deg, 0, 15, "jitter_deg"),
        value_in(meeple_mm, 1, 100, "meeple_mm"),
        value_in(piece_room, 0.1, 1, "piece_room"),
        span_in(tilt_deg, 0, 60, "tilt_deg"),
        span_in(roll_deg, -360, 360, "roll_deg"),
        span_in(fov_deg, 20, 120, "fov_deg"),
        span_in(fill, 0.1, 0.98, "fill"),
        value_in(off_centre, 0, 1, "off_centre"),
        span_in(light_gradient, 0, 1, "light_gradient"),
        span_in(colour_temperature_k, 1500, 15000, "colour_temperature_k"),
        span_in(exposure, 0.2, 3, "exposure"),
        span_in(vignette, 0, 0.8, "vignette"),
        value_in(glare_chance, 0, 1, "glare_chance"),
        span_in(glare_strength, 0, 1, "glare_strength"),
        span_in(glare_radius, 0.005, 0.5, "glare_radius"),
        span_in(shadow_strength, 0, 1, "shadow_strength"),
        span_in(noise_sigma, 0, 50, "noise_sigma"),
        span_in(blur_sigma, 0, 10, "blur_sigma"),
        span_in(jpeg_quality, 0, 100, "jpeg_quality"),
        value_in(hand_chance, 0, 1, "hand_chance"),
        value_in(gap_mm.hi + 2 * jitter_mm, 0, tile_mm / 2, "gap_mm + 2 * jitter_mm"),
        value_in(jpeg_quality.hi > 0 ? jpeg_quality.lo : 1, 1, 100, "jpeg_quality (lo must be >= 1 unless 0..0)"),
        value_in(fov_deg.hi / 2 + tilt_deg.hi, 0, 80, "tilt_deg + fov_deg / 2 (the horizon must stay out of view)"),
    };
    for (const auto& st : checks) {
        if (!st) return st;
    }
    return Ok{};
}

RenderOptions RenderOptions::for_difficulty(Difficulty d) {
    RenderOptions o;  // medium
    o.preset = std::string(difficulty_name(d));
    if (d == Difficulty::Easy) {
        o.surfaces = {TableSurface::Wood, TableSurface::Cloth, TableSurface::Plain};  // no busy cloths
        o.gap_mm = {0.3, 1.0};
        o.jitter_mm = 1.0;
        o.jitter_deg = 1.5;
        o.tilt_deg = {0, 10};
        o.fov_deg = {50, 65};
        o.fill = {0.75, 0.93};
        o.light_gradient = {0, 0.15};
        o.colour_temperature_k = {4800, 6800};
        o.exposure = {0.95, 1.05};
        o.vignette = {0, 0.1};
        o.glare_chance = 0;
        o.shadow_strength = {0.15, 0.3};
        o.noise_sigma = {0.5, 1.5};
        o.blur_sigma = {0, 0.4};
        o.jpeg_quality = {90, 95};
        o.hand_chance = 0;
    } else if (d == Difficulty::Hard) {
        o.gap_mm = {0.2, 2.0};
        o.tilt_deg = {25, 35};
        o.fov_deg = {55, 75};
        o.fill = {0.6, 0.9};
        o.light_gradient = {0.2, 0.5};
        o.colour_temperature_k = {2700, 9000};
        o.exposure = {0.7, 1.2};
        o.vignette = {0.1, 0.35};
        o.glare_chance = 1;
        o.glare_strength = {0.45, 0.8};
        o.glare_radius = {0.07, 0.16};
        o.shadow_strength = {0.3, 0.6};
        o.noise_sigma = {3, 7};
        o.blur_sigma = {0.8, 1.8};
        o.jpeg_quality = {55, 75};
        o.hand_chance = 1;
    }
    return o;
}

nlohmann::json RenderOptions::to_json() const {
    nlohmann::json j;
    j["preset"] = preset;
    j["width"] = width;
    j["height"] = height;
    j["style"] = style;
    j["surfaces"] = nlohmann::json::array();
    for (const auto s : surfaces) j["surfaces"].push_back(table_surface_name(s));
    j["tile_mm"] = tile_mm;
    j["tile_thickness_mm"] = tile_thickness_mm;
    j["gap_mm"] = vision::to_json(gap_mm);
    j["jitter_mm"] = jitter_mm;
    j["jitter_deg"] = jitter_deg;
    j["meeple_mm"] = meeple_mm;
    j["farmers_lie"] = farmers_lie;
    j["piece_room"] = piece_room;
    j["tilt_deg"] = vision::to_json(tilt_deg);
    j["roll_deg"] = vision::to_json(roll_deg);
    j["fov_deg"] = vision::to_json(fov_deg);
    j["fill"] = vision::to_json(fill);
    j["off_centre"] = off_centre;
    j["light_gradient"] = vision::to_json(light_gradient);
    j["colour_temperature_k"] = vision::to_json(colour_temperature_k);
    j["exposure"] = vision::to_json(exposure);
    j["vignette"] = vision::to_json(vignette);
    j["glare_chance"] = glare_chance;
    j["glare_strength"] = vision::to_json(glare_strength);
    j["glare_radius"] = vision::to_json(glare_radius);
    j["shadow_strength"] = vision::to_json(shadow_strength);
    j["noise_sigma"] = vision::to_json(noise_sigma);
    j["blur_sigma"] = vision::to_json(blur_sigma);
    j["jpeg_quality"] = vision::to_json(jpeg_quality);
    j["hand_chance"] = hand_chance;
    if (scene_seed) {
        j["scene_seed"] = *scene_seed;
        j["layout_cells"] = nlohmann::json::array();
        for (const auto& c : layout_cells) j["layout_cells"].push_back({c.x, c.y});
    }
    j["exposure_gain"] = exposure_gain;
    j["colour_shift_k"] = colour_shift_k;
    if (hand_cell) j["hand_cell"] = {hand_cell->x, hand_cell->y};
    j["hand_reach"] = hand_reach;
    return j;
}

nlohmann::json RenderTruth::to_json() const {
    nlohmann::json j;
    j["format"] = "meeplecam-render-truth";
    j["version"] = 1;
    j["width"] = width;
    j["height"] = height;
    j["seed"] = seed;
    j["style"] = style;
    j["surface"] = surface;
    j["tile_mm"] = tile_mm;
    j["thickness_mm"] = thickness_mm;
    j["gap_mm"] = gap_mm;
    j["camera"] = {{"K", vision::to_json(camera.intrinsics)},
                   {"R", vision::to_json(camera.rotation)},
                   {"t", {camera.translation[0], camera.translation[1], camera.translation[2]}},
                   {"tilt_deg", camera.tilt_deg},
                   {"roll_deg", camera.roll_deg},
                   {"azimuth_deg", camera.azimuth_deg},
                   {"fov_deg", camera.fov_deg},
                   {"distance_mm", camera.distance_mm}};
    j["table_to_image"] = vision::to_json(table_to_image);
    j["tiles_to_image"] = vision::to_json(tiles_to_image);
    j["board_origin_mm"] = vision::to_json(board_origin_mm);
    j["cells"] = nlohmann::json::array();
    for (const auto& t : tiles) {
        nlohmann::json c;
        c["tile"] = t.tile;
        c["at"] = {t.at.x, t.at.y};
        c["rot"] = t.rot_deg;
        c["centre_mm"] = vision::to_json(t.centre_mm);
        c["turn_deg"] = t.turn_deg;
        c["corners_px"] = nlohmann::json::array();
        for (const auto& p : t.corners_px) c["corners_px"].push_back(vision::to_json(p));
        c["centre_px"] = vision::to_json(t.centre_px);
        c["visible"] = t.visible;
        j["cells"].push_back(c);
    }
    j["pieces"] = nlohmann::json::array();
    for (const auto& p : pieces) {
        j["pieces"].push_back({{"colour", p.colour},
                               {"at", {p.at.x, p.at.y}},
                               {"loc", port_name(p.loc)},
                               {"feature", p.feature},
                               {"base_mm", vision::to_json(p.base_mm)},
                               {"base_px", vision::to_json(p.base_px)},
                               {"head_px", vision::to_json(p.head_px)},
                               {"kind", p.kind},
                               {"lying", p.lying},
                               {"visible", p.visible}});
    }
    j["tokens"] = nlohmann::json::array();
    for (const auto& t : tokens) {
        j["tokens"].push_back({{"kind", t.kind},
                               {"at", {t.at.x, t.at.y}},
                               {"other", {t.other.x, t.other.y}},
                               {"ports", {port_name(t.ports[0]), port_name(t.ports[1])}},
                               {"colour", t.colour},
                               {"occupied", t.occupied},
                               {"centre_mm", vision::to_json(t.centre_mm)},
                               {"centre_px", vision::to_json(t.centre_px)}});
    }
    j["glare"] = glare ? nlohmann::json{{"centre_px", vision::to_json(glare_px)}, {"radius_px", glare_radius_px}} : nlohmann::json();
    if (hand) {
        nlohmann::json outline = nlohmann::json::array();
        for (const auto& p : hand_outline) outline.push_back({p.x, p.y});
        j["hand"] = {{"outline_px", outline}};
    } else {
        j["hand"] = nullptr;
    }
    j["options"] = options.to_json();
    return j;
}

Result<Rendering> render_table(const std::vector<SceneTile>& tiles, const RenderOptions& options, std::uint64_t seed) {
    Scene scene;
    scene.tiles = tiles;
    return render_table(scene, options, seed);
}

Result<Rendering> render_table(const Scene& scene, const RenderOptions& o, std::uint64_t seed) {
    if (auto st = o.check(); !st) return st.error();
    const auto& tiles = scene.tiles;
    if (tiles.empty()) return invalid("render", "the board has no tiles to render");
    std::map<std::pair<int, int>, std::size_t> tile_at;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const auto& t = tiles[i];
        if (t.type == nullptr) return invalid("render", "a tile at " + to_string(t.at) + " has no type");
        if (!tile_at.emplace(std::make_pair(t.at.x, t.at.y), i).second) return invalid("render", "two tiles at " + to_string(t.at));
    }
    std::vector<cv::Scalar> piece_colours;
    for (const auto& piece : scene.pieces) {
        const auto it = tile_at.find({piece.at.x, piece.at.y});
        if (it == tile_at.end()) return invalid("render", "a " + piece.colour + " piece at " + to_string(piece.at) + " has no tile under it");
        if (piece.feature < 0 || piece.feature >= static_cast<int>(tiles[it->second].type->features.size())) {
            return invalid("render", "a piece at " + to_string(piece.at) + " names feature " + std::to_string(piece.feature) +
                                         ", which tile " + tiles[it->second].type->id + " lacks");
        }
        auto colour = piece_colour(piece.colour);
        if (!colour) return colour.error();
        piece_colours.push_back(colour.value());
    }

    // A fixed scene draws everything that stays put from scene_seed; the frame seed keeps the rest.
    const bool fixed = o.scene_seed.has_value();
    std::mt19937_64 engine(fixed ? *o.scene_seed : seed);
    RandomSource r(engine);
    std::mt19937_64 frame_engine(seed);
    // Returns a value in [lo, hi) that depends only on the scene seed and a cell (fixed scenes).
    auto cell_uniform = [&](Cell c, int salt, double lo, double hi) {
        std::mt19937_64 e((fixed ? *o.scene_seed : seed) * 0x9E3779B97F4A7C15ULL ^
                          (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.x)) << 32 |
                           static_cast<std::uint32_t>(c.y)) ^
                          (static_cast<std::uint64_t>(salt) << 56));
        return RandomSource(e).uniform(lo, hi);
    };
    const cv::Size size(o.width, o.height);
    Rendering out;
    RenderTruth& truth = out.truth;
    truth.width = o.width;
    truth.height = o.height;
    truth.seed = seed;
    truth.options = o;
    truth.tile_mm = o.tile_mm;
    truth.thickness_mm = o.tile_thickness_mm;

    // Scene parameters, drawn in a fixed order.
    const auto& styles = builtin_tile_styles();
    const int style_pick = r.integer(0, static_cast<int>(styles.size()) - 1);
    const TileStyle style = o.style.empty() ? styles[static_cast<std::size_t>(style_pick)] : find_tile_style(o.style).value();
    const TableSurface surface = o.surfaces[static_cast<std::size_t>(r.integer(0, static_cast<int>(o.surfaces.size()) - 1))];
    truth.style = style.name;
    truth.surface = std::string(table_surface_name(surface));
    truth.gap_mm = draw(r, o.gap_mm);
    const double tilt = radians(draw(r, o.tilt_deg));
    const double roll = radians(draw(r, o.roll_deg));
    const double azimuth = r.uniform(0, 2 * kPi);
    const double fov = radians(draw(r, o.fov_deg));
    const double fill = draw(r, o.fill);
    const cv::Point2d placement(r.uniform(-1, 1), r.uniform(-1, 1));
    const double gradient = draw(r, o.light_gradient);
    const double gradient_angle = r.uniform(0, 2 * kPi);
    const cv::Vec3d tint = light_colour(std::clamp(draw(r, o.colour_temperature_k) + o.colour_shift_k, 1500.0, 15000.0));
    const double exposure = draw(r, o.exposure) * o.exposure_gain;
    const double vignette = draw(r, o.vignette);
    const bool glare = r.chance(o.glare_chance);
    const double glare_strength = draw(r, o.glare_strength);
    const double glare_radius = draw(r, o.glare_radius) * std::hypot(o.width, o.height);
    const double glare_stretch = r.uniform(1.0, 2.0), glare_angle = r.uniform(0, kPi);
    const double shadow_strength = draw(r, o.shadow_strength);
    const double light_angle = r.uniform(0, 2 * kPi);
    const double light_elevation = r.uniform(1.0, 3.0);  // shadow length per mm of height
    const double noise = draw(r, o.noise_sigma);
    const double blur = draw(r, o.blur_sigma);
    const int jpeg = static_cast<int>(std::lround(draw(r, o.jpeg_quality)));
    bool hand = r.chance(o.hand_chance);
    std::mt19937_64 art_engine(r.bits()), table_engine(r.bits()), sensor_engine(r.bits()), hand_engine(r.bits());
    if (fixed) {
        RandomSource fr(frame_engine);
        hand = fr.chance(o.hand_chance);
        sensor_engine.seed(fr.bits());
        hand_engine.seed(fr.bits());
    }

    // Layout and camera: the board fills `fill` of the frame along its tighter axis. A fixed
    // scene lays out (and frames) every cell of the match, so tiles and camera stay put.
    std::vector<TilePose> poses;
    std::vector<TilePose> layout;
    std::map<std::pair<int, int>, std::size_t> layout_at;
    if (fixed && !o.layout_cells.empty()) {
        std::vector<SceneTile> cells;
        for (const auto& c : o.layout_cells) {
            if (layout_at.emplace(std::make_pair(c.x, c.y), cells.size()).second) cells.push_back({nullptr, c, 0, nullptr});
        }
        layout = lay_out(cells, o, truth.gap_mm, r, &truth.board_origin_mm);
        for (const auto& t : tiles) {
            const auto it = layout_at.find({t.at.x, t.at.y});
            if (it == layout_at.end()) return invalid("render", "tile at " + to_string(t.at) + " is not among the layout cells");
            poses.push_back(layout[it->second]);
        }
    } else {
        poses = lay_out(tiles, o, truth.gap_mm, r, &truth.board_origin_mm);
        layout = poses;
    }
    const double h = o.tile_thickness_mm;
    std::vector<cv::Vec3d> board_points;
    for (const auto& p : layout) {
        for (const auto& c : square_corners(p, o.tile_mm)) {
            board_points.emplace_back(c.x, c.y, 0.0);
            board_points.emplace_back(c.x, c.y, -h);
        }
    }
    const double focal = (o.width / 2.0) / std::tan(fov / 2);
    const cv::Matx33d K(focal, 0, (o.width - 1) / 2.0, 0, focal, (o.height - 1) / 2.0, 0, 0, 1);
    auto extent = [&](const Camera& cam) {
        std::vector<cv::Point2d> pts;
        for (const auto& p : board_points) pts.push_back(cam.project(p));
        return bounds(pts);
    };
    cv::Point2d target(0, 0);
    double distance = 1000;
    Camera cam;
    for (int i = 0; i < 12; ++i) {
        cam = look_at(K, tilt, roll, azimuth, target, distance);
        const cv::Rect2d box = extent(cam);
        const double share = std::max(box.width / o.width, box.height / o.height);
        distance *= share / fill;
    }
    cam = look_at(K, tilt, roll, azimuth, target, distance);
    {
        // Slide the camera so the board sits off centre, within the room the frame leaves.
        const cv::Rect2d box = extent(cam);
        const cv::Point2d box_centre(box.x + box.width / 2, box.y + box.height / 2);
        const cv::Point2d room((o.width - box.width) / 2 * 0.92, (o.height - box.height) / 2 * 0.92);
        const cv::Point2d wanted((o.width - 1) / 2.0 + placement.x * room.x * o.off_centre,
                                 (o.height - 1) / 2.0 + placement.y * room.y * o.off_centre);
        const cv::Matx33d to_table = cam.plane(0).inv();
        for (double k = 1.0; k > 0.01; k *= 0.5) {
            const cv::Point2d move = apply_homography(to_table, box_centre) - apply_homography(to_table, box_centre + (wanted - box_centre) * k);
            const Camera moved = look_at(K, tilt, roll, azimuth, target + move, distance);
            const cv::Rect2d b = extent(moved);
            if (b.x >= 0 && b.y >= 0 && b.x + b.width <= o.width - 1 && b.y + b.height <= o.height - 1) {
                cam = moved;
                target += move;
                break;
            }
        }
    }
    truth.camera = {K, cam.R, cam.t, degrees(tilt), degrees(roll), degrees(azimuth), degrees(fov), distance};
    const cv::Matx33d table_h = cam.plane(0), top_h = cam.plane(-h);
    truth.table_to_image = table_h;
    truth.tiles_to_image = top_h;

    // The table: a surface texture in its own frame (planks run at a random angle), seen by the camera.
    cv::Mat image;
    {
        const cv::Matx33d to_table = table_h.inv();
        const double grain = r.uniform(0, kPi);
        const cv::Matx33d surface_to_table(std::cos(grain), -std::sin(grain), 0, std::sin(grain), std::cos(grain), 0, 0, 0, 1);
        const cv::Matx33d table_to_surface = surface_to_table.t();
        std::vector<cv::Point2d> seen;
        for (const auto& c : {cv::Point2d(0, 0), cv::Point2d(o.width - 1, 0), cv::Point2d(o.width - 1, o.height - 1),
                              cv::Point2d(0, o.height - 1)}) {
            seen.push_back(apply_homography(table_to_surface, apply_homography(to_table, c)));
        }
        cv::Rect2d area = bounds(seen);
        area &= cv::Rect2d(-4000, -4000, 8000, 8000);
        // Resolution: what the nearest part of the table needs, within a pixel budget.
        double ppm = focal / distance * 1.5;
        ppm = std::min(ppm, std::sqrt(4.0e6 / std::max(1.0, area.area())));
        ppm = std::clamp(ppm, 0.05, 4.0);
        const cv::Size tex_size(std::max(8, static_cast<int>(std::ceil(area.width * ppm)) + 2),
                                std::max(8, static_cast<int>(std::ceil(area.height * ppm)) + 2));
        const cv::Matx33d tex_to_surface(1 / ppm, 0, area.x, 0, 1 / ppm, area.y, 0, 0, 1);
        image = seen_table(surface, table_engine, tex_size, ppm, table_h * surface_to_table * tex_to_surface, size, fixed);
    }

    // Soft shadows of the tiles on the table.
    const cv::Point2d light_dir(std::cos(light_angle), std::sin(light_angle));
    {
        const double scale = 0.5;
        cv::Mat shade(cv::Size(o.width / 2, o.height / 2), CV_8UC1, cv::Scalar(0));
        const cv::Point2d cast = light_dir * (h * light_elevation);
        for (const auto& p : poses) {
            std::vector<cv::Point2d> pts;
            for (const auto& c : square_corners(p, o.tile_mm)) {
                pts.push_back(apply_homography(table_h, c + cast) * scale);
            }
            cv::fillConvexPoly(shade, fixed_point(pts, 3), cv::Scalar(255), cv::LINE_AA, 3);
        }
        const double px_per_mm = focal / distance;
        cv::GaussianBlur(shade, shade, cv::Size(), std::max(0.8, 1.2 * px_per_mm * scale));
        cv::Mat full;
        cv::resize(shade, full, size, 0, 0, cv::INTER_LINEAR);
        for (int y = 0; y < o.height; ++y) {
            auto* row = image.ptr<cv::Vec3b>(y);
            const auto* s = full.ptr<std::uint8_t>(y);
            for (int x = 0; x < o.width; ++x) {
                if (s[x]) row[x] = row[x] * (1.0 - shadow_strength * s[x] / 255.0);
            }
        }
    }

    // Tiles, far to near: side faces, then the top with the art.
    std::vector<double> side_px(tiles.size());
    double largest = 0;
    auto side_of = [&](const TilePose& pose) {
        const auto c = square_corners(pose, o.tile_mm);
        double s = 0;
        for (std::size_t k = 0; k < 4; ++k) s = std::max(s, cv::norm(apply_homography(top_h, c[k]) - apply_homography(top_h, c[(k + 1) % 4])));
        return s;
    };
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        side_px[i] = side_of(poses[i]);
        largest = std::max(largest, side_px[i]);
    }
    for (const auto& p : layout) largest = std::max(largest, side_of(p));
    const int art_px = std::clamp(static_cast<int>(std::ceil(largest * 1.25)), 32, 480);
    std::map<const TileType*, TileArt> arts;
    for (const auto& t : tiles) {
        const TileType* printed = t.printed != nullptr ? t.printed : t.type;
        if (!arts.count(printed)) arts.emplace(printed, make_tile_art(*printed, art_px, style, o.tile_mm, art_engine));
    }
    std::vector<std::size_t> order(tiles.size());
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> depth(tiles.size());
    for (std::size_t i = 0; i < tiles.size(); ++i) depth[i] = cam.depth(cv::Vec3d(poses[i].centre.x, poses[i].centre.y, -h));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return depth[a] > depth[b]; });
    const cv::Scalar edge_colour(150, 162, 168);
    for (const std::size_t i : order) {
        const auto corners = square_corners(poses[i], o.tile_mm);
        // Side faces, lit by how they face the light.
        for (std::size_t k = 0; k < 4; ++k) {
            const cv::Point2d a = corners[k], b = corners[(k + 1) % 4];
            const cv::Point2d outward = ((a + b) * 0.5 - poses[i].centre) * (2.0 / o.tile_mm);
            const double lit = 0.45 + 0.35 * std::max(0.0, -outward.dot(light_dir));
            const std::vector<cv::Point2d> face = {cam.project({a.x, a.y, -h}), cam.project({b.x, b.y, -h}),
                                                   cam.project({b.x, b.y, 0}), cam.project({a.x, a.y, 0})};
            cv::fillConvexPoly(image, fixed_point(face, 3), edge_colour * lit, cv::LINE_AA, 3);
        }
        // Top face: the art level just larger than the tile appears, warped into place.
        const TileArt& art = arts.at(tiles[i].printed != nullptr ? tiles[i].printed : tiles[i].type);
        std::size_t level = 0;
        while (level + 1 < art.levels.size() && art.levels[level + 1].cols >= side_px[i]) ++level;
        const int n = art.levels[level].cols;
        const cv::Matx33d art_h = top_h * art_to_table(n, o.tile_mm, tiles[i].rot, poses[i]);
        std::vector<cv::Point2d> quad;
        for (const auto& c : corners) quad.push_back(apply_homography(top_h, c));
        const cv::Rect2d box = bounds(quad);
        const cv::Rect roi = cv::Rect(static_cast<int>(std::floor(box.x)) - 2, static_cast<int>(std::floor(box.y)) - 2,
                                      static_cast<int>(std::ceil(box.width)) + 5, static_cast<int>(std::ceil(box.height)) + 5) &
                             cv::Rect(0, 0, o.width, o.height);
        if (roi.area() > 0) {
            const cv::Matx33d shift(1, 0, -roi.x, 0, 1, -roi.y, 0, 0, 1);
            cv::Mat patch, alpha;
            cv::warpPerspective(art.levels[level], patch, shift * art_h, roi.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            cv::warpPerspective(art.alpha[level], alpha, shift * art_h, roi.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            cv::Mat dst = image(roi);
            blend_into(dst, patch, alpha, fixed ? cell_uniform(tiles[i].at, 1, 0.95, 1.05) : r.uniform(0.95, 1.05));
        }
        TileTruth t;
        t.tile = tiles[i].type->id;
        t.at = tiles[i].at;
        t.rot_deg = (((tiles[i].rot % 4) + 4) % 4) * 90;
        t.centre_mm = poses[i].centre;
        t.turn_deg = degrees(poses[i].turn);
        for (std::size_t k = 0; k < 4; ++k) t.corners_px[k] = quad[k];
        t.centre_px = apply_homography(top_h, poses[i].centre);
        truth.tiles.push_back(t);
    }
    // Truth in the order given, not the drawing order.
    {
        std::vector<TileTruth> ordered(tiles.size());
        for (std::size_t k = 0; k < order.size(); ++k) ordered[order[k]] = truth.tiles[k];
        truth.tiles = std::move(ordered);
    }

    // Bridges, ferries and castles: shadows on the tiles, then the pieces far to near.
    const TokenSizes sizes;
    if (auto st = draw_tokens(scene, tile_at, poses, o, cam, top_h, light_dir, light_elevation, sizes, focal / distance, image, truth); !st) {
        return st.error();
    }

    // Pieces: each stands (or lies) where its feature is widest, casts a soft shadow, then is
    // drawn far to near, so nearer pieces hide parts of farther ones.
    std::vector<cv::Mat> silhouettes;  // per piece, in the image (for the truth's visible share)
    std::vector<cv::Rect> piece_boxes;
    if (!scene.pieces.empty()) {
        RandomSource pr(hand_engine);
        const cv::Vec3d ray = [&] {
            cv::Vec3d v(light_dir.x * light_elevation, light_dir.y * light_elevation, 1.0);
            return v * (1.0 / cv::norm(v));
        }();
        constexpr int kMaskPx = 64;
        std::vector<std::pair<double, std::size_t>> piece_order;
        std::vector<cv::Vec3d> bases;
        std::vector<double> yaws;
        std::vector<bool> lying;
        cv::Mat shade(size, CV_8UC1, cv::Scalar(0));
        for (std::size_t k = 0; k < scene.pieces.size(); ++k) {
            const auto& piece = scene.pieces[k];
            const std::size_t i = tile_at.at({piece.at.x, piece.at.y});
            const auto& def = tiles[i].type->features[static_cast<std::size_t>(piece.feature)];
            const bool lies = piece.pose == PiecePose::Lying ||
                              (piece.pose == PiecePose::Auto && o.farmers_lie && def.kind == FeatureKind::Field);
            const auto masks = feature_masks(*tiles[i].type, tiles[i].rot, kMaskPx, style);
            cv::Mat padded, room;
            cv::copyMakeBorder(masks[static_cast<std::size_t>(piece.feature)], padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
            cv::distanceTransform(padded, room, cv::DIST_L2, 3);
            // A random spot with room for the piece: at least piece_room of the feature's widest.
            cv::Point widest;
            double most = 0;
            cv::minMaxLoc(room, nullptr, &most, nullptr, &widest);
            std::vector<cv::Point> spots;
            for (int y = 0; y < room.rows; ++y) {
                for (int x = 0; x < room.cols; ++x) {
                    if (room.at<float>(y, x) >= o.piece_room * most) spots.emplace_back(x, y);
                }
            }
            // A fixed scene (footage) keeps each piece on its spot from frame to frame.
            const int drawn = pr.integer(0, static_cast<int>(spots.size()) - 1);
            const std::size_t pick = fixed && !spots.empty()
                                         ? static_cast<std::size_t>(std::min<double>(static_cast<double>(spots.size()) - 1,
                                                                                     cell_uniform(piece.at, 40 + piece.feature, 0, static_cast<double>(spots.size()))))
                                         : static_cast<std::size_t>(drawn);
            if (o.piece_room < 1.0 && !spots.empty()) widest = spots[pick];
            cv::Point2d local(((widest.x - 1 + 0.5) / kMaskPx - 0.5) * o.tile_mm, ((widest.y - 1 + 0.5) / kMaskPx - 0.5) * o.tile_mm);
            const auto bridge = std::find_if(tiles[i].type->features.begin(), tiles[i].type->features.end(),
                                             [](const FeatureDef& f) { return f.has_tag("bridge"); });
            if (bridge != tiles[i].type->features.end() && !def.has_tag("bridge")) {  // beside the bridge, not inside it
                const int board_axis = ((bridge->side_mask & 1u ? 0 : 1) + tiles[i].rot) % 2;
                const cv::Point2d across = board_axis == 0 ? cv::Point2d(1, 0) : cv::Point2d(0, 1);
                const double clear = 0.5 * sizes.bridge_width + (lies ? 0.5 : 0.3) * o.meeple_mm, off = local.dot(across);
                if (std::abs(off) < clear) local += across * ((off < 0 ? -clear : clear) - off);
            }
            if (def.has_tag("bridge")) {  // on the bridge's deck, along its middle
                const int board_axis = ((def.side_mask & 1u ? 0 : 1) + tiles[i].rot) % 2;
                const cv::Point2d along = board_axis == 0 ? cv::Point2d(0, 1) : cv::Point2d(1, 0);
                const double deck = 0.5 * sizes.bridge_length - 0.1 * sizes.bridge_length - 0.3 * o.meeple_mm;
                local = along * std::clamp(local.dot(along), -deck, deck);
            }
            const double c = std::cos(poses[i].turn), sn = std::sin(poses[i].turn);
            const cv::Point2d at = poses[i].centre + cv::Point2d(c * local.x - sn * local.y, sn * local.x + c * local.y) + piece.shift_mm;
            bases.emplace_back(at.x, at.y, def.has_tag("bridge") ? -h - sizes.bridge_height : -h);
            const double yaw = pr.uniform(0, 2 * kPi);
            yaws.push_back(fixed ? cell_uniform(piece.at, 2 + piece.feature, 0, 2 * kPi) : yaw);
            lying.push_back(lies);
            piece_order.emplace_back(cam.depth(bases.back()), k);
            // Shadow: an ellipse on the tile top, pushed away from the light (short under a lying piece).
            const double reach = lies ? 0.1 : 0.3;
            const cv::Point2d centre = at + light_dir * (reach * o.meeple_mm * light_elevation * 0.5);
            const cv::Point2d half = lies ? cv::Point2d(0.5 * o.meeple_mm, 0.55 * o.meeple_mm) : cv::Point2d(0.55 * o.meeple_mm, 0.3 * o.meeple_mm);
            std::vector<cv::Point2d> ring;
            for (int a = 0; a < 16; ++a) {
                const double t = 2 * kPi * a / 16;
                const cv::Point2d e(half.x * std::cos(t), half.y * std::sin(t));
                const double cy = std::cos(yaws.back()), sy = std::sin(yaws.back());
                ring.push_back(apply_homography(top_h, centre + cv::Point2d(cy * e.x - sy * e.y, sy * e.x + cy * e.y)));
            }
            cv::fillConvexPoly(shade, fixed_point(ring, 3), cv::Scalar(255), cv::LINE_AA, 3);
            PieceTruth pt;
            pt.colour = piece.colour;
            pt.at = piece.at;
            pt.loc = piece.loc;
            pt.feature = std::string(feature_kind_name(def.kind));
            pt.base_mm = at;
            pt.base_px = cam.project(bases.back());
            pt.lying = lies;
            if (lies) {  // the head lies on the tile, half a height from the middle of the body
                const cv::Vec3d forward(-std::sin(yaws.back()), std::cos(yaws.back()), 0);
                pt.head_px = cam.project(bases.back() + forward * (0.5 * o.meeple_mm) + cv::Vec3d(0, 0, -0.44 * o.meeple_mm));
            } else {
                pt.head_px = cam.project(bases.back() + cv::Vec3d(0, 0, -o.meeple_mm));
            }
            truth.pieces.push_back(pt);
        }
        cv::GaussianBlur(shade, shade, cv::Size(), std::max(1.0, 0.1 * o.meeple_mm * focal / distance));
        for (int y = 0; y < o.height; ++y) {
            auto* row = image.ptr<cv::Vec3b>(y);
            const auto* sh = shade.ptr<std::uint8_t>(y);
            for (int x = 0; x < o.width; ++x) {
                if (sh[x]) row[x] = row[x] * (1.0 - 0.4 * sh[x] / 255.0);
            }
        }
        std::sort(piece_order.begin(), piece_order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        silhouettes.resize(scene.pieces.size());
        piece_boxes.resize(scene.pieces.size());
        const double reach_px = 2.0 * o.meeple_mm * focal / distance + 4;
        for (const auto& [d, k] : piece_order) {
            (void)d;
            // Draw into a window around the piece, so each silhouette stays small.
            const cv::Point2d c = truth.pieces[k].base_px;
            const cv::Rect box = cv::Rect(static_cast<int>(c.x - reach_px), static_cast<int>(c.y - reach_px), static_cast<int>(2 * reach_px),
                                          static_cast<int>(2 * reach_px)) &
                                 cv::Rect(0, 0, o.width, o.height);
            piece_boxes[k] = box;
            cv::Mat full(size, CV_8UC1, cv::Scalar(0));
            draw_meeple(image, cam, bases[k], yaws[k], o.meeple_mm, lying[k], piece_colours[k], ray, full);
            silhouettes[k] = box.area() > 0 ? full(box).clone() : cv::Mat();
        }
        // What nearer pieces hide of farther ones.
        for (std::size_t n = 0; n < piece_order.size(); ++n) {
            const std::size_t k = piece_order[n].second;
            if (silhouettes[k].empty()) continue;
            cv::Mat seen = silhouettes[k].clone();
            const double all = std::max(1, cv::countNonZero(seen));
            for (std::size_t m = n + 1; m < piece_order.size(); ++m) {
                const std::size_t j = piece_order[m].second;
                const cv::Rect overlap = piece_boxes[k] & piece_boxes[j];
                if (overlap.area() == 0 || silhouettes[j].empty()) continue;
                cv::Mat mine = seen(overlap - piece_boxes[k].tl()), theirs = silhouettes[j](overlap - piece_boxes[j].tl());
                mine.setTo(0, theirs);
            }
            truth.pieces[k].visible = cv::countNonZero(seen) / all;
            silhouettes[k] = seen;
        }
    }

    // A hand reaching in over the board's edge.
    if (hand) {
        RandomSource hr(hand_engine);
        // Reach for a tile on the board's rim, coming from outside the board.
        cv::Point2d centre(0, 0);
        for (const auto& t : truth.tiles) centre += t.centre_px;
        centre *= 1.0 / static_cast<double>(truth.tiles.size());
        std::vector<std::size_t> rim;
        std::map<std::pair<int, int>, int> cells;
        for (const auto& t : tiles) cells[{t.at.x, t.at.y}] = 1;
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            const auto& a = tiles[i].at;
            if (!cells.count({a.x + 1, a.y}) || !cells.count({a.x - 1, a.y}) || !cells.count({a.x, a.y + 1}) ||
                !cells.count({a.x, a.y - 1})) {
                rim.push_back(i);
            }
        }
        const std::size_t pick = rim[static_cast<std::size_t>(hr.integer(0, static_cast<int>(rim.size()) - 1))];
        cv::Point2d reach = truth.tiles[pick].centre_px;
        if (o.hand_cell) {
            const auto it = layout_at.find({o.hand_cell->x, o.hand_cell->y});
            if (it == layout_at.end()) return invalid("render", "hand_cell " + to_string(*o.hand_cell) + " is not a layout cell");
            reach = apply_homography(top_h, layout[it->second].centre);
        }
        cv::Point2d out_dir = reach - centre;
        if (cv::norm(out_dir) < 1e-6) {
            const double a = hr.uniform(0, 2 * kPi);
            out_dir = {std::cos(a), std::sin(a)};
        }
        // A hand still coming in (or leaving) stops short of its target, towards the frame edge.
        reach += out_dir * ((1.0 - o.hand_reach) * std::hypot(o.width, o.height) * 0.5 / cv::norm(out_dir));
        const double median_side = [&] {
            std::vector<double> s = side_px;
            std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2), s.end());
            return s[s.size() / 2];
        }();
        const Hand drawn = draw_hand(size, reach, out_dir, median_side, hr);
        for (int y = 0; y < o.height; ++y) {
            auto* row = image.ptr<cv::Vec3b>(y);
            const auto* s = drawn.shadow.ptr<float>(y);
            for (int x = 0; x < o.width; ++x) {
                if (s[x] > 0) row[x] = row[x] * (1.0 - s[x]);
            }
        }
        cv::Mat soft;
        cv::GaussianBlur(drawn.mask, soft, cv::Size(), 0.7);
        blend_into(image, drawn.colour, soft, 1.0);
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(drawn.mask.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        for (const auto& c : contours) {
            std::vector<cv::Point> simple;
            cv::approxPolyDP(c, simple, 2.0, true);
            truth.hand_outline.insert(truth.hand_outline.end(), simple.begin(), simple.end());
        }
        truth.hand = true;
        for (std::size_t k = 0; k < truth.pieces.size(); ++k) {
            if (silhouettes[k].empty()) continue;
            const double seen = cv::countNonZero(silhouettes[k]);
            cv::Mat hidden = silhouettes[k] & drawn.mask(piece_boxes[k]);
            if (seen > 0) truth.pieces[k].visible *= 1.0 - cv::countNonZero(hidden) / seen;
        }
        for (auto& t : truth.tiles) {
            cv::Mat face(size, CV_8UC1, cv::Scalar(0));
            std::vector<cv::Point2d> q(t.corners_px.begin(), t.corners_px.end());
            cv::fillConvexPoly(face, fixed_point(q, 3), cv::Scalar(255), cv::LINE_8, 3);
            const double all = cv::countNonZero(face);
            cv::Mat hidden = face & drawn.mask;
            t.visible = all > 0 ? 1.0 - cv::countNonZero(hidden) / all : 0.0;
        }
    }

    // Light: gradient, vignette, colour, exposure, then glare; all smooth, so built small.
    {
        const cv::Size small(std::max(4, o.width / 16), std::max(4, o.height / 16));
        cv::Mat light(small, CV_32FC1), shine(small, CV_32FC1);
        const cv::Point2d middle((o.width - 1) / 2.0, (o.height - 1) / 2.0);
        const double half_diag = std::hypot(o.width, o.height) / 2;
        const cv::Point2d gdir(std::cos(gradient_angle), std::sin(gradient_angle));
        cv::Point2d glare_at = middle;
        if (glare) {
            const int k = r.integer(0, static_cast<int>((fixed ? layout.size() : tiles.size())) - 1);
            glare_at = fixed ? apply_homography(top_h, layout[static_cast<std::size_t>(k)].centre) : truth.tiles[static_cast<std::size_t>(k)].centre_px;
        }
        const double ga = std::cos(glare_angle), gb = std::sin(glare_angle);
        for (int y = 0; y < small.height; ++y) {
            for (int x = 0; x < small.width; ++x) {
                const cv::Point2d p((x + 0.5) * o.width / small.width - 0.5, (y + 0.5) * o.height / small.height - 0.5);
                const cv::Point2d q = (p - middle) * (1.0 / half_diag);
                const double v = (1.0 + 0.5 * gradient * q.dot(gdir) * 2) * (1.0 - vignette * q.dot(q));
                light.at<float>(y, x) = static_cast<float>(v * exposure);
                const cv::Point2d g = p - glare_at;
                const double u = (g.x * ga + g.y * gb) / glare_stretch, w = -g.x * gb + g.y * ga;
                shine.at<float>(y, x) = glare ? static_cast<float>(glare_strength * std::exp(-(u * u + w * w) / (2 * glare_radius * glare_radius))) : 0.0f;
            }
        }
        cv::Mat light_full, shine_full;
        cv::resize(light, light_full, size, 0, 0, cv::INTER_LINEAR);
        cv::resize(shine, shine_full, size, 0, 0, cv::INTER_LINEAR);
        cv::Mat lit(size, CV_32FC3);
        for (int y = 0; y < o.height; ++y) {
            const auto* in = image.ptr<cv::Vec3b>(y);
            const auto* l = light_full.ptr<float>(y);
            const auto* s = shine_full.ptr<float>(y);
            auto* outp = lit.ptr<cv::Vec3f>(y);
            for (int x = 0; x < o.width; ++x) {
                for (int c = 0; c < 3; ++c) {
                    const double v = in[x][c] * l[x] * tint[c];
                    outp[x][c] = static_cast<float>(v + (255.0 - v) * s[x]);
                }
            }
        }
        truth.glare = glare;
        truth.glare_px = glare_at;
        truth.glare_radius_px = glare ? glare_radius : 0.0;

        // Sensor: defocus, noise, then the camera's JPEG.
        if (blur > 0.2) cv::GaussianBlur(lit, lit, cv::Size(), blur);
        if (noise > 0) {
            cv::Mat grain(size, CV_32FC3);
            cv::RNG cv_rng(RandomSource(sensor_engine).bits());
            cv_rng.fill(grain, cv::RNG::NORMAL, 0.0, noise);
            lit += grain;
        }
        lit.convertTo(image, CV_8UC3);
    }
    if (jpeg > 0) {
        std::vector<std::uint8_t> bytes;
        cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, jpeg});
        image = cv::imdecode(bytes, cv::IMREAD_COLOR);
    }
    out.image = image;
    return out;
}

Result<cv::Mat> render_colour_shot(const std::vector<std::string>& colours, const RenderOptions& o, std::uint64_t seed) {
    if (auto st = o.check(); !st) return st.error();
    if (colours.empty()) return invalid("render colour shot", "name at least one player colour");
    std::vector<cv::Scalar> bgr;
    for (const auto& c : colours) {
        auto colour = piece_colour(c);
        if (!colour) return colour.error();
        bgr.push_back(colour.value());
    }
    std::mt19937_64 engine(seed);
    RandomSource r(engine);
    const cv::Vec3d tint = light_colour(std::clamp(draw(r, o.colour_temperature_k) + o.colour_shift_k, 1500.0, 15000.0));
    const double exposure = draw(r, o.exposure) * o.exposure_gain;
    const double noise = draw(r, o.noise_sigma);
    const cv::Size size(o.width, o.height);
    const double fov = radians(55), focal = (o.width / 2.0) / std::tan(fov / 2);
    const cv::Matx33d K(focal, 0, (o.width - 1) / 2.0, 0, focal, (o.height - 1) / 2.0, 0, 0, 1);
    const Camera cam = look_at(K, radians(r.uniform(5, 15)), 0, r.uniform(-0.1, 0.1), cv::Point2d(0, 0), 520);
    const cv::Matx33d table_h = cam.plane(0);
    // The table, then an A4 sheet turned a little, then the followers with soft shadows.
    std::mt19937_64 table_engine(r.bits());
    const double ppm = 1.5;
    const cv::Mat texture = render_table_surface(TableSurface::Wood, cv::Size(static_cast<int>(900 * ppm), static_cast<int>(700 * ppm)), ppm, table_engine);
    cv::Mat image;
    cv::warpPerspective(texture, image, table_h * cv::Matx33d(1 / ppm, 0, -450, 0, 1 / ppm, -350, 0, 0, 1), size, cv::INTER_LINEAR, cv::BORDER_REFLECT);
    const TilePose sheet{cv::Point2d(0, 0), radians(r.uniform(-8, 8))};
    std::vector<cv::Point2d> paper;
    for (const auto& c : square_corners(sheet, 1.0)) paper.push_back(apply_homography(table_h, cv::Point2d(c.x * 297, c.y * 210)));
    cv::fillConvexPoly(image, fixed_point(paper, 3), cv::Scalar(238, 241, 243), cv::LINE_AA, 3);
    const double light_angle = r.uniform(0, 2 * kPi), elevation = r.uniform(1.0, 2.0), height = 16;
    const cv::Point2d light_dir(std::cos(light_angle), std::sin(light_angle));
    const cv::Vec3d ray = [&] {
        cv::Vec3d v(light_dir.x * elevation, light_dir.y * elevation, 1.0);
        return v * (1.0 / cv::norm(v));
    }();
    cv::Mat shade(size, CV_8UC1, cv::Scalar(0));
    std::vector<cv::Point2d> spots;
    for (std::size_t i = 0; i < colours.size(); ++i) {
        spots.emplace_back(-60 + 60.0 * static_cast<double>(i % 3), -35 + 70.0 * static_cast<double>(i / 3));
        const cv::Point2d centre = spots.back() + light_dir * (0.3 * height * elevation * 0.5);
        cv::ellipse(shade, apply_homography(table_h, centre), cv::Size2d(0.55 * height * focal / 520, 0.3 * height * focal / 520), 0, 0, 360, cv::Scalar(255), cv::FILLED,
                    cv::LINE_AA);
    }
    cv::GaussianBlur(shade, shade, cv::Size(), 4);
    for (int y = 0; y < o.height; ++y) {
        auto* row = image.ptr<cv::Vec3b>(y);
        const auto* sh = shade.ptr<std::uint8_t>(y);
        for (int x = 0; x < o.width; ++x) {
            if (sh[x]) row[x] = row[x] * (1.0 - 0.35 * sh[x] / 255.0);
        }
    }
    cv::Mat none;
    for (std::size_t i = 0; i < colours.size(); ++i) {
        draw_meeple(image, cam, cv::Vec3d(spots[i].x, spots[i].y, 0), r.uniform(-0.4, 0.4), height, false, bgr[i], ray, none);
    }
    // The light's colour and exposure, then the sensor.
    cv::Mat lit;
    image.convertTo(lit, CV_32FC3);
    cv::multiply(lit, cv::Scalar(tint[0] * exposure, tint[1] * exposure, tint[2] * exposure), lit);
    if (noise > 0) {
        cv::Mat grain(size, CV_32FC3);
        cv::RNG cv_rng(r.bits());
        cv_rng.fill(grain, cv::RNG::NORMAL, 0.0, noise);
        lit += grain;
    }
    lit.convertTo(image, CV_8UC3);
    return image;
}

std::string truth_path_for(const std::string& image_path) {
    std::filesystem::path p(image_path);
    p.replace_extension(".truth.json");
    return p.string();
}

Status write_rendering(const Rendering& rendering, const std::string& image_path) {
    std::string ext = std::filesystem::path(image_path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (ext != ".png" && ext != ".jpg" && ext != ".jpeg") {
        return invalid(image_path, "the image must end in .png, .jpg or .jpeg");
    }
    std::vector<std::uint8_t> bytes;
    try {
        std::vector<int> params;
        if (ext != ".png") params = {cv::IMWRITE_JPEG_QUALITY, 95};
        if (!cv::imencode(ext, rendering.image, bytes, params)) return invalid(image_path, "cannot encode the image");
    } catch (const cv::Exception& e) {
        return invalid(image_path, std::string("cannot encode the image: ") + e.what());
    }
    if (auto st = write_file_atomically(image_path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        !st) {
        return st;
    }
    nlohmann::json truth = rendering.truth.to_json();
    truth["image"] = std::filesystem::path(image_path).filename().string();
    return write_file_atomically(truth_path_for(image_path), truth.dump(1) + "\n");
}

}  // namespace meeplecam::vision
