// Stage 4b of the board reader: pennant or not, for tile types that differ only in pennants.
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
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

// A compact blob of colour unlike plain city: its share of the cell and its mean Lab colour.
struct Blob {
    double share = 0;
    cv::Vec3d lab;
    cv::Rect box;  // its bounding box in the cell...
    cv::Mat mine;  // ...and its pixels there (255)
};

// The blobs of `novel` (CV_8UC1, 255 where a colour unlike plain city was seen; `lab`: the
// cell) that are compact: their pixels fill at least `min_fill` of the square on the long
// side of their smallest enclosing rotated rectangle. A pennant (shield, disc, banner) is
// about as wide as tall (0.4-0.8 measured); the light band of a city wall the cell's city
// mask overlaps (art whose walls run elsewhere than the catalog geometry's) is a thin strip
// (under 0.1). Shares are of the cell (`side` px square).
std::vector<Blob> compact_blobs(const cv::Mat& novel, const cv::Mat& lab, int side, double min_fill) {
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(novel, labels, stats, centroids, 8);
    std::vector<Blob> blobs;
    for (int i = 1; i < n; ++i) {
        const int area = stats.at<int>(i, cv::CC_STAT_AREA);
        const cv::Rect box(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP), stats.at<int>(i, cv::CC_STAT_WIDTH),
                           stats.at<int>(i, cv::CC_STAT_HEIGHT));
        const cv::Mat mine = labels(box) == i;
        std::vector<cv::Point> pixels;
        cv::findNonZero(mine, pixels);
        const cv::RotatedRect rect = cv::minAreaRect(pixels);
        const double length = std::max(rect.size.width, rect.size.height) + 1;  // + 1: pixel centres to pixel edges
        if (area < min_fill * length * length) continue;
        const cv::Scalar mean = cv::mean(lab(box), mine);
        blobs.push_back({static_cast<double>(area) / (static_cast<double>(side) * side), cv::Vec3d(mean[0], mean[1], mean[2]), box, mine});
    }
    return blobs;
}

double largest_share(const std::vector<Blob>& blobs) {
    double largest = 0;
    for (const auto& b : blobs) largest = std::max(largest, b.share);
    return largest;
}

// The largest blob no larger than a printed pennant can be (PennantOptions::max_pennant_area;
// 0: any size); nothing when every blob is larger, or none was found.
const Blob* largest_pennant_sized(const std::vector<Blob>& blobs, const PennantOptions& o) {
    const Blob* best = nullptr;
    for (const auto& b : blobs) {
        if ((o.max_pennant_area <= 0 || b.share <= o.max_pennant_area) && (!best || b.share > best->share)) best = &b;
    }
    return best;
}

// The Lab distance between two colours, L weighted by `lightness_weight`.
double colour_distance(const cv::Vec3d& a, const cv::Vec3d& b, double lightness_weight) {
    const double dl = lightness_weight * (a[0] - b[0]);
    return std::sqrt(dl * dl + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

// The board's pennant colour: the per-channel median of the largest blobs that reach the
// threshold (one board's pennants are printed alike; a roof or a follower among them is
// outvoted), and the radius within which a blob is of that colour (min_colour_radius, or
// colour_radius_spread times the blobs' median distance from it). Nothing when fewer than
// min_coloured_pennants blobs reach the threshold.
struct PennantColour {
    cv::Vec3d lab;
    double radius = 0;
};
std::optional<PennantColour> learn_pennant_colour(const std::vector<cv::Vec3d>& colours, const PennantOptions& o) {
    if (o.min_coloured_pennants <= 0 || static_cast<int>(colours.size()) < o.min_coloured_pennants) return std::nullopt;
    auto median = [](std::vector<double> v) {
        const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
        std::nth_element(v.begin(), mid, v.end());
        return *mid;
    };
    PennantColour c;
    for (int k = 0; k < 3; ++k) {
        std::vector<double> channel;
        for (const auto& lab : colours) channel.push_back(lab[k]);
        c.lab[k] = median(std::move(channel));
    }
    std::vector<double> distances;
    for (const auto& lab : colours) distances.push_back(colour_distance(lab, c.lab, o.colour_lightness_weight));
    c.radius = std::max(o.min_colour_radius, o.colour_radius_spread * median(std::move(distances)));
    return c;
}

// The blob area from which a twin cell reads as a pennant: `min_area`, raised to
// `size_share` of the board's own pennant size when enough cells show one. The pennants of
// one board are printed alike, so a blob far smaller than its fellows is a house's roof, a
// speck of glare or the corner of a wall, not a pennant. `sizes`: the blob areas of the twin
// cells that reach min_area; their median is the board's pennant size.
// `board_size` gets that median (0 when too few cells show one).
double pennant_threshold(std::vector<double> sizes, const PennantOptions& o, double& board_size) {
    board_size = 0;
    if (static_cast<int>(sizes.size()) < o.min_sized_pennants) return o.min_area;
    const auto mid = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2);
    std::nth_element(sizes.begin(), mid, sizes.end());
    board_size = *mid;
    return std::max(o.min_area, o.size_share * *mid);
}

// How far the most deviating patch of a cell's city (`use`: its city pixels; `lab`: the
// cell, side x side) stands out from the city's own fill: the a*b* distance of each pixel
// from the city's median chroma, averaged over a box of `box_share` of the side that lies
// wholly in the city; the largest such mean. Blur spreads a pennant but keeps its mean
// colour off the city's; a house's roof is smaller than the box, so its mean stays nearer.
double city_chroma_deviation(const cv::Mat& lab, const cv::Mat& use, double box_share) {
    std::vector<std::uint8_t> as, bs;
    for (int y = 0; y < lab.rows; ++y) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        const auto* u = use.ptr<std::uint8_t>(y);
        for (int x = 0; x < lab.cols; ++x) {
            if (u[x]) as.push_back(p[x][1]), bs.push_back(p[x][2]);
        }
    }
    if (as.empty()) return 0;
    auto median = [](std::vector<std::uint8_t>& v) {
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return static_cast<float>(v[v.size() / 2]);
    };
    const float ma = median(as), mb = median(bs);
    cv::Mat dist(lab.size(), CV_32F, cv::Scalar(0)), inside;
    use.convertTo(inside, CV_32F, 1.0 / 255);
    for (int y = 0; y < lab.rows; ++y) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        const auto* u = use.ptr<std::uint8_t>(y);
        auto* d = dist.ptr<float>(y);
        for (int x = 0; x < lab.cols; ++x) {
            if (u[x]) d[x] = std::hypot(p[x][1] - ma, p[x][2] - mb);
        }
    }
    const int k = std::max(3, static_cast<int>(std::lround(box_share * lab.cols)) | 1);
    cv::blur(dist, dist, cv::Size(k, k));
    cv::blur(inside, inside, cv::Size(k, k));
    double best = 0;
    for (int y = 0; y < lab.rows; ++y) {
        const auto* d = dist.ptr<float>(y);
        const auto* w = inside.ptr<float>(y);
        for (int x = 0; x < lab.cols; ++x) {
            if (w[x] > 0.99f) best = std::max(best, static_cast<double>(d[x]));
        }
    }
    return best;
}

// Splits the twin cells' chroma deviations into two groups (the split that maximises the
// between-group variance); returns the threshold between them when the upper group's mean
// is at least `min_split_ratio` times the lower's and there are `min_split_cells` cells,
// else 0 (no clear split: the board keeps the decoder's choice where no blob was found).
double deviation_split(std::vector<double> v, const PennantOptions& o) {
    if (static_cast<int>(v.size()) < o.min_split_cells) return 0;
    std::sort(v.begin(), v.end());
    double total = 0;
    for (const double x : v) total += x;
    double best = -1, cut = 0, ratio = 0, below = 0;
    const auto n = static_cast<double>(v.size());
    for (std::size_t i = 1; i < v.size(); ++i) {
        below += v[i - 1];
        const double k = static_cast<double>(i), m0 = below / k, m1 = (total - below) / (n - k);
        const double between = k * (n - k) * (m1 - m0) * (m1 - m0);
        if (between > best) best = between, cut = (v[i - 1] + v[i]) / 2, ratio = m1 / std::max(1e-9, m0);
    }
    return ratio >= o.min_split_ratio ? cut : 0;
}

}  // namespace

Status PennantOptions::check() const {
    auto bad = [](const char* what) { return Status(invalid("pennant options", what)); };
    if (!(wall_margin >= 0 && wall_margin < 0.3)) return bad("wall_margin must be within [0, 0.3)");
    if (!(bridge_band >= 0 && bridge_band < 0.5)) return bad("bridge_band must be within [0, 0.5)");
    if (!(cover_margin >= 0 && cover_margin < 0.5)) return bad("cover_margin must be within [0, 0.5)");
    if (!(min_peeking_share >= 0 && min_peeking_share <= 1)) return bad("min_peeking_share must be within [0, 1]");
    if (lightness_bins < 1 || lightness_bins > 64) return bad("lightness_bins must be within [1, 64]");
    if (chroma_bins < 4 || chroma_bins > 128) return bad("chroma_bins must be within [4, 128]");
    if (!(novel_density > 0 && novel_density < 0.1)) return bad("novel_density must be within (0, 0.1)");
    if (!(min_area > 0 && min_area < max_area && max_area <= 1)) return bad("need 0 < min_area < max_area <= 1");
    if (min_reference_cells < 1) return bad("min_reference_cells must be at least 1");
    if (!(min_fill >= 0 && min_fill <= 1)) return bad("min_fill must be within [0, 1]");
    if (!(min_seen > 0 && min_seen <= 1)) return bad("min_seen must be within (0, 1]");
    if (!(min_seen_under_piece > 0 && min_seen_under_piece <= 1)) return bad("min_seen_under_piece must be within (0, 1]");
    if (!(size_share >= 0 && size_share < 1)) return bad("size_share must be within [0, 1)");
    if (!(max_pennant_area == 0 || max_pennant_area > min_area)) return bad("max_pennant_area must be 0 (off) or above min_area");
    if (min_sized_pennants < 1) return bad("min_sized_pennants must be at least 1");
    if (min_coloured_pennants < 0) return bad("min_coloured_pennants must not be negative");
    if (!(colour_lightness_weight >= 0 && colour_lightness_weight <= 1)) return bad("colour_lightness_weight must be within [0, 1]");
    if (!(min_colour_radius > 0) || !(colour_radius_spread >= 0)) return bad("min_colour_radius must be positive and colour_radius_spread not negative");
    if (!(coloured_share > 0 && coloured_share <= 1)) return bad("coloured_share must be within (0, 1]");
    if (!(covering_size >= 1)) return bad("covering_size must be at least 1");
    if (!(deviation_box > 0 && deviation_box < 0.5)) return bad("deviation_box must be within (0, 0.5)");
    if (!(max_blurred_share >= 0 && max_blurred_share <= 1)) return bad("max_blurred_share must be within [0, 1]");
    if (min_split_cells < 2) return bad("min_split_cells must be at least 2");
    if (!(min_split_ratio > 1)) return bad("min_split_ratio must be above 1");
    return Ok{};
}

// The pennant spot's diameter (share of the tile): about a pennant's height (TileStyle::pennant_size).
constexpr double kPennantSpot = 0.12;

// Turns a point of a `side` px square by `rot` quarter turns clockwise (as feature_labels turns a tile).
cv::Point turned_point(cv::Point p, int rot, int side) {
    switch (((rot % 4) + 4) % 4) {
        case 1: return {side - 1 - p.y, p.x};
        case 2: return {side - 1 - p.x, side - 1 - p.y};
        case 3: return {p.y, side - 1 - p.x};
        default: return p;
    }
}

// Where the art prints a city's first pennant in a tile of `type` turned `rot` (pennant_points on
// its whole city; `at_rest`: found at rest and turned, as render_tile prints it, else found on
// the turned city). Empty when the tile has no city.
std::optional<cv::Point> pennant_spot(const TileType& type, int rot, int side, bool at_rest) {
    const auto spots = pennant_points(inner_city(type, at_rest ? 0 : rot, side, 0), 1, kPennantSpot * side);
    if (spots.empty()) return std::nullopt;
    return at_rest ? turned_point(spots.front(), rot, side) : spots.front();
}

std::vector<PennantEvidence> decide_pennants(const LatticeView& view, std::vector<DecodedTile>& tiles, const Catalog& catalog,
                                             const PennantOptions& o, const std::vector<CoverOnBoard>& covers) {
    std::vector<PennantEvidence> out;
    if (tiles.empty() || view.top.empty() || !o.check()) return out;
    const auto& types = catalog.tiles();
    const auto twin = pennant_twins(catalog);
    const int side = std::max(16, static_cast<int>(std::lround(view.pitch_px)));
    const int margin = static_cast<int>(std::lround(o.wall_margin * side));
    const cv::Rect bounds(0, 0, view.top.cols, view.top.rows);
    // The inner city mask of a (type, rotation), cached.
    auto city_of = [&](const DecodedTile& t) -> const cv::Mat& { return inner_city(types[static_cast<std::size_t>(t.type)], t.rot, side, margin); };
    // Under a bridge the wood hides the tile's middle along its axis: those pixels are no evidence.
    const int band = static_cast<int>(std::lround(o.bridge_band * side));
    auto visible = [&](const DecodedTile& t, int x, int y) {
        if (t.bridge_axis < 0) return true;
        return std::abs((t.bridge_axis == 0 ? x : y) - side / 2) >= band;
    };
    // Under a piece: the top view's pixels it hides (and cover_margin around them), 255.
    cv::Mat under_piece, under_silhouette;  // under_silhouette: without cover_margin
    if (!covers.empty()) {
        under_piece = cv::Mat::zeros(view.top.size(), CV_8UC1);
        for (const auto& c : covers) {
            if (c.outline_top.size() < 3) continue;
            std::vector<cv::Point> poly;
            for (const auto& q : c.outline_top) poly.emplace_back(static_cast<int>(std::lround(q.x)), static_cast<int>(std::lround(q.y)));
            cv::fillPoly(under_piece, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(255));
        }
        under_silhouette = under_piece.clone();
        const int reach = static_cast<int>(std::lround(o.cover_margin * side));
        if (reach > 0) cv::dilate(under_piece, under_piece, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * reach + 1, 2 * reach + 1)));
    }
    auto cell_rect = [&](const DecodedTile& t) {
        const cv::Point2d c = view.cell_centre(t.col, t.row) + t.offset_px;
        return cv::Rect(static_cast<int>(std::lround(c.x - side / 2.0)), static_cast<int>(std::lround(c.y - side / 2.0)), side, side);
    };
    // A cell's square in Lab (side x side) and which of its pixels are city evidence: in the
    // city mask, not under a bridge, and inside the top view (a tile on the view's rim is
    // read from the part that shows). Empty when less than `min_seen` of its city shows.
    struct CellPixels {
        cv::Mat lab, use;
    };
    auto cell_pixels = [&](const DecodedTile& t, bool hide_pieces) {
        CellPixels c;
        const cv::Rect r = cell_rect(t), inside = r & bounds;
        if (inside.empty()) return c;
        const cv::Mat& city = city_of(t);
        const cv::Rect local = inside - r.tl();
        c.lab = cv::Mat(side, side, CV_8UC3, cv::Scalar(0, 128, 128));
        cv::cvtColor(view.top(inside), c.lab(local), cv::COLOR_BGR2Lab);
        c.use = cv::Mat(side, side, CV_8UC1, cv::Scalar(0));
        city(local).copyTo(c.use(local));
        for (int y = 0; y < side; ++y) {
            auto* u = c.use.ptr<std::uint8_t>(y);
            for (int x = 0; x < side; ++x) u[x] = u[x] && visible(t, x, y) ? 255 : 0;
        }
        // The rim and a bridge take min_seen; the pieces on top of that, min_seen_under_piece.
        const int all = cv::countNonZero(city), in_view = cv::countNonZero(c.use);
        if (all == 0 || in_view < o.min_seen * all) {
            c.use.release();
            return c;
        }
        if (hide_pieces && !under_piece.empty()) {
            c.use(local).setTo(0, under_piece(inside));
            if (cv::countNonZero(c.use) < o.min_seen_under_piece * all) c.use.release();
        }
        return c;
    };

    // The share of a disc 1.5 times the pennant spot's width around it that the pieces' own
    // silhouettes hide (no cover_margin: the margin hides every spot a follower stands near wholly).
    // A disc `diameters` pennant spots wide, in the cell's own pixels, around where the art prints
    // the tile's first pennant (empty when the tile has no city).
    auto disc_at_spot = [&](const DecodedTile& t, double diameters) -> cv::Mat {
        const auto at = pennant_spot(types[static_cast<std::size_t>(t.type)], t.rot, side, o.spot_at_rest);
        if (!at) return {};
        cv::Mat disc(side, side, CV_8UC1, cv::Scalar(0));
        cv::circle(disc, *at, std::max(1, static_cast<int>(std::lround(0.5 * diameters * kPennantSpot * side))), cv::Scalar(255), cv::FILLED);
        return disc;
    };
    constexpr double kAroundSpot = 1.5;  // the disc around the spot that hidden_around and peeking measure, in spot widths
    // That disc on a cell in the view, with the pieces' silhouettes known (none: nullopt).
    struct AroundSpot {
        cv::Rect r, inside;  // the cell, and its part inside the top view
        cv::Mat disc;        // in the cell's pixels
        int all = 0;         // the disc's pixels
    };
    auto around_spot = [&](const DecodedTile& t) -> std::optional<AroundSpot> {
        AroundSpot a;
        a.r = cell_rect(t);
        a.inside = a.r & bounds;
        if (a.inside.empty() || under_silhouette.empty()) return std::nullopt;
        a.disc = disc_at_spot(t, kAroundSpot);
        a.all = a.disc.empty() ? 0 : cv::countNonZero(a.disc);
        if (a.all == 0) return std::nullopt;
        return a;
    };
    auto hidden_around_share = [&](const DecodedTile& t) {
        const auto a = around_spot(t);
        if (!a) return 0.0;
        cv::Mat hidden;
        cv::bitwise_and(a->disc(a->inside - a->r.tl()), under_silhouette(a->inside), hidden);
        return static_cast<double>(cv::countNonZero(hidden)) / a->all;
    };
    // The share of that disc, outside the silhouettes, of the pennants' colour.
    auto peeking_share = [&](const DecodedTile& t, const PennantColour& colour) {
        const auto a = around_spot(t);
        if (!a) return 0.0;
        const cv::Rect r = a->r, inside = a->inside;
        const cv::Mat& disc = a->disc;
        const int all = a->all;
        cv::Mat lab;
        cv::cvtColor(view.top(inside), lab, cv::COLOR_BGR2Lab);
        int coloured = 0;
        for (int y = 0; y < inside.height; ++y) {
            const auto* d = disc.ptr<std::uint8_t>(y + inside.y - r.y);
            const auto* u = under_silhouette.ptr<std::uint8_t>(y + inside.y);
            const auto* p = lab.ptr<cv::Vec3b>(y);
            for (int x = 0; x < inside.width; ++x) {
                if (!d[x + inside.x - r.x] || u[x + inside.x]) continue;
                coloured += colour_distance(cv::Vec3d(p[x][0], p[x][1], p[x][2]), colour.lab, o.colour_lightness_weight) <= colour.radius;
            }
        }
        return static_cast<double>(coloured) / all;
    };
    auto pennant_spot_on = [&](const cv::Mat& city) -> std::optional<cv::Point> {
        const auto spots = pennant_points(city, 1, kPennantSpot * side);
        if (spots.empty()) return std::nullopt;
        return spots.front();
    };
    // The share of a cell's pennant spot (a disc where the art puts a city's first pennant,
    // pennant_spot) the pieces hide.
    auto hidden_share = [&](const DecodedTile& t) {
        const cv::Rect r = cell_rect(t), inside = r & bounds;
        if (inside.empty() || under_piece.empty()) return 0.0;
        const auto at = o.spot_at_rest ? pennant_spot(types[static_cast<std::size_t>(t.type)], t.rot, side, true)
                                       : pennant_spot_on(city_of(t));
        if (!at) return 0.0;
        cv::Mat spot(side, side, CV_8UC1, cv::Scalar(0));
        cv::circle(spot, *at, std::max(1, static_cast<int>(std::lround(0.5 * kPennantSpot * side))), cv::Scalar(255), cv::FILLED);
        const cv::Mat in_view = spot(inside - r.tl());
        const int all = cv::countNonZero(spot);
        if (all == 0) return 0.0;
        cv::Mat hidden;
        cv::bitwise_and(in_view, under_piece(inside), hidden);
        return static_cast<double>(cv::countNonZero(hidden)) / all;
    };

    // The share of a cell's pennant spot a blob of the cell covers: the spot on the whole city, as
    // render_tile prints it (the inner city's innermost point may lie elsewhere along a wide city's
    // ridge), counted on its pixels in the inner city (where a blob can be found).
    auto spot_under_blob = [&](const DecodedTile& t, const Blob& b) {
        cv::Mat spot = disc_at_spot(t, 1.0);
        if (spot.empty() || b.mine.empty()) return 0.0;
        cv::bitwise_and(spot, city_of(t), spot);
        const int all = cv::countNonZero(spot);
        if (all == 0) return 0.0;
        cv::Mat hidden;
        cv::bitwise_and(spot(b.box), b.mine, hidden);
        return static_cast<double>(cv::countNonZero(hidden)) / all;
    };

    // Plain city colours: a coarse-L, fine-ab histogram of the city pixels of cells read as a
    // city type with no pennant and no pennant twin (or, when too few, of every city cell).
    const int nl = o.lightness_bins, nc = o.chroma_bins;
    auto bin_of = [&](const cv::Vec3b& p) { return (p[0] * nl / 256) * nc * nc + (p[1] * nc / 256) * nc + p[2] * nc / 256; };
    auto is_reference = [&](const DecodedTile& t) {
        const auto& type = types[static_cast<std::size_t>(t.type)];
        return t.teaches_plain_city && has_city(type) && !has_pennant(type) && twin[static_cast<std::size_t>(t.type)] < 0;
    };
    const auto references = std::count_if(tiles.begin(), tiles.end(), is_reference);
    std::vector<float> hist(static_cast<std::size_t>(nl * nc * nc), 0.f);
    double total = 0;
    for (const auto& t : tiles) {
        const auto& type = types[static_cast<std::size_t>(t.type)];
        if (references >= o.min_reference_cells ? !is_reference(t) : !has_city(type)) continue;
        const CellPixels c = cell_pixels(t, true);
        if (c.use.empty()) continue;
        for (int y = 0; y < side; ++y) {
            const auto* p = c.lab.ptr<cv::Vec3b>(y);
            const auto* m = c.use.ptr<std::uint8_t>(y);
            for (int x = 0; x < side; ++x) {
                if (m[x]) hist[static_cast<std::size_t>(bin_of(p[x]))] += 1, total += 1;
            }
        }
    }
    if (total <= 0) return out;
    // Smooth along a* and b* (one bin): noise moves colours to the neighbouring bins.
    cv::Mat h(nl * nc, nc, CV_32F, hist.data()), hs;
    cv::blur(h, hs, cv::Size(3, 3), cv::Point(-1, -1), cv::BORDER_REPLICATE);
    hs /= total;

    // The evidence of every twin cell: its largest compact blob of colours unlike plain city.
    std::vector<double> sizes;  // blobs large enough to be pennants and no larger than one, for the board's own pennant size
    int reaching = 0;           // twin cells whose largest blob reaches min_area (few: a blurred board)
    std::vector<CellPixels> seen(tiles.size());  // kept for the blurred boards' second cue
    std::vector<std::vector<Blob>> blobs(tiles.size());  // every twin cell's compact blobs, for the pennant colour
    std::vector<bool> under_found_piece(tiles.size(), false);  // read as seen: the pieces found hide most of its city
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        const auto& t = tiles[i];
        PennantEvidence ev;
        ev.col = t.col, ev.row = t.row;
        // Without the pieces on it; when they hide too much of its city, as seen (a follower
        // standing on the pennant is read as one by its size: PennantOptions::covering_size).
        CellPixels c = twin[static_cast<std::size_t>(t.type)] >= 0 ? cell_pixels(t, true) : CellPixels{};
        if (twin[static_cast<std::size_t>(t.type)] >= 0 && !under_piece.empty()) {
            ev.hidden = hidden_share(t);
            ev.hidden_around = hidden_around_share(t);
        }
        if (c.use.empty() && twin[static_cast<std::size_t>(t.type)] >= 0 && !under_piece.empty()) {
            c = cell_pixels(t, false);
            under_found_piece[i] = true;
        }
        if (!c.use.empty()) {
            cv::Mat novel(side, side, CV_8UC1, cv::Scalar(0));
            for (int y = 0; y < side; ++y) {
                const auto* p = c.lab.ptr<cv::Vec3b>(y);
                const auto* m = c.use.ptr<std::uint8_t>(y);
                auto* n = novel.ptr<std::uint8_t>(y);
                for (int x = 0; x < side; ++x) {
                    if (!m[x]) continue;
                    const int b = bin_of(p[x]);
                    if (hs.at<float>(b / nc, b % nc) < o.novel_density) n[x] = 255;
                }
            }
            cv::morphologyEx(novel, novel, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(3, 3)));
            blobs[i] = compact_blobs(novel, c.lab, side, o.min_fill);
            ev.blob_area = largest_share(blobs[i]);
            ev.decided = ev.blob_area <= o.max_area;
            if (ev.decided && ev.blob_area >= o.min_area) ++reaching;
            // The board's pennant size: each cell's largest blob of a printed pennant's size.
            const Blob* sized = ev.decided ? largest_pennant_sized(blobs[i], o) : nullptr;
            if (sized && sized->share >= o.min_area) sizes.push_back(sized->share);
            if (ev.decided) seen[i] = c;
        }
        out.push_back(ev);
    }
    // Blurred boards: the pennant's colours mix with the city's and few cells show a blob
    // unlike plain city (under max_blurred_share of the twin cells; about half of them have
    // pennants). Then the cells whose city holds a patch standing out from its own
    // fill are the pennant cells, when the board's cells split clearly into two such groups.
    const auto decided = std::count_if(out.begin(), out.end(), [](const PennantEvidence& ev) { return ev.decided; });
    const bool blurred = static_cast<double>(reaching) < o.max_blurred_share * static_cast<double>(decided);
    double board_size = 0;
    const double threshold = pennant_threshold(std::move(sizes), o, board_size);
    // The board's pennant colour, from the largest blobs that reach the threshold (not on a
    // blurred board: too few show).
    std::optional<PennantColour> colour;
    if (!blurred) {
        std::vector<cv::Vec3d> colours;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (!out[i].decided) continue;
            const Blob* sized = largest_pennant_sized(blobs[i], o);
            if (sized && sized->share >= threshold) colours.push_back(sized->lab);
        }
        colour = learn_pennant_colour(colours, o);
    }
    double split = 0;
    if (blurred) {
        std::vector<double> deviations;
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (!out[i].decided) continue;
            out[i].deviation = city_chroma_deviation(seen[i].lab, seen[i].use, o.deviation_box);
            deviations.push_back(out[i].deviation);
        }
        split = deviation_split(std::move(deviations), o);
    }
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        auto& t = tiles[i];
        auto& ev = out[i];
        if (colour && ev.hidden_around > 0) ev.peeking = peeking_share(t, *colour);
        if (!ev.decided) continue;
        // A blob the blob rule takes stays a pennant on a blurred board too.
        const bool by_deviation = split > 0 && ev.blob_area < threshold;
        double value = by_deviation ? ev.deviation : ev.blob_area, cut = by_deviation ? split : threshold;
        if (colour) {
            // The largest blob of the pennants' colour decides, unless a blob far larger than
            // the board's pennants covers the city (read by its size, as without a colour).
            ev.coloured_area = 0;
            for (const auto& b : blobs[i]) {
                if (colour_distance(b.lab, colour->lab, o.colour_lightness_weight) <= colour->radius) ev.coloured_area = std::max(ev.coloured_area, b.share);
            }
            // A covering blob of another colour (a follower in its player's colour) shows no pennant
            // (PennantOptions::cover_needs_colour): the rest of the city decides, as on any cell; with
            // follower_hides_spot the share of the pennant spot it covers is evidence missing, as under
            // a piece found (PennantEvidence::hidden: keep_twins_within_copies may give the tile to its twin).
            // A city the pieces found mostly hide is read as seen, its piece by its size, as before
            // (PennantOptions::min_seen_under_piece).
            const bool large = ev.blob_area >= o.covering_size * board_size && ev.blob_area >= threshold;
            const bool follower = large && o.cover_needs_colour && !under_found_piece[i] && ev.coloured_area < ev.blob_area;
            if (follower && o.follower_hides_spot) {
                for (const auto& b : blobs[i]) {
                    if (b.share == ev.blob_area) ev.hidden = std::max(ev.hidden, spot_under_blob(t, b));
                }
            }
            if (!large || follower) value = ev.coloured_area, cut = o.coloured_share * threshold;
        }
        ev.pennant = value >= cut;
        const bool now = has_pennant(types[static_cast<std::size_t>(t.type)]);
        // How sure: the evidence's distance from the threshold, in units of the threshold.
        const double margin_share = std::abs(value - cut) / cut;
        const double sure = 1 / (1 + std::exp(-4 * margin_share));
        if (now != ev.pennant) {
            t.runner_type = t.type, t.runner_rot = t.rot;
            t.type = twin[static_cast<std::size_t>(t.type)];
        } else {
            t.runner_type = twin[static_cast<std::size_t>(t.type)], t.runner_rot = t.rot;
        }
        t.runner_confidence = t.confidence * (1 - sure);
        t.confidence *= sure;
    }
    return out;
}

int keep_twins_within_copies(std::vector<DecodedTile>& tiles, const std::vector<PennantEvidence>& evidence, const Catalog& catalog,
                             const std::string& edition, bool rank_by_silhouette, double min_peeking_share) {
    constexpr double kMostlyHidden = 0.5;  // a pennant spot the pieces hide this much shows no evidence
    const auto& types = catalog.tiles();
    const auto twin = pennant_twins(catalog);
    std::vector<int> used(types.size(), 0);
    for (const auto& t : tiles) {
        if (t.type >= 0 && static_cast<std::size_t>(t.type) < types.size()) ++used[static_cast<std::size_t>(t.type)];
    }
    const bool with_evidence = evidence.size() == tiles.size();
    int changed = 0;
    for (std::size_t a = 0; a < types.size(); ++a) {
        const int b = twin[a];
        if (b < 0) continue;
        const int room = types[static_cast<std::size_t>(b)].count_in(edition) - used[static_cast<std::size_t>(b)];
        const int surplus = used[a] - types[a].count_in(edition);
        const int moves = std::min(room, surplus);
        if (moves <= 0) continue;
        // A tile read without its pennant whose pennant's colour peeks out beside a piece.
        auto peeks = [&](std::size_t i) {
            return with_evidence && min_peeking_share > 0 && !has_pennant(types[a]) && evidence[i].peeking >= min_peeking_share;
        };
        // The crowded twin's tiles, weakest evidence first.
        std::vector<std::size_t> crowded;
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            if (tiles[i].type != static_cast<int>(a) || tiles[i].hidden) continue;
            // Only a tile whose evidence is missing gives way: undecided, or its pennant spot mostly hidden.
            if (with_evidence && evidence[i].decided && evidence[i].hidden < kMostlyHidden && !peeks(i)) continue;
            crowded.push_back(i);
        }
        auto weakness = [&](std::size_t i) {
            if (!with_evidence) return std::tuple(false, 0.0, 0.0, false, -tiles[i].confidence);
            const double around = rank_by_silhouette ? evidence[i].hidden_around : 0.0;
            return std::tuple(peeks(i), evidence[i].hidden, around, !evidence[i].decided, -tiles[i].confidence);
        };
        std::stable_sort(crowded.begin(), crowded.end(), [&](std::size_t x, std::size_t y) { return weakness(x) > weakness(y); });
        for (int k = 0; k < moves && k < static_cast<int>(crowded.size()); ++k) {
            auto& t = tiles[crowded[static_cast<std::size_t>(k)]];
            const int old = t.type;
            t.type = b;
            if (t.runner_type == b && t.runner_rot == t.rot) std::swap(t.confidence, t.runner_confidence);
            t.runner_type = old, t.runner_rot = t.rot;
            --used[a], ++used[static_cast<std::size_t>(b)];
            ++changed;
        }
    }
    return changed;
}

}  // namespace meeplecam::vision
