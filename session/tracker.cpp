#include "session/tracker.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include "calibration/start_tile_plane.h"
#include "engine/cell_neighbour.h"
#include "engine/correction.h"
#include "engine/ports.h"
#include "session/lab_change.h"
#include "session/table_view.h"
#include "vision/board_reader.h"
#include "vision/pennant_twins.h"
#include "vision/tile_art.h"
#include "vision/tile_classifier.h"

namespace meeplecam::session {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

Status in_range(double v, double lo, double hi, const char* name) {
    if (v >= lo && v <= hi && std::isfinite(v)) return Ok{};
    return invalid("tracker options", std::string(name) + " must be within [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                          "], not " + std::to_string(v));
}

// Returns the median of each channel of an 8-bit 3-channel image, from a sparse sample.
cv::Vec3d channel_medians(const cv::Mat& bgr) {
    std::array<std::array<int, 256>, 3> hist{};
    int n = 0;
    for (int y = 0; y < bgr.rows; y += 3) {
        const auto* row = bgr.ptr<cv::Vec3b>(y);
        for (int x = 0; x < bgr.cols; x += 3) {
            for (int c = 0; c < 3; ++c) ++hist[static_cast<std::size_t>(c)][row[x][c]];
            ++n;
        }
    }
    cv::Vec3d out;
    for (int c = 0; c < 3; ++c) {
        int acc = 0;
        for (int v = 0; v < 256; ++v) {
            acc += hist[static_cast<std::size_t>(c)][static_cast<std::size_t>(v)];
            if (2 * acc >= n) {
                out[c] = std::max(1, v);
                break;
            }
        }
    }
    return out;
}

// A follower the tracker believes is on the table, with what it looked like when it came.
struct Follower {
    int id = -1;              // index into Board::followers()
    std::string colour;       // player colour
    Cell at;
    std::string loc;
    bool has_model = false;   // whether the presence test below can run
    cv::Vec3f lab;            // mean Lab of its most distinctive pixels
    int with_count = 0;       // pixels of its tile near `lab` while it stood there
    int bare_count = 0;       // ...and on the bare tile
};

// Where players put a follower on each feature of a placed tile: the spots with room for it (at
// least `room_share` of the feature's widest room), in millimetres from the tile centre. A
// field or city has one widest spot; a road's room is the same all along it.
std::vector<std::vector<cv::Point2d>> feature_spots(const TileType& type, int rot, double tile_mm, double room_share) {
    constexpr int kPx = 64;
    std::vector<std::vector<cv::Point2d>> out;
    for (const auto& mask : vision::feature_masks(type, rot, kPx)) {
        cv::Mat padded, room;
        cv::copyMakeBorder(mask, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
        cv::distanceTransform(padded, room, cv::DIST_L2, 3);
        double most = 0;
        cv::minMaxLoc(room, nullptr, &most);
        std::vector<cv::Point2d> spots;
        for (int y = 0; y < room.rows; ++y) {
            for (int x = 0; x < room.cols; ++x) {
                if (most > 0 && room.at<float>(y, x) >= room_share * most) {
                    spots.emplace_back(((x - 1 + 0.5) / kPx - 0.5) * tile_mm, ((y - 1 + 0.5) / kPx - 0.5) * tile_mm);
                }
            }
        }
        out.push_back(std::move(spots));
    }
    return out;
}

// The largest blob of a mask: its pixels (a mask) and centroid; empty when none.
struct Blob {
    cv::Mat mask;
    cv::Point2d centroid;
    int area = 0;
};

Blob largest_blob(const cv::Mat& mask, int open_px) {
    cv::Mat m = mask.clone();
    if (open_px > 1) {
        const cv::Mat k = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(open_px, open_px));
        cv::morphologyEx(m, m, cv::MORPH_OPEN, k);
    }
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(m, labels, stats, centroids, 8, CV_32S);
    Blob best;
    for (int i = 1; i < n; ++i) {
        const int area = stats.at<int>(i, cv::CC_STAT_AREA);
        if (area > best.area) {
            best.area = area;
            best.centroid = {centroids.at<double>(i, 0), centroids.at<double>(i, 1)};
            best.mask = labels == i;
        }
    }
    return best;
}

// Returns the type of the catalog that differs from `type` only in its pennants (S/T, M/N...),
// or null.
const TileType* pennant_twin(const Catalog& catalog, const TileType& type) {
    const auto& types = catalog.tiles();
    const std::vector<int> twins = vision::pennant_twins(catalog);
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (types[i].id == type.id && types[i].set == type.set) return twins[i] >= 0 ? &types[static_cast<std::size_t>(twins[i])] : nullptr;
    }
    return nullptr;
}

bool has_pennant(const TileType& t) {
    return std::any_of(t.features.begin(), t.features.end(), [](const FeatureDef& f) { return f.kind == FeatureKind::City && f.pennants > 0; });
}

// Where the tile art draws the pennants of `type` at `rot`, as shares of the tile side (0..1):
// per pennant, every point it may lie on. The art finds them on the tile at rest
// (vision::pennant_points: the first point in raster order farthest from the city's wall and
// the tile edge) and then turns the picture, so they are found at rest here too and turned. A
// city symmetric about an axis (S/T: three sides) has two such points; which one the art takes
// depends on its pixel size, so every point within 3 % of the farthest room is listed.
std::vector<std::vector<cv::Point2d>> pennant_spots(const TileType& type, int rot) {
    constexpr int kPx = 96;
    constexpr double kPennantHeight = 0.12;  // the art's pennant height, share of the tile
    constexpr double kTie = 0.97;            // room within this share of the farthest is a tie
    constexpr int kMaxTies = 3;
    const double keep_off = kPennantHeight * kPx * 1.2;  // the art's spacing of a city's pennants
    std::vector<std::vector<cv::Point2d>> out;
    const cv::Mat labels = vision::feature_labels(type, 0, kPx);
    auto turned = [&](cv::Point p) {
        cv::Point2d q((p.x + 0.5) / kPx, (p.y + 0.5) / kPx);
        for (int k = 0; k < ((rot % 4) + 4) % 4; ++k) q = cv::Point2d(1.0 - q.y, q.x);  // a quarter turn clockwise
        return q;
    };
    for (std::size_t f = 0; f < type.features.size(); ++f) {
        if (type.features[f].kind != FeatureKind::City || type.features[f].pennants <= 0) continue;
        const cv::Mat own = labels == static_cast<int>(f);
        cv::Mat padded, room;
        cv::copyMakeBorder(own, padded, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
        cv::distanceTransform(padded, room, cv::DIST_L2, 3);
        room = room(cv::Rect(1, 1, kPx, kPx)).clone();
        for (int k = 0; k < type.features[f].pennants; ++k) {
            double most = 0;
            cv::Point best;
            cv::minMaxLoc(room, nullptr, &most, nullptr, &best);
            std::vector<cv::Point2d> ties = {turned(best)};
            cv::Mat rest = room.clone();
            cv::circle(rest, best, static_cast<int>(keep_off), cv::Scalar(0), cv::FILLED);
            for (int t = 0; t < kMaxTies; ++t) {
                double v = 0;
                cv::Point p;
                cv::minMaxLoc(rest, nullptr, &v, nullptr, &p);
                if (v < kTie * most || v <= 0) break;
                ties.push_back(turned(p));
                cv::circle(rest, p, static_cast<int>(keep_off), cv::Scalar(0), cv::FILLED);
            }
            out.push_back(std::move(ties));
            cv::circle(room, best, static_cast<int>(keep_off), cv::Scalar(0), cv::FILLED);
        }
    }
    return out;
}

// Where a tile square shows its pennants, as the tile art draws them: the spots (pixels of the
// square) and the plain city around them (away from the walls and the spots).
struct PennantLayout {
    std::vector<std::vector<cv::Point2d>> spots;  // per pennant, every point it may lie on
    cv::Mat plain_city;  // CV_8UC1, 255: plain city
    double radius = 0;   // of the disc read at each spot (px)
};

PennantLayout pennant_layout(const TileType& with_pennant, int rot, int n) {
    constexpr double kPennantHeight = 0.12;  // the art's pennant height, share of the tile
    PennantLayout out;
    for (const auto& ties : pennant_spots(with_pennant, rot)) {
        out.spots.emplace_back();
        for (const auto& sp : ties) out.spots.back().emplace_back(sp.x * n, sp.y * n);
    }
    const cv::Mat labels = vision::feature_labels(with_pennant, rot, n);
    cv::Mat city(labels.size(), CV_8UC1, cv::Scalar(0));
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const int f = labels.at<int>(y, x);
            if (f >= 0 && with_pennant.features[static_cast<std::size_t>(f)].kind == FeatureKind::City) city.at<std::uint8_t>(y, x) = 255;
        }
    }
    cv::Mat framed;
    cv::copyMakeBorder(city, framed, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
    const int wall = std::max(1, static_cast<int>(std::lround(0.07 * n)));
    cv::erode(framed, framed, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * wall + 1, 2 * wall + 1)));
    out.plain_city = framed(cv::Rect(1, 1, n, n)).clone();
    const double h = kPennantHeight * n;
    for (const auto& ties : out.spots) {
        for (const auto& sp : ties) cv::circle(out.plain_city, sp, static_cast<int>(std::lround(h * 1.1)), cv::Scalar(0), cv::FILLED);
    }
    out.radius = 0.35 * h;
    return out;
}

// Where the art of a tile draws coloured details of its own (n x n masks, 255): `small` where a
// follower may stand over them (its pennants: a disc around every spot the art may put one
// on; its monastery), `buildings` where none stands (a bazaar's stall, inns).
struct ArtDetails {
    cv::Mat small, buildings;
};

ArtDetails art_details(const TileType& type, int rot, int n) {
    constexpr double kPennantHeight = 0.12;  // the art's pennant height, share of the tile
    ArtDetails out{cv::Mat(n, n, CV_8UC1, cv::Scalar(0)), cv::Mat(n, n, CV_8UC1, cv::Scalar(0))};
    for (const auto& ties : pennant_spots(type, rot)) {
        for (const auto& sp : ties) {
            cv::circle(out.small, cv::Point2d(sp.x * n, sp.y * n), static_cast<int>(std::lround(kPennantHeight * n * 0.8)), cv::Scalar(255), cv::FILLED);
        }
    }
    const cv::Mat labels = vision::feature_labels(type, rot, n);
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const int f = labels.at<int>(y, x);
            if (f >= 0 && type.features[static_cast<std::size_t>(f)].kind == FeatureKind::Monastery) out.small.at<std::uint8_t>(y, x) = 255;
        }
    }
    // Drawn at rotation 0, then turned.
    auto fill = [&](const cv::Rect2d& box) {
        cv::rectangle(out.buildings, cv::Rect(cv::Point(static_cast<int>(std::floor(box.x * n)), static_cast<int>(std::floor(box.y * n))),
                                              cv::Point(static_cast<int>(std::ceil((box.x + box.width) * n)), static_cast<int>(std::ceil((box.y + box.height) * n)))),
                      cv::Scalar(255), cv::FILLED);
    };
    if (type.has_tag("bazaar")) fill({0.36, 0.36, 0.28, 0.28});
    for (const cv::Rect2d& inn : vision::inn_boxes(type)) fill(inn);
    for (int k = 0; k < ((rot % 4) + 4) % 4; ++k) cv::rotate(out.buildings, out.buildings, cv::ROTATE_90_CLOCKWISE);
    return out;
}

// Returns the float Lab pixels of the disc of `radius` within `reach` px of `centre` that has
// the largest share of pixels `wanted`.
// The share of the pixels of `mask` (CV_8U) within `radius` of `centre` that are set; 0 when the
// disc lies outside the mask.
double set_share_in_disc(const cv::Mat& mask, cv::Point2d centre, double radius) {
    int in = 0, on = 0;
    for (int y = static_cast<int>(centre.y - radius); y <= static_cast<int>(centre.y + radius) + 1; ++y) {
        for (int x = static_cast<int>(centre.x - radius); x <= static_cast<int>(centre.x + radius) + 1; ++x) {
            if (x < 0 || y < 0 || x >= mask.cols || y >= mask.rows || cv::norm(cv::Point2d(x, y) - centre) > radius) continue;
            ++in;
            on += mask.at<std::uint8_t>(y, x) ? 1 : 0;
        }
    }
    return in > 0 ? on / static_cast<double>(in) : 0.0;
}

std::vector<cv::Vec3f> best_disc(const cv::Mat& lab, cv::Point2d centre, double radius, int reach,
                                 const std::function<bool(const cv::Vec3f&)>& wanted) {
    const int step = std::max(1, static_cast<int>(std::lround(radius / 2)));
    std::vector<cv::Vec3f> best;
    double best_share = -1;
    for (int dy = -reach; dy <= reach; dy += step) {
        for (int dx = -reach; dx <= reach; dx += step) {
            const cv::Point2d c(centre.x + dx, centre.y + dy);
            std::vector<cv::Vec3f> px;
            int hits = 0;
            for (int y = static_cast<int>(c.y - radius); y <= static_cast<int>(c.y + radius) + 1; ++y) {
                for (int x = static_cast<int>(c.x - radius); x <= static_cast<int>(c.x + radius) + 1; ++x) {
                    if (x < 0 || y < 0 || x >= lab.cols || y >= lab.rows || cv::norm(cv::Point2d(x, y) - c) > radius) continue;
                    px.push_back(lab.at<cv::Vec3f>(y, x));
                    hits += wanted(px.back()) ? 1 : 0;
                }
            }
            const double share = px.empty() ? 0.0 : hits / static_cast<double>(px.size());
            if (share > best_share) {
                best_share = share;
                best = std::move(px);
            }
        }
    }
    return best;
}

// Returns the per-channel median of Lab pixels (zero when none).
cv::Vec3f median_lab(std::array<std::vector<float>, 3>& ch) {
    cv::Vec3f m(0, 0, 0);
    for (int c = 0; c < 3; ++c) {
        auto& v = ch[static_cast<std::size_t>(c)];
        if (v.empty()) return m;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        m[c] = v[v.size() / 2];
    }
    return m;
}

// The plain city colour of a tile square (float Lab): the median of its plain city pixels;
// nullopt when it shows too little plain city.
std::optional<cv::Vec3f> plain_city_lab(const cv::Mat& lab, const PennantLayout& layout) {
    std::array<std::vector<float>, 3> ch;
    for (int y = 0; y < lab.rows; ++y) {
        for (int x = 0; x < lab.cols; ++x) {
            if (!layout.plain_city.at<std::uint8_t>(y, x)) continue;
            const cv::Vec3f v = lab.at<cv::Vec3f>(y, x);
            for (int c = 0; c < 3; ++c) ch[static_cast<std::size_t>(c)].push_back(v[c]);
        }
    }
    if (ch[0].size() < static_cast<std::size_t>(4 * layout.radius * layout.radius)) return std::nullopt;
    return median_lab(ch);
}

}  // namespace

Status TrackerOptions::check() const {
    const std::array<Status, 36> checks = {
        in_range(tile_mm, 10, 200, "tile_mm"),
        in_range(gap_mm, 0, 20, "gap_mm"),
        in_range(view_px_per_mm, 0.5, 8, "view_px_per_mm"),
        in_range(motion_width_px, 32, 4096, "motion_width_px"),
        in_range(motion_threshold, 1, 255, "motion_threshold"),
        in_range(motion_share, 0, 1, "motion_share"),
        in_range(stable_frames, 1, 1000, "stable_frames"),
        in_range(change_threshold, 1, 200, "change_threshold"),
        in_range(tile_change_share, 0.05, 1, "tile_change_share"),
        in_range(piece_change_share, 0.001, 1, "piece_change_share"),
        in_range(occlusion_share, 0.001, 1, "occlusion_share"),
        in_range(occlusion_cells, 1, 1000, "occlusion_cells"),
        in_range(commit_margin, 0, 1000, "commit_margin"),
        in_range(illegal_margin, 0, 1000, "illegal_margin"),
        in_range(max_candidates, 2, 64, "max_candidates"),
        in_range(reread_depth, 0, 8, "reread_depth"),
        in_range(reread_min_confidence, 0, 1, "reread_min_confidence"),
        in_range(pennant_hidden_share, 0, 1, "pennant_hidden_share"),
        in_range(shift_candidates, 0, 64, "shift_candidates"),
        in_range(shift_reach_mm, 0, 10, "shift_reach_mm"),
        in_range(shift_step_mm, 0.25, 10, "shift_step_mm"),
        in_range(pennant_cost, 0, 1000, "pennant_cost"),
        in_range(supply_prior_weight, 0, 10, "supply_prior_weight"),
        in_range(pennant_min_area, 0.0001, 0.1, "pennant_min_area"),
        in_range(pennant_none_area, 0, 0.1, "pennant_none_area"),
        in_range(pennant_spot_present, 0, 1, "pennant_spot_present"),
        in_range(pennant_spot_absent, 0, pennant_spot_present, "pennant_spot_absent"),
        in_range(pennant_spot_unlike, 1, 200, "pennant_spot_unlike"),
        in_range(pennant_spot_near, 1, 200, "pennant_spot_near"),
        in_range(pennant_spot_slack, 0, 0.25, "pennant_spot_slack"),
        in_range(piece_min_area, 0.001, 0.5, "piece_min_area"),
        in_range(camera_shift_min_mm, 0, 100, "camera_shift_min_mm"),
        in_range(camera_shift_max_mm, camera_shift_min_mm, 500, "camera_shift_max_mm"),
        in_range(camera_min_correlation, 0, 1, "camera_min_correlation"),
        in_range(refit_min_tiles, 2, 1000, "refit_min_tiles"),
        in_range(refit_max_rms_mm, 0.1, 20, "refit_max_rms_mm"),
    };
    for (const auto& st : checks) {
        if (!st) return st;
    }
    if (auto st = piece_colours.check(); !st) return invalid("tracker options: piece_colours", st.error().message);
    if (auto st = follower_on_tile.check(); !st) return st;
    return in_range(piece_colour_threshold, 1, 200, "piece_colour_threshold");
}

// ---------------------------------------------------------------------------------------

struct Tracker::State {
    TrackerOptions opt;
    cv::Matx33d image_to_table;
    Record record;
    std::optional<Game> game;
    std::optional<vision::TileClassifier> classifier;
    std::map<std::string, std::optional<vision::TileClassifier>> bridged;  // "type|axis" -> classifier of that bridged variant
    std::vector<std::string> corrections;
    std::map<Cell, std::vector<CandidateMove>> likelihood;  // per cell read: every legal placement, likeliest first
    std::map<Cell, FollowerReading> follower_reading;       // per cell a follower was read in: what was seen of it
    cv::Mat painted_over;  // CV_8U, view size, while a new tile is read: 255 where its follower was painted over (else empty)
    // What this table's art shows in each player's colour: the largest follower-like blob (share
    // of the cell) found on placed tiles that hold no follower, and the cells already looked at.
    std::map<std::string, double> art_blob_share;
    std::set<std::pair<int, int>> art_learnt;
    mutable std::map<std::tuple<std::string, int, int>, PennantLayout> pennant_layouts;  // (type, rot, side px) -> where its pennants show

    // Motion.
    cv::Mat previous_small;
    int still_frames = 0;
    bool read_this_stillness = false;
    FrameState last_state = FrameState::Moving;

    // The last confirmed look of the table, in the view of `view`.
    TableView view;
    cv::Mat confirmed;  // BGR, view.size()
    std::vector<Cell> expect_change;  // cells an entered event changed (a bridge): refresh without reading
    std::vector<Cell> decorated;      // cells an entered event put a piece on (a castle, a bridge, a ferry): not plain tile art

    // Followers on the table and those a scoring sent back.
    std::vector<Follower> followers;
    std::vector<Follower> must_return;

    // An open question to the players.
    std::vector<CandidateMove> pending;
    std::optional<Cell> illegal_cell;  // the cell last read as an illegal move
    std::vector<Cell> stale;           // cells changed but unexplained at the last read (a knocked follower, an unread tile)
    cv::Mat pending_frame;  // the frame the question was asked on
    cv::Mat pending_view;   // ...warped and levelled

    // Snapshots to undo a turn: the record length and the confirmed look before its tile.
    struct Snapshot {
        std::size_t events = 0;
        TableView view;
        cv::Mat confirmed;
    };
    std::deque<Snapshot> history;

    double pitch() const { return opt.tile_mm + opt.gap_mm; }
    Game& g() { return *game; }

    Status rebuild_game();
    void sync_followers_from_game();
    void note_released(std::vector<Follower>& before, TrackerUpdate& up);
    TableView view_for_board() const;
    void regrow_view(const cv::Mat& frame);
    std::optional<cv::Matx33d> camera_moved(const cv::Mat& frame, TrackerUpdate& up) const;
    void refit_plane(const cv::Mat& frame, TrackerUpdate& up);
    cv::Mat cell_crop(const cv::Mat& view_img, Cell c, double share) const;
    // Ranks the legal placements at `at`; keeps every one of them, with its likelihood, in `likelihood`.
    std::vector<CandidateMove> rank_candidates(const cv::Mat& frame_view, Cell at, std::optional<IllegalMove>* illegal, TrackerUpdate* up);
    // Ranks the new tile at `at` on the view with a follower painted over and on the view as
    // seen, each placement costing a blend of the two (FollowerOnTileOptions::raw_view_weight).
    std::vector<CandidateMove> rank_with_follower_cleared(const cv::Mat& cleared, const cv::Mat& raw, Cell at,
                                                          std::optional<IllegalMove>* illegal, TrackerUpdate* up);
    // Keeps every ranked placement with its likelihood in `likelihood`; returns the listed ones.
    std::vector<CandidateMove> keep_likelihoods(Cell at, std::vector<CandidateMove> ranked);
    const vision::TileClassifier* bridged_classifier(const TileType& type, int catalog_axis);
    std::optional<double> classifier_cost(const cv::Mat& canonical, const CandidateMove& move, Cell at);
    void refine_by_shifting(const cv::Mat& frame_view, Cell at, std::vector<CandidateMove>& ranked);
    void weigh_pennants(const cv::Mat& frame_view, Cell at, std::vector<CandidateMove>& ranked, TrackerUpdate* up) const;
    const PennantLayout& pennant_layout_of(const TileType& with_pennant, int rot, int side) const;
    std::optional<cv::Vec3f> learn_pennant_colour(const cv::Mat& frame_view) const;
    Status commit_tile(const CandidateMove& move, const cv::Mat& frame_view, TrackerUpdate& up);
    // When the next move does not fit the record (`fits` refuses every game it is given), re-reads
    // one or two of the last tiles (TrackerOptions::reread_depth) as their likeliest other legal
    // placements under which it fits; true when one did (the record and game are then replaced;
    // no correction event: nobody corrected it). The last tile's alternatives need
    // `last_min_confidence` of its reading's likelihood (0 when the players' own entry or the
    // engine refuses what follows it; a mere reading of the next tile asks as much as for earlier ones).
    bool rerank_recent_tiles(const std::function<bool(Game&)>& fits, const std::string& why, TrackerUpdate* up,
                             double last_min_confidence = 0);
    // The port of the feature of `type` turned `rot` whose follower spot lies nearest to
    // `centre_mm` (from the tile's centre, table axes); nullopt when the tile has no feature.
    std::optional<std::string> port_nearest(const TileType& type, int rot, cv::Point2d centre_mm) const;
    void detect_follower_on_new_tile(const cv::Mat& view_img, Cell at, TrackerUpdate& up);
    // Looks at the confirmed look of placed tiles whose turn is over and that hold no follower:
    // any follower-like blob there in a player's colour is art (red roofs), and a follower put
    // down with its tile must be clearly larger than it.
    void learn_art_colours();
    // Whether `blob` stands out from the art of `colour` learnt so far.
    bool larger_than_art(const std::string& colour, const FollowerBlob& blob) const;
    // The side of the tile at `at` in camera pixels (the mean of its four sides).
    double tile_side_px(Cell at) const;
    // The view with a follower of `player`'s colour on the new tile at `at` painted over (so the
    // tile is read without it); `view_img` itself when none is seen there. `painted` (when
    // given and a follower was painted over) gets the pixels painted over (CV_8U, view size).
    cv::Mat without_new_follower(const cv::Mat& view_img, Cell at, int player, TrackerUpdate* up, cv::Mat* painted = nullptr) const;
    // The pixels of `r` that changed since the confirmed look (CV_8U, r's size; 255: changed).
    cv::Mat changed_since_confirmed(const cv::Mat& view_img, const cv::Rect& r) const;
    bool place_follower_from_blob(const Blob& blob, const cv::Rect& cell, const cv::Mat& lab_now, const cv::Mat& lab_bare,
                                  TrackerUpdate& up);
    bool follower_present(const Follower& f, const cv::Mat& lab_now) const;
    void analyse(const cv::Mat& frame, TrackerUpdate& up);
};

TableView Tracker::State::view_for_board() const {
    return TableView(window_around(game->board(), 2), pitch(), opt.view_px_per_mm);
}

// Moves the confirmed look into the view the board needs now; new cells are read from `frame`.
void Tracker::State::regrow_view(const cv::Mat& frame) {
    const TableView next = view_for_board();
    if (!confirmed.empty() && next.window() == view.window()) return;
    cv::Mat grown = next.warp(frame, image_to_table);
    if (!confirmed.empty()) {
        const cv::Point off = next.offset_of(view);
        const cv::Rect src_rect = cv::Rect(off, confirmed.size()) & cv::Rect(cv::Point(0, 0), grown.size());
        if (src_rect.area() > 0) confirmed(src_rect - off).copyTo(grown(src_rect));
    }
    view = next;
    confirmed = grown;
}

cv::Mat Tracker::State::cell_crop(const cv::Mat& view_img, Cell c, double share) const {
    return view_img(view.cell_core(c, share)).clone();
}

Status Tracker::State::rebuild_game() {
    ReplayOptions ro;
    ro.apply_finish = record.finished;
    ro.close_last_turn = record.finished;
    auto replayed = replay(record, ro);
    if (!replayed) return replayed.error();
    game.emplace(std::move(replayed).value());
    return Ok{};
}

// Lists the followers the game has on the board, keeping what the tracker learned of each.
void Tracker::State::sync_followers_from_game() {
    std::vector<Follower> next;
    const Board& b = game->board();
    for (std::size_t i = 0; i < b.followers().size(); ++i) {
        const auto& bf = b.followers()[i];
        if (!bf.on_board) continue;
        Follower f;
        f.id = static_cast<int>(i);
        f.colour = game->players()[static_cast<std::size_t>(bf.player)].color;
        f.at = bf.at;
        f.loc = std::string(port_name(bf.loc));
        for (const auto& old : followers) {
            if (old.at == f.at && old.colour == f.colour && old.has_model) {
                f.has_model = true;
                f.lab = old.lab;
                f.with_count = old.with_count;
                f.bare_count = old.bare_count;
            }
        }
        next.push_back(f);
    }
    followers = std::move(next);
}

// Moves the followers the game just returned (scored) to the must-return list.
void Tracker::State::note_released(std::vector<Follower>& before, TrackerUpdate& up) {
    const Board& b = game->board();
    std::vector<Follower> kept;
    for (auto& f : before) {
        const bool gone = f.id >= static_cast<int>(b.followers().size()) || !b.followers()[static_cast<std::size_t>(f.id)].on_board;
        if (gone) {
            must_return.push_back(f);
            up.notes.push_back("the " + f.colour + " follower at " + to_string(f.at) + " " + f.loc + " scored and must go back");
        } else {
            kept.push_back(f);
        }
    }
    before = std::move(kept);
}

// The tile classifier of a tile type with a bridge built on it (catalog axis 0 N-S, 1 E-W),
// made on first use; null when the type cannot carry that bridge.
const vision::TileClassifier* Tracker::State::bridged_classifier(const TileType& type, int catalog_axis) {
    const std::string key = type.id + (catalog_axis == 0 ? "|NS" : "|EW");
    auto it = bridged.find(key);
    if (it == bridged.end()) {
        std::optional<vision::TileClassifier> made;
        if (auto variant = with_bridge(type, catalog_axis)) {
            if (auto c = vision::TileClassifier::create(std::vector<TileType>{std::move(variant).value()}, classifier->options())) {
                made.emplace(std::move(c).value());
            }
        }
        it = bridged.emplace(key, std::move(made)).first;
    }
    return it->second ? &*it->second : nullptr;
}

const PennantLayout& Tracker::State::pennant_layout_of(const TileType& with_pennant, int rot, int side) const {
    const auto key = std::make_tuple(with_pennant.id, rot, side);
    auto it = pennant_layouts.find(key);
    if (it == pennant_layouts.end()) it = pennant_layouts.emplace(key, pennant_layout(with_pennant, rot, side)).first;
    return it->second;
}

// The colour pennants show in `frame_view` (float Lab): at the spots of the placed tiles with
// pennants (no follower on them), the pixels unlike their own plain city; nullopt before
// enough of them were seen.
std::optional<cv::Vec3f> Tracker::State::learn_pennant_colour(const cv::Mat& frame_view) const {
    constexpr float kHouseLike = 8.0f;  // Lab distance to a colour of a pennantless city within which a pixel is a house's
    const double share = opt.tile_mm / pitch();
    // The colours of the cities without pennants (their plain city and houses, 2-unit boxes):
    // pixels near them at a pennant spot are a house the art drew there, not a pennant.
    std::map<std::tuple<int, int, int>, cv::Vec3f> house_boxes;
    for (const auto& t : game->board().tiles()) {
        if (!view.window().contains(t.at) || has_pennant(*t.type)) continue;
        if (std::none_of(t.type->features.begin(), t.type->features.end(), [](const FeatureDef& f) { return f.kind == FeatureKind::City; })) continue;
        if (std::any_of(followers.begin(), followers.end(), [&](const Follower& f) { return f.at == t.at; })) continue;
        if (std::find(decorated.begin(), decorated.end(), t.at) != decorated.end()) continue;
        const cv::Rect r = view.cell_core(t.at, share);
        if (r.width != r.height || r.width < 16 || (r & cv::Rect(0, 0, frame_view.cols, frame_view.rows)) != r) continue;
        const PennantLayout& layout = pennant_layout_of(*t.type, t.rot, r.width);
        const cv::Mat lab = to_lab(frame_view(r));
        for (int y = 0; y < lab.rows; ++y) {
            for (int x = 0; x < lab.cols; ++x) {
                if (!layout.plain_city.at<std::uint8_t>(y, x)) continue;
                const cv::Vec3f v = lab.at<cv::Vec3f>(y, x);
                house_boxes.emplace(std::make_tuple(static_cast<int>(v[0] / 2), static_cast<int>(v[1] / 2), static_cast<int>(v[2] / 2)), v);
            }
        }
    }
    std::vector<cv::Vec3f> houses;
    for (const auto& [box, v] : house_boxes) houses.push_back(v);
    const auto house_like = [&](const cv::Vec3f& v) {
        return std::any_of(houses.begin(), houses.end(), [&](const cv::Vec3f& c) {
            const cv::Vec3f d = v - c;
            return d.dot(d) < kHouseLike * kHouseLike;
        });
    };
    constexpr std::size_t kMinPixels = 8;
    std::array<std::vector<float>, 3> samples;
    for (const auto& t : game->board().tiles()) {
        if (!view.window().contains(t.at) || !has_pennant(*t.type)) continue;
        if (std::find(decorated.begin(), decorated.end(), t.at) != decorated.end()) continue;
        // A follower on the tile's city may stand on the pennant; one elsewhere (a field, a road)
        // is left out by its colour.
        std::vector<cv::Vec3f> follower_colours;
        bool usable = true;
        for (const auto& f : followers) {
            if (f.at != t.at) continue;
            const auto port = parse_port(f.loc);
            const int feature = port ? t.type->feature_at(*port, t.rot) : -1;
            const bool on_city = feature < 0 || t.type->features[static_cast<std::size_t>(feature)].kind == FeatureKind::City;
            if (on_city || !f.has_model) usable = false;
            follower_colours.push_back(f.lab);
        }
        if (!usable) continue;
        const auto follower_like = [&](const cv::Vec3f& v) {
            return std::any_of(follower_colours.begin(), follower_colours.end(),
                               [&](const cv::Vec3f& c) { return cv::norm(v - c) < opt.piece_colour_threshold; });
        };
        const cv::Rect r = view.cell_core(t.at, share);
        if (r.width != r.height || r.width < 16 || (r & cv::Rect(0, 0, frame_view.cols, frame_view.rows)) != r) continue;
        const PennantLayout& layout = pennant_layout_of(*t.type, t.rot, r.width);
        const cv::Mat lab = to_lab(frame_view(r));
        const auto city = plain_city_lab(lab, layout);
        if (!city) continue;
        const auto unlike = [&](const cv::Vec3f& v) { return cv::norm(v - *city) > opt.pennant_spot_unlike && !follower_like(v) && !house_like(v); };
        const int reach = static_cast<int>(std::lround(opt.pennant_spot_slack * r.width));
        for (const auto& ties : layout.spots) {
            // Where the art may have put it in several places, only one of them may look unlike
            // plain city (the others show plain city, or houses: then nothing is learnt here).
            std::vector<std::vector<cv::Vec3f>> discs;
            int unlike_discs = 0;
            for (const auto& sp : ties) {
                discs.push_back(best_disc(lab, sp, layout.radius, reach, unlike));
                const auto& d = discs.back();
                const double odd = d.empty() ? 0.0 : static_cast<double>(std::count_if(d.begin(), d.end(), unlike)) / static_cast<double>(d.size());
                if (odd > opt.pennant_spot_absent) ++unlike_discs;
            }
            if (ties.size() > 1 && unlike_discs != 1) continue;
            for (const auto& d : discs) {
                const double odd = d.empty() ? 0.0 : static_cast<double>(std::count_if(d.begin(), d.end(), unlike)) / static_cast<double>(d.size());
                if (ties.size() > 1 && odd <= opt.pennant_spot_absent) continue;
                for (const auto& v : d) {
                    if (!unlike(v)) continue;
                    for (int c = 0; c < 3; ++c) samples[static_cast<std::size_t>(c)].push_back(v[c]);
                }
            }
        }
    }
    if (samples[0].size() < kMinPixels) return std::nullopt;
    return median_lab(samples);
}

// Penalises each candidate that has a pennant twin (M/N, O/P, ...) when the pennant evidence
// at `at` speaks for the twin: plain city colours are learnt from the placed tiles in
// `frame_view` (vision::decide_pennants), a blob unlike them inside the candidate's city is a
// pennant. Tiles with a follower on them are left out (a blue follower is no city colour).
void Tracker::State::weigh_pennants(const cv::Mat& frame_view, Cell at, std::vector<CandidateMove>& ranked, TrackerUpdate* up) const {
    constexpr std::size_t kWeighed = 6;  // candidates looked at, best first
    if (ranked.size() < 2) return;
    const Catalog& cat = game->catalog();
    vision::LatticeView lattice;
    lattice.top = frame_view;
    lattice.px_per_mm = view.px_per_mm();
    lattice.pitch_px = view.pitch_px();
    lattice.cols = view.window().cols();
    lattice.rows = view.window().rows();
    std::vector<vision::DecodedTile> tiles;
    const CellWindow& w = view.window();
    std::vector<Cell> with_follower;
    for (const auto& f : followers) with_follower.push_back(f.at);
    for (const auto& t : game->board().tiles()) {
        if (!w.contains(t.at) || std::find(with_follower.begin(), with_follower.end(), t.at) != with_follower.end()) continue;
        const TileType* type = cat.find(t.type->id);
        if (type == nullptr) continue;
        vision::DecodedTile d;
        d.col = t.at.x - w.x0;
        d.row = t.at.y - w.y0;
        d.type = type->index;
        d.rot = t.rot;
        tiles.push_back(d);
    }
    tiles.emplace_back();
    // Plain city is learnt from the placed tiles only, never from the new one (its own pennant
    // would count as plain city): one reference tile (the start tile) is enough.
    vision::PennantOptions pennant_options;
    pennant_options.min_reference_cells = 1;
    // On footage where a tile is ~60 px wide a pennant shows as 0.15-1.3 % of the tile and a
    // pennantless twin as 0-0.15 %: between pennant_none_area and pennant_min_area nothing is decided.
    pennant_options.min_area = opt.pennant_min_area;
    bool changed = false;
    // Penalises candidate i: the evidence favours its twin, which ends ahead by pennant_cost.
    auto speak_against = [&](std::size_t i, const TileType& type, const TileType& twin, const std::string& why) {
        double floor = ranked[i].cost;
        for (const auto& c : ranked) {
            if (c.tile == twin.id && vision::same_rotation(twin, c.rot, ranked[i].rot)) floor = std::max(floor, c.cost);
        }
        ranked[i].cost = floor + opt.pennant_cost;
        changed = true;
        if (up != nullptr) up->notes.push_back("pennant evidence at " + to_string(at) + " (" + why + ") speaks against " + type.id);
    };
    const auto pennant_lab = learn_pennant_colour(frame_view);
    const cv::Rect square = view.cell_core(at, opt.tile_mm / pitch());
    const cv::Mat square_lab = to_lab(frame_view(square));
    const int reach = static_cast<int>(std::lround(opt.pennant_spot_slack * square.width));
    for (std::size_t i = 0; i < ranked.size() && i < kWeighed; ++i) {
        const TileType* type = cat.find(ranked[i].tile);
        if (type == nullptr) continue;
        // First where the art puts the pennant: a disc there of the pennant colour the placed
        // tiles with pennants show.
        const TileType* spot_twin = pennant_twin(cat, *type);
        // A follower painted over where the pennant would be may have taken it with it (a blue
        // follower on a blue pennant): there, only a pennant still seen is evidence.
        bool spot_hidden = false;
        if (spot_twin != nullptr && !painted_over.empty() && square.width == square.height && square.width >= 16) {
            const TileType& with = has_pennant(*type) ? *type : *spot_twin;
            const PennantLayout& layout = pennant_layout_of(with, ranked[i].rot, square.width);
            const cv::Mat painted = painted_over(square);
            for (const auto& ties : layout.spots) {
                for (const auto& sp : ties) spot_hidden = spot_hidden || set_share_in_disc(painted, sp, layout.radius) >= opt.pennant_hidden_share;
            }
        }
        // Ties the twins: neither the image nor the pennant tells them apart (the players are asked).
        auto tie_twins = [&](const TileType& twin) {
            for (auto& c : ranked) {
                if (c.tile != twin.id || !vision::same_rotation(twin, c.rot, ranked[i].rot)) continue;
                const double low = std::min(c.cost, ranked[i].cost);
                c.cost = low;
                ranked[i].cost = low;
                changed = true;
            }
            if (up != nullptr) up->notes.push_back("the pennant spot at " + to_string(at) + " for " + ranked[i].tile + " " + std::to_string(ranked[i].rot * 90) +
                                                   " lies under the follower painted over: " + ranked[i].tile + " and " + twin.id + " are not told apart");
        };
        if (spot_twin != nullptr && pennant_lab && square.width == square.height && square.width >= 16) {
            const TileType& with = has_pennant(*type) ? *type : *spot_twin;
            const PennantLayout& layout = pennant_layout_of(with, ranked[i].rot, square.width);
            const auto near = [&](const cv::Vec3f& v) { return cv::norm(v - *pennant_lab) < opt.pennant_spot_near; };
            double spot = 0;
            for (const auto& ties : layout.spots) {
                double best = 0;  // the pennant is on the likeliest of its points
                for (const auto& sp : ties) {
                    const auto disc = best_disc(square_lab, sp, layout.radius, reach, near);
                    if (!disc.empty()) best = std::max(best, static_cast<double>(std::count_if(disc.begin(), disc.end(), near)) / static_cast<double>(disc.size()));
                }
                spot += best;
            }
            spot /= static_cast<double>(std::max<std::size_t>(1, layout.spots.size()));
            if (up != nullptr) {
                up->notes.push_back("pennant spot at " + to_string(at) + " for " + type->id + " " + std::to_string(ranked[i].rot * 90) + ": " +
                                    std::to_string(spot).substr(0, 4));
            }
            const bool present = spot >= opt.pennant_spot_present, absent = spot <= opt.pennant_spot_absent;
            if (spot_hidden && !present) {
                tie_twins(*spot_twin);
                continue;
            }
            if (present || absent) {
                if (present != has_pennant(*type)) speak_against(i, *type, *spot_twin, "pennant colour on " + std::to_string(spot).substr(0, 4) + " of its spot");
                continue;
            }
        }
        vision::DecodedTile& fresh = tiles.back();
        fresh = vision::DecodedTile{};
        fresh.col = at.x - w.x0;
        fresh.row = at.y - w.y0;
        fresh.type = type->index;
        fresh.rot = ranked[i].rot;
        const auto evidence = vision::decide_pennants(lattice, tiles, cat, pennant_options);
        const bool favours_pennant = !evidence.empty() && evidence.back().decided &&
                                     has_pennant(cat.tiles()[static_cast<std::size_t>(tiles.back().type)]);
        if (spot_hidden && !favours_pennant) {
            tie_twins(*spot_twin);
            continue;
        }
        if (evidence.empty() || !evidence.back().decided || tiles.back().type == type->index) continue;
        // A blob between the two thresholds may be a small pennant or a speck: the classifier decides.
        if (evidence.back().blob_area >= opt.pennant_none_area && evidence.back().blob_area < opt.pennant_min_area) continue;
        // The twin the evidence favours ends ahead of this one by pennant_cost (the classifier's
        // own pennant term looks for blue and misses pennants of other colours).
        const TileType& twin = cat.tiles()[static_cast<std::size_t>(tiles.back().type)];
        speak_against(i, *type, twin, "blob " + std::to_string(evidence.back().blob_area * 100).substr(0, 4) + "% of the tile");
    }
    if (changed) std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.cost < b.cost; });
}

// The classifier's cost of `move` (at `at`) for a canonical tile square: the tile with its
// bridge drawn when the move builds one on it; nullopt when the classifier cannot score it.
std::optional<double> Tracker::State::classifier_cost(const cv::Mat& canonical, const CandidateMove& move, Cell at) {
    const TileType* type = game->catalog().find(move.tile);
    if (type == nullptr) return std::nullopt;
    const nlohmann::json* bridge = move.extra.is_object() && move.extra.contains("bridge") ? &move.extra["bridge"] : nullptr;
    if (bridge != nullptr && bridge->contains("at") && (*bridge)["at"] == nlohmann::json{at.x, at.y}) {
        const int board_axis = bridge->value("axis", std::string("NS")) == "NS" ? 0 : 1;
        const auto* bc = bridged_classifier(*type, (board_axis + move.rot) % 2);
        if (bc == nullptr) return std::nullopt;
        const TileType& variant = bc->types().front();
        for (const auto& h : bc->score_canonical(canonical)) {
            if (vision::same_rotation(variant, move.rot, h.rot)) return h.cost;
        }
        return std::nullopt;
    }
    for (const auto& h : classifier->score_canonical(canonical, type->id)) {
        if (h.tile == type->id && vision::same_rotation(*type, move.rot, h.rot)) return h.cost;
    }
    return std::nullopt;
}

// Tiles lie a few millimetres off their cell: re-scores the likeliest candidates on the tile
// square shifted by up to shift_reach_mm each way, each keeping its best fit (its cost drops by
// what the shift gained), and re-ranks them.
void Tracker::State::refine_by_shifting(const cv::Mat& frame_view, Cell at, std::vector<CandidateMove>& ranked) {
    if (ranked.size() < 2 || opt.shift_candidates == 0) return;
    const cv::Rect core = view.cell_core(at, opt.tile_mm / pitch());
    const int side = classifier->options().canonical_px;
    const double ppm = view.px_per_mm();
    const std::size_t n = std::min(static_cast<std::size_t>(opt.shift_candidates), ranked.size());
    std::vector<double> best(n, std::numeric_limits<double>::max());
    std::vector<std::optional<double>> centred(n);  // the cost the ranking holds (before the supply prior)
    const int steps = static_cast<int>(std::floor(opt.shift_reach_mm / opt.shift_step_mm + 1e-9));
    for (int sy = -steps; sy <= steps; ++sy) {
        for (int sx = -steps; sx <= steps; ++sx) {
            const cv::Rect r = core + cv::Point(static_cast<int>(std::lround(sx * opt.shift_step_mm * ppm)), static_cast<int>(std::lround(sy * opt.shift_step_mm * ppm)));
            if ((r & cv::Rect(0, 0, frame_view.cols, frame_view.rows)) != r) continue;
            cv::Mat canonical;
            cv::resize(frame_view(r), canonical, cv::Size(side, side), 0, 0, cv::INTER_AREA);
            for (std::size_t i = 0; i < n; ++i) {
                const auto c = classifier_cost(canonical, ranked[i], at);
                if (!c) continue;
                best[i] = std::min(best[i], *c);
                if (sx == 0 && sy == 0) centred[i] = c;
            }
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (centred[i] && best[i] < *centred[i]) ranked[i].cost -= *centred[i] - best[i];
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.cost < b.cost; });
}

// Ranks the legal placements at `at` by how well the tile seen there fits them; sets
// `illegal` when an illegal (type, rotation) fits clearly better than every legal one.
std::vector<CandidateMove> Tracker::State::rank_candidates(const cv::Mat& frame_view, Cell at, std::optional<IllegalMove>* illegal,
                                                           TrackerUpdate* up) {
    // The cell is known in table coordinates: crop the tile square itself (neighbours touch it,
    // so the classifier's own square finder would take them in), at the classifier's size.
    const cv::Mat crop = cell_crop(frame_view, at, opt.tile_mm / pitch());
    cv::Mat canonical;
    const int side = classifier->options().canonical_px;
    cv::resize(crop, canonical, cv::Size(side, side), 0, 0, cv::INTER_AREA);
    const auto hyps = classifier->score_canonical(canonical);
    const Catalog& cat = game->catalog();
    // A tile a rule module deals to the next player (an auctioned tile) is the only one possible.
    std::optional<std::string> assigned;
    for (const auto& m : game->modules()) {
        if (auto id = m->assigned_tile(*game)) assigned = *id;
    }
    // What may lie at `at`: plain legal placements, and placements a module makes legal (a bridge).
    struct Option {
        const TileType* type;
        int rot;
        nlohmann::json extra;
    };
    std::vector<Option> legal;
    // The tile drawn is one of the copies left: a type with more copies left is likelier. The
    // classifier's costs are log-likelihoods at its softmax temperature, so the prior adds
    // -weight * temperature * log(copies left / the most copies any type has left) (0 for the
    // commonest type; a plain road with 8 left ahead of its one bazaar twin by 0.9 units at 0.3).
    int most_left = 1;
    for (const auto& type : cat.tiles()) most_left = std::max(most_left, game->supply_left(type));
    auto supply_prior = [&](const TileType& type) {
        const double share = std::max(1, game->supply_left(type)) / static_cast<double>(most_left);
        return -opt.supply_prior_weight * classifier->options().temperature * std::log(share);
    };
    for (const auto& type : cat.tiles()) {
        if (assigned && type.id != *assigned) continue;
        if (game->supply_left(type) <= 0) continue;
        std::vector<int> plain;
        for (const auto& p : game->legal_placements(type)) {
            if (p.at == at) {
                plain.push_back(p.rot);
                legal.push_back({&type, p.rot, nlohmann::json()});
            }
        }
        for (const auto& m : game->modules()) {
            for (const auto& h : m->extra_placements(*game, type)) {
                if (h.placement.at != at || std::find(plain.begin(), plain.end(), h.placement.rot) != plain.end()) continue;
                legal.push_back({&type, h.placement.rot, h.extra});
            }
        }
    }
    auto plain_cost = [&](const TileType& type, int rot) -> std::optional<double> {
        for (const auto& h : hyps) {
            if (h.tile == type.id && vision::same_rotation(type, rot, h.rot)) return h.cost;
        }
        return std::nullopt;
    };
    std::vector<CandidateMove> out;
    for (const auto& o : legal) {
        std::optional<double> cost;
        // A bridge built on the new tile itself changes its look: score the tile with its bridge.
        const nlohmann::json* bridge = o.extra.is_object() && o.extra.contains("bridge") ? &o.extra["bridge"] : nullptr;
        if (bridge != nullptr && bridge->contains("at") && (*bridge)["at"] == nlohmann::json{at.x, at.y}) {
            const int board_axis = bridge->value("axis", std::string("NS")) == "NS" ? 0 : 1;
            if (const auto* bc = bridged_classifier(*o.type, (board_axis + o.rot) % 2)) {
                const TileType& variant = bc->types().front();
                for (const auto& h : bc->score_canonical(canonical)) {
                    if (vision::same_rotation(variant, o.rot, h.rot)) cost = h.cost;
                }
            }
        } else {
            cost = plain_cost(*o.type, o.rot);
        }
        if (cost) out.push_back({o.type->id, at, o.rot, *cost + supply_prior(*o.type), 0, o.extra});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.cost < b.cost; });
    const std::vector<CandidateMove> centred = out;  // before the shifted re-scoring
    refine_by_shifting(frame_view, at, out);
    const std::vector<CandidateMove> refined = out;
    weigh_pennants(frame_view, at, out, up);
    // The illegal readings below are scored on the centred square only: the best legal one is
    // compared with them by its centred cost (with what the pennant evidence added to it).
    auto centred_cost = [&](const CandidateMove& c) {
        auto same = [&](const CandidateMove& o) { return o.tile == c.tile && o.rot == c.rot && o.extra == c.extra; };
        const auto r = std::find_if(refined.begin(), refined.end(), same);
        const auto k = std::find_if(centred.begin(), centred.end(), same);
        if (r == refined.end() || k == centred.end()) return c.cost;
        return k->cost + (c.cost - r->cost);
    };
    // The best illegal reading: a (type, rotation) that may not lie there. Types with no copy left
    // are not readings at all (they cannot be on the table): the classifier confused a twin.
    const vision::TileHypothesis* best_illegal = nullptr;
    for (const auto& h : hyps) {
        const TileType* type = cat.find(h.tile);
        if (type == nullptr || game->supply_left(*type) <= 0) continue;
        const bool ok = std::any_of(legal.begin(), legal.end(),
                                    [&](const Option& o) { return o.type == type && vision::same_rotation(*type, o.rot, h.rot); });
        if (!ok) {
            best_illegal = &h;
            break;
        }
    }
    if (best_illegal != nullptr && illegal != nullptr &&
        (out.empty() || best_illegal->cost + supply_prior(*cat.find(best_illegal->tile)) + opt.illegal_margin < centred_cost(out.front()))) {
        const TileType* type = cat.find(best_illegal->tile);
        std::string rule;
        const Placement p{at, best_illegal->rot};
        const auto check = game->board().check_placement(*type, p);
        if (!check.ok) {
            rule = check.reason;
        } else if (assigned) {
            rule = "the next player must place the tile " + *assigned + " (a rule module assigned it)";
        } else {
            rule = "a rule module refuses tile " + type->id + " there";
        }
        *illegal = IllegalMove{{best_illegal->tile, at, best_illegal->rot, best_illegal->cost, 0, nlohmann::json()}, rule};
    }
    return keep_likelihoods(at, std::move(out));
}

std::vector<CandidateMove> Tracker::State::keep_likelihoods(Cell at, std::vector<CandidateMove> out) {
    const double t = classifier->options().temperature;
    // Every legal placement's likelihood (a softmax over all of them), for the correction menu.
    std::vector<CandidateMove> all = out;
    double all_sum = 0;
    for (auto& c : all) all_sum += std::exp(-(c.cost - all.front().cost) / t);
    for (auto& c : all) c.confidence = std::exp(-(c.cost - all.front().cost) / t) / all_sum;
    likelihood[at] = std::move(all);
    if (static_cast<int>(out.size()) > opt.max_candidates) out.resize(static_cast<std::size_t>(opt.max_candidates));
    // Confidence: a softmax over the listed candidates.
    double sum = 0;
    for (auto& c : out) sum += std::exp(-(c.cost - out.front().cost) / t);
    for (auto& c : out) c.confidence = std::exp(-(c.cost - out.front().cost) / t) / sum;
    return out;
}

std::vector<CandidateMove> Tracker::State::rank_with_follower_cleared(const cv::Mat& cleared, const cv::Mat& raw, Cell at,
                                                                      std::optional<IllegalMove>* illegal, TrackerUpdate* up) {
    const double w = opt.follower_on_tile.raw_view_weight;
    std::optional<IllegalMove> illegal_cleared, illegal_raw;
    rank_candidates(cleared, at, illegal != nullptr ? &illegal_cleared : nullptr, up);
    std::vector<CandidateMove> ranked = likelihood[at];
    const bool fall_back = illegal_cleared && opt.follower_on_tile.raw_view_if_illegal;
    if (w <= 0 && !fall_back) {
        if (illegal != nullptr) *illegal = illegal_cleared;
        return keep_likelihoods(at, std::move(ranked));
    }
    rank_candidates(raw, at, illegal != nullptr ? &illegal_raw : nullptr, nullptr);
    const std::vector<CandidateMove>& seen = likelihood[at];
    if (w > 0) {
        for (auto& c : ranked) {
            const auto r = std::find_if(seen.begin(), seen.end(), [&](const CandidateMove& o) { return o.tile == c.tile && o.rot == c.rot && o.extra == c.extra; });
            if (r != seen.end()) c.cost = (1 - w) * c.cost + w * r->cost;
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.cost < b.cost; });
    } else if (!illegal_raw) {
        ranked = seen;
        if (up != nullptr) {
            up->notes.push_back("with the follower painted over, the tile at " + to_string(at) + " read as an illegal " + illegal_cleared->move.tile +
                                ": read as seen instead");
        }
    }
    // An illegal reading stands only when both views read one: the follower or its painted-over
    // patch alone can make a legal tile look like another.
    if (illegal != nullptr && illegal_cleared && illegal_raw) *illegal = illegal_cleared;
    return keep_likelihoods(at, std::move(ranked));
}

bool Tracker::State::rerank_recent_tiles(const std::function<bool(Game&)>& fits, const std::string& why, TrackerUpdate* up,
                                         double last_min_confidence) {
    constexpr std::size_t kAlternatives = 4;  // the likeliest other readings tried per tile
    // The last reread_depth tile events (the start tile is known) and, per tile, its likeliest
    // other (type, rotation) readings: each as recorded (with the extras the read event had: its
    // bridge, or none when the players entered the bridge apart), then with the extras its own
    // legal placement brings (a bridge built with the tile). An earlier tile's alternatives need
    // reread_min_confidence of its reading's likelihood (a clear reading is not second-guessed).
    struct Alternative {
        std::size_t event;
        const CandidateMove* move;
        nlohmann::json extra;
        double cost;  // above the recorded reading's
    };
    std::vector<std::size_t> recent;
    for (std::size_t i = record.events.size(); i-- > 1 && static_cast<int>(recent.size()) < opt.reread_depth;) {
        if (record.events[i].type == "tile") recent.push_back(i);
    }
    std::vector<std::vector<Alternative>> per_tile;
    for (const std::size_t i : recent) {
        const Event& read = record.events[i];
        const auto it = likelihood.find(read.at);
        std::vector<Alternative> alts;
        if (it != likelihood.end()) {
            double read_cost = it->second.empty() ? 0 : it->second.front().cost, read_confidence = 0;
            for (const auto& c : it->second) {
                if (c.tile == read.tile && c.rot == read.rot) read_cost = c.cost, read_confidence = std::max(read_confidence, c.confidence);
            }
            std::vector<std::pair<std::string, int>> seen;
            for (const auto& c : it->second) {
                if ((c.tile == read.tile && c.rot == read.rot) || seen.size() >= kAlternatives) continue;
                if (std::find(seen.begin(), seen.end(), std::make_pair(c.tile, c.rot)) != seen.end()) continue;
                const double floor = i == recent.front() ? last_min_confidence : opt.reread_min_confidence;
                if (c.confidence < floor * read_confidence) continue;
                seen.emplace_back(c.tile, c.rot);
                alts.push_back({i, &c, read.raw, c.cost - read_cost});
                const nlohmann::json own = c.extra.is_object() ? c.extra : nlohmann::json();
                if (own != read.raw) alts.push_back({i, &c, own, c.cost - read_cost});
            }
        }
        per_tile.push_back(std::move(alts));
    }
    // The re-readings tried: one tile (the last first), then two, each group cheapest first.
    std::vector<std::vector<const Alternative*>> tries;
    for (const auto& alts : per_tile) {
        for (const auto& a : alts) tries.push_back({&a});
    }
    const std::size_t singles = tries.size();
    for (std::size_t a = 0; a < per_tile.size(); ++a) {
        for (std::size_t b = a + 1; b < per_tile.size(); ++b) {
            for (const auto& x : per_tile[a]) {
                for (const auto& y : per_tile[b]) tries.push_back({&x, &y});
            }
        }
    }
    auto total = [](const std::vector<const Alternative*>& t) {
        double c = 0;
        for (const auto* a : t) c += a->cost;
        return c;
    };
    std::stable_sort(tries.begin() + static_cast<std::ptrdiff_t>(singles), tries.end(),
                     [&](const auto& a, const auto& b) { return total(a) < total(b); });
    for (const auto& t : tries) {
        Record edited = record;
        std::vector<std::string> changes;
        for (const auto* a : t) {
            Event& e = edited.events[a->event];
            changes.push_back("event " + std::to_string(a->event) + " (tile at " + to_string(e.at) + "): " + e.tile + " " +
                              std::to_string(e.rot * 90) + "° -> " + a->move->tile + " " + std::to_string(a->move->rot * 90) + "°");
            e.tile = a->move->tile;
            e.rot = a->move->rot;
            e.raw = a->extra;
            // A follower the tracker placed on it stands on the new tile's feature nearest to where it was seen.
            const auto seen = follower_reading.find(e.at);
            const TileType* type = game->catalog().find(e.tile);
            if (seen == follower_reading.end() || !seen->second.has_centre || type == nullptr) continue;
            for (std::size_t k = a->event + 1; k < edited.events.size(); ++k) {
                Event& m = edited.events[k];
                if (m.type != "meeple" || m.at != e.at) continue;
                if (const auto port = port_nearest(*type, e.rot, seen->second.centre_mm)) m.loc = *port;
                break;
            }
        }
        ReplayOptions ro;
        ro.apply_finish = edited.finished;
        ro.close_last_turn = edited.finished;
        auto replayed = replay(edited, ro);
        if (!replayed) continue;
        if (!fits(replayed.value())) continue;  // the trial game takes the next move; the kept one is replayed anew
        auto kept = replay(edited, ro);
        if (!kept) continue;
        record = std::move(edited);
        game.emplace(std::move(kept).value());
        std::string sentence = "re-read ";
        for (std::size_t k = 0; k < changes.size(); ++k) sentence += (k ? " and " : "") + changes[k];
        sentence += " by the tracker (" + why + ")";
        corrections.push_back(sentence);
        if (up != nullptr) up->notes.push_back(sentence);
        sync_followers_from_game();
        return true;
    }
    return false;
}

std::optional<std::string> Tracker::State::port_nearest(const TileType& type, int rot, cv::Point2d centre_mm) const {
    const auto spots = feature_spots(type, rot, opt.tile_mm, 0.8);
    int best = -1;
    double best_d = 1e18;
    for (std::size_t f = 0; f < spots.size(); ++f) {
        for (const auto& p : spots[f]) {
            if (const double d = cv::norm(p - centre_mm); d < best_d) best_d = d, best = static_cast<int>(f);
        }
    }
    for (int p = 0; best >= 0 && p <= kCentre; ++p) {
        if (type.feature_at(static_cast<Port>(p), rot) == best) return std::string(port_name(static_cast<Port>(p)));
    }
    return std::nullopt;
}

// Applies a tile event for `move`, then looks for a follower on the new tile in `frame_view`
// (the settled frame in the current view). The caller refreshes the confirmed look. When the
// engine refuses the tile, the last tile may have been misread (a bazaar read for its plain
// twin demands an auction first): it is re-read as its likeliest reading the move fits.
Status Tracker::State::commit_tile(const CandidateMove& move, const cv::Mat& frame_view, TrackerUpdate& up) {
    Snapshot snap{record.events.size(), view, confirmed.clone()};
    auto tile_event = [&](const Game& g) {
        Event e;
        e.type = "tile";
        e.player = g.players()[static_cast<std::size_t>(g.next_player())].color;
        e.tile = move.tile;
        e.at = move.at;
        e.rot = move.rot;
        if (move.extra.is_object()) e.raw = move.extra;
        return e;
    };
    Event e = tile_event(*game);
    const int index = static_cast<int>(record.events.size());
    std::vector<Follower> before = followers;
    if (auto st = game->apply(e, index); !st) {
        const auto fits = [&](Game& g) { return static_cast<bool>(g.apply(tile_event(g), index)); };
        if (!rerank_recent_tiles(fits, "the next tile did not fit: " + st.error().message, &up)) return st;
        snap.events = record.events.size();
        before = followers;
        e = tile_event(*game);
        if (auto again = game->apply(e, index); !again) return again;
    }
    record.events.push_back(e);
    up.committed.push_back(e);
    history.push_back(std::move(snap));
    if (move.extra.is_object()) {
        for (const auto& [key, value] : move.extra.items()) {
            if (value.is_object() && value.contains("at")) {
                const auto& a = value["at"];
                // A bridge on the new tile itself is part of the look just read; one on a
                // neighbour changes that neighbour's look.
                if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_integer()) continue;
                const Cell piece_at{a[0].get<int>(), a[1].get<int>()};
                decorated.push_back(piece_at);
                if (piece_at != move.at) expect_change.push_back(piece_at);
            }
        }
    }
    if (history.size() > 16) history.pop_front();
    note_released(before, up);
    followers = before;
    sync_followers_from_game();
    detect_follower_on_new_tile(frame_view, move.at, up);
    return Ok{};
}

// Turns a follower blob on a placed tile into a meeple event for the open turn.
bool Tracker::State::place_follower_from_blob(const Blob& blob, const cv::Rect& cell, const cv::Mat& lab_now,
                                              const cv::Mat& lab_bare, TrackerUpdate& up) {
    const int tile_index = game->turn_tile();
    if (tile_index < 0) return false;
    const auto& placed = game->board().tiles()[static_cast<std::size_t>(tile_index)];
    const auto options = game->current_follower_options();
    if (options.empty()) {
        up.notes.push_back("a piece appeared on " + to_string(placed.at) + " but no follower may go there");
        return false;
    }
    // The blob centre in millimetres from the tile centre.
    const double ppm = view.px_per_mm();
    const cv::Point2d centre_px(cell.width / 2.0, cell.height / 2.0);  // the blob is in the cell's own pixels
    const cv::Point2d local = (blob.centroid - centre_px) * (1.0 / ppm);
    const auto spots = feature_spots(*placed.type, placed.rot, opt.tile_mm, 0.8);
    // A follower stands on a spot of its feature, so that spot lies under the blob (its image
    // leans away from the camera and its shadow away from the light, which moves the blob's
    // centre): each feature's spot nearest the blob's centre, ranked by its distance to the
    // blob, then by its distance to that centre.
    cv::Mat to_blob;
    cv::distanceTransform(255 - blob.mask, to_blob, cv::DIST_L2, 3);
    const FollowerOption* best = nullptr;
    double best_d = 1e18;
    FollowerReading reading;
    for (const auto& o : options) {
        const int f = placed.type->feature_at(o.loc, placed.rot);
        if (f < 0 || f >= static_cast<int>(spots.size()) || spots[static_cast<std::size_t>(f)].empty()) continue;
        const auto& feature = spots[static_cast<std::size_t>(f)];
        const cv::Point2d a = *std::min_element(feature.begin(), feature.end(), [&](const auto& p, const auto& q) {
            return cv::norm(p - local) < cv::norm(q - local);
        });
        const cv::Point px(std::clamp(static_cast<int>(std::lround(centre_px.x + a.x * ppm)), 0, to_blob.cols - 1),
                           std::clamp(static_cast<int>(std::lround(centre_px.y + a.y * ppm)), 0, to_blob.rows - 1));
        const double d = to_blob.at<float>(px) / ppm + 0.25 * cv::norm(a - local);
        reading.features.push_back({{}, d});
        for (int p = 0; p <= kCentre; ++p) {
            if (placed.type->feature_at(static_cast<Port>(p), placed.rot) == f) reading.features.back().ports.emplace_back(port_name(static_cast<Port>(p)));
        }
        if (d < best_d) {
            best_d = d;
            best = &o;
        }
    }
    if (best == nullptr) return false;
    Event m;
    m.type = "meeple";
    m.player = game->players()[static_cast<std::size_t>(game->turn_player())].color;
    m.at = placed.at;
    m.loc = std::string(port_name(best->loc));
    const int index = static_cast<int>(record.events.size());
    if (auto st = game->apply(m, index); !st) {
        up.notes.push_back("a follower seen on " + to_string(placed.at) + " was refused: " + st.error().to_string());
        return false;
    }
    record.events.push_back(m);
    up.committed.push_back(m);
    // Its colour model: the blob pixels that differ most from the bare tile.
    std::vector<std::pair<float, cv::Vec3f>> px;
    for (int y = 0; y < blob.mask.rows; ++y) {
        const auto* mk = blob.mask.ptr<std::uint8_t>(y);
        for (int x = 0; x < blob.mask.cols; ++x) {
            if (!mk[x]) continue;
            const cv::Vec3f now = lab_now.at<cv::Vec3f>(cell.y + y, cell.x + x);
            const cv::Vec3f bare = lab_bare.at<cv::Vec3f>(cell.y + y, cell.x + x);
            px.emplace_back(static_cast<float>(cv::norm(now - bare)), now);
        }
    }
    std::sort(px.begin(), px.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Follower f;
    f.colour = m.player;
    f.at = m.at;
    f.loc = m.loc;
    f.id = static_cast<int>(game->board().followers().size()) - 1;
    if (!px.empty()) {
        cv::Vec3f sum(0, 0, 0);
        const std::size_t n = std::max<std::size_t>(1, px.size() / 2);
        for (std::size_t i = 0; i < n; ++i) sum += px[i].second;
        f.lab = sum * (1.0f / static_cast<float>(n));
        const cv::Rect whole = view.cell_rect(m.at);
        auto count_near = [&](const cv::Mat& lab) {
            int c = 0;
            for (int y = whole.y; y < whole.y + whole.height; ++y) {
                for (int x = whole.x; x < whole.x + whole.width; ++x) {
                    if (cv::norm(lab.at<cv::Vec3f>(y, x) - f.lab) < opt.piece_colour_threshold * 0.5) ++c;
                }
            }
            return c;
        };
        f.with_count = count_near(lab_now);
        f.bare_count = count_near(lab_bare);
        f.has_model = f.with_count - f.bare_count >= blob.area / 4;
        reading.lab = f.lab;
        reading.has_colour = true;
    }
    std::stable_sort(reading.features.begin(), reading.features.end(), [](const auto& a, const auto& b) { return a.mm < b.mm; });
    reading.centre_mm = local;
    reading.has_centre = true;
    follower_reading[m.at] = std::move(reading);
    followers.push_back(f);
    return true;
}

cv::Mat Tracker::State::changed_since_confirmed(const cv::Mat& view_img, const cv::Rect& r) const {
    cv::Mat now_blur, then_blur;
    cv::GaussianBlur(view_img(r), now_blur, cv::Size(), 1.0);
    cv::GaussianBlur(confirmed(r), then_blur, cv::Size(), 1.0);
    // Half the change threshold: a follower on a table of nearly its colour still changed; what
    // stood there before (a neighbour's follower) did not.
    return changed_beyond(to_lab(now_blur), to_lab(then_blur), 0.5 * opt.change_threshold);
}

void Tracker::State::learn_art_colours() {
    const Board& board = game->board();
    const int open_tile = game->turn_tile();
    for (int i = 0; i < static_cast<int>(board.tiles().size()); ++i) {
        const Cell at = board.tiles()[static_cast<std::size_t>(i)].at;
        if (i == open_tile || art_learnt.count({at.x, at.y}) || !view.window().contains(at)) continue;
        art_learnt.insert({at.x, at.y});
        const bool holds_piece = std::any_of(board.followers().begin(), board.followers().end(), [&](const auto& f) { return f.at == at; }) ||
                                 std::find(decorated.begin(), decorated.end(), at) != decorated.end();
        if (holds_piece) continue;
        const cv::Rect cell = view.cell_rect(at) & cv::Rect(cv::Point(0, 0), confirmed.size());
        if (cell.area() == 0) continue;
        const cv::Mat lab = to_lab(confirmed(cell));
        for (const auto& p : game->players()) {
            const vision::ColourModel* colour = opt.piece_colours.find(p.color);
            if (colour == nullptr) continue;
            if (const auto blob = find_follower_by_colour(lab, *colour, opt.follower_on_tile)) {
                double& seen = art_blob_share[p.color];
                seen = std::max(seen, blob->share);
            }
        }
    }
}

double Tracker::State::tile_side_px(Cell at) const {
    const cv::Matx33d to_image = image_to_table.inv();
    const double half = opt.tile_mm / 2, cx = at.x * pitch(), cy = at.y * pitch();
    std::vector<cv::Point2d> table{{cx - half, cy - half}, {cx + half, cy - half}, {cx + half, cy + half}, {cx - half, cy + half}}, image;
    cv::perspectiveTransform(table, image, cv::Mat(to_image));
    double sum = 0;
    for (int i = 0; i < 4; ++i) sum += cv::norm(image[static_cast<std::size_t>(i)] - image[static_cast<std::size_t>((i + 1) % 4)]);
    return sum / 4;
}

bool Tracker::State::larger_than_art(const std::string& colour, const FollowerBlob& blob) const {
    const auto it = art_blob_share.find(colour);
    return it == art_blob_share.end() || blob.share > opt.follower_on_tile.art_margin * it->second;
}

// Returns the view with a follower of `player`'s colour on the new tile at `at` painted over
// (only pixels that changed since the confirmed look: a neighbour's follower leaning over the
// cell was there before).
cv::Mat Tracker::State::without_new_follower(const cv::Mat& view_img, Cell at, int player, TrackerUpdate* up, cv::Mat* painted) const {
    if (player < 0 || player >= static_cast<int>(game->players().size()) || game->followers_left(player) <= 0) return view_img;
    const vision::ColourModel* colour = opt.piece_colours.find(game->players()[static_cast<std::size_t>(player)].color);
    if (colour == nullptr || !view.window().contains(at)) return view_img;
    if (tile_side_px(at) < opt.follower_on_tile.min_tile_px) {
        if (up != nullptr) up->notes.push_back("tiles are too small in the frame to tell a follower put down with its tile from the art");
        return view_img;
    }
    const cv::Rect cell = view.cell_rect(at) & cv::Rect(cv::Point(0, 0), view_img.size());
    if (cell.area() == 0) return view_img;
    const auto blob = find_follower_by_colour(to_lab(view_img(cell)), *colour, opt.follower_on_tile, changed_since_confirmed(view_img, cell));
    if (!blob) return view_img;
    if (!larger_than_art(colour->name, *blob)) {
        if (up != nullptr) {
            up->notes.push_back("a " + colour->name + " patch on the new tile at " + to_string(at) + " is no larger than the " +
                                colour->name + " art of the tiles placed: not read as a follower");
        }
        return view_img;
    }
    cv::Mat out = view_img.clone();
    clear_follower(view_img(cell), blob->mask, opt.follower_on_tile).copyTo(out(cell));
    if (painted != nullptr) {
        *painted = cv::Mat::zeros(view_img.size(), CV_8UC1);
        cleared_area(blob->mask, opt.follower_on_tile).copyTo((*painted)(cell));
    }
    if (up != nullptr) {
        up->notes.push_back("a " + colour->name + " follower came with the tile at " + to_string(at) + " (" +
                            std::to_string(static_cast<int>(std::lround(100 * blob->share))) + "% of the cell, solidity " +
                            std::to_string(static_cast<int>(std::lround(100 * blob->solidity))) + "%): the tile is read without it");
    }
    return out;
}

// Looks for a follower standing on a tile that was placed in this same frame: pixels of the
// player's colour (when the colour is known) that are far from their own terrain's colour (the
// classifier's terrain map of the committed placement).
void Tracker::State::detect_follower_on_new_tile(const cv::Mat& view_img, Cell at, TrackerUpdate& up) {
    const int tile_index = game->turn_tile();
    if (!opt.read_follower_with_tile || tile_index < 0 || game->current_follower_options().empty()) return;
    if (tile_side_px(at) < opt.follower_on_tile.min_tile_px) return;
    const auto& placed = game->board().tiles()[static_cast<std::size_t>(tile_index)];
    const vision::ColourModel* colour = opt.piece_colours.find(game->players()[static_cast<std::size_t>(game->turn_player())].color);
    // By colour: the whole cell, as the tile was read (the same blob that was painted over then).
    const cv::Rect cell = colour != nullptr ? view.cell_rect(at) & cv::Rect(cv::Point(0, 0), view_img.size())
                                            : view.cell_core(at, opt.tile_mm / pitch() * 0.96);
    if (cell.area() == 0) return;
    const cv::Mat lab = to_lab(view_img);
    const cv::Mat lab_cell = lab(cell);
    const cv::Mat labels = vision::feature_labels(*placed.type, placed.rot, std::max(16, cell.width));
    cv::Mat labels_cell;
    cv::resize(labels, labels_cell, cell.size(), 0, 0, cv::INTER_NEAREST);
    // Each feature's median colour (per channel) stands for the bare terrain.
    std::map<int, std::array<std::vector<float>, 3>> samples;
    for (int y = 0; y < cell.height; ++y) {
        for (int x = 0; x < cell.width; ++x) {
            const int f = labels_cell.at<int>(y, x);
            const cv::Vec3f v = lab_cell.at<cv::Vec3f>(y, x);
            for (int c = 0; c < 3; ++c) samples[f][static_cast<std::size_t>(c)].push_back(v[c]);
        }
    }
    std::map<int, cv::Vec3f> median;
    for (auto& [f, ch] : samples) {
        cv::Vec3f m;
        for (int c = 0; c < 3; ++c) {
            auto& v = ch[static_cast<std::size_t>(c)];
            std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
            m[c] = v[v.size() / 2];
        }
        median[f] = m;
    }
    cv::Mat odd(cell.size(), CV_8UC1, cv::Scalar(0));
    cv::Mat bare(lab.size(), CV_32FC3, cv::Scalar(0, 0, 0));
    for (int y = 0; y < cell.height; ++y) {
        for (int x = 0; x < cell.width; ++x) {
            const cv::Vec3f m = median[labels_cell.at<int>(y, x)];
            bare.at<cv::Vec3f>(cell.y + y, cell.x + x) = m;
            if (cv::norm(lab_cell.at<cv::Vec3f>(y, x) - m) > opt.piece_colour_threshold) odd.at<std::uint8_t>(y, x) = 255;
        }
    }
    Blob blob;
    if (colour != nullptr) {
        const auto found = find_follower_by_colour(lab_cell, *colour, opt.follower_on_tile, changed_since_confirmed(view_img, cell));
        if (!found || !larger_than_art(colour->name, *found)) return;
        blob = Blob{found->mask, found->centroid, found->area};
        // A patch mostly on the art's stall or inns (where nobody stands), or a small one mostly
        // on its pennants or monastery, is that art (a red awning or roof, a blue pennant): a
        // follower standing over a pennant or monastery is larger than the art under it.
        const ArtDetails details = art_details(*placed.type, placed.rot, std::max(16, cell.width));
        cv::Mat small, buildings;
        cv::resize(details.small, small, cell.size(), 0, 0, cv::INTER_NEAREST);
        cv::resize(details.buildings, buildings, cell.size(), 0, 0, cv::INTER_NEAREST);
        const int on_buildings = cv::countNonZero(blob.mask & buildings), on_small = cv::countNonZero(blob.mask & small);
        if (10 * on_buildings >= 7 * blob.area ||
            (2 * (on_small + on_buildings) >= blob.area && found->share < opt.follower_on_tile.art_max_share)) {
            up.notes.push_back("a " + colour->name + " patch on " + to_string(at) + " lies on the art's building or pennant: no follower");
            return;
        }
    } else {
        const int open_px = std::max(3, static_cast<int>(std::lround(0.12 * cell.width)));
        blob = largest_blob(odd, open_px);
        if (blob.area < opt.piece_min_area * cell.area()) return;
    }
    place_follower_from_blob(blob, cell, lab, bare, up);
}

// Whether a follower still stands on its tile: its colour still covers its share of the tile.
bool Tracker::State::follower_present(const Follower& f, const cv::Mat& lab_now) const {
    if (!f.has_model || !view.window().contains(f.at)) return true;
    const cv::Rect cell = view.cell_rect(f.at);
    int c = 0;
    for (int y = cell.y; y < cell.y + cell.height; ++y) {
        for (int x = cell.x; x < cell.x + cell.width; ++x) {
            if (cv::norm(lab_now.at<cv::Vec3f>(y, x) - f.lab) < opt.piece_colour_threshold * 0.5) ++c;
        }
    }
    return 2 * c > f.with_count + f.bare_count;
}

// Looks for the confirmed tiles in `frame` (through the current mapping): when they moved as
// a whole (the camera moved), returns the corrected image -> table mapping; nullopt when they
// did not move, or no sure fit was found (the caller keeps the mapping; a hand or a new tile
// then shows as a change, as before).
std::optional<cv::Matx33d> Tracker::State::camera_moved(const cv::Mat& frame, TrackerUpdate& up) const {
    const Board& board = game->board();
    cv::Rect roi;
    for (const auto& t : board.tiles()) {
        if (!view.window().contains(t.at)) continue;
        roi |= view.cell_rect(t.at);
    }
    const int pad = static_cast<int>(std::lround(view.pitch_px()));
    roi = cv::Rect(roi.x - pad, roi.y - pad, roi.width + 2 * pad, roi.height + 2 * pad) & cv::Rect(cv::Point(0, 0), view.size());
    if (roi.width < 16 || roi.height < 16) return std::nullopt;
    const cv::Mat now = view.warp(frame, image_to_table);
    cv::Mat a, b;
    cv::cvtColor(confirmed(roi), a, cv::COLOR_BGR2GRAY);
    cv::cvtColor(now(roi), b, cv::COLOR_BGR2GRAY);
    a.convertTo(a, CV_32F);
    b.convertTo(b, CV_32F);
    cv::GaussianBlur(a, a, cv::Size(), 1.5);
    cv::GaussianBlur(b, b, cv::Size(), 1.5);
    // Only the confirmed tiles are sure to be there: a new tile or a hand lies beside them.
    cv::Mat tiles_mask(roi.size(), CV_8UC1, cv::Scalar(0));
    for (const auto& t : board.tiles()) {
        if (view.window().contains(t.at)) tiles_mask((view.cell_rect(t.at) - roi.tl()) & cv::Rect(cv::Point(0, 0), roi.size())).setTo(255);
    }
    // The window is the Hann window over the confirmed tiles (grown by a quarter tile, soft):
    // a new tile beside a lone start tile would otherwise outweigh it and pin the shift at zero.
    cv::Mat window, near_tiles;
    cv::createHanningWindow(window, a.size(), CV_32F);
    const int grow = static_cast<int>(std::lround(0.25 * view.pitch_px())) * 2 + 1;
    cv::dilate(tiles_mask, near_tiles, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(grow, grow)));
    near_tiles.convertTo(near_tiles, CV_32F, 1.0 / 255);
    cv::GaussianBlur(near_tiles, near_tiles, cv::Size(), grow / 4.0);
    window = window.mul(near_tiles);
    const cv::Point2d shift = cv::phaseCorrelate(a, b, window);  // content of `a` sits at +shift in `b`
    const double shift_mm = cv::norm(shift) / view.px_per_mm();
    if (shift_mm < opt.camera_shift_min_mm || shift_mm > opt.camera_shift_max_mm) return std::nullopt;
    // Refine with a turn: b(W x) ~ a(x), W maps the confirmed view's pixels to where they are now.
    cv::Mat warp = (cv::Mat_<float>(2, 3) << 1, 0, static_cast<float>(shift.x), 0, 1, static_cast<float>(shift.y));
    double correlation = 0;
    try {
        correlation = cv::findTransformECC(a, b, warp, cv::MOTION_EUCLIDEAN,
                                           cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 60, 1e-4), tiles_mask, 3);
    } catch (const cv::Exception&) {
        // The turn could not be fitted (one lone tile gives ECC little to hold): the shift alone,
        // when the confirmed tiles moved by it match well enough.
        warp = (cv::Mat_<float>(2, 3) << 1, 0, static_cast<float>(shift.x), 0, 1, static_cast<float>(shift.y));
        cv::Mat moved;
        cv::warpAffine(a, moved, warp, a.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        cv::Mat moved_mask;
        cv::warpAffine(tiles_mask, moved_mask, warp, a.size(), cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
        cv::Scalar ma, sa, mb, sb;
        cv::meanStdDev(moved, ma, sa, moved_mask);
        cv::meanStdDev(b, mb, sb, moved_mask);
        if (sa[0] <= 1e-6 || sb[0] <= 1e-6) return std::nullopt;
        cv::Mat da = moved - ma[0], db = b - mb[0];
        correlation = cv::mean(da.mul(db), moved_mask)[0] / (sa[0] * sb[0]);
    }
    if (correlation < opt.camera_min_correlation) return std::nullopt;
    // In whole-view pixels: W_full = T(o) W T(-o).
    const cv::Matx33d w(warp.at<float>(0, 0), warp.at<float>(0, 1), warp.at<float>(0, 2), warp.at<float>(1, 0), warp.at<float>(1, 1),
                        warp.at<float>(1, 2), 0, 0, 1);
    const cv::Matx33d to_roi(1, 0, -roi.x, 0, 1, -roi.y, 0, 0, 1), from_roi(1, 0, roi.x, 0, 1, roi.y, 0, 0, 1);
    const cv::Matx33d w_full = from_roi * w * to_roi;
    // View pixels -> table mm (affine), from the view itself.
    const cv::Point2d o = view.to_table({0, 0}), ex = view.to_table({1, 0}) - o, ey = view.to_table({0, 1}) - o;
    const cv::Matx33d view_to_table(ex.x, ey.x, o.x, ex.y, ey.y, o.y, 0, 0, 1);
    // A frame pixel q showed view pixel v = V(H q) before; the content that belongs at v is now at W v.
    const cv::Matx33d corrected = view_to_table * w_full.inv() * view_to_table.inv() * image_to_table;
    up.notes.push_back("the camera moved " + std::to_string(static_cast<int>(std::lround(shift_mm))) +
                       " mm against the table: the board is followed (correlation " + std::to_string(correlation).substr(0, 4) + ")");
    return corrected;
}

// Reads a settled frame against the confirmed look and records what changed.
void Tracker::State::analyse(const cv::Mat& frame, TrackerUpdate& up) {
    if (opt.follow_camera && !confirmed.empty()) {
        if (auto moved = camera_moved(frame, up)) image_to_table = *moved;
    }
    regrow_view(frame);
    up.analysed = true;
    cv::Mat now = view.warp(frame, image_to_table);
    // Light drifts: match the frame's channel levels to the confirmed look's before comparing.
    const cv::Vec3d gain_now = channel_medians(now), gain_then = channel_medians(confirmed);
    cv::Mat now_levelled;
    now.convertTo(now_levelled, CV_32FC3);
    now_levelled = now_levelled.mul(cv::Scalar(gain_then[0] / gain_now[0], gain_then[1] / gain_now[1], gain_then[2] / gain_now[2]));
    now_levelled.convertTo(now, CV_8UC3);
    cv::Mat now_blur, then_blur;
    cv::GaussianBlur(now, now_blur, cv::Size(), 1.0);
    cv::GaussianBlur(confirmed, then_blur, cv::Size(), 1.0);
    const cv::Mat lab_now = to_lab(now_blur), lab_then = to_lab(then_blur);
    const cv::Mat changed = changed_beyond(lab_now, lab_then, opt.change_threshold);

    const Board& board = game->board();
    std::map<std::pair<int, int>, bool> is_border;
    for (const auto& b : board.border()) is_border[{b.at.x, b.at.y}] = true;
    const CellWindow w = view.window();
    std::map<std::pair<int, int>, double> share;        // over the tile's core (tiles) or the whole cell (empty cells)
    std::map<std::pair<int, int>, double> piece_share;  // over the whole cell: a follower leans out of its tile's core
    int busy_cells = 0;
    double outer_changed = 0;
    int outer_cells = 0;
    const double core = opt.tile_mm / pitch() * 0.8;
    for (int y = w.y0; y <= w.y1; ++y) {
        for (int x = w.x0; x <= w.x1; ++x) {
            const Cell c{x, y};
            const cv::Rect r = view.cell_core(c, board.tile_at(c) >= 0 ? core : 1.0);
            const double s = r.area() > 0 ? cv::countNonZero(changed(r)) / static_cast<double>(r.area()) : 0.0;
            share[{x, y}] = s;
            const cv::Rect whole = view.cell_rect(c);
            piece_share[{x, y}] = whole.area() > 0 ? cv::countNonZero(changed(whole)) / static_cast<double>(whole.area()) : 0.0;
            // A change already there at the last read is no hand coming in.
            if (s > opt.piece_change_share && std::find(stale.begin(), stale.end(), c) == stale.end()) ++busy_cells;
            // A cell beside a tile read as illegal may hold the next tile, laid against it.
            const bool beside_illegal = illegal_cell && std::abs(c.x - illegal_cell->x) + std::abs(c.y - illegal_cell->y) == 1;
            if (board.tile_at(c) < 0 && !is_border.count({x, y}) && !beside_illegal) {
                outer_changed += s;
                ++outer_cells;
            }
        }
    }
    if ((outer_cells > 0 && outer_changed / outer_cells > opt.occlusion_share) ||
        busy_cells > opt.occlusion_cells + static_cast<int>(expect_change.size()) + static_cast<int>(must_return.size())) {
        up.state = FrameState::Occluded;
        up.notes.push_back("something large moved over the table (a hand?); waiting");
        return;
    }
    up.state = FrameState::Stable;
    pending.clear();
    if (opt.read_follower_with_tile) learn_art_colours();
    std::vector<Cell> refreshed;  // cells whose change is explained: their look becomes the confirmed one


    // A new tile: an open cell that mostly changed.
    std::vector<std::pair<double, Cell>> new_cells;
    for (const auto& b : board.border()) {
        const auto it = share.find({b.at.x, b.at.y});
        if (it != share.end() && it->second > opt.tile_change_share) new_cells.emplace_back(it->second, b.at);
    }
    std::sort(new_cells.begin(), new_cells.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (new_cells.empty()) {
        // Say when an open cell changed, but too little to be read as a tile.
        for (const auto& b : board.border()) {
            const double s = share[{b.at.x, b.at.y}];
            if (s > opt.tile_change_share / 3) {
                up.notes.push_back("open cell " + to_string(b.at) + " changed by " + std::to_string(static_cast<int>(s * 100)) +
                                   "%, too little for a tile");
            }
        }
    }
    // A cell read as an illegal move that is still there while play went on elsewhere was
    // legal after all (the players did not take it back): read it first, as the best legal placement.
    bool play_went_on = false;
    // A tile laid against the illegal one, off the board (no border cell), says so too.
    bool laid_against_illegal = false;
    if (illegal_cell) {
        for (int side = 0; side < 4; ++side) {
            const Cell n = neighbour(*illegal_cell, side);
            const auto it = share.find({n.x, n.y});
            if (board.tile_at(n) < 0 && !is_border.count({n.x, n.y}) && it != share.end() && it->second > opt.tile_change_share) {
                laid_against_illegal = true;
            }
        }
    }
    if (illegal_cell && (new_cells.size() > 1 || laid_against_illegal)) {
        const auto it = std::find_if(new_cells.begin(), new_cells.end(), [&](const auto& nc) { return nc.second == *illegal_cell; });
        if (it != new_cells.end()) {
            std::rotate(new_cells.begin(), it, it + 1);
            play_went_on = true;
        }
    }
    illegal_cell.reset();
    if (new_cells.size() > 1) {
        up.notes.push_back("more than one open cell changed; reading " + to_string(new_cells.front().second) + " first");
    }
    // A follower placed at `at` explains its cell's change, and the open neighbours' it leans
    // over, but not a neighbour that changed as much as a new tile does (its look is still to be
    // read, by a players' answer or the next frame).
    auto explain_follower = [&](Cell at) {
        refreshed.push_back(at);
        for (int side = 0; side < 4; ++side) {
            const Cell n = neighbour(at, side);
            const auto it = share.find({n.x, n.y});
            const bool new_tile = it != share.end() && it->second > opt.tile_change_share;
            if (game->board().tile_at(n) < 0 && !new_tile) refreshed.push_back(n);
        }
    };
    bool tile_committed = false;
    // Several tiles may have come since the last read (a tile that could not be read, then the
    // next move): each is read in turn, in the order they came, as long as each commits.
    for (std::size_t k = 0; k < new_cells.size() && k < 2; ++k) {
        const Cell at = new_cells[k].second;
        painted_over.release();
        if (k > 0 && !tile_committed) break;
        std::optional<IllegalMove> illegal;
        const bool forced = k == 0 && play_went_on;
        const cv::Mat read_view = opt.read_follower_with_tile ? without_new_follower(now, at, game->next_player(), &up, &painted_over) : now;
        auto rank = [&] {
            return read_view.data != now.data ? rank_with_follower_cleared(read_view, now, at, forced ? nullptr : &illegal, &up)
                                              : rank_candidates(read_view, at, forced ? nullptr : &illegal, &up);
        };
        auto candidates = rank();
        if (forced) up.notes.push_back("play went on after the illegal reading at " + to_string(at) + ": reading its best legal placement");
        if (illegal) {
            // The new tile may be right and a recent uncertain reading wrong (a headless pick, a
            // twin): re-read those when that makes the new tile's reading legal, and rank again.
            // Only a reading refused by its neighbours' sides (not by a rule module: an auctioned tile).
            const IllegalMove seen = *illegal;
            const TileType* seen_type = game->catalog().find(seen.move.tile);
            const auto fits_sides = [&](const Game& g) {
                const TileType* type = g.catalog().find(seen.move.tile);
                return type != nullptr && g.board().check_placement(*type, Placement{at, seen.move.rot}).ok;
            };
            const auto legal_there = [&](Game& g) {
                const TileType* type = g.catalog().find(seen.move.tile);
                if (type == nullptr || g.supply_left(*type) <= 0 || !fits_sides(g)) return false;
                const auto placements = g.legal_placements(*type);
                return std::any_of(placements.begin(), placements.end(),
                                   [&](const Placement& p) { return p.at == at && vision::same_rotation(*type, p.rot, seen.move.rot); });
            };
            if (seen_type != nullptr && !fits_sides(*game) &&
                rerank_recent_tiles(legal_there, "the tile at " + to_string(at) + " read as " + seen.move.tile + " " +
                                                     std::to_string(seen.move.rot * 90) + "°, illegal beside them: " + seen.rule,
                                    &up, opt.reread_min_confidence)) {
                illegal.reset();
                candidates = rank();
            }
        }
        if (illegal) {
            up.illegal = illegal;
            illegal_cell = at;
            break;
        }
        if (candidates.empty()) {
            up.notes.push_back("cell " + to_string(at) + " changed but shows no tile that can be read");
            break;
        }
        if (candidates.size() > 1 && candidates[1].cost - candidates[0].cost < opt.commit_margin) {
            pending = candidates;
            pending_frame = frame.clone();
            pending_view = now.clone();
            up.ambiguity = candidates;
            break;
        }
        if (auto st = commit_tile(candidates.front(), now, up); !st) {
            up.illegal = IllegalMove{candidates.front(), st.error().message};
            break;
        }
        tile_committed = true;
        refreshed.push_back(at);
        if (!up.committed.empty() && up.committed.back().type == "meeple" && up.committed.back().at == at) explain_follower(at);
    }

    painted_over.release();
    // A follower placed on the open turn's tile after the tile itself.
    const int turn_tile = game->turn_tile();
    if (!tile_committed && turn_tile >= 0 && !game->follower_placed() && !game->current_follower_options().empty() &&
        std::find(expect_change.begin(), expect_change.end(), game->board().tiles()[static_cast<std::size_t>(turn_tile)].at) ==
            expect_change.end()) {
        const Cell at = game->board().tiles()[static_cast<std::size_t>(turn_tile)].at;
        if (view.window().contains(at) && piece_share[{at.x, at.y}] > opt.piece_change_share) {
            const cv::Rect cell = view.cell_rect(at);
            const int open_px = std::max(3, static_cast<int>(std::lround(0.08 * cell.width)));
            const Blob blob = largest_blob(changed(cell), open_px);
            if (blob.area >= opt.piece_min_area * cell.area()) {
                if (place_follower_from_blob(blob, cell, lab_now, lab_then, up)) explain_follower(at);
            }
        }
    }

    // Followers: those a scoring sent back leave; any other that vanished is reported.
    auto gone = [&](const Follower& f) {
        if (!view.window().contains(f.at) || piece_share[{f.at.x, f.at.y}] <= opt.piece_change_share) return false;
        return !follower_present(f, lab_now);
    };
    std::vector<Follower> vanished;
    for (const auto& f : followers) {
        if (gone(f)) vanished.push_back(f);
    }
    if (!vanished.empty() && game->turn_player() >= 0) {
        // Players take followers off once a scoring is done: the open turn is over.
        std::vector<Follower> before = followers;
        if (auto st = game->close_turn(); st) {
            note_released(before, up);
            followers = before;
        }
    }
    std::vector<Follower> still_owed;
    for (const auto& f : must_return) {
        if (gone(f) || (view.window().contains(f.at) && !follower_present(f, lab_now))) {
            refreshed.push_back(f.at);
            up.notes.push_back("the " + f.colour + " follower at " + to_string(f.at) + " went back");
        } else {
            still_owed.push_back(f);
        }
    }
    must_return = std::move(still_owed);
    for (const auto& f : followers) {
        if (gone(f)) {
            up.removed_by_mistake.push_back({f.colour, f.at, f.loc, false});
        }
    }

    // Cells changed by an entered event (a bridge): take their new look as it is.
    for (const auto& c : expect_change) refreshed.push_back(c);
    expect_change.clear();

    // Refresh the confirmed look: unchanged cells (slow light drift) and explained changes.
    stale.clear();
    const cv::Mat fresh = now;  // levelled to the confirmed look
    for (int y = w.y0; y <= w.y1; ++y) {
        for (int x = w.x0; x <= w.x1; ++x) {
            const Cell c{x, y};
            const bool explained = std::find(refreshed.begin(), refreshed.end(), c) != refreshed.end();
            const bool quiet = piece_share[{x, y}] <= opt.piece_change_share * 0.5;
            if (explained || quiet) {
                const cv::Rect r = view.cell_rect(c);
                fresh(r).copyTo(confirmed(r));
            } else {
                stale.push_back(c);
            }
        }
    }
    if (tile_committed && opt.refit_plane) refit_plane(frame, up);
    if (tile_committed) regrow_view(frame);
}

// Refits the image -> table mapping to the placed tiles' sides found in `frame`: every edge
// point on a tile's side must map onto that side's line on the table (x or y constant at the
// cell's edge), which gives linear equations in the mapping (a direct linear fit, normalised).
// Sides flush against a neighbour show no edge and give none. Keeps the mapping when too few
// tiles or lines speak, or the fit is poor; else the confirmed look is warped afresh.
void Tracker::State::refit_plane(const cv::Mat& frame, TrackerUpdate& up) {
    const Board& board = game->board();
    if (static_cast<int>(board.tiles().size()) < opt.refit_min_tiles) return;
    cv::Mat grey;
    cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
    const cv::Matx33d table_to_image = image_to_table.inv();
    auto to_image = [&](cv::Point2d p) {
        const cv::Vec3d v = table_to_image * cv::Vec3d(p.x, p.y, 1.0);
        return cv::Point2d(v[0] / v[2], v[1] / v[2]);
    };
    struct Constraint {
        cv::Point2d px;  // an edge point in the image
        bool x_fixed;    // the side's line on the table: x = value (else y = value)
        double value;    // mm
    };
    std::vector<Constraint> cs;
    std::set<long> xs, ys;  // distinct lines (0.1 mm) with edges on them
    int tiles_seen = 0;
    const double half = opt.tile_mm / 2;
    for (const auto& t : board.tiles()) {
        const cv::Point2d c(t.at.x * pitch(), t.at.y * pitch());
        const std::array<cv::Point2d, 4> mm = {c + cv::Point2d(-half, -half), c + cv::Point2d(half, -half), c + cv::Point2d(half, half),
                                               c + cv::Point2d(-half, half)};
        std::array<cv::Point2d, 4> px{};
        for (std::size_t i = 0; i < 4; ++i) px[i] = to_image(mm[i]);
        // Clockwise in the image as the edge search expects: a mirrored mapping reverses the order.
        std::array<std::size_t, 4> order = {0, 1, 2, 3};
        if ((px[1] - px[0]).cross(px[2] - px[1]) < 0) order = {0, 3, 2, 1};
        std::array<cv::Point2d, 4> in_order{};
        for (std::size_t i = 0; i < 4; ++i) in_order[i] = px[order[i]];
        const double px_per_mm = cv::norm(px[1] - px[0]) / opt.tile_mm;
        const auto sides = calibration::tile_side_edges(grey, in_order, std::max(2.0, 3.0 * px_per_mm));
        bool any = false;
        for (std::size_t s = 0; s < 4; ++s) {
            if (sides[s].empty()) continue;
            const cv::Point2d a = mm[order[s]], b = mm[order[(s + 1) % 4]];
            const bool x_fixed = std::abs(a.x - b.x) < 1e-6;
            const double value = x_fixed ? a.x : a.y;
            (x_fixed ? xs : ys).insert(std::lround(value * 10));
            for (const auto& e : sides[s]) cs.push_back({cv::Point2d(e.x, e.y), x_fixed, value});
            any = true;
        }
        tiles_seen += any;
    }
    if (tiles_seen < opt.refit_min_tiles || xs.size() < 2 || ys.size() < 2) return;
    // Normalise both sides (Hartley): image points about their mean, the table's lines likewise.
    cv::Point2d mean_px(0, 0);
    for (const auto& k : cs) mean_px += k.px;
    mean_px *= 1.0 / static_cast<double>(cs.size());
    double spread_px = 0;
    for (const auto& k : cs) spread_px += cv::norm(k.px - mean_px);
    spread_px = std::max(1e-9, spread_px / static_cast<double>(cs.size()));
    const double sp = std::sqrt(2.0) / spread_px;
    const cv::Matx33d norm_px(sp, 0, -sp * mean_px.x, 0, sp, -sp * mean_px.y, 0, 0, 1);
    double cx = 0, cy = 0, spread_mm = 0;
    for (const auto& t : board.tiles()) cx += t.at.x * pitch(), cy += t.at.y * pitch();
    cx /= static_cast<double>(board.tiles().size());
    cy /= static_cast<double>(board.tiles().size());
    for (const auto& t : board.tiles()) spread_mm += std::hypot(t.at.x * pitch() - cx, t.at.y * pitch() - cy) + half;
    spread_mm /= static_cast<double>(board.tiles().size());
    const double sm = std::sqrt(2.0) / spread_mm;
    const cv::Matx33d norm_mm(sm, 0, -sm * cx, 0, sm, -sm * cy, 0, 0, 1);
    cv::Mat a(static_cast<int>(cs.size()), 9, CV_64F, cv::Scalar(0));
    for (std::size_t r = 0; r < cs.size(); ++r) {
        const cv::Vec3d p = norm_px * cv::Vec3d(cs[r].px.x, cs[r].px.y, 1.0);
        const double v = cs[r].x_fixed ? sm * (cs[r].value - cx) : sm * (cs[r].value - cy);
        auto* row = a.ptr<double>(static_cast<int>(r));
        const int off = cs[r].x_fixed ? 0 : 3;
        row[off] = p[0], row[off + 1] = p[1], row[off + 2] = p[2];
        row[6] = -v * p[0], row[7] = -v * p[1], row[8] = -v * p[2];
    }
    cv::Mat w, u, vt;
    cv::SVD::compute(a, w, u, vt, cv::SVD::FULL_UV);
    const cv::Mat h = vt.row(8);
    const cv::Matx33d hn(h.at<double>(0), h.at<double>(1), h.at<double>(2), h.at<double>(3), h.at<double>(4), h.at<double>(5),
                         h.at<double>(6), h.at<double>(7), h.at<double>(8));
    cv::Matx33d fit = norm_mm.inv() * hn * norm_px;
    if (std::abs(fit(2, 2)) < 1e-12) return;
    fit *= 1.0 / fit(2, 2);
    double sum = 0;
    for (const auto& k : cs) {
        const cv::Vec3d v = fit * cv::Vec3d(k.px.x, k.px.y, 1.0);
        if (std::abs(v[2]) < 1e-12) return;
        const double off = (k.x_fixed ? v[0] / v[2] : v[1] / v[2]) - k.value;
        sum += off * off;
    }
    const double rms = std::sqrt(sum / static_cast<double>(cs.size()));
    if (rms > opt.refit_max_rms_mm) return;
    image_to_table = fit;
    confirmed = view.warp(frame, image_to_table);
    stale.clear();  // a drifted plane's spill into neighbouring cells: the fresh look has it right
    up.notes.push_back("the table plane refitted to the sides of " + std::to_string(tiles_seen) + " tiles (rms " +
                       std::to_string(rms).substr(0, 4) + " mm)");
}

// ---------------------------------------------------------------------------------------

Result<Tracker> Tracker::create(Record setup, const TrackerOptions& options, const cv::Matx33d& image_to_table_mm) {
    if (auto st = options.check(); !st) return st.error();
    if (std::abs(cv::determinant(image_to_table_mm)) < 1e-12) return invalid("tracker", "the image -> table homography is singular");
    if (setup.events.empty() || setup.events.front().type != "tile") {
        return invalid("tracker", "the set-up record must hold the start tile event");
    }
    auto s = std::make_unique<State>();
    s->opt = options;
    s->image_to_table = image_to_table_mm;
    s->record = std::move(setup);
    if (auto st = s->rebuild_game(); !st) return st.error();
    auto classifier = vision::TileClassifier::create(s->game->catalog());
    if (!classifier) return classifier.error();
    s->classifier.emplace(std::move(classifier).value());
    s->sync_followers_from_game();
    return Tracker(std::move(s));
}

Tracker::Tracker(std::unique_ptr<State> state) : s_(std::move(state)) {}
Tracker::Tracker(Tracker&&) noexcept = default;
Tracker& Tracker::operator=(Tracker&&) noexcept = default;
Tracker::~Tracker() = default;

TrackerUpdate Tracker::on_frame(const cv::Mat& bgr) {
    MEEPLECAM_CHECK(!bgr.empty() && bgr.type() == CV_8UC3, "on_frame needs an 8-bit BGR frame");
    const auto t0 = Clock::now();
    TrackerUpdate up;
    State& s = *s_;
    // Motion: a small grey copy against the previous frame's.
    cv::Mat grey, small;
    cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    const double scale = std::min(1.0, s.opt.motion_width_px / static_cast<double>(bgr.cols));
    cv::resize(grey, small, cv::Size(), scale, scale, cv::INTER_AREA);
    cv::GaussianBlur(small, small, cv::Size(5, 5), 0);
    bool moving = false;
    if (!s.previous_small.empty() && s.previous_small.size() == small.size()) {
        cv::Mat diff;
        cv::absdiff(small, s.previous_small, diff);
        moving = cv::countNonZero(diff > s.opt.motion_threshold) > s.opt.motion_share * static_cast<double>(diff.total());
    }
    s.previous_small = small;
    up.ms_motion = ms_since(t0);
    if (moving) {
        s.still_frames = 0;
        s.read_this_stillness = false;
    } else {
        ++s.still_frames;
    }
    if (moving || s.still_frames < s.opt.stable_frames) {
        up.state = FrameState::Moving;
    } else if (s.read_this_stillness) {
        up.state = s.last_state;
    } else {
        // The first settled frame: set up the confirmed look on the very first one, else read it.
        const auto t1 = Clock::now();
        s.read_this_stillness = true;
        if (s.confirmed.empty()) {
            s.regrow_view(bgr);
            up.state = FrameState::Stable;
            up.analysed = true;
        } else {
            s.analyse(bgr, up);
        }
        s.last_state = up.state;
        up.ms_analysis = ms_since(t1);
    }
    for (const auto& f : s.must_return) up.must_return.push_back({f.colour, f.at, f.loc, true});
    if (up.ambiguity.empty() && !s.pending.empty()) up.ambiguity = s.pending;
    up.ms_total = ms_since(t0);
    return up;
}

Result<TrackerUpdate> Tracker::choose(int candidate) {
    State& s = *s_;
    if (s.pending.empty()) return invalid("tracker", "no question is open");
    if (candidate < 0 || candidate >= static_cast<int>(s.pending.size())) {
        return invalid("tracker", "candidate " + std::to_string(candidate) + " is not among the " + std::to_string(s.pending.size()) +
                                      " offered");
    }
    const CandidateMove move = s.pending[static_cast<std::size_t>(candidate)];
    TrackerUpdate up;
    if (auto st = s.commit_tile(move, s.pending_view, up); !st) return st.error();
    const cv::Rect r = s.view.cell_rect(move.at);
    s.pending_view(r).copyTo(s.confirmed(r));
    // A follower read with the tile leans over the open neighbours: their look is explained too.
    if (!up.committed.empty() && up.committed.back().type == "meeple") {
        for (int side = 0; side < 4; ++side) {
            const Cell n = neighbour(move.at, side);
            if (s.game->board().tile_at(n) >= 0 || !s.view.window().contains(n)) continue;
            const cv::Rect nr = s.view.cell_rect(n);
            s.pending_view(nr).copyTo(s.confirmed(nr));
        }
    }
    s.regrow_view(s.pending_frame);
    s.pending.clear();
    s.pending_view.release();
    s.pending_frame.release();
    return up;
}

Status Tracker::record_event(const Event& event) {
    State& s = *s_;
    const int index = static_cast<int>(s.record.events.size());
    std::vector<Follower> before = s.followers;
    if (auto st = s.game->apply(event, index); !st) {
        // An event the last tile's reading refuses (an auction after a bazaar read as its plain
        // twin): re-read that tile as its likeliest reading the event fits.
        const auto fits = [&](Game& g) { return static_cast<bool>(g.apply(event, index)); };
        if (!s.rerank_recent_tiles(fits, "the players' " + event.type + " did not fit: " + st.error().message, nullptr)) return st;
        before = s.followers;
        if (auto again = s.game->apply(event, index); !again) return again;
    }
    s.record.events.push_back(event);
    TrackerUpdate up;
    s.note_released(before, up);
    s.followers = before;
    s.sync_followers_from_game();
    // What the players change with it (a bridge on a tile) is taken as the new look of that cell.
    if (event.type != "tile" && event.type != "meeple" && event.raw.is_object() && event.raw.contains("at")) {
        const auto& a = event.raw["at"];
        if (a.is_array() && a.size() == 2 && a[0].is_number_integer() && a[1].is_number_integer()) {
            s.expect_change.push_back({a[0].get<int>(), a[1].get<int>()});
            s.decorated.push_back({a[0].get<int>(), a[1].get<int>()});
        }
    }
    return Ok{};
}

Status Tracker::undo_last_move() {
    State& s = *s_;
    std::size_t last = 0;
    for (std::size_t i = 1; i < s.record.events.size(); ++i) {
        if (s.record.events[i].type == "tile" || s.record.events[i].type == "discard") last = i;
    }
    if (last == 0) return invalid("tracker", "no move to take back (only the start tile is on the table)");
    const std::vector<Event> kept_events = s.record.events;
    truncate_events(s.record, last);
    s.record.finished = false;
    if (auto st = s.rebuild_game(); !st) {
        s.record.events = kept_events;
        (void)s.rebuild_game();
        return st;
    }
    while (!s.history.empty() && s.history.back().events > last) s.history.pop_back();
    if (!s.history.empty() && s.history.back().events == last) {
        s.view = s.history.back().view;
        s.confirmed = s.history.back().confirmed;
        s.history.pop_back();
    }
    s.must_return.clear();
    s.pending.clear();
    s.illegal_cell.reset();
    s.stale.clear();
    s.sync_followers_from_game();
    s.corrections.push_back("undo: events " + std::to_string(last) + ".." + std::to_string(kept_events.size() - 1) + " taken back");
    return Ok{};
}

namespace {
// Replays `edited` in place of the tracker's record; keeps the old one when it does not replay.
Status apply_edit(Record& record, std::optional<Game>& game, Record edited) {
    ReplayOptions ro;
    ro.apply_finish = edited.finished;
    ro.close_last_turn = edited.finished;
    auto replayed = replay(edited, ro);
    if (!replayed) return replayed.error();
    record = std::move(edited);
    game.emplace(std::move(replayed).value());
    return Ok{};
}
}  // namespace

Status Tracker::correct_tile(Cell at, const std::string& tile, int rot) {
    State& s = *s_;
    Record edited = s.record;
    if (auto st = correct_tile_event(edited, at, tile, rot); !st) return st;
    if (auto st = apply_edit(s.record, s.game, std::move(edited)); !st) return st;
    s.corrections.push_back(describe_correction(s.record.events.back()));
    s.sync_followers_from_game();
    return Ok{};
}

Status Tracker::correct_piece(Cell at, const std::string& colour, const std::string& loc) {
    State& s = *s_;
    Record edited = s.record;
    if (auto st = correct_follower_event(edited, at, colour, loc); !st) return st;
    if (auto st = apply_edit(s.record, s.game, std::move(edited)); !st) return st;
    s.corrections.push_back(describe_correction(s.record.events.back()));
    s.sync_followers_from_game();
    return Ok{};
}

Status Tracker::finish() {
    State& s = *s_;
    if (auto st = s.game->finish(); !st) return st;
    s.record.finished = true;
    return Ok{};
}

const Game& Tracker::game() const { return *s_->game; }
const Record& Tracker::record() const { return s_->record; }
const cv::Matx33d& Tracker::image_to_table() const { return s_->image_to_table; }
const TrackerOptions& Tracker::options() const { return s_->opt; }
const std::vector<std::string>& Tracker::corrections() const { return s_->corrections; }
const std::map<Cell, std::vector<CandidateMove>>& Tracker::likelihoods() const { return s_->likelihood; }
const std::map<Cell, FollowerReading>& Tracker::follower_readings() const { return s_->follower_reading; }

}  // namespace meeplecam::session
