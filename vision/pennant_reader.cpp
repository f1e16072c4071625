// Stage 4b of the board reader: pennant or not, for tile types that differ only in pennants.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"
#include "vision/pennant_twins.h"
#include "vision/tile_art.h"

namespace meeplecam::vision {

std::vector<int> pennant_twins(const Catalog& catalog) {
    const auto& types = catalog.tiles();
    std::vector<int> twin(types.size(), -1);
    auto same_but_pennants = [](const TileType& a, const TileType& b) {
        if (a.feature_at_port != b.feature_at_port || a.features.size() != b.features.size()) return false;
        bool differ = false;
        for (std::size_t f = 0; f < a.features.size(); ++f) {
            const auto &fa = a.features[f], &fb = b.features[f];
            if (fa.kind != fb.kind || fa.ports != fb.ports || fa.cities != fb.cities) return false;
            differ = differ || (fa.pennants > 0) != (fb.pennants > 0);
        }
        return differ;
    };
    for (std::size_t i = 0; i < types.size(); ++i) {
        for (std::size_t j = 0; j < types.size() && twin[i] < 0; ++j) {
            if (i != j && types[i].set == types[j].set && same_but_pennants(types[i], types[j])) twin[i] = static_cast<int>(j);
        }
    }
    return twin;
}

namespace {

bool has_pennant(const TileType& t) {
    return std::any_of(t.features.begin(), t.features.end(), [](const FeatureDef& f) { return f.kind == FeatureKind::City && f.pennants > 0; });
}

bool has_city(const TileType& t) {
    return std::any_of(t.features.begin(), t.features.end(), [](const FeatureDef& f) { return f.kind == FeatureKind::City; });
}

// The inner city pixels (255) of a type at a rotation, `side` px square, `margin` px away
// from any other feature and from the tile edge.
cv::Mat make_inner_city(const TileType& type, int rot, int side, int margin) {
    const cv::Mat labels = feature_labels(type, rot, side);
    cv::Mat city(labels.size(), CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < side; ++y) {
        for (int x = 0; x < side; ++x) {
            const int f = labels.at<int>(y, x);
            if (f >= 0 && type.features[static_cast<std::size_t>(f)].kind == FeatureKind::City) city.at<std::uint8_t>(y, x) = 255;
        }
    }
    cv::Mat framed;
    cv::copyMakeBorder(city, framed, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    if (margin > 0) cv::erode(framed, framed, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * margin + 1, 2 * margin + 1)));
    return framed(cv::Rect(1, 1, side, side)).clone();
}

// make_inner_city, cached: the masks depend on geometry only and the reader asks for the
// same ones every frame (drawing the feature labels is most of the pennant stage's cost).
const cv::Mat& inner_city(const TileType& type, int rot, int side, int margin) {
    using Key = std::tuple<std::string, std::string, std::size_t, int, int, int>;
    static std::mutex mutex;
    static std::map<Key, cv::Mat> cache;  // std::map: references stay valid as it grows
    const Key key{type.set, type.id, type.features.size(), rot, side, margin};
    {
        std::lock_guard lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    cv::Mat made = make_inner_city(type, rot, side, margin);
    std::lock_guard lock(mutex);
    return cache.emplace(key, std::move(made)).first->second;
}

}  // namespace

Status PennantOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("pennant options", what)); };
    if (!(wall_margin >= 0 && wall_margin < 0.3)) return bad("wall_margin must be within [0, 0.3)");
    if (!(bridge_band >= 0 && bridge_band < 0.5)) return bad("bridge_band must be within [0, 0.5)");
    if (lightness_bins < 1 || lightness_bins > 64) return bad("lightness_bins must be within [1, 64]");
    if (chroma_bins < 4 || chroma_bins > 128) return bad("chroma_bins must be within [4, 128]");
    if (!(novel_density > 0 && novel_density < 0.1)) return bad("novel_density must be within (0, 0.1)");
    if (!(min_area > 0 && min_area < max_area && max_area <= 1)) return bad("need 0 < min_area < max_area <= 1");
    if (min_reference_cells < 1) return bad("min_reference_cells must be at least 1");
    return Ok{};
}

std::vector<PennantEvidence> decide_pennants(const LatticeView& view, std::vector<DecodedTile>& tiles, const Catalog& catalog,
                                             const PennantOptions& o) {
    std::vector<PennantEvidence> out;
    if (tiles.empty() || view.top.empty() || !o.check()) return out;
    const auto& types = catalog.tiles();
    const auto twin = pennant_twins(catalog);
    const int side = std::max(16, static_cast<int>(std::lround(view.pitch_px)));
    const int margin = static_cast<int>(std::lround(o.wall_margin * side));
    const cv::Rect bounds(0, 0, view.top.cols, view.top.rows);
    // Lab of one cell's square; the inner city mask of a (type, rotation), made once per call.
    auto lab_of = [&](const cv::Rect& r) {
        cv::Mat lab;
        cv::cvtColor(view.top(r), lab, cv::COLOR_BGR2Lab);
        return lab;
    };
    auto city_of = [&](const DecodedTile& t) -> const cv::Mat& { return inner_city(types[static_cast<std::size_t>(t.type)], t.rot, side, margin); };
    // Under a bridge the wood hides the tile's middle along its axis: those pixels are no evidence.
    const int band = static_cast<int>(std::lround(o.bridge_band * side));
    auto visible = [&](const DecodedTile& t, int x, int y) {
        if (t.bridge_axis < 0) return true;
        return std::abs((t.bridge_axis == 0 ? x : y) - side / 2) >= band;
    };
    auto cell_rect = [&](const DecodedTile& t) {
        const cv::Point2d c = view.cell_centre(t.col, t.row) + t.offset_px;
        return cv::Rect(static_cast<int>(std::lround(c.x - side / 2.0)), static_cast<int>(std::lround(c.y - side / 2.0)), side, side);
    };

    // Plain city colours: a coarse-L, fine-ab histogram of the city pixels of cells read as a
    // city type with no pennant and no pennant twin (or, when too few, of every city cell).
    const int nl = o.lightness_bins, nc = o.chroma_bins;
    auto bin_of = [&](const cv::Vec3b& p) { return (p[0] * nl / 256) * nc * nc + (p[1] * nc / 256) * nc + p[2] * nc / 256; };
    auto is_reference = [&](const DecodedTile& t) {
        const auto& type = types[static_cast<std::size_t>(t.type)];
        return has_city(type) && !has_pennant(type) && twin[static_cast<std::size_t>(t.type)] < 0;
    };
    const auto references = std::count_if(tiles.begin(), tiles.end(), is_reference);
    std::vector<float> hist(static_cast<std::size_t>(nl * nc * nc), 0.f);
    double total = 0;
    for (const auto& t : tiles) {
        const auto& type = types[static_cast<std::size_t>(t.type)];
        if (references >= o.min_reference_cells ? !is_reference(t) : !has_city(type)) continue;
        const cv::Rect r = cell_rect(t);
        if ((r & bounds) != r) continue;
        const cv::Mat& city = city_of(t);
        const cv::Mat lab = lab_of(r);
        for (int y = 0; y < side; ++y) {
            const auto* p = lab.ptr<cv::Vec3b>(y);
            const auto* m = city.ptr<std::uint8_t>(y);
            for (int x = 0; x < side; ++x) {
                if (m[x] && visible(t, x, y)) hist[static_cast<std::size_t>(bin_of(p[x]))] += 1, total += 1;
            }
        }
    }
    if (total <= 0) return out;
    // Smooth along a* and b* (one bin): noise moves colours to the neighbouring bins.
    cv::Mat h(nl * nc, nc, CV_32F, hist.data()), hs;
    cv::blur(h, hs, cv::Size(3, 3), cv::Point(-1, -1), cv::BORDER_REPLICATE);
    hs /= total;

    for (auto& t : tiles) {
        const int other = twin[static_cast<std::size_t>(t.type)];
        PennantEvidence ev;
        ev.col = t.col, ev.row = t.row;
        if (other < 0) {
            out.push_back(ev);
            continue;
        }
        const cv::Rect r = cell_rect(t);
        if ((r & bounds) != r) {
            out.push_back(ev);
            continue;
        }
        const auto& type = types[static_cast<std::size_t>(t.type)];
        const cv::Mat& city = city_of(t);
        const cv::Mat lab = lab_of(r);
        cv::Mat novel(side, side, CV_8UC1, cv::Scalar(0));
        for (int y = 0; y < side; ++y) {
            const auto* p = lab.ptr<cv::Vec3b>(y);
            const auto* m = city.ptr<std::uint8_t>(y);
            auto* n = novel.ptr<std::uint8_t>(y);
            for (int x = 0; x < side; ++x) {
                if (!m[x] || !visible(t, x, y)) continue;
                const int b = bin_of(p[x]);
                if (hs.at<float>(b / nc, b % nc) < o.novel_density) n[x] = 255;
            }
        }
        cv::morphologyEx(novel, novel, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(3, 3)));
        cv::Mat labels, stats, centroids;
        const int n = cv::connectedComponentsWithStats(novel, labels, stats, centroids, 8);
        int largest = 0;
        for (int i = 1; i < n; ++i) largest = std::max(largest, stats.at<int>(i, cv::CC_STAT_AREA));
        ev.blob_area = static_cast<double>(largest) / (static_cast<double>(side) * side);
        ev.decided = ev.blob_area <= o.max_area;
        ev.pennant = ev.blob_area >= o.min_area;
        if (ev.decided) {
            const bool now = has_pennant(type);
            // How sure: the blob's distance from the threshold, in units of the threshold.
            const double margin_share = std::abs(ev.blob_area - o.min_area) / o.min_area;
            const double sure = 1 / (1 + std::exp(-4 * margin_share));
            if (now != ev.pennant) {
                t.runner_type = t.type, t.runner_rot = t.rot;
                t.type = other;
            } else {
                t.runner_type = other, t.runner_rot = t.rot;
            }
            t.runner_confidence = t.confidence * (1 - sure);
            t.confidence *= sure;
        }
        out.push_back(ev);
    }
    return out;
}

}  // namespace meeplecam::vision
