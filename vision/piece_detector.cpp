// Stage 5 of the vision pipeline: followers on the read board (see piece_detector.h).
#include "vision/piece_detector.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>

#include <opencv2/imgproc.hpp>

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
// common colour of a terrain.
double terrain_distance(const TerrainColours& t, const cv::Vec3f& lab, double min_share) {
    double best = 1e9;
    for (std::size_t i = 0; i < t.centres.size(); ++i) {
        if (t.shares[i] < min_share) continue;
        const double dl = (lab[0] - t.centres[i][0]) / 4, da = lab[1] - t.centres[i][1], db = lab[2] - t.centres[i][2];
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

std::string colour_summary(const ColourModel& m) { return "colour model '" + m.name + "'"; }

}  // namespace

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
    if (!(min_width_mm >= 0 && min_width_mm <= meeple_mm)) return bad("min_width_mm must be within [0, meeple_mm]");
    if (!(min_interior_share >= 0 && min_interior_share <= 1)) return bad("min_interior_share must be within [0, 1]");
    if (!(open_mm >= 0 && open_mm <= 10)) return bad("open_mm must be within [0, 10]");
    if (!(piece_bias > 0)) return bad("piece_bias must be positive");
    if (!(terrain_margin >= 0)) return bad("terrain_margin must be >= 0");
    if (!(common_share >= 0 && common_share <= 1)) return bad("common_share must be within [0, 1]");
    if (!(terrain_reach_mm >= 0 && terrain_reach_mm <= tile_mm / 2)) return bad("terrain_reach_mm must be within [0, tile_mm / 2]");
    if (!(gap_band_mm >= 0 && gap_band_mm <= tile_mm / 4)) return bad("gap_band_mm must be within [0, tile_mm / 4]");
    if (!(feature_search_mm >= 0 && feature_search_mm <= tile_mm)) return bad("feature_search_mm must be within [0, tile_mm]");
    if (!(terrain_piece_share >= 0 && terrain_piece_share <= 1)) return bad("terrain_piece_share must be within [0, 1]");
    if (!(lying_width > 0 && lying_width < 2)) return bad("lying_width must be within (0, 2)");
    if (!(default_fov_deg >= 10 && default_fov_deg <= 150)) return bad("default_fov_deg must be within [10, 150]");
    return Ok{};
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
    return out;
}

int feature_at_point(const TileType& type, int rot, cv::Point2d uv, double search, FeaturePreference prefer) {
    constexpr int kSide = 96;
    const cv::Mat labels = feature_labels(type, rot, kSide);
    const int x = std::clamp(static_cast<int>(uv.x * kSide), 0, kSide - 1), y = std::clamp(static_cast<int>(uv.y * kSide), 0, kSide - 1);
    auto allowed = [&](int f) {
        if (f < 0) return false;
        const bool field = type.features[static_cast<std::size_t>(f)].kind == FeatureKind::Field;
        return prefer == FeaturePreference::Any || (prefer == FeaturePreference::Field) == field;
    };
    const int here = labels.at<int>(y, x);
    if (allowed(here)) return here;
    const int reach = static_cast<int>(std::ceil(search * kSide));
    int best = -1;
    double best_d = 1e18;
    for (int dy = -reach; dy <= reach; ++dy) {
        for (int dx = -reach; dx <= reach; ++dx) {
            const int xx = x + dx, yy = y + dy;
            if (xx < 0 || yy < 0 || xx >= kSide || yy >= kSide) continue;
            const double d = dx * dx + dy * dy;
            if (d > reach * reach || d >= best_d) continue;
            const int l = labels.at<int>(yy, xx);
            if (allowed(l)) best = l, best_d = d;
        }
    }
    if (best >= 0 || here >= 0) return best >= 0 ? best : here;
    return prefer == FeaturePreference::Any ? -1 : feature_at_point(type, rot, uv, search, FeaturePreference::Any);
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
    cv::Mat lab;
    det.convertTo(lab, CV_32FC3, 1.0 / 255);
    cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);

    // 2. What each pixel should show: the decoded tile's terrain there.
    cv::Mat terrain(det_size, CV_32SC1, cv::Scalar(kNoTile));
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
    // Each terrain's common colours, from a sparse sample of its pixels. Pixels a piece colour
    // admits are left out (the pieces stand on the terrains and would teach them their colour)
    // unless that colour is a large share of the terrain: then it is the terrain's own colour.
    const std::size_t n_models = colours.colours.size();
    std::array<std::vector<cv::Vec3f>, kTerrainKinds> samples;
    std::array<std::vector<std::vector<cv::Vec3f>>, kTerrainKinds> gated;  // per terrain, per colour model
    for (auto& g : gated) g.resize(n_models);
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
        }
    }
    std::array<TerrainColours, kTerrainKinds> terrain_colours;
    for (std::size_t k = 0; k < samples.size(); ++k) {
        std::size_t all = samples[k].size();
        for (const auto& g : gated[k]) all += g.size();
        for (const auto& g : gated[k]) {
            if (static_cast<double>(g.size()) >= o.terrain_piece_share * static_cast<double>(all)) samples[k].insert(samples[k].end(), g.begin(), g.end());
        }
        terrain_colours[k] = learn_terrain(samples[k]);
    }
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

    // 3. Per colour: pixels passing its gate that no nearby terrain explains; blobs of them.
    const int n_colours = static_cast<int>(colours.colours.size());
    cv::Mat best(det_size, CV_8UC1, cv::Scalar(255));  // index of the passing colour, 255: none
    cv::Mat closeness(det_size, CV_32FC1, cv::Scalar(0));
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
            if (pick < 0) continue;
            // Background when a common colour of a terrain nearby is about as close as the piece colour.
            const double to_piece = piece_distance(colours.colours[static_cast<std::size_t>(pick)], in[x]) * o.piece_bias;
            bool explained = false;
            for (int k = 0; k < kTerrainKinds && !explained; ++k) {
                const auto& n = near[static_cast<std::size_t>(k)];
                if (n.empty() || !n.at<std::uint8_t>(y, x)) continue;
                explained = terrain_distance(terrain_colours[static_cast<std::size_t>(k)], in[x], o.common_share) < to_piece + o.terrain_margin;
            }
            if (explained) continue;
            b[x] = static_cast<std::uint8_t>(pick);
            cl[x] = static_cast<float>(std::max(0.0, 1.0 - pick_d));
        }
    }

    PieceDetection out;
    const cv::Matx33d det_to_image = image_to_det.inv();
    const double mm_per_px = 1.0 / o.px_per_mm;
    const CameraFoot foot = camera_foot(cv::Matx33d(mm_per_px, 0, 0, 0, mm_per_px, 0, 0, 0, 1) * image_to_det, image.size(), o.default_fov_deg);
    out.focal_px = foot.focal_px;
    out.foot_top_px = apply_homography(top_to_det.inv(), foot.foot_mm * o.px_per_mm);
    const int open_px = static_cast<int>(std::lround(o.open_mm * o.px_per_mm));
    const cv::Mat opener = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * open_px + 1, 2 * open_px + 1));
    const double px2_per_mm2 = o.px_per_mm * o.px_per_mm;
    for (int c = 0; c < n_colours; ++c) {
        const auto& model = colours.colours[static_cast<std::size_t>(c)];
        cv::Mat mask = best == c;
        if (open_px > 0) cv::morphologyEx(mask, mask, cv::MORPH_OPEN, opener);
        // Close small holes (a face in deep shade, glare on a face).
        cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, opener);
        cv::Mat comp, stats, centroids;
        const int n = cv::connectedComponentsWithStats(mask, comp, stats, centroids, 8, CV_32S);
        for (int i = 1; i < n; ++i) {
            const double area_mm2 = stats.at<int>(i, cv::CC_STAT_AREA) / px2_per_mm2;
            if (area_mm2 < o.min_area_mm2 || area_mm2 > o.max_area_mm2) continue;
            const cv::Rect box(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP), stats.at<int>(i, cv::CC_STAT_WIDTH),
                               stats.at<int>(i, cv::CC_STAT_HEIGHT));
            cv::Mat blob = comp(box) == i;
            std::vector<std::vector<cv::Point>> contours;
            cv::findContours(blob.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
            if (contours.empty()) continue;
            std::size_t biggest = 0;
            for (std::size_t k = 1; k < contours.size(); ++k) {
                if (cv::contourArea(contours[k]) > cv::contourArea(contours[biggest])) biggest = k;
            }
            std::vector<cv::Point> hull;
            cv::convexHull(contours[biggest], hull);
            const double solidity = stats.at<int>(i, cv::CC_STAT_AREA) / std::max(1.0, cv::contourArea(hull));
            if (solidity < o.min_solidity) continue;
            if (cv::countNonZero(blob & ~table_near(box)) < o.min_interior_share * stats.at<int>(i, cv::CC_STAT_AREA)) continue;
            if (std::min(cv::minAreaRect(contours[biggest]).size.width, cv::minAreaRect(contours[biggest]).size.height) * mm_per_px <
                o.min_width_mm) {
                continue;
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
            piece.lying = rect_short - 0.94 * h * (solidity - 0.9) > o.lying_width * h;
            // Base: a standing piece's feet are at the blob's end nearest the foot point (plus
            // half its thickness); a lying piece's middle is the middle of its footprint.
            const double base_along = piece.lying ? lo + 0.5 * (length - lie_smear) : lo + 0.22 * h;
            const cv::Point2d base_mm = centre + along * base_along;
            const cv::Point2d base_det = base_mm * o.px_per_mm;
            piece.top_px = apply_homography(top_to_det.inv(), base_det);
            piece.image_px = apply_homography(det_to_image, base_det);
            piece.table_mm = piece.top_px * (1.0 / view.px_per_mm);
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
            const cv::Point2d cell_f = piece.top_px * (1.0 / view.pitch_px);
            piece.col = static_cast<int>(std::floor(cell_f.x));
            piece.row = static_cast<int>(std::floor(cell_f.y));
            const auto it = by_cell.find({piece.col, piece.row});
            if (it != by_cell.end()) {
                piece.on_tile = true;
                const DecodedTile& t = *it->second;
                const TileType& type = types[static_cast<std::size_t>(t.type)];
                const cv::Point2d uv(cell_f.x - piece.col - t.offset_px.x / view.pitch_px, cell_f.y - piece.row - t.offset_px.y / view.pitch_px);
                piece.feature = feature_at_point(type, t.rot, uv, o.feature_search_mm / o.tile_mm,
                                                 piece.lying ? FeaturePreference::Field : FeaturePreference::NotField);
                if (piece.feature >= 0) {
                    const auto& def = type.features[static_cast<std::size_t>(piece.feature)];
                    piece.feature_kind = def.kind;
                    piece.port = rotate_port(def.ports.front(), t.rot);
                }
            }
            if (!piece.on_tile) continue;
            out.pieces.push_back(std::move(piece));
        }
    }
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return out;
}

}  // namespace meeplecam::vision
