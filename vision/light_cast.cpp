// The frame's colour cast from the decoded terrains against the known art (see light_cast.h).
#include "vision/light_cast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <tuple>
#include <utility>

#include <opencv2/imgproc.hpp>

#include "vision/tile_art.h"

namespace meeplecam::vision {
namespace {

// The terrains whose colours are compared (the common ones; streets and districts are The City's).
constexpr std::array<FeatureKind, 5> kCastTerrains = {FeatureKind::Field, FeatureKind::Road, FeatureKind::City, FeatureKind::Monastery,
                                                      FeatureKind::Lake};

// Per terrain: a histogram of each channel's values, and the pixel count.
struct ChannelHistograms {
    std::array<std::array<std::array<int, 256>, 3>, kCastTerrains.size()> bins{};
    std::array<int, kCastTerrains.size()> count{};

    void add(std::size_t terrain, const cv::Vec3b& px) {
        for (int c = 0; c < 3; ++c) ++bins[terrain][static_cast<std::size_t>(c)][px[c]];
        ++count[terrain];
    }
    // The median of channel `c` of terrain `terrain` (0..255).
    double median(std::size_t terrain, int c) const {
        const auto& h = bins[terrain][static_cast<std::size_t>(c)];
        int seen = 0;
        for (int v = 0; v < 256; ++v) {
            seen += h[static_cast<std::size_t>(v)];
            if (2 * seen >= count[terrain]) return v;
        }
        return 255;
    }
};

// The slot of a terrain kind in kCastTerrains, or -1.
int cast_slot(int kind) {
    for (std::size_t i = 0; i < kCastTerrains.size(); ++i) {
        if (static_cast<int>(kCastTerrains[i]) == kind) return static_cast<int>(i);
    }
    return -1;
}

constexpr int kPx = 96;  // side of the reference tiles (px)

// One art style's terrain colours under neutral light: per terrain each channel's median
// (negative when the art shows too little of it).
struct ArtReference {
    std::string style;
    std::array<cv::Vec3d, kCastTerrains.size()> median_bgr;
};

constexpr int kNoTerrain = -1000;  // a terrain map's value for "no terrain compared here"

// Returns `terrain` (CV_32SC1, a terrain kind per pixel) with the pixels within `inset_px` of another value (another
// terrain, decoration, no tile) set to kNoTerrain: what is left lies well inside its terrain.
cv::Mat inset_terrains(const cv::Mat& terrain, int inset_px) {
    if (inset_px <= 0) return terrain;
    cv::Mat out(terrain.size(), CV_32SC1, cv::Scalar(kNoTerrain));
    const cv::Mat disc = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * inset_px + 1, 2 * inset_px + 1));
    for (const FeatureKind kind : kCastTerrains) {
        const cv::Mat mask = terrain == static_cast<int>(kind);
        if (cv::countNonZero(mask) == 0) continue;
        cv::Mat inner;
        cv::erode(mask, inner, disc);
        out.setTo(cv::Scalar(static_cast<int>(kind)), inner);
    }
    return out;
}

// Renders the first tile types of `catalog` in every built-in style and takes each terrain's medians,
// `inset_px` (of the 96-px tiles) inside each terrain's region.
std::vector<ArtReference> render_art_references(const Catalog& catalog, int inset_px) {
    constexpr std::size_t kTypes = 24;
    std::vector<ArtReference> out;
    for (const auto& style : builtin_tile_styles()) {
        std::mt19937_64 rng(17);
        ChannelHistograms h;
        const auto& types = catalog.tiles();
        for (std::size_t t = 0; t < std::min(kTypes, types.size()); ++t) {
            const cv::Mat art = render_tile(types[t], 0, kPx, style, rng);
            const cv::Mat labels = feature_labels(types[t], 0, kPx, style);
            cv::Mat kinds(labels.size(), CV_32SC1, cv::Scalar(kNoTerrain));
            for (int y = 0; y < kPx; ++y) {
                for (int x = 0; x < kPx; ++x) {
                    const int l = labels.at<int>(y, x);
                    if (l >= 0) kinds.at<int>(y, x) = static_cast<int>(types[t].features[static_cast<std::size_t>(l)].kind);
                }
            }
            const cv::Mat inner = inset_terrains(kinds, inset_px);
            for (int y = 0; y < kPx; ++y) {
                for (int x = 0; x < kPx; ++x) {
                    const int slot = cast_slot(inner.at<int>(y, x));
                    if (slot >= 0) h.add(static_cast<std::size_t>(slot), art.at<cv::Vec3b>(y, x));
                }
            }
        }
        ArtReference ref;
        ref.style = style.name;
        for (std::size_t k = 0; k < kCastTerrains.size(); ++k) {
            ref.median_bgr[k] = cv::Vec3d(-1, -1, -1);
            if (h.count[k] < kPx * kPx / 4) continue;
            for (int c = 0; c < 3; ++c) ref.median_bgr[k][c] = h.median(k, c);
        }
        out.push_back(std::move(ref));
    }
    return out;
}

// The references for `catalog` measured `inset_px` inside each terrain, rendered once per catalog (by its game and tile
// list) and inset.
const std::vector<ArtReference>& art_references(const Catalog& catalog, int inset_px) {
    static std::mutex lock;
    static std::map<std::string, std::vector<ArtReference>> cache;
    std::string key = catalog.game() + " inset " + std::to_string(inset_px);
    for (std::size_t t = 0; t < std::min<std::size_t>(24, catalog.tiles().size()); ++t) key += " " + catalog.tiles()[t].id;
    const std::scoped_lock guard(lock);
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, render_art_references(catalog, inset_px)).first;
    return it->second;
}

// The per-channel gains that take a light of per-channel log gain `log_gain` off (its chromatic
// part only: the log gains less their mean, inverted, each at most `max_gain` either way), and
// that part's largest magnitude.
std::pair<cv::Vec3d, double> chromatic_correction(const cv::Vec3d& log_gain, double max_gain) {
    const double mean = (log_gain[0] + log_gain[1] + log_gain[2]) / 3;
    double largest = 0;
    cv::Vec3d correction;
    for (int c = 0; c < 3; ++c) {
        largest = std::max(largest, std::abs(log_gain[c] - mean));
        correction[c] = std::clamp(std::exp(-(log_gain[c] - mean)), 1 / max_gain, max_gain);
    }
    return {correction, largest};
}

// The correction that makes the lightest road pixels neutral (their chromatic log gains taken off),
// when the road shows on enough of the tiles, is pale, and its cast lies within
// [min_cast, road_max_cast]; none otherwise.
std::optional<cv::Vec3d> road_cast(const cv::Mat& bgr, const cv::Mat& terrain, const ChannelHistograms& measured, int all, const LightCastOptions& o) {
    const int road = cast_slot(static_cast<int>(FeatureKind::Road));
    if (road < 0 || measured.count[static_cast<std::size_t>(road)] < o.min_terrain_share * all) return std::nullopt;
    // The road pixels' brightness (sum of the channels), and the lightest road_top_share of them.
    std::array<int, 766> brightness{};
    int n = 0;
    for (int y = 0; y < bgr.rows; y += 2) {
        const auto* px = bgr.ptr<cv::Vec3b>(y);
        const auto* t = terrain.ptr<int>(y);
        for (int x = 0; x < bgr.cols; x += 2) {
            if (t[x] != static_cast<int>(FeatureKind::Road)) continue;
            ++brightness[static_cast<std::size_t>(px[x][0] + px[x][1] + px[x][2])];
            ++n;
        }
    }
    int threshold = 765;
    for (int seen = 0; threshold > 0; --threshold) {
        seen += brightness[static_cast<std::size_t>(threshold)];
        if (seen >= o.road_top_share * n) break;
    }
    ChannelHistograms light;
    for (int y = 0; y < bgr.rows; y += 2) {
        const auto* px = bgr.ptr<cv::Vec3b>(y);
        const auto* t = terrain.ptr<int>(y);
        for (int x = 0; x < bgr.cols; x += 2) {
            if (t[x] == static_cast<int>(FeatureKind::Road) && px[x][0] + px[x][1] + px[x][2] >= threshold) light.add(0, px[x]);
        }
    }
    if (light.count[0] == 0) return std::nullopt;
    cv::Vec3d log_value;
    double value = 0;
    for (int c = 0; c < 3; ++c) {
        const double m = light.median(0, c);
        value += m / 3;
        log_value[c] = std::log(m + 4);
    }
    if (value < o.road_min_value) return std::nullopt;
    const auto [correction, largest] = chromatic_correction(log_value, o.max_gain);
    if (largest < o.min_cast || largest > o.road_max_cast) return std::nullopt;
    return correction;
}

}  // namespace

Status LightCastOptions::check() const {
    auto bad = [](const std::string& m) { return Status(invalid("light cast options", m)); };
    if (!(max_residual >= 0 && max_residual <= 1)) return bad("max_residual must be within [0, 1]");
    if (!(min_cast >= 0 && min_cast <= 1)) return bad("min_cast must be within [0, 1]");
    if (!(max_gain >= 1 && max_gain <= 4)) return bad("max_gain must be within [1, 4]");
    if (!(min_terrain_share >= 0 && min_terrain_share < 1)) return bad("min_terrain_share must be within [0, 1)");
    if (!(road_top_share > 0 && road_top_share <= 1)) return bad("road_top_share must be within (0, 1]");
    if (!(road_min_value >= 0 && road_min_value <= 255)) return bad("road_min_value must be within [0, 255]");
    if (!(road_max_cast >= 0 && road_max_cast <= 1)) return bad("road_max_cast must be within [0, 1]");
    if (!(road_max_veil >= 0 && road_max_veil <= 1)) return bad("road_max_veil must be within [0, 1]");
    if (!(inset_mm >= 0 && inset_mm <= 10)) return bad("inset_mm must be within [0, 10]");
    if (!(px_per_mm > 0 && px_per_mm <= 20)) return bad("px_per_mm must be within (0, 20]");
    if (!(tile_mm > 0)) return bad("tile_mm must be positive");
    return Ok{};
}

LightCast estimate_light_cast(const cv::Mat& bgr, const cv::Mat& terrain, const Catalog& catalog, const LightCastOptions& o) {
    LightCast cast;
    if (bgr.empty() || bgr.type() != CV_8UC3 || terrain.size() != bgr.size() || terrain.type() != CV_32SC1 || !o.check()) return cast;
    // The frame's terrain medians (every other pixel), over each terrain's whole region (its share of the tiles, the
    // roads' colour) and `inset_mm` inside it (the colours matched: a board read a little off its cells puts the
    // edges of a thin road's region on the grass beside).
    const cv::Mat inner = inset_terrains(terrain, static_cast<int>(std::lround(o.inset_mm * o.px_per_mm)));
    ChannelHistograms measured, inside;
    int all = 0;
    for (int y = 0; y < bgr.rows; y += 2) {
        const auto* px = bgr.ptr<cv::Vec3b>(y);
        const auto* t = terrain.ptr<int>(y);
        const auto* in = inner.ptr<int>(y);
        for (int x = 0; x < bgr.cols; x += 2) {
            const int slot = cast_slot(t[x]);
            if (slot < 0) continue;
            measured.add(static_cast<std::size_t>(slot), px[x]);
            ++all;
            if (const int k = cast_slot(in[x]); k >= 0) inside.add(static_cast<std::size_t>(k), px[x]);
        }
    }
    if (all == 0) return cast;
    // Per reference: the per-channel log gain from its colours to the frame's (the mean over the
    // terrains both show), and how far the terrains stay off it.
    double best_residual = 1e9;
    cv::Vec3d best_gain(0, 0, 0);
    for (const auto& ref : art_references(catalog, static_cast<int>(std::lround(o.inset_mm * kPx / o.tile_mm)))) {
        std::vector<cv::Vec3d> ratios;
        for (std::size_t k = 0; k < kCastTerrains.size(); ++k) {
            if (ref.median_bgr[k][0] < 0 || measured.count[k] < o.min_terrain_share * all || inside.count[k] == 0) continue;
            cv::Vec3d r;
            for (int c = 0; c < 3; ++c) r[c] = std::log((inside.median(k, c) + 4) / (ref.median_bgr[k][c] + 4));
            ratios.push_back(r);
        }
        if (ratios.size() < 2) continue;  // one terrain cannot tell the light from the art
        cv::Vec3d gain(0, 0, 0);
        for (const auto& r : ratios) gain += r * (1.0 / static_cast<double>(ratios.size()));
        double sum2 = 0;
        for (const auto& r : ratios) {
            for (int c = 0; c < 3; ++c) sum2 += (r[c] - gain[c]) * (r[c] - gain[c]);
        }
        const double residual = std::sqrt(sum2 / (3.0 * static_cast<double>(ratios.size())));
        if (residual < best_residual) best_residual = residual, best_gain = gain, cast.art = ref.style;
    }
    if (cast.art.empty()) return cast;
    cast.residual = best_residual;
    // The chromatic part: the log gains less their mean (the exposure stays), inverted. (Each
    // terrain's brightness is not left free in the fit: a glare washes some terrains out more than
    // others, and such a frame, whose colours no one gain explains, is better left alone.)
    double largest = 0;
    std::tie(cast.correction_bgr, largest) = chromatic_correction(best_gain, o.max_gain);
    cast.applied = best_residual <= o.max_residual && largest >= o.min_cast;
    if (!cast.applied) cast.correction_bgr = cv::Vec3d(1, 1, 1);
    if (best_residual > o.max_residual && o.road_white) {
        if (const auto road = road_cast(bgr, terrain, measured, all, o)) {
            cast.art = "roads";
            cast.correction_bgr = *road;
            cast.applied = true;
        }
    }
    return cast;
}

void remove_light_cast(cv::Mat& bgr, const LightCast& cast) {
    if (!cast.applied || bgr.empty() || bgr.type() != CV_8UC3) return;
    std::array<std::array<std::uint8_t, 256>, 3> table{};
    for (int c = 0; c < 3; ++c) {
        for (int v = 0; v < 256; ++v) table[static_cast<std::size_t>(c)][static_cast<std::size_t>(v)] = cv::saturate_cast<std::uint8_t>(v * cast.correction_bgr[c]);
    }
    for (int y = 0; y < bgr.rows; ++y) {
        auto* px = bgr.ptr<cv::Vec3b>(y);
        for (int x = 0; x < bgr.cols; ++x) {
            for (int c = 0; c < 3; ++c) px[x][c] = table[static_cast<std::size_t>(c)][px[x][c]];
        }
    }
}

}  // namespace meeplecam::vision
