// Stage 3 of the board reader: per-cell (type, rotation) hypotheses from a terrain
// appearance model adapted to each frame (k-means colour clusters + EM over tile layouts).
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <tuple>

#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/board_reader.h"
#include "vision/tile_art.h"

namespace meeplecam::vision {
namespace {

constexpr int kLayoutPx = 64;              // feature_labels() resolution the layouts are sampled from
constexpr double kFieldInit = 0.6;         // initial share of field on the dominant cluster
constexpr double kRoadInit = 0.5;          // initial share of road on the brightest cluster
constexpr double kCityInit = 0.85;         // initial share of city on the remaining clusters
constexpr double kMinClusterShare = 0.01;  // a cluster rarer than this cannot start as road
constexpr double kGreenStartShare = 0.08;  // a cluster this common may start as field (second EM start)
constexpr double kBorderBand = 0.04;       // samples this close (tile fraction) to another terrain are unknown
constexpr int kFullRounds = 3;             // EM rounds that score every layout of every cell...
constexpr int kShortlist = 16;             // ...then only this many per cell (the best of the last full round)
constexpr float kLightnessWeight = 0.5f;    // lightness counts this much against colour in the clusters (glare and shade change it most)
constexpr double kCloisterHalo = 0.24;
constexpr double kGrassCityShare = 0.1;    // a cluster holding this share of a learnt city (more than the field holds) may be grass...
constexpr double kCityRestMass = 0.3;      // ...when the city's other clusters hold at least this much of it (their colour to compare with)
constexpr double kGrassChroma = 16.0;       // a cluster this near the field's chroma (8-bit a*, b*) starts as field too      // around a monastery, buildings and paths vary: terrain unknown within this radius

int terrain_of(FeatureKind k) {
    switch (k) {
        case FeatureKind::Road: return kRoad;
        case FeatureKind::City: return kCity;
        case FeatureKind::Field: return kField;
        case FeatureKind::Monastery: return kCloister;
        case FeatureKind::Lake: return kWater;
        // The City: drawn (vision/tile_art.cpp) and read like roads, cities and fields.
        case FeatureKind::Street: return kRoad;
        case FeatureKind::Market: return kCity;
        case FeatureKind::Residential: return kField;
    }
    return kOther;
}

// The chroma (a*, b*) distance between two cluster centres (lightness left out: glare and shade).
double chroma_distance(const cv::Mat& centres, int a, int b) {
    return std::hypot(centres.at<float>(a, 1) - centres.at<float>(b, 1), centres.at<float>(a, 2) - centres.at<float>(b, 2));
}

// Sets the EM's first terrain model (prob[kField], prob[kRoad], prob[kCity]) from the colour
// clusters: field = cluster `field` and every cluster of nearly its chroma (the same grass under
// glare or shade: starting those as city let a glared board read its fields as cities, medium
// 1015), road = the brightest other common cluster, city = the rest, and the road's cluster too
// when `city_on_road` (art whose cities and roads share one colour).
void start_terrain_model(const cv::Mat& centres, const std::vector<double>& share, int field, bool city_on_road,
                         std::vector<std::vector<double>>& prob) {
    const int k = centres.rows;
    std::vector<bool> grass(static_cast<std::size_t>(k), false);
    for (int c = 0; c < k; ++c) grass[static_cast<std::size_t>(c)] = c == field || chroma_distance(centres, c, field) < kGrassChroma;
    int road = -1;
    for (int pass = 0; pass < 2 && road < 0; ++pass) {  // a grass cluster is road only when no other cluster can be
        for (int c = 0; c < k; ++c) {
            if (c == field || share[static_cast<std::size_t>(c)] < kMinClusterShare || (pass == 0 && grass[static_cast<std::size_t>(c)])) continue;
            if (road < 0 || centres.at<float>(c, 0) > centres.at<float>(road, 0)) road = c;
        }
    }
    if (road >= 0) grass[static_cast<std::size_t>(road)] = false;
    const int n_grass = static_cast<int>(std::count(grass.begin(), grass.end(), true));
    double grass_share = 0;
    for (int c = 0; c < k; ++c) grass_share += grass[static_cast<std::size_t>(c)] ? share[static_cast<std::size_t>(c)] : 0.0;
    const bool road_apart = road >= 0 && !city_on_road;  // the road's cluster starts as no city
    const int rest = k - n_grass - (road_apart ? 1 : 0);
    for (int c = 0; c < k; ++c) {
        const auto cu = static_cast<std::size_t>(c);
        // Field: kFieldInit over the grass clusters (by share; the chosen one at least its old mass), the rest evenly.
        prob[kField][cu] = grass[cu] ? kFieldInit * (n_grass == 1 || grass_share <= 0 ? 1.0 : share[cu] / grass_share)
                                     : (1 - kFieldInit) / std::max(1, k - n_grass);
        prob[kRoad][cu] = road < 0 ? 1.0 / k : c == road ? kRoadInit : (1 - kRoadInit) / (k - 1);
        prob[kCity][cu] = (grass[cu] || (road_apart && c == road)) ? (1 - kCityInit) / std::max(1, n_grass + (road_apart ? 1 : 0))
                                                                   : kCityInit / std::max(1, rest);
    }
}

// The mean chroma (a*, b*) of a terrain's distribution over the colour clusters, cluster `skip`
// left out, and the probability mass it is taken over.
struct MeanChroma {
    double mass = 0, a = 0, b = 0;
};
MeanChroma mean_chroma(const cv::Mat& centres, const std::vector<double>& terrain, int skip = -1) {
    MeanChroma m;
    for (int c = 0; c < centres.rows; ++c) {
        if (c == skip) continue;
        const double w = terrain[static_cast<std::size_t>(c)];
        m.mass += w, m.a += w * centres.at<float>(c, 1), m.b += w * centres.at<float>(c, 2);
    }
    if (m.mass > 0) m.a /= m.mass, m.b /= m.mass;
    return m;
}

// Whether the field of a terrain model (prob[kField], prob[kCity] over the colour clusters) is
// greener than its city: the mean a* of its clusters lower. A light's cast moves both alike.
bool field_greener_than_city(const cv::Mat& centres, const std::vector<std::vector<double>>& prob) {
    return mean_chroma(centres, prob[kField]).a < mean_chroma(centres, prob[kCity]).a;
}

// A colour cluster a learnt model's city holds that is grass, or -1: one holding at least
// kGrassCityShare of the city, more than the field's share of it, whose chroma lies nearer the
// field's mean chroma than the mean of the city's other clusters (holding kCityRestMass at
// least); of several, the one the city holds most, or with `nearest_field` the one whose chroma
// lies nearest the field against the city's other clusters (the least ratio of the two
// distances). Grass a light or a print drifted a little (lighter, yellower) is a cluster of its
// own beyond kGrassChroma of the start's field.
int grass_held_by_city(const cv::Mat& centres, const std::vector<std::vector<double>>& prob, bool nearest_field) {
    const MeanChroma field = mean_chroma(centres, prob[kField]);
    int grass = -1;
    double grass_ratio = 1.0;
    for (int c = 0; c < centres.rows; ++c) {
        const double held = prob[kCity][static_cast<std::size_t>(c)];
        if (held < kGrassCityShare || held < prob[kField][static_cast<std::size_t>(c)]) continue;
        const MeanChroma city = mean_chroma(centres, prob[kCity], c);
        if (city.mass < kCityRestMass) continue;
        const double a = centres.at<float>(c, 1), b = centres.at<float>(c, 2);
        const double to_field = std::hypot(a - field.a, b - field.b), to_city = std::hypot(a - city.a, b - city.b);
        if (to_field >= to_city) continue;
        const double ratio = to_field / std::max(to_city, 1e-9);
        const bool better = grass < 0 || (nearest_field ? ratio < grass_ratio : held > prob[kCity][static_cast<std::size_t>(grass)]);
        if (better) grass = c, grass_ratio = ratio;
    }
    return grass;
}

// Terrain per sample of one region map (`labels`: feature_labels() of `type` at kLayoutPx). A
// sample near a border between terrains (but not on a road: roads are thin) is left unknown, as
// tiles sit a little off the lattice.
std::vector<std::uint8_t> terrain_of_labels(const TileType& type, const cv::Mat& labels, int samples, double inset) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(samples * samples), kOther);
    // Pennants are read apart from the layouts (decide_pennants): where on its city a pennant
    // sits differs between tile sets, so here a pennant city is plain city.
    bool cloister = false;
    for (const auto& f : type.features) cloister = cloister || f.kind == FeatureKind::Monastery;
    cv::Mat terrain(kLayoutPx, kLayoutPx, CV_8UC1, cv::Scalar(kOther));
    for (int y = 0; y < kLayoutPx; ++y) {
        for (int x = 0; x < kLayoutPx; ++x) {
            const double u = (x + 0.5) / kLayoutPx, v = (y + 0.5) / kLayoutPx;
            const int f = labels.at<int>(y, x);
            auto& t = terrain.at<std::uint8_t>(y, x);
            if (f >= 0 && f < static_cast<int>(type.features.size())) t = static_cast<std::uint8_t>(terrain_of(type.features[static_cast<std::size_t>(f)].kind));
            if (cloister && t != kCloister && std::hypot(u - 0.5, v - 0.5) < kCloisterHalo) t = kOther;
        }
    }
    const int reach = static_cast<int>(std::lround(kBorderBand * kLayoutPx));
    for (int j = 0; j < samples; ++j) {
        for (int i = 0; i < samples; ++i) {
            const double u = inset + (i + 0.5) / samples * (1 - 2 * inset), v = inset + (j + 0.5) / samples * (1 - 2 * inset);
            const int x = std::clamp(static_cast<int>(u * kLayoutPx), 0, kLayoutPx - 1), y = std::clamp(static_cast<int>(v * kLayoutPx), 0, kLayoutPx - 1);
            std::uint8_t t = terrain.at<std::uint8_t>(y, x);
            if (t != kRoad) {
                for (int dy = -reach; dy <= reach && t != kOther; ++dy) {
                    for (int dx = -reach; dx <= reach; ++dx) {
                        const int xx = std::clamp(x + dx, 0, kLayoutPx - 1), yy = std::clamp(y + dy, 0, kLayoutPx - 1);
                        if (terrain.at<std::uint8_t>(yy, xx) != t) {
                            t = kOther;
                            break;
                        }
                    }
                }
            }
            out[static_cast<std::size_t>(j * samples + i)] = t;
        }
    }
    return out;
}

// Per sample of a region map's terrain: the index of the road feature (arm) whose road the
// sample lies on, or -1.
std::vector<std::int8_t> road_arms_of_labels(const std::vector<std::uint8_t>& terrain, const cv::Mat& labels, int samples, double inset) {
    std::vector<std::int8_t> arms(terrain.size(), -1);
    for (int j = 0; j < samples; ++j) {
        for (int i = 0; i < samples; ++i) {
            const auto q = static_cast<std::size_t>(j * samples + i);
            if (terrain[q] != kRoad) continue;
            const double u = inset + (i + 0.5) / samples * (1 - 2 * inset), v = inset + (j + 0.5) / samples * (1 - 2 * inset);
            const int x = std::clamp(static_cast<int>(u * kLayoutPx), 0, kLayoutPx - 1), y = std::clamp(static_cast<int>(v * kLayoutPx), 0, kLayoutPx - 1);
            arms[q] = static_cast<std::int8_t>(labels.at<int>(y, x));
        }
    }
    return arms;
}

// One region map of a (type, rotation) sampled for the classifier: its terrain and road arms.
struct SampledMap {
    std::vector<std::uint8_t> terrain;
    std::vector<std::int8_t> arms;
};

// The sampled region maps of a (type, rotation): the renderer's first, then the printed-art
// variants (printed_geometry_variants). Layouts depend only on geometry: cached (the reader
// asks for the same ones every frame); std::map keeps references valid as it grows.
const std::vector<SampledMap>& sampled_maps(const TileType& type, int rot, int samples, double inset) {
    using Key = std::tuple<std::string, std::string, std::size_t, int, int, double>;
    static std::mutex mutex;
    static std::map<Key, std::vector<SampledMap>> cache;
    const Key key{type.set, type.id, type.features.size(), rot, samples, inset};
    {
        std::lock_guard lock(mutex);
        if (const auto it = cache.find(key); it != cache.end()) return it->second;
    }
    std::vector<SampledMap> maps;
    for (const auto& [shape, style] : printed_geometry_variants(type)) {
        const cv::Mat labels = feature_labels(shape, rot, kLayoutPx, style);
        SampledMap m;
        m.terrain = terrain_of_labels(shape, labels, samples, inset);
        m.arms = road_arms_of_labels(m.terrain, labels, samples, inset);
        maps.push_back(std::move(m));
    }
    std::lock_guard lock(mutex);
    return cache.emplace(key, std::move(maps)).first->second;
}

}  // namespace

Status ClassifierOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("classifier options", what)); };
    if (samples < 4 || samples > 64) return bad("samples must be within [4, 64]");
    if (!(sample_inset >= 0 && sample_inset < 0.3)) return bad("sample_inset must be within [0, 0.3)");
    if (clusters < 3 || clusters > 64) return bad("clusters must be within [3, 64]");
    if (em_rounds < 1 || em_rounds > 50) return bad("em_rounds must be within [1, 50]");
    if (!(prior_count > 0)) return bad("prior_count must be positive");
    if (!(temperature > 0 && temperature <= 1)) return bad("temperature must be within (0, 1]");
    if (table_reach < 0 || table_reach > 10) return bad("table_reach must be within [0, 10]");
    if (!(empty_margin >= 0)) return bad("empty_margin must be >= 0");
    if (!(tile_coloured_table_margin >= 0)) return bad("tile_coloured_table_margin must be >= 0");
    if (!(hidden_margin > 0)) return bad("hidden_margin must be positive");
    if (!(bridge_band >= 0 && bridge_band < 0.5)) return bad("bridge_band must be within [0, 0.5)");
    if (!(cover_margin >= 0 && cover_margin < 0.5)) return bad("cover_margin must be within [0, 0.5)");
    if (!(unbridged_penalty >= 0)) return bad("unbridged_penalty must be >= 0");
    if (!(min_arm_road > 0 && min_arm_road <= 1)) return bad("min_arm_road must be within (0, 1]");
    if (!(arm_penalty >= 0)) return bad("arm_penalty must be >= 0");
    if (!(road_side_depth > 0 && road_side_depth <= 0.5)) return bad("road_side_depth must be within (0, 0.5]");
    if (!(road_side_reach >= 0 && road_side_reach <= 0.5)) return bad("road_side_reach must be within [0, 0.5]");
    if (!(min_road_side > 0 && min_road_side <= 1)) return bad("min_road_side must be within (0, 1]");
    if (!(max_field_side >= 0 && max_field_side < 1)) return bad("max_field_side must be within [0, 1)");
    if (!(road_side_penalty >= 0)) return bad("road_side_penalty must be >= 0");
    if (!(road_arm_colour_spread >= 0)) return bad("road_arm_colour_spread must be >= 0");
    if (!(road_arm_colour_weight >= 0)) return bad("road_arm_colour_weight must be >= 0");
    if (road_arm_slack < 0 || road_arm_slack > 8) return bad("road_arm_slack must be within [0, 8]");
    if (!(variant_penalty >= 0)) return bad("variant_penalty must be >= 0");
    if (!(printed_min_share >= 0 && printed_min_share <= 1)) return bad("printed_min_share must be within [0, 1]");
    return Ok{};
}

std::vector<std::uint8_t> terrain_layout(const TileType& type, int rot, int samples, double inset) {
    return sampled_maps(type, rot, samples, inset).front().terrain;
}

std::vector<CellHypotheses> classify_cells(const LatticeView& view, const std::vector<CellObservation>& cells, const Catalog& catalog,
                                           const ClassifierOptions& o, const std::vector<BridgeOnCell>& bridges,
                                           const std::vector<CoverOnBoard>& covers) {
    std::vector<CellHypotheses> out;
    if (cells.empty() || view.top.empty() || !o.check()) return out;
    if (std::none_of(cells.begin(), cells.end(), [](const CellObservation& c) { return c.teaches; })) {
        auto teaching = cells;  // nothing to learn from otherwise: every cell teaches
        for (auto& c : teaching) c.teaches = true;
        return classify_cells(view, teaching, catalog, o, bridges, covers);
    }
    const int n = o.samples, per_cell = n * n;

    const double p = view.pitch_px;
    // Table cells: empty lattice cells within table_reach of a tile whose square lies inside
    // the frame; sampled on a sparser grid, they teach the table's colours.
    std::vector<cv::Point> table_cells;
    if (o.table_reach > 0 && view.frame.area() > 0) {
        std::set<std::pair<int, int>> taken, seen;
        for (const auto& c : cells) {
            if (c.teaches) taken.insert({c.col, c.row});  // a cell offered on its outline alone still teaches the table, as before it was offered
        }
        auto in_frame = [&view](double x, double y) { return view.in_frame(x, y); };
        for (const auto& c : cells) {
            if (!c.teaches) continue;
            for (int dr = -o.table_reach; dr <= o.table_reach; ++dr) {
                for (int dc = -o.table_reach; dc <= o.table_reach; ++dc) {
                    const int col = c.col + dc, row = c.row + dr;
                    if (col < 0 || row < 0 || col >= view.cols || row >= view.rows || taken.count({col, row}) || !seen.insert({col, row}).second) continue;
                    if (in_frame(col, row) && in_frame(col + 1, row) && in_frame(col, row + 1) && in_frame(col + 1, row + 1)) table_cells.emplace_back(col, row);
                }
            }
        }
    }
    const int m = std::max(2, n / 2), per_table = m * m;
    const int tile_rows = static_cast<int>(cells.size()) * per_cell;
    const int rows = tile_rows + static_cast<int>(table_cells.size()) * per_table;
    // Samples: Lab colours on a grid inside each cell, each the mean of the square of about
    // one sample spacing around it (only the samples are converted, not the whole view).
    const int half = std::max(3, static_cast<int>(p / n) | 1) / 2;
    cv::Mat bgr(rows, 1, CV_8UC3);
    auto sample_at = [&](int row, double fx, double fy) {
        const int x = std::clamp(static_cast<int>(fx), 0, view.top.cols - 1), y = std::clamp(static_cast<int>(fy), 0, view.top.rows - 1);
        const int x0 = std::max(0, x - half), x1 = std::min(view.top.cols - 1, x + half);
        const int y0 = std::max(0, y - half), y1 = std::min(view.top.rows - 1, y + half);
        int sum[3] = {0, 0, 0};
        for (int yy = y0; yy <= y1; ++yy) {
            const auto* q = view.top.ptr<cv::Vec3b>(yy);
            for (int xx = x0; xx <= x1; ++xx) sum[0] += q[xx][0], sum[1] += q[xx][1], sum[2] += q[xx][2];
        }
        const int count = (x1 - x0 + 1) * (y1 - y0 + 1);
        auto& mean = bgr.at<cv::Vec3b>(row);
        for (int ch = 0; ch < 3; ++ch) mean[ch] = static_cast<std::uint8_t>((sum[ch] + count / 2) / count);
    };
    auto sample_point = [&](std::size_t c, int i, int j) {
        const double u = o.sample_inset + (i + 0.5) / n * (1 - 2 * o.sample_inset);
        const double v = o.sample_inset + (j + 0.5) / n * (1 - 2 * o.sample_inset);
        return cv::Point2f(static_cast<float>((cells[c].col + u) * p + cells[c].offset_px.x), static_cast<float>((cells[c].row + v) * p + cells[c].offset_px.y));
    };
    for (std::size_t c = 0; c < cells.size(); ++c) {
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                const cv::Point2f at = sample_point(c, i, j);
                sample_at(static_cast<int>(c) * per_cell + j * n + i, at.x, at.y);
            }
        }
    }
    // Samples under a piece (or whose averaged square reaches within cover_margin of it): per
    // cell, 1 where covered; empty when nothing covers the cell.
    std::vector<std::vector<std::uint8_t>> covered(cells.size());
    const double cover_reach = half + o.cover_margin * p;
    for (const auto& cover : covers) {
        if (cover.outline_top.size() < 3) continue;
        cv::Rect2f box = cv::boundingRect(cover.outline_top);
        box.x -= static_cast<float>(cover_reach), box.y -= static_cast<float>(cover_reach);
        box.width += static_cast<float>(2 * cover_reach), box.height += static_cast<float>(2 * cover_reach);
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const cv::Rect2f cell_box(static_cast<float>(cells[c].col * p + cells[c].offset_px.x), static_cast<float>(cells[c].row * p + cells[c].offset_px.y),
                                      static_cast<float>(p), static_cast<float>(p));
            if ((cell_box & box).area() <= 0) continue;
            for (int j = 0; j < n; ++j) {
                for (int i = 0; i < n; ++i) {
                    const cv::Point2f at = sample_point(c, i, j);
                    if (!box.contains(at) || cv::pointPolygonTest(cover.outline_top, at, true) < -cover_reach) continue;
                    if (covered[c].empty()) covered[c].assign(static_cast<std::size_t>(per_cell), 0);
                    covered[c][static_cast<std::size_t>(j * n + i)] = 1;
                }
            }
        }
    }
    // Samples the photo does not show (a cell its edge cuts: LatticeOptions::min_seen_share), or whose
    // averaged square reaches past its edge, are left out like a piece's: black is no terrain.
    if (view.frame.area() > 0) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
            // A cell mostly beyond the edge keeps its samples (it teaches and is read as before).
            if (const double seen_share = view.seen_share(cells[c].col, cells[c].row, cells[c].offset_px); seen_share >= 1 || seen_share < 0.5) continue;
            for (int j = 0; j < n; ++j) {
                for (int i = 0; i < n; ++i) {
                    const cv::Point2f at = sample_point(c, i, j);
                    bool seen = true;
                    const double reach = half + 1.0;
                    for (const auto& [dx, dy] : {std::pair{-1.0, -1.0}, {1.0, -1.0}, {-1.0, 1.0}, {1.0, 1.0}}) seen = seen && view.seen((at.x + dx * reach) / p, (at.y + dy * reach) / p);
                    if (seen) continue;
                    if (covered[c].empty()) covered[c].assign(static_cast<std::size_t>(per_cell), 0);
                    covered[c][static_cast<std::size_t>(j * n + i)] = 1;
                }
            }
        }
    }
    auto is_covered = [&](int row) {
        if (row >= tile_rows) return false;
        const auto& mask = covered[static_cast<std::size_t>(row / per_cell)];
        return !mask.empty() && mask[static_cast<std::size_t>(row % per_cell)] != 0;
    };
    for (std::size_t c = 0; c < table_cells.size(); ++c) {
        for (int j = 0; j < m; ++j) {
            for (int i = 0; i < m; ++i) {
                const double u = o.sample_inset + (i + 0.5) / m * (1 - 2 * o.sample_inset);
                const double v = o.sample_inset + (j + 0.5) / m * (1 - 2 * o.sample_inset);
                sample_at(tile_rows + static_cast<int>(c) * per_table + j * m + i, (table_cells[c].x + u) * p, (table_cells[c].y + v) * p);
            }
        }
    }
    cv::Mat lab;
    cv::cvtColor(bgr, lab, cv::COLOR_BGR2Lab);
    cv::Mat data(rows, 3, CV_32F);
    for (int r = 0; r < rows; ++r) {
        const auto px = lab.at<cv::Vec3b>(r);
        auto* d = data.ptr<float>(r);
        d[0] = kLightnessWeight * px[0], d[1] = px[1], d[2] = px[2];
    }
    // The colour clusters are learnt from the teaching cells and the table (a cell offered on its
    // outline alone, CellObservation::teaches, only takes its samples' nearest clusters).
    std::vector<int> train_rows;
    train_rows.reserve(static_cast<std::size_t>(rows));
    for (int r = 0; r < rows; ++r) {
        if (is_covered(r)) continue;  // a piece's colours are no terrain's
        if (r >= tile_rows || cells[static_cast<std::size_t>(r / per_cell)].teaches) train_rows.push_back(r);
    }
    cv::Mat train(static_cast<int>(train_rows.size()), 3, CV_32F);
    for (int i = 0; i < train.rows; ++i) {  // row by row without a Mat header per row
        const auto* from = data.ptr<float>(train_rows[static_cast<std::size_t>(i)]);
        std::copy(from, from + 3, train.ptr<float>(i));
    }
    const int k = std::min(o.clusters, train.rows);
    cv::Mat train_cluster, centres;
    cv::theRNG().state = o.seed;
    cv::kmeans(train, k, train_cluster, cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 12, 0.5), 1, cv::KMEANS_PP_CENTERS, centres);
    cv::Mat cluster_of(rows, 1, CV_32S, cv::Scalar(-1));
    for (int i = 0; i < train.rows; ++i) cluster_of.at<int>(train_rows[static_cast<std::size_t>(i)]) = train_cluster.at<int>(i);
    for (int r = 0; r < rows; ++r) {
        if (cluster_of.at<int>(r) >= 0) continue;
        const auto* d = data.ptr<float>(r);
        int nearest = 0;
        double best = 1e300;
        for (int c = 0; c < k; ++c) {
            const auto* q = centres.ptr<float>(c);
            const double dist = (d[0] - q[0]) * (d[0] - q[0]) + (d[1] - q[1]) * (d[1] - q[1]) + (d[2] - q[2]) * (d[2] - q[2]);
            if (dist < best) best = dist, nearest = c;
        }
        cluster_of.at<int>(r) = nearest;
    }

    std::vector<double> share(static_cast<std::size_t>(k), 0.0);
    const int teaching_rows = static_cast<int>(std::count_if(train_rows.begin(), train_rows.end(), [&](int r) { return r < tile_rows; }));
    for (int r = 0; r < tile_rows; ++r) {
        if (cells[static_cast<std::size_t>(r / per_cell)].teaches) share[static_cast<std::size_t>(cluster_of.at<int>(r))] += 1.0 / std::max(1, teaching_rows);
    }
    std::vector<std::vector<double>> prob(kTerrains, std::vector<double>(static_cast<std::size_t>(k), 1.0 / k));
    // The table's colours: fixed, from the empty cells.
    const bool table_known = !table_cells.empty();
    {
        std::vector<double> counts(static_cast<std::size_t>(k), o.prior_count);
        for (int r = tile_rows; r < cluster_of.rows; ++r) counts[static_cast<std::size_t>(cluster_of.at<int>(r))] += 1;
        const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
        for (int c = 0; c < k; ++c) prob[kTable][static_cast<std::size_t>(c)] = counts[static_cast<std::size_t>(c)] / total;
    }
    const std::vector<double> table_prob = prob[kTable];
    std::vector<double> ll_empty(cells.size(), -1e300);  // each cell's log-likelihood as bare table
    // Hypotheses: every type at every distinct rotation.
    // Each (type, rotation) may have several region maps (o.printed_variants): the renderer's and
    // the printed art's; each is a layout of its own, and the best stands for its (type, rotation).
    struct Layout {
        int type, rot;
        const std::vector<std::uint8_t>& terrain;
        const std::vector<std::int8_t>& arms;
        bool variant;  // a printed-art map (not the renderer's)
        double cost;   // log-likelihood the map gives up: 0 for the renderer's; a variant's is kHeldBack while the model is learnt
    };
    // The terrain model is learnt on the renderer's maps alone (variants held back), then the
    // variants are scored with it and kept when the frame's art is printed-like (below).
    constexpr double kHeldBack = 1e30;
    std::vector<Layout> layouts;
    for (const auto& t : catalog.tiles()) {
        for (const int r : t.distinct_rotations) {
            const auto& maps = sampled_maps(t, r, n, o.sample_inset);
            for (std::size_t v = 0; v < (o.printed_variants ? maps.size() : 1); ++v) {
                layouts.push_back({t.index, r, maps[v].terrain, maps[v].arms, v > 0, v == 0 ? 0.0 : kHeldBack});
            }
        }
    }
    // Cells under a bridge: the samples it hides are left out (kept[c] empty: all count); while
    // the terrain model is learnt only the layouts whose sides at its ends are field may lie under it.
    std::vector<int> bridge_axis(cells.size(), -1);
    std::vector<std::vector<std::uint8_t>> kept(cells.size());
    std::vector<std::vector<std::uint8_t>> under_bridge(2);  // per axis: layouts that may lie under a bridge
    std::vector<int> kept_count(cells.size(), per_cell);
    for (const auto& b : bridges) {
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (cells[c].col == b.col && cells[c].row == b.row && (b.axis == 0 || b.axis == 1)) bridge_axis[c] = b.axis;
        }
    }
    for (int axis = 0; axis < 2; ++axis) {
        auto& ok = under_bridge[static_cast<std::size_t>(axis)];
        for (const auto& layout : layouts) {
            const TileType& t = catalog.tiles()[static_cast<std::size_t>(layout.type)];
            // Board sides at the bridge's ends: N and S (axis 0) or E and W (axis 1), as catalog sides.
            const auto side_edge = [&](int board_side) { return t.edge_at(layout.rot, board_side); };
            ok.push_back(side_edge(axis) == EdgeKind::Field && side_edge(axis + 2) == EdgeKind::Field ? 1 : 0);
        }
        if (std::find(ok.begin(), ok.end(), 1) == ok.end()) ok.assign(layouts.size(), 1);  // no layout takes it: read as if none were there
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
        if (bridge_axis[c] < 0 && covered[c].empty()) continue;
        kept[c].assign(static_cast<std::size_t>(per_cell), 1);
        int count = 0;
        for (int j = 0; j < n; ++j) {
            for (int i = 0; i < n; ++i) {
                const double u = o.sample_inset + (i + 0.5) / n * (1 - 2 * o.sample_inset);
                const double v = o.sample_inset + (j + 0.5) / n * (1 - 2 * o.sample_inset);
                const double off = std::abs((bridge_axis[c] == 0 ? u : v) - 0.5);  // distance from the bridge's axis
                const bool hide = (bridge_axis[c] >= 0 && off < o.bridge_band) || (!covered[c].empty() && covered[c][static_cast<std::size_t>(j * n + i)]);
                kept[c][static_cast<std::size_t>(j * n + i)] = hide ? 0 : 1;
                count += hide ? 0 : 1;
            }
        }
        kept_count[c] = std::max(1, count);
    }
    auto sample_counts = [&](std::size_t c, int q) { return kept[c].empty() || kept[c][static_cast<std::size_t>(q)]; };
    auto layout_allowed = [&](std::size_t c, std::size_t h) {
        return bridge_axis[c] < 0 || under_bridge[static_cast<std::size_t>(bridge_axis[c])][h] != 0;
    };
    constexpr double kRefused = -1e30;  // log-likelihood of a layout that cannot lie under the cell's bridge
    std::vector<std::vector<double>> ll(cells.size(), std::vector<double>(layouts.size(), 0.0));
    // On a table in the tiles' own colours occupancy read the table's squares near the board as tiles, and the table explains
    // them nearly as well as a tile (medium 7012: its 11 such squares within 0.11-1.12 per sample, its tiles 0.50-1.96).
    const double empty_margin = view.table_in_tile_colours ? o.empty_margin - o.tile_coloured_table_margin : o.empty_margin;
    auto looks_empty = [&](std::size_t c, std::size_t best) { return table_known && ll_empty[c] > ll[c][best] + empty_margin * per_cell; };
    std::vector<std::size_t> previous(cells.size(), layouts.size());  // each cell's best layout last round
    auto cl_at = [&](std::size_t c, int q) { return cluster_of.at<int>(static_cast<int>(c) * per_cell + q); };
    // Runs f(c) for every cell on all cores (each call touches only its own cell's entries).
    auto for_each_cell = [&](const std::function<void(std::size_t)>& f) {
        cv::parallel_for_(cv::Range(0, static_cast<int>(cells.size())), [&](const cv::Range& range) {
            for (int c = range.start; c < range.end; ++c) f(static_cast<std::size_t>(c));
        });
    };
    // A layout's log-likelihood in a cell is a sum over (terrain, cluster) pairs, and which
    // pairs a cell's samples make under a layout never changes while the model is learnt: count
    // them once (samples under a bridge left out), then every EM round scores a layout with
    // kTerrains x k products instead of a pass over the samples.
    const std::size_t pairs = static_cast<std::size_t>(kTerrains * k);
    std::vector<std::uint16_t> pair_counts(cells.size() * layouts.size() * pairs, 0);
    for_each_cell([&](std::size_t c) {
        const int* cl = cluster_of.ptr<int>(static_cast<int>(c) * per_cell);
        for (std::size_t h = 0; h < layouts.size(); ++h) {
            std::uint16_t* count = &pair_counts[(c * layouts.size() + h) * pairs];
            const std::uint8_t* terrain = layouts[h].terrain.data();
            for (int q = 0; q < per_cell; ++q) {
                if (sample_counts(c, q)) ++count[terrain[q] * k + cl[q]];
            }
        }
    });
    // Scores the layouts `which` of cell c (all when empty) under `logp`; returns the best.
    auto score_cell = [&](std::size_t c, const std::vector<std::size_t>& which, const std::vector<std::vector<double>>& logp) {
        std::vector<double> flat(pairs);
        for (int t = 0; t < kTerrains; ++t) {
            for (int j = 0; j < k; ++j) flat[static_cast<std::size_t>(t * k + j)] = logp[static_cast<std::size_t>(t)][static_cast<std::size_t>(j)];
        }
        std::size_t best = which.empty() ? 0 : which.front();
        auto score = [&](std::size_t h) {
            double s = 0;
            if (!layout_allowed(c, h)) {
                s = kRefused;
            } else {
                const std::uint16_t* count = &pair_counts[(c * layouts.size() + h) * pairs];
                for (std::size_t i = 0; i < pairs; ++i) {
                    if (count[i]) s += count[i] * flat[i];  // skipped when absent: a cluster the tiles never show has log 0 = -inf for kOther
                }
                s -= layouts[h].cost;
            }
            ll[c][h] = s;
            if (s > ll[c][best]) best = h;
        };
        if (which.empty()) {
            for (std::size_t h = 0; h < layouts.size(); ++h) score(h);
        } else {
            for (const auto h : which) score(h);
        }
        return best;
    };
    // EM: the first rounds score every layout; later rounds only each cell's shortlist (the
    // model moves little by then), and a last full pass scores everything again.
    std::vector<std::vector<double>> logp(kTerrains, std::vector<double>(static_cast<std::size_t>(k)));
    // Start: field = `field`, road = the brightest other, city = the rest (and the road's
    // colour too when `city_on_road`), or `start`'s field, road and city when given; returns the
    // frame's log-likelihood under each cell's best layout.
    auto run_em = [&](int field, bool city_on_road, const std::vector<std::vector<double>>* start = nullptr) {
        prob.assign(kTerrains, std::vector<double>(static_cast<std::size_t>(k), 1.0 / k));
        if (start) {
            for (const int t : {kField, kRoad, kCity}) prob[static_cast<std::size_t>(t)] = (*start)[static_cast<std::size_t>(t)];
        } else {
            start_terrain_model(centres, share, field, city_on_road, prob);
        }
        prob[kOther] = share;
        prob[kTable] = table_prob;
        std::vector<std::vector<std::size_t>> shortlist(cells.size());
        std::vector<std::size_t> bests(cells.size(), 0);
        previous.assign(cells.size(), layouts.size());
        std::fill(ll_empty.begin(), ll_empty.end(), -1e300);
        bool last_pass_full = true;
        for (int round = 0; round <= o.em_rounds; ++round) {
            bool changed = false;
            for (int t = 0; t < kTerrains; ++t) {
                for (int c = 0; c < k; ++c) logp[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)] = std::log(prob[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)]);
            }
            std::vector<std::vector<double>> counts(kTerrains, std::vector<double>(static_cast<std::size_t>(k), o.prior_count));
            // Score every cell (in parallel), then count its best layout's samples (in cell order).
            for_each_cell([&](std::size_t c) {
                bests[c] = score_cell(c, shortlist[c], logp);
                if (round == kFullRounds - 1) {
                    std::vector<std::size_t> order(layouts.size());
                    std::iota(order.begin(), order.end(), std::size_t{0});
                    const auto keep = std::min(order.size(), static_cast<std::size_t>(kShortlist));
                    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                                      [&](std::size_t a, std::size_t b) { return ll[c][a] > ll[c][b]; });
                    shortlist[c].assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep));
                }
                if (table_known) {
                    const int* cl = cluster_of.ptr<int>(static_cast<int>(c) * per_cell);
                    double e = 0;
                    for (int q = 0; q < per_cell; ++q) {
                        if (sample_counts(c, q)) e += logp[kTable][static_cast<std::size_t>(cl[q])];
                    }
                    ll_empty[c] = e;
                }
            });
            for (std::size_t c = 0; c < cells.size(); ++c) {
                const std::size_t best = bests[c];
                changed = changed || (best != previous[c] && cells[c].teaches);  // converged: no teaching cell changes
                previous[c] = best;
                if (table_known && looks_empty(c, best)) continue;  // a hole in the board teaches no terrain
                if (!cells[c].teaches) continue;                      // nor does a cell offered on its outline alone
                const auto& terrain = layouts[best].terrain;
                for (int q = 0; q < per_cell; ++q) {
                    if (sample_counts(c, q)) counts[terrain[static_cast<std::size_t>(q)]][static_cast<std::size_t>(cl_at(c, q))] += 1;
                }
            }
            last_pass_full = round < kFullRounds;
            if (round == o.em_rounds || !changed) break;  // converged
            for (int c = 0; c < k; ++c) counts[kOther][static_cast<std::size_t>(c)] = share[static_cast<std::size_t>(c)];
            for (int t = 0; t < kTerrains; ++t) {
                auto& row = counts[static_cast<std::size_t>(t)];
                double total = 0;
                for (const double v : row) total += v;
                for (int c = 0; c < k; ++c) prob[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)] = row[static_cast<std::size_t>(c)] / total;
            }
            prob[kTable] = table_prob;
        }
        if (!last_pass_full) for_each_cell([&](std::size_t c) { score_cell(c, {}, logp); });
        double total = 0;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            if (cells[c].teaches) total += *std::max_element(ll[c].begin(), ll[c].end());
        }
        return total;
    };
    // Two starts when they differ: field = the dominant cluster, and field = the greenest
    // common cluster (a board with much city, or a style whose city is the commonest colour,
    // can swap field and city); the start explaining the frame better wins.
    const int dominant = static_cast<int>(std::max_element(share.begin(), share.end()) - share.begin());
    int greenest = dominant;
    for (int c = 0; c < k; ++c) {
        if (share[static_cast<std::size_t>(c)] >= kGreenStartShare && centres.at<float>(c, 1) < centres.at<float>(greenest, 1)) greenest = c;
    }
    double fit = run_em(dominant, /*city_on_road=*/false);  // the kept model's log-likelihood
    if (greenest != dominant) {
        const auto kept_ll = ll;
        const auto kept_empty = ll_empty;
        const auto kept_prob = prob;
        const double second = run_em(greenest, /*city_on_road=*/false);
        if (second < fit) ll = kept_ll, ll_empty = kept_empty, prob = kept_prob;
        else fit = second;
    }
    // A model whose city is greener than its field has them swapped. Art whose cities and roads
    // share one colour (muted: beige) starts the road on it and the city on the others (the
    // table's, a shade), so the city took the grass and the field the beige (medium 7000: every
    // tile misread, every touching side agreeing). Then the greenest start is run again with the
    // city on the road's colour too, and kept when its field is the greener.
    if (o.swapped_restart && !field_greener_than_city(centres, prob)) {
        const auto kept_ll = ll;
        const auto kept_empty = ll_empty;
        const auto kept_prob = prob;
        const double restarted = run_em(greenest, /*city_on_road=*/true);
        if (!field_greener_than_city(centres, prob)) ll = kept_ll, ll_empty = kept_empty, prob = kept_prob;
        else fit = restarted;
    }
    // Grass the city holds: a grass cluster beyond kGrassChroma of the start's field (lit or
    // printed a little lighter or yellower over part of the board) started as city, and EM kept
    // it there: its tiles read as full cities (medium 9009: 11 tiles, 3012: 16). EM is run again
    // from the learnt model with that cluster moved to the field, and kept when it explains the
    // frame better.
    if (o.grass_restart) {
        if (const int grass = grass_held_by_city(centres, prob, o.grass_nearest_field); grass >= 0) {
            auto start = prob;
            const auto g = static_cast<std::size_t>(grass);
            start[kField][g] += start[kCity][g];
            start[kCity][g] = kMinClusterShare;  // kept above 0: its log starts finite
            for (const int t : {kField, kCity}) {
                auto& row = start[static_cast<std::size_t>(t)];
                const double total = std::accumulate(row.begin(), row.end(), 0.0);
                for (auto& v : row) v /= total;
            }
            const auto kept_ll = ll;
            const auto kept_empty = ll_empty;
            const auto kept_prob = prob;
            const double moved = run_em(grass, /*city_on_road=*/false, &start);
            if (moved < fit) ll = kept_ll, ll_empty = kept_empty, prob = kept_prob;
            else fit = moved;
        }
    }

    // The terrain model the chosen start ended with (bare layouts under a bridge are scored with it).
    std::vector<std::vector<double>> final_logp(kTerrains, std::vector<double>(static_cast<std::size_t>(k)));
    for (int t = 0; t < kTerrains; ++t) {
        for (int c = 0; c < k; ++c) final_logp[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)] = std::log(prob[static_cast<std::size_t>(t)][static_cast<std::size_t>(c)]);
    }
    // The printed-art maps, scored with the model just learnt. A table's tiles share one art:
    // where the variants fit best on fewer than `printed_min_share` of the cells whose best
    // (type, rotation) has them, the art is the renderer's kind and they are dropped again
    // (on renders they mostly fit noise: blur and glare).
    if (std::any_of(layouts.begin(), layouts.end(), [](const Layout& l) { return l.variant; })) {
        for (auto& l : layouts) l.cost = l.variant ? o.variant_penalty / o.temperature : 0.0;
        for_each_cell([&](std::size_t c) { score_cell(c, {}, final_logp); });
        int with_variants = 0, variant_best = 0;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const auto best = static_cast<std::size_t>(std::max_element(ll[c].begin(), ll[c].end()) - ll[c].begin());
            if (!cells[c].teaches || looks_empty(c, best)) continue;
            const bool has = std::any_of(layouts.begin(), layouts.end(),
                                         [&](const Layout& l) { return l.variant && l.type == layouts[best].type && l.rot == layouts[best].rot; });
            with_variants += has ? 1 : 0;
            variant_best += layouts[best].variant ? 1 : 0;
        }
        if (variant_best < o.printed_min_share * with_variants || with_variants == 0) {
            for (std::size_t h = 0; h < layouts.size(); ++h) {
                if (!layouts[h].variant) continue;
                layouts[h].cost = kHeldBack;
                for (auto& row : ll) row[h] = -kHeldBack;
            }
        }
    }
    // Every road arm a layout draws must show road along it: the share of its samples in colour
    // clusters the road explains better than the field (the model just learnt). Road samples of
    // true roads often fall on the grass beside them (thin, wobbly roads), so the road's colours
    // include grass and an arm invented over grass is nearly free in the likelihood (B read as
    // A: a road stub beside the monastery). Below `min_arm_road` a layout loses up to `arm_penalty`
    // (0 by default: the road-side check below judges roads where they meet the tile's sides).
    auto arm_penalty = [&](std::size_t c, std::size_t h) {
        if (o.arm_penalty <= 0) return 0.0;
        const Layout& layout = layouts[h];
        const auto& arms = layout.arms;
        const int* cl = cluster_of.ptr<int>(static_cast<int>(c) * per_cell);
        std::map<int, std::pair<int, int>> shown;  // arm -> (samples road-like, samples)
        for (int q = 0; q < per_cell; ++q) {
            const int arm = arms[static_cast<std::size_t>(q)];
            if (arm < 0 || !sample_counts(c, q)) continue;
            auto& [road_like, all] = shown[arm];
            road_like += prob[kRoad][static_cast<std::size_t>(cl[q])] > prob[kField][static_cast<std::size_t>(cl[q])] ? 1 : 0;
            ++all;
        }
        double penalty = 0;
        for (const auto& [arm, counts] : shown) {
            const double road_share = static_cast<double>(counts.first) / std::max(1, counts.second);
            penalty += o.arm_penalty * std::max(0.0, o.min_arm_road - road_share) / o.min_arm_road;
        }
        return penalty;
    };
    // Road at each side of a cell: printed roads wander (a junction off the centre, a bend of
    // any radius) and the fields hold bushes and houses, so a layout's arm is neither where the
    // road is nor the only place road-like colours show. What the tile must show is where a road
    // meets its side: near the side's middle, the road's own colour. A colour cluster is the
    // road's own when the road is its likeliest terrain (each terrain weighted by its samples
    // under the cells' best layouts); a side shows road by the share of sample rows in the band
    // `road_side_depth` deep along it holding such a sample within `road_side_reach` of its
    // middle. A layout whose road side shows less than `min_road_side` of them, or whose field
    // side shows more than `max_field_side`, loses up to `road_side_penalty` per such side.
    std::vector<std::array<double, 4>> road_side(cells.size(), {-1.0, -1.0, -1.0, -1.0});  // -1: not judged
    if (o.road_side_penalty > 0) {
        std::vector<double> mass(kTerrains, 0.0);
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const auto best = static_cast<std::size_t>(std::max_element(ll[c].begin(), ll[c].end()) - ll[c].begin());
            if (!cells[c].teaches || looks_empty(c, best)) continue;
            for (int q = 0; q < per_cell; ++q) {
                if (sample_counts(c, q)) mass[layouts[best].terrain[static_cast<std::size_t>(q)]] += 1;
            }
        }
        std::vector<std::uint8_t> own_road(static_cast<std::size_t>(k), 0);
        for (int j = 0; j < k; ++j) {
            const auto ju = static_cast<std::size_t>(j);
            double rival = 0;
            for (const int t : {kField, kCity, kCloister, kWater}) rival = std::max(rival, mass[static_cast<std::size_t>(t)] * prob[static_cast<std::size_t>(t)][ju]);
            own_road[ju] = mass[kRoad] * prob[kRoad][ju] > rival ? 1 : 0;
        }
        if (std::find(own_road.begin(), own_road.end(), 1) == own_road.end()) own_road.clear();  // no colour is the road's: sides not judged
        // The sample `depth` rows in from board side `side` (0 N, 1 E, 2 S, 3 W) and `across` along it.
        auto at_side = [n](int side, int depth, int across) {
            switch (side) {
                case 0: return depth * n + across;
                case 1: return across * n + (n - 1 - depth);
                case 2: return (n - 1 - depth) * n + (n - 1 - across);
                default: return (n - 1 - across) * n + depth;
            }
        };
        std::vector<int> band_rows, band_cols;  // depths (rows) and offsets across (columns) of the band
        for (int d = 0; d < n; ++d) {
            const double u = o.sample_inset + (d + 0.5) / n * (1 - 2 * o.sample_inset);
            if (u < o.road_side_depth) band_rows.push_back(d);
            if (std::abs(u - 0.5) <= o.road_side_reach) band_cols.push_back(d);
        }
        for (std::size_t c = 0; c < cells.size() && !own_road.empty(); ++c) {
            const int* cl = cluster_of.ptr<int>(static_cast<int>(c) * per_cell);
            for (int side = 0; side < 4; ++side) {
                int rows_seen = 0, rows_road = 0;
                for (const int d : band_rows) {
                    bool seen = false, road = false;
                    for (const int a : band_cols) {
                        const int q = at_side(side, d, a);
                        if (!sample_counts(c, q)) continue;
                        seen = true;
                        road = road || own_road[static_cast<std::size_t>(cl[q])];
                    }
                    rows_seen += seen ? 1 : 0;
                    rows_road += road ? 1 : 0;
                }
                road_side[c][static_cast<std::size_t>(side)] = rows_seen > 0 ? static_cast<double>(rows_road) / rows_seen : -1.0;  // -1: not seen
            }
        }
    }
    // Scores what layout h's edges claim against what cell c's sides show (0 when they agree).
    auto side_penalty = [&](std::size_t c, std::size_t h) {
        if (o.road_side_penalty <= 0) return 0.0;
        const TileType& t = catalog.tiles()[static_cast<std::size_t>(layouts[h].type)];
        double penalty = 0;
        for (int side = 0; side < 4; ++side) {
            const double shown = road_side[c][static_cast<std::size_t>(side)];
            if (shown < 0) continue;
            const EdgeKind edge = t.edge_at(layouts[h].rot, side);
            if (edge == EdgeKind::Road || edge == EdgeKind::Street) {
                penalty += o.road_side_penalty * std::max(0.0, o.min_road_side - shown) / o.min_road_side;
            } else if (edge == EdgeKind::Field) {
                penalty += o.road_side_penalty * std::max(0.0, shown - o.max_field_side) / (1 - o.max_field_side);
            }
        }
        return penalty;
    };
    // One road is printed in one colour: every road arm a layout draws shows its other arms'
    // colour. An arm's colour is the mean of its samples' stand-ins, each the sample within
    // `road_arm_slack` of it whose colour is nearest the road's (the learnt road's clusters,
    // where it is likelier than the field, weighted by it): printed roads wander off the
    // layout's arm. An arm invented over field art beside a road bend (a farmstead) takes the
    // art's colour; the learnt road explains that art (its colours include the road's dark
    // borders), so the likelihood and the road-side check let it pass, while its mean colour is
    // not the other arms'. An arm further than `road_arm_colour_spread` (Lab) from the mean of
    // the other arms costs `road_arm_colour_weight` per unit beyond, times sqrt(its share of the
    // cell's samples). Off by default: on rendered boards a true junction's arm may lie as far
    // (the samples are coarse: each averages a square a road's width across).
    std::vector<std::vector<int>> road_stand_in(cells.size());  // per cell and sample: the sample standing in for it on a road
    if (o.road_arm_colour_weight > 0) {
        cv::Vec3d road_colour(0, 0, 0);
        double road_mass = 0;
        for (int j = 0; j < k; ++j) {
            const auto ju = static_cast<std::size_t>(j);
            if (prob[kRoad][ju] <= prob[kField][ju]) continue;
            road_colour += cv::Vec3d(centres.at<float>(j, 0), centres.at<float>(j, 1), centres.at<float>(j, 2)) * prob[kRoad][ju];
            road_mass += prob[kRoad][ju];
        }
        if (road_mass > 0) {
            road_colour /= road_mass;
            for_each_cell([&](std::size_t c) {
                auto& stand_in = road_stand_in[c];
                stand_in.assign(static_cast<std::size_t>(per_cell), -1);
                const int base = static_cast<int>(c) * per_cell;
                for (int j = 0; j < n; ++j) {
                    for (int i = 0; i < n; ++i) {
                        double best = 1e300;
                        for (int y = std::max(0, j - o.road_arm_slack); y <= std::min(n - 1, j + o.road_arm_slack); ++y) {
                            for (int x = std::max(0, i - o.road_arm_slack); x <= std::min(n - 1, i + o.road_arm_slack); ++x) {
                                if (!sample_counts(c, y * n + x)) continue;
                                const auto* d = data.ptr<float>(base + y * n + x);
                                const double dist = cv::norm(cv::Vec3d(d[0], d[1], d[2]) - road_colour);
                                if (dist < best) best = dist, stand_in[static_cast<std::size_t>(j * n + i)] = y * n + x;
                            }
                        }
                    }
                }
            });
        }
    }
    auto arm_colour_penalty = [&](std::size_t c, std::size_t h) {
        if (o.road_arm_colour_weight <= 0 || road_stand_in[c].empty()) return 0.0;
        const auto& arms = layouts[h].arms;
        std::map<int, std::pair<cv::Vec3d, int>> shown;  // arm -> (sum of its stand-ins' colours, samples)
        const int base = static_cast<int>(c) * per_cell;
        for (int q = 0; q < per_cell; ++q) {
            const int arm = arms[static_cast<std::size_t>(q)];
            const int from = road_stand_in[c][static_cast<std::size_t>(q)];
            if (arm < 0 || from < 0 || !sample_counts(c, q)) continue;
            const auto* d = data.ptr<float>(base + from);
            auto& [sum, count] = shown[arm];
            sum += cv::Vec3d(d[0], d[1], d[2]);
            ++count;
        }
        if (shown.size() < 2) return 0.0;
        cv::Vec3d all_sum(0, 0, 0);
        int all_count = 0;
        for (const auto& [arm, s] : shown) all_sum += s.first, all_count += s.second;
        double penalty = 0;
        for (const auto& [arm, s] : shown) {
            const int others = all_count - s.second;
            if (others <= 0) continue;
            const double d = cv::norm(s.first / s.second - (all_sum - s.first) / others);
            penalty += o.road_arm_colour_weight * std::sqrt(static_cast<double>(s.second) / per_cell) * std::max(0.0, d - o.road_arm_colour_spread);
        }
        return penalty;
    };
    std::vector<bool> out_teaches;  // per cell of `out`: CellObservation::teaches
    for (std::size_t c = 0; c < cells.size(); ++c) {
        if (table_known) {
            const std::size_t best = static_cast<std::size_t>(std::max_element(ll[c].begin(), ll[c].end()) - ll[c].begin());
            if (looks_empty(c, best)) continue;
        }
        CellHypotheses h;
        h.col = cells[c].col;
        h.row = cells[c].row;
        h.offset_px = cells[c].offset_px;
        h.fit = *std::max_element(ll[c].begin(), ll[c].end()) / kept_count[c];
        h.bridge_axis = bridge_axis[c];
        for (std::size_t i = 0; i < layouts.size(); ++i) {
            if (bridge_axis[c] < 0) {
                h.hyps.push_back({layouts[i].type, layouts[i].rot, o.temperature * ll[c][i] - arm_penalty(c, i) - side_penalty(c, i) - arm_colour_penalty(c, i), false});
                continue;
            }
            // Under a bridge: the layouts that take it, and every layout bare (the bridge found may be none).
            if (layout_allowed(c, i)) h.hyps.push_back({layouts[i].type, layouts[i].rot, o.temperature * ll[c][i], true});
        }
        if (bridge_axis[c] >= 0) {  // every layout bare, scored on the same samples
            const int* cl = cluster_of.ptr<int>(static_cast<int>(c) * per_cell);
            for (std::size_t i = 0; i < layouts.size(); ++i) {
                const auto& terrain = layouts[i].terrain;
                double s = 0;
                for (int q = 0; q < per_cell; ++q) {
                    if (kept[c][static_cast<std::size_t>(q)]) s += final_logp[terrain[static_cast<std::size_t>(q)]][static_cast<std::size_t>(cl[q])];
                }
                s -= layouts[i].cost;
                h.hyps.push_back({layouts[i].type, layouts[i].rot, o.temperature * s - o.unbridged_penalty, false});
            }
        }
        std::sort(h.hyps.begin(), h.hyps.end(), [](const Hypothesis& a, const Hypothesis& b) { return a.score > b.score; });
        // One hypothesis per (type, rotation, bridged): its best region map.
        std::set<std::tuple<int, int, bool>> listed;
        std::erase_if(h.hyps, [&](const Hypothesis& x) { return !listed.insert({x.type, x.rot, x.bridged}).second; });
        out.push_back(std::move(h));
        out_teaches.push_back(cells[c].teaches);
    }
    // A hand or an arm over a tile: colours no layout explains, far worse than the board's usual
    // (teaching) cell.
    if (out.size() >= 4) {
        std::vector<double> fits;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (out_teaches[i]) fits.push_back(out[i].fit);
        }
        if (fits.empty()) return out;
        std::nth_element(fits.begin(), fits.begin() + static_cast<std::ptrdiff_t>(fits.size() / 2), fits.end());
        const double median = fits[fits.size() / 2];
        for (auto& h : out) h.hidden = h.fit < median - o.hidden_margin;
    }
    return out;
}

}  // namespace meeplecam::vision
