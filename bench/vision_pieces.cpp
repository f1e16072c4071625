// Pieces section of bench/vision (see vision_pieces.h).
#include "vision_pieces.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "calibration/player_colours.h"
#include "engine/random_game.h"
#include "vision/board_reader.h"
#include "vision/image_io.h"
#include "vision/photo_score.h"
#include "vision/piece_detector.h"
#include "vision/tile_classifier.h"
#include "vision/truth_metrics.h"
#include "vision/homography.h"

namespace meeplecam::bench {
namespace {

struct Count {
    int truth = 0, found = 0, right = 0;  // right: matched with the right colour
};

struct PieceStats {
    int games = 0, not_read = 0, build_errors = 0, exact = 0;
    std::map<std::string, Count> by_colour;
    Count all, standing, lying, occluded, on_read;  // right = matched (any colour); on_read: on a cell the reader decoded
    int oracle_games = 0, oracle_exact = 0;  // boards placed right, scored with the true tiles (a perfect tile reader)
    int true_board_games = 0, true_board_exact = 0;  // every game, scored on the true board (true lattice and tiles: the pieces alone)
    int true_board_truth = 0, true_board_found = 0, true_board_matched = 0, true_board_feature_ok = 0, true_board_pose_ok = 0;
    int placed_boards = 0, placed_truth = 0, placed_found = 0, placed_matched = 0, placed_exact = 0;  // boards the reader placed right
    int matched = 0, colour_ok = 0, feature_ok = 0, tile_right = 0, feature_ok_tile_right = 0, pose_ok = 0;
    std::vector<double> ms, true_board_ms, base_err_standing, base_err_lying;  // ms per detection; mm on the tile plane
    // Bridges, ferries, castles: right = found on its cell(s); where = and its ports (axis, jetty pair) right.
    struct TokenCount {
        int truth = 0, found = 0, right = 0, where = 0, coloured = 0, colour_ok = 0;
        int placed_truth = 0, placed_found = 0, placed_right = 0;  // on boards the reader placed right
    };
    std::map<std::string, TokenCount> tokens;
    int token_games = 0, token_exact = 0;  // games with a bridge, ferry or castle, and their exact scores
    int retaken = 0, retaken_right = 0, retaken_was_right = 0;  // tiles the photo score took against the reader's choice (sides clashing): right after, right before
    int tiles_truth = 0, tiles_wrong = 0, tiles_missed = 0;      // true tiles, read wrong (type or rotation), missed (after the pieces' reread)
    int piece_tiles = 0, piece_tiles_wrong = 0;                  // of them: tiles a true follower stands on, and those read wrong
    std::map<std::string, int> wrong_as;                         // tiles read wrong under a follower: "truth->read" counts
};

// Turns the bench's switches into the detector's options (the defaults where a switch is left alone).
vision::PieceDetectorOptions detector_options(const PiecesBenchOptions& bench) {
    vision::PieceDetectorOptions detector;
    detector.silhouette_pose = !bench.width_pose;
    detector.lift_veil = bench.veil;
    detector.adapt_to_light = bench.adapt;
    if (bench.min_veil > 0) detector.min_veil = bench.min_veil;
    if (!bench.split) detector.split_below_fit = 0;
    if (!bench.shade) detector.achromatic_shade_mm = 0;
    if (!bench.grey_grow) detector.grey_grow_mm = 0;
    if (!bench.ferry_cover) detector.ferry_seen_share = 1;
    detector.light_cast.road_white = bench.road_white;
    if (bench.cast_inset_mm >= 0) detector.light_cast.inset_mm = bench.cast_inset_mm;
    return detector;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double pct(int a, int b) { return b > 0 ? 100.0 * a / b : 0.0; }

// Returns the reading's quarter turn against the board (as bench/vision's tile table): the
// direction of the first true tile's north edge in the reader's top view.
int quarter_turn_of(const vision::LatticeView& view, const vision::RenderTruth& truth) {
    const cv::Point2d nw = vision::apply_homography(view.image_to_top, truth.tiles[0].corners_px[0]);
    const cv::Point2d ne = vision::apply_homography(view.image_to_top, truth.tiles[0].corners_px[1]);
    return ((static_cast<int>(std::lround(std::atan2(ne.y - nw.y, ne.x - nw.x) * 2 / CV_PI)) % 4) + 4) % 4;
}

// The reading's cell (col, row) that the true tile's centre falls in.
std::pair<int, int> reading_cell(const vision::LatticeView& view, const vision::TileTruth& t) {
    const cv::Point2d c = vision::apply_homography(view.image_to_top, t.centre_px) * (1.0 / view.pitch_px);
    return {static_cast<int>(std::floor(c.x)), static_cast<int>(std::floor(c.y))};
}

// The reading's cell of the true tile on board cell `at` (the truth must hold one there).
std::pair<int, int> reading_cell_at(const vision::LatticeView& view, const vision::RenderTruth& truth, Cell at) {
    const auto tile = std::find_if(truth.tiles.begin(), truth.tiles.end(), [&](const auto& t) { return t.at == at; });
    return reading_cell(view, *tile);
}

// Returns `reading` with its tiles replaced by the true ones (each on the cell its centre falls
// in, turned by the reading's quarter turn `g`): the board a perfect tile reader would give.
vision::BoardReading with_true_tiles(const vision::BoardReading& reading, const vision::RenderTruth& truth, const Catalog& catalog, int g) {
    vision::BoardReading out = reading;
    out.tiles.clear();
    for (const auto& t : truth.tiles) {
        vision::DecodedTile d;
        std::tie(d.col, d.row) = reading_cell(reading.view, t);
        d.type = catalog.find(t.tile)->index;
        d.rot = (t.rot_deg / 90 + g) % 4;
        out.tiles.push_back(d);
    }
    return out;
}


// Greedy matching of true followers to found ones by distance in the top view, within 40 % of a tile.
struct Matching {
    std::vector<int> truth_match, found_match;  // index of the partner, -1 when none
};

Matching match_followers(const std::vector<vision::PieceTruth>& truth, const std::vector<vision::DetectedPiece>& found, const vision::LatticeView& view) {
    std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        const cv::Point2d t = vision::apply_homography(view.image_to_top, truth[i].base_px);
        for (std::size_t j = 0; j < found.size(); ++j) {
            const double d = cv::norm(t - found[j].top_px);
            if (d < 0.4 * view.pitch_px) pairs.emplace_back(d, i, j);
        }
    }
    std::sort(pairs.begin(), pairs.end());
    Matching m{std::vector<int>(truth.size(), -1), std::vector<int>(found.size(), -1)};
    for (const auto& [d, i, j] : pairs) {
        if (m.truth_match[i] >= 0 || m.found_match[j] >= 0) continue;
        m.truth_match[i] = static_cast<int>(j);
        m.found_match[j] = static_cast<int>(i);
    }
    return m;
}

// The median Lab of the body of a follower (a small patch between its base and head) in `image`.
cv::Vec3f body_lab(const vision::PieceTruth& tp, const cv::Mat& image) {
    const cv::Point2d body = tp.base_px * 0.6 + tp.head_px * 0.4;
    const cv::Rect box = cv::Rect(static_cast<int>(body.x) - 2, static_cast<int>(body.y) - 2, 5, 5) & cv::Rect(0, 0, image.cols, image.rows);
    if (box.area() == 0) return {0, 0, 0};
    cv::Mat lab;
    image(box).convertTo(lab, CV_32FC3, 1.0 / 255);
    cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);
    cv::Vec3f out;
    for (int c = 0; c < 3; ++c) {
        std::vector<float> v;
        for (int y = 0; y < lab.rows; ++y) {
            for (int x = 0; x < lab.cols; ++x) v.push_back(lab.at<cv::Vec3f>(y, x)[c]);
        }
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        out[c] = v[v.size() / 2];
    }
    return out;
}

// Why a true follower was not found, as a cause ("cause: ..."): hidden, a blob of its colour
// there that the detector rejected (and why), its body's colour failing its gate, or its
// colour passing there but explained away by a terrain.
std::string why_missed(const vision::PieceTruth& tp, const vision::PieceDetection& found, const vision::LatticeView& view, const cv::Mat& image) {
    char buf[256];
    const cv::Vec3f lab = image.empty() ? cv::Vec3f(0, 0, 0) : body_lab(tp, image);
    const auto models = vision::ColourModels::daylight();
    std::string passes;
    for (const auto& m : models.colours) {
        if (vision::colour_matches(m, lab)) passes += (passes.empty() ? "" : ",") + m.name;
    }
    std::snprintf(buf, sizeof buf, "body Lab %.0f %.0f %.0f (hue %.0f, chroma %.0f) passes [%s]", lab[0], lab[1], lab[2], std::atan2(lab[2], lab[1]) * 180 / CV_PI,
                  std::hypot(lab[1], lab[2]), passes.c_str());
    std::string cause;
    const cv::Point2d at = vision::apply_homography(view.image_to_top, tp.base_px);
    const vision::DetectedPiece* near = nullptr;
    for (const auto& r : found.rejected) {
        if (r.colour == tp.colour && cv::norm(r.top_px - at) < 0.4 * view.pitch_px && (near == nullptr || r.area_mm2 > near->area_mm2)) near = &r;
    }
    const vision::DetectedPiece* other = nullptr;
    for (const auto& p : found.pieces) {
        if (cv::norm(p.top_px - at) < 0.4 * view.pitch_px) other = &p;
    }
    const auto* own = models.find(tp.colour);
    if (tp.visible < 0.3) cause = "hidden";
    else if (near != nullptr) {
        char fit[96];
        std::snprintf(fit, sizeof fit, " (%d mm2, confidence %.2f, fit %.2f / %.2f)", static_cast<int>(near->area_mm2), near->confidence, near->fit_standing,
                      near->fit_lying);
        cause = "rejected: " + near->kind + fit;
    }
    else if (other != nullptr) cause = "merged with a " + other->colour + " piece";
    else if (own != nullptr && !vision::colour_matches(*own, lab)) cause = "gate fails";
    else cause = "explained by terrain";
    return "cause: " + cause + "; " + buf;
}

// Prints why the score with the true tiles differs from the record's: every follower missed,
// invented, put on the wrong feature or seen in the wrong colour, every bridge, ferry or castle
// missed or invented, the build error, and the points per colour.
// With `crops_to` set, writes a crop of the photo around each follower missed or misplaced.
void explain_oracle(std::uint64_t seed, const Game& truth_game, const vision::RenderTruth& truth, const vision::BoardReading& true_tiles,
                    const vision::PieceDetection& found, const Result<vision::PhotoGame>& oracle, int g, const cv::Mat& image = {},
                    const std::string& crops_to = {}) {
    const auto& view = true_tiles.view;
    const auto s = static_cast<unsigned long long>(seed);
    auto crop = [&](const vision::PieceTruth& tp, const std::string& why) {
        if (crops_to.empty() || image.empty()) return;
        const cv::Rect box = cv::Rect(cv::Point(static_cast<int>(tp.base_px.x) - 45, static_cast<int>(tp.base_px.y) - 55), cv::Size(90, 90)) &
                             cv::Rect(0, 0, image.cols, image.rows);
        cv::Mat c;
        cv::resize(image(box), c, cv::Size(), 4, 4, cv::INTER_NEAREST);
        cv::imwrite(crops_to + "/miss_" + std::to_string(seed) + "_" + tp.colour + "_" + std::to_string(tp.at.x) + "_" + std::to_string(tp.at.y) + "_" + why +
                        ".png",
                    c);
    };
    auto cell_of = [&](Cell at) { return reading_cell_at(view, truth, at); };
    const Matching m = match_followers(truth.pieces, found.pieces, view);
    for (std::size_t i = 0; i < truth.pieces.size(); ++i) {
        const auto& tp = truth.pieces[i];
        const std::string what = tp.colour + (tp.lying ? " lying" : " standing") + " on " + tp.feature + " " + std::string(port_name(tp.loc)) + " at " +
                                 to_string(tp.at);
        if (m.truth_match[i] < 0) {
            const auto cell = cell_of(tp.at);
            std::printf("  seed %llu oracle: missed %s (visible %.2f), reading cell [%d, %d]; %s\n", s, what.c_str(), tp.visible, cell.first, cell.second,
                        why_missed(tp, found, view, image).c_str());
            crop(tp, "missed");
            continue;
        }
        const auto& d = found.pieces[static_cast<std::size_t>(m.truth_match[i])];
        if (d.colour != tp.colour) {
            std::printf("  seed %llu oracle: %s seen as %s\n", s, what.c_str(), d.colour.c_str());
            crop(tp, "colour");
        }
        const auto cell = cell_of(tp.at);
        const auto tile = std::find_if(true_tiles.tiles.begin(), true_tiles.tiles.end(), [&](const auto& t) { return t.col == cell.first && t.row == cell.second; });
        const TileType* vtype = truth_game.board().tiles()[static_cast<std::size_t>(truth_game.board().tile_at(tp.at))].type;
        const int f = tile == true_tiles.tiles.end() ? -1 : vtype->feature_at(rotate_port(tp.loc, g), tile->rot);
        if (d.col != cell.first || d.row != cell.second || f != d.feature) {
            std::printf("  seed %llu oracle: %s put on feature %d (%s%s, want %d), base %.1f mm off, fit standing %.2f lying %.2f\n", s, what.c_str(),
                        d.feature, d.lying ? "lying, " : "standing, ", std::string(feature_kind_name(d.feature_kind)).c_str(), f,
                        cv::norm(vision::apply_homography(view.image_to_top, tp.base_px) - d.top_px) / view.px_per_mm, d.fit_standing, d.fit_lying);
            crop(tp, "feature");
        }
    }
    for (std::size_t j = 0; j < found.pieces.size(); ++j) {
        if (m.found_match[j] >= 0) continue;
        const auto& d = found.pieces[j];
        std::printf("  seed %llu oracle: invented %s %s on %s at reading cell [%d, %d], %.0f mm2, confidence %.2f, solidity %.2f, fit %.2f / %.2f\n", s,
                    d.colour.c_str(), d.lying ? "lying" : "standing", std::string(feature_kind_name(d.feature_kind)).c_str(), d.col, d.row, d.area_mm2,
                    d.confidence, d.solidity, d.fit_standing, d.fit_lying);
    }
    std::vector<bool> used(found.tokens.size(), false);
    for (const auto& tt : truth.tokens) {
        const auto a = cell_of(tt.at), b = cell_of(tt.other);
        bool hit = false;
        for (std::size_t j = 0; j < found.tokens.size() && !hit; ++j) {
            const auto& d = found.tokens[j];
            if (used[j] || d.kind != tt.kind) continue;
            const std::pair<int, int> da{d.col, d.row}, db{d.col2, d.row2};
            hit = (da == a && db == b) || (da == b && db == a);
            if (hit) used[j] = true;
        }
        if (!hit) {
            std::printf("  seed %llu oracle: missed %s at %s\n", s, tt.kind.c_str(), to_string(tt.at).c_str());
            if (!crops_to.empty() && !image.empty()) {  // the photo around it
                const cv::Rect box = cv::Rect(cv::Point(static_cast<int>(tt.centre_px.x) - 60, static_cast<int>(tt.centre_px.y) - 60), cv::Size(120, 120)) &
                                     cv::Rect(0, 0, image.cols, image.rows);
                cv::Mat c;
                cv::resize(image(box), c, cv::Size(), 3, 3, cv::INTER_NEAREST);
                cv::imwrite(crops_to + "/miss_" + std::to_string(seed) + "_" + tt.kind + "_" + std::to_string(tt.at.x) + "_" + std::to_string(tt.at.y) + ".png", c);
            }
        }
    }
    for (std::size_t j = 0; j < found.tokens.size(); ++j) {
        if (!used[j]) std::printf("  seed %llu oracle: invented %s at reading cell [%d, %d]\n", s, found.tokens[j].kind.c_str(), found.tokens[j].col, found.tokens[j].row);
    }
    if (!oracle) {
        std::printf("  seed %llu oracle: no score: %s\n", s, oracle.error().to_string().c_str());
        return;
    }
    for (const auto& w : oracle->warnings) std::printf("  seed %llu oracle: warning: %s\n", s, w.c_str());
    const auto want = vision::final_points(truth_game), got = vision::final_points(oracle->game);
    std::string diff;
    for (const auto& [colour, points] : want) {
        const int other = got.count(colour) ? got.at(colour) : 0;
        if (other != points) diff += " " + colour + " " + std::to_string(other) + " (want " + std::to_string(points) + ")";
    }
    std::printf("  seed %llu oracle: score%s\n", s, diff.empty() ? " right" : diff.c_str());
}

// The photo game built from `pieces` on `board` (tiles as given), and whether every player's
// final score equals the truth's.
struct ScoredPieces {
    Result<vision::PhotoGame> game;
    bool exact = false;
};
ScoredPieces score_pieces_on(const std::shared_ptr<const Catalog>& catalog, const std::vector<std::string>& expansions, const Game& truth_game,
                             const vision::BoardReading& board, const vision::PieceDetection& found) {
    Record setup;
    setup.players = truth_game.players();
    setup.expansions = expansions;
    auto game = vision::build_photo_game(setup, catalog, board, found.pieces, found.tokens);
    const bool exact = game && vision::final_points(game->game) == vision::final_points(truth_game);
    return {std::move(game), exact};
}

}  // namespace

void pieces_synthetic(const std::shared_ptr<const Catalog>& catalog, vision::Difficulty preset, int n, std::uint64_t seed0,
                      const std::string& dump_dir, const std::vector<std::string>& expansions, const PiecesBenchOptions& bench) {
    PieceStats st;
    const auto& types = catalog->tiles();
    vision::PieceDetectorOptions detector = detector_options(bench);  // look for the expansions' pieces only when they are in play
    for (const auto& e : expansions) {
        detector.find_bridges = detector.find_bridges || e == "bridges" || e == "bridges-castles-bazaars";
        detector.find_castles = detector.find_castles || e == "castles" || e == "bridges-castles-bazaars";
    }
    detector.keep_rejected = !dump_dir.empty();
    for (int b = 0; b < n; ++b) {
        const std::uint64_t seed = seed0 + static_cast<std::uint64_t>(b);
        RandomGameOptions rg;
        rg.seed = seed;
        rg.players = 2 + static_cast<int>(seed % 5);  // 2..6 players: every colour appears
        rg.expansions = expansions;
        auto played = play_random_game(catalog, rg);
        if (!played) {
            std::fprintf(stderr, "random game: %s\n", played.error().to_string().c_str());
            continue;
        }
        const Game& truth_game = played->game;
        auto rendering = vision::render_table(vision::scene_of(truth_game), vision::RenderOptions::for_difficulty(preset), seed);
        if (!rendering) {
            std::fprintf(stderr, "render: %s\n", rendering.error().to_string().c_str());
            continue;
        }
        ++st.games;
        const auto& truth = rendering->truth;
        for (const auto& p : truth.pieces) {
            ++st.by_colour[p.colour].truth;
            ++st.all.truth;
            ++(p.lying ? st.lying : st.standing).truth;
            if (p.visible < 0.8) ++st.occluded.truth;
        }
        {
            // Every game on the true board (true lattice and tiles): what the pieces alone get right.
            const vision::BoardReading board = vision::reading_from_truth(truth, *catalog, rendering->image.size());
            auto on_true = vision::detect_pieces(rendering->image, board, *catalog, vision::ColourModels::daylight(), detector);
            if (on_true) {
                auto [oracle, exact] = score_pieces_on(catalog, expansions, truth_game, board, on_true.value());
                ++st.true_board_games;
                st.true_board_ms.push_back(on_true->ms);
                st.true_board_exact += exact;
                const Matching m = match_followers(truth.pieces, on_true->pieces, board.view);
                st.true_board_truth += static_cast<int>(truth.pieces.size());
                st.true_board_found += static_cast<int>(on_true->pieces.size());
                for (std::size_t i = 0; i < truth.pieces.size(); ++i) {
                    if (m.truth_match[i] < 0) continue;
                    ++st.true_board_matched;
                    const auto& d = on_true->pieces[static_cast<std::size_t>(m.truth_match[i])];
                    const auto& tp = truth.pieces[i];
                    st.true_board_pose_ok += d.lying == tp.lying;
                    const TileType* vtype = truth_game.board().tiles()[static_cast<std::size_t>(truth_game.board().tile_at(tp.at))].type;
                    // vision::reading_from_truth() keeps the truth's tile order: the piece's tile is the same index.
                    const auto want = std::find_if(truth.tiles.begin(), truth.tiles.end(), [&](const auto& t) { return t.at == tp.at; });
                    const auto& tile = board.tiles[static_cast<std::size_t>(want - truth.tiles.begin())];
                    st.true_board_feature_ok += d.col == tile.col && d.row == tile.row && d.feature >= 0 && vtype->feature_at(tp.loc, tile.rot) == d.feature;
                }
                if (!dump_dir.empty()) {
                    const auto& cast = on_true->light_cast;
                    std::printf("  seed %llu true board: glare veil lifted %.2f (rendered glare: %s); light cast: art %s (rendered %s), residual %.3f, "
                                "correction BGR %.2f %.2f %.2f%s\n",
                                static_cast<unsigned long long>(seed), on_true->veil_peak, truth.glare ? "yes" : "no", cast.art.c_str(), truth.style.c_str(),
                                cast.residual, cast.correction_bgr[0], cast.correction_bgr[1], cast.correction_bgr[2], cast.applied ? "" : " (not applied)");
                }
                if (!exact && !dump_dir.empty()) {
                    std::printf("  seed %llu TRUE BOARD:\n", static_cast<unsigned long long>(seed));
                    explain_oracle(seed, truth_game, truth, board, on_true.value(), oracle, quarter_turn_of(board.view, truth), rendering->image, dump_dir);
                }
            }
        }
        if (bench.true_board_only) continue;
        vision::ReaderOptions reader;
        reader.pennants.cover_needs_colour = bench.cover_needs_colour;
        reader.pennants.follower_hides_spot = bench.follower_hides_spot;
        reader.pennants.spot_at_rest = bench.spot_at_rest;
        reader.pennants.rank_by_silhouette = bench.rank_by_silhouette;
        reader.pennants.min_peeking_share = bench.min_peeking_share;
        if (bench.refit_cap > 0) reader.refine.gradient_cap_quantile = bench.refit_cap;
        if (bench.rescaled_refit_cap > 0) reader.rescale.refit_gradient_cap = bench.rescaled_refit_cap;
        if (bench.walled_share > 0) reader.min_walled_share = bench.walled_share;
        auto reading = vision::read_board(rendering->image, *catalog, reader);
        if (!reading || !reading->found) {
            ++st.not_read;
            continue;
        }
        reader.cover_pieces = bench.cover;
        reader.pennants_under_pieces = bench.pennant_cover;
        if (bench.min_seen_under_piece > 0) reader.pennants.min_seen_under_piece = bench.min_seen_under_piece;
        auto detection = vision::detect_pieces_rereading(rendering->image, reading.value(), *catalog, vision::ColourModels::daylight(), detector, reader);
        if (!detection) {
            std::fprintf(stderr, "detect: %s\n", detection.error().to_string().c_str());
            continue;
        }
        st.ms.push_back(detection->ms);
        const auto& view = reading->view;
        const auto& found = detection->pieces;
        for (const auto& d : found) ++st.by_colour[d.colour].found, ++st.all.found;
        // The reading's quarter turn against the board (as bench/vision's tile table).
        const int g = quarter_turn_of(view, truth);
        if (!dump_dir.empty()) {  // lattice phase: true tile centres should sit mid-cell
            std::vector<double> fx, fy;
            for (const auto& t : truth.tiles) {
                const cv::Point2d c = vision::apply_homography(view.image_to_top, t.centre_px) * (1.0 / view.pitch_px);
                fx.push_back(c.x - std::floor(c.x));
                fy.push_back(c.y - std::floor(c.y));
            }
            std::sort(fx.begin(), fx.end());
            std::sort(fy.begin(), fy.end());
            const auto& cast = detection->light_cast;
            std::printf("  seed %llu: %zu tiles read of %zu, median cell phase %.2f %.2f; glare veil lifted %.2f; light cast: art %s, residual %.3f, "
                        "correction BGR %.2f %.2f %.2f%s\n", static_cast<unsigned long long>(seed), reading->tiles.size(), truth.tiles.size(), fx[fx.size() / 2],
                        fy[fy.size() / 2], detection->veil_peak, cast.art.c_str(), cast.residual, cast.correction_bgr[0], cast.correction_bgr[1],
                        cast.correction_bgr[2], cast.applied ? "" : " (not applied)");
        }
        std::map<std::pair<int, int>, const vision::DecodedTile*> decoded;
        for (const auto& t : reading->tiles) decoded[{t.col, t.row}] = &t;
        // The same reading with every tile as the truth has it, and its tiles by cell.
        const vision::BoardReading true_tiles = with_true_tiles(reading.value(), truth, *catalog, g);
        std::map<std::pair<int, int>, const vision::DecodedTile*> true_at;
        for (const auto& t : true_tiles.tiles) true_at[{t.col, t.row}] = &t;
        // The reader placed the board right: every true tile on its own decoded cell, none extra.
        bool placed = reading->tiles.size() == truth.tiles.size();
        {
            std::set<std::pair<int, int>> cells;
            for (const auto& t : truth.tiles) {
                const cv::Point2d c = vision::apply_homography(view.image_to_top, t.centre_px) * (1.0 / view.pitch_px);
                const std::pair<int, int> cell{static_cast<int>(std::floor(c.x)), static_cast<int>(std::floor(c.y))};
                placed = placed && decoded.count(cell) && cells.insert(cell).second;
            }
        }
        {  // tiles read wrong (rotation modulo the tile's symmetry), and whether a true follower stands on them
            std::set<std::pair<int, int>> under_follower;  // reading cells of the true followers' tiles
            for (const auto& tp : truth.pieces) under_follower.insert(reading_cell_at(view, truth, tp.at));
            const auto& kinds = catalog->tiles();
            for (const auto& t : true_tiles.tiles) {
                const auto it = decoded.find({t.col, t.row});
                const auto period = std::max<std::size_t>(1, kinds[static_cast<std::size_t>(t.type)].distinct_rotations.size());
                const bool follower = under_follower.count({t.col, t.row}) > 0;
                ++st.tiles_truth;
                st.piece_tiles += follower;
                if (it == decoded.end()) {
                    ++st.tiles_missed;
                    if (!dump_dir.empty()) std::printf("  seed %llu: tile %s at [%d, %d] missed%s\n", static_cast<unsigned long long>(seed), kinds[static_cast<std::size_t>(t.type)].id.c_str(), t.col, t.row,
                                                       follower ? " (a follower on it)" : "");
                } else if (it->second->type != t.type || static_cast<std::size_t>(it->second->rot) % period != static_cast<std::size_t>(t.rot) % period) {
                    ++st.tiles_wrong;
                    st.piece_tiles_wrong += follower;
                    if (follower) ++st.wrong_as[kinds[static_cast<std::size_t>(t.type)].id + "->" + kinds[static_cast<std::size_t>(it->second->type)].id];
                    if (!dump_dir.empty()) std::printf("  seed %llu: tile %s rot %d at [%d, %d] read %s rot %d%s\n", static_cast<unsigned long long>(seed), kinds[static_cast<std::size_t>(t.type)].id.c_str(),
                                                       t.rot, t.col, t.row, kinds[static_cast<std::size_t>(it->second->type)].id.c_str(), it->second->rot,
                                                       follower ? " (a follower on it)" : "");
                }
            }
        }
        // (--dump) The reading's cell under a top-view point: decoded or not, the tile there read right or wrong, and how many of
        // its eight neighbours the reader missed where the truth has a tile.
        auto cell_state = [&](cv::Point2d top) {
            const std::pair<int, int> cell{static_cast<int>(std::floor(top.x / view.pitch_px)), static_cast<int>(std::floor(top.y / view.pitch_px))};
            auto right = [&](const std::pair<int, int>& c) {
                const auto d = decoded.find(c);
                const auto w = true_at.find(c);
                if (d == decoded.end() || w == true_at.end()) return false;
                const auto period = static_cast<int>(std::max<std::size_t>(1, types[static_cast<std::size_t>(w->second->type)].distinct_rotations.size()));
                return d->second->type == w->second->type && d->second->rot % period == w->second->rot % period;
            };
            int missed_near = 0;
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) missed_near += (dx != 0 || dy != 0) && true_at.count({cell.first + dx, cell.second + dy}) && !decoded.count({cell.first + dx, cell.second + dy});
            }
            const char* state = !decoded.count(cell) ? (true_at.count(cell) ? "not decoded (a tile there)" : "not decoded (no tile)")
                                                     : !true_at.count(cell) ? "decoded, no tile there" : right(cell) ? "tile read right" : "tile read wrong";
            return "reading cell [" + std::to_string(cell.first) + ", " + std::to_string(cell.second) + "] " + state + ", " + std::to_string(missed_near) +
                   " neighbours missed";
        };
        const Matching matching = match_followers(truth.pieces, found, view);
        const std::vector<int>& truth_match = matching.truth_match;
        const std::vector<int>& found_match = matching.found_match;
        bool mistake = false;
        for (std::size_t i = 0; i < truth.pieces.size(); ++i) {
            const auto& tp = truth.pieces[i];
            {
                const auto tile = std::find_if(truth.tiles.begin(), truth.tiles.end(), [&](const auto& t) { return t.at == tp.at; });
                const cv::Point2d c = vision::apply_homography(view.image_to_top, tile->centre_px) * (1.0 / view.pitch_px);
                if (decoded.count({static_cast<int>(std::floor(c.x)), static_cast<int>(std::floor(c.y))})) {
                    ++st.on_read.truth;
                    st.on_read.right += truth_match[i] >= 0;
                }
            }
            if (truth_match[i] < 0) {
                mistake = true;
                if (!dump_dir.empty()) {
                    const cv::Point2d body = tp.base_px * 0.6 + tp.head_px * 0.4;
                    cv::Mat px(1, 1, CV_32FC3), lab;
                    const cv::Vec3b bgr = rendering->image.at<cv::Vec3b>(static_cast<int>(body.y), static_cast<int>(body.x));
                    px.at<cv::Vec3f>(0, 0) = cv::Vec3f(bgr[0] / 255.0f, bgr[1] / 255.0f, bgr[2] / 255.0f);
                    cv::cvtColor(px, lab, cv::COLOR_BGR2Lab);
                    const cv::Vec3f l = lab.at<cv::Vec3f>(0, 0);
                    std::printf("  seed %llu: missed %s %s on %s at [%d, %d] (visible %.2f), body Lab %.0f %.0f %.0f (hue %.0f, chroma %.0f); %s; %s\n",
                                static_cast<unsigned long long>(seed), tp.colour.c_str(), tp.lying ? "lying" : "standing", tp.feature.c_str(), tp.at.x,
                                tp.at.y, tp.visible, l[0], l[1], l[2], std::atan2(l[2], l[1]) * 180 / CV_PI, std::hypot(l[1], l[2]),
                                cell_state(vision::apply_homography(view.image_to_top, tp.base_px)).c_str(), why_missed(tp, detection.value(), view, rendering->image).c_str());
                }
                continue;
            }
            const auto& d = found[static_cast<std::size_t>(truth_match[i])];
            ++st.matched;
            ++st.all.right;
            ++(tp.lying ? st.lying : st.standing).right;
            if (tp.visible < 0.8) ++st.occluded.right;
            st.pose_ok += d.lying == tp.lying;
            const double err_mm = cv::norm(vision::apply_homography(view.image_to_top, tp.base_px) - d.top_px) / view.px_per_mm;
            (tp.lying ? st.base_err_lying : st.base_err_standing).push_back(err_mm);
            if (std::getenv("VB_POSE")) {
                std::printf("POSE %d %.1f %.1f %.1f %.1f %.3f %.1f %.1f\n", tp.lying ? 1 : 0, d.length_mm, d.width_mm, d.area_mm2, d.smear_mm, d.solidity,
                            d.rect_short_mm, d.rect_long_mm);
            }
            if (d.colour == tp.colour) {
                ++st.colour_ok;
                ++st.by_colour[tp.colour].right;
            } else {
                mistake = true;
            }
            // The true feature in the reading's frame: the true tile's cell and the port turned by g.
            const auto tile = std::find_if(truth.tiles.begin(), truth.tiles.end(), [&](const auto& t) { return t.at == tp.at; });
            const cv::Point2d c = vision::apply_homography(view.image_to_top, tile->centre_px) * (1.0 / view.pitch_px);
            const std::pair<int, int> cell{static_cast<int>(std::floor(c.x)), static_cast<int>(std::floor(c.y))};
            const auto dt = decoded.find(cell);
            bool ok = false, tile_ok = false;
            if (dt != decoded.end()) {
                const TileType& dtype = types[static_cast<std::size_t>(dt->second->type)];
                const TileType* ttype = catalog->find(tile->tile);
                const int want_rot = (tile->rot_deg / 90 + g) % 4;
                const int period = static_cast<int>(ttype->distinct_rotations.size());
                tile_ok = &dtype == ttype && ((dt->second->rot - want_rot) % period + period) % period == 0;
                // A tile with a bridge is the engine's variant of the printed type (the bridge's feature last).
                const TileType* vtype = truth_game.board().tiles()[static_cast<std::size_t>(truth_game.board().tile_at(tp.at))].type;
                const TileType& ftype = vtype->id == dtype.id ? *vtype : dtype;
                const int f = ftype.feature_at(rotate_port(tp.loc, g), dt->second->rot);
                ok = d.col == cell.first && d.row == cell.second && f >= 0 && f == d.feature;
            }
            st.feature_ok += ok;
            st.tile_right += tile_ok;
            st.feature_ok_tile_right += ok && tile_ok;
            if (!ok) mistake = true;
            if (!ok && !dump_dir.empty()) {
                std::printf("  seed %llu: %s follower on %s at [%d, %d] put on feature %d (%s), tile read %s\n", static_cast<unsigned long long>(seed),
                            tp.colour.c_str(), tp.feature.c_str(), tp.at.x, tp.at.y, d.feature, std::string(feature_kind_name(d.feature_kind)).c_str(),
                            tile_ok ? "right" : "wrong");
            }
        }
        for (std::size_t j = 0; j < found.size(); ++j) {
            if (found_match[j] >= 0) continue;
            mistake = true;
            if (!dump_dir.empty()) {
                std::printf("  seed %llu: invented %s %s at top (%.0f, %.0f), %.0f mm2, fit %.2f / %.2f, confidence %.2f; %s\n", static_cast<unsigned long long>(seed),
                            found[j].colour.c_str(), found[j].lying ? "lying" : "standing", found[j].top_px.x, found[j].top_px.y, found[j].area_mm2,
                            found[j].fit_standing, found[j].fit_lying, found[j].confidence, cell_state(found[j].top_px).c_str());
            }
        }
        // Bridges, ferries, castles: a found token of the same kind on the same cell(s) (reading frame).
        const auto& tokens = detection->tokens;
        std::vector<bool> token_used(tokens.size(), false);
        for (const auto& tt : truth.tokens) {
            auto& tc = st.tokens[tt.kind];
            ++tc.truth;
            tc.placed_truth += placed;
            const auto cell_a = reading_cell_at(view, truth, tt.at), cell_b = reading_cell_at(view, truth, tt.other);
            const std::set<Port> want = {rotate_port(tt.ports[0], g), rotate_port(tt.ports[1], g)};
            int hit = -1;
            for (std::size_t j = 0; j < tokens.size() && hit < 0; ++j) {
                const auto& d = tokens[j];
                if (token_used[j] || d.kind != tt.kind) continue;
                const std::pair<int, int> da{d.col, d.row}, db{d.col2, d.row2};
                if ((da == cell_a && db == cell_b) || (da == cell_b && db == cell_a)) hit = static_cast<int>(j);
            }
            if (hit < 0) {
                mistake = true;
                if (!dump_dir.empty()) {
                    const auto dt = decoded.find(cell_a);
                    std::printf("  seed %llu: missed %s at [%d, %d] (true tile %s, read %s)\n", static_cast<unsigned long long>(seed), tt.kind.c_str(), tt.at.x,
                                tt.at.y, std::find_if(truth.tiles.begin(), truth.tiles.end(), [&](const auto& t) { return t.at == tt.at; })->tile.c_str(),
                                dt == decoded.end() ? "nothing" : types[static_cast<std::size_t>(dt->second->type)].id.c_str());
                }
                continue;
            }
            token_used[static_cast<std::size_t>(hit)] = true;
            const auto& d = tokens[static_cast<std::size_t>(hit)];
            ++tc.right;
            tc.placed_right += placed;
            // A castle's ports are per tile: compare them as the pair of cells says.
            const bool ports_ok = tt.kind == "castle" ? true : std::set<Port>{d.port, d.port2} == want;
            tc.where += ports_ok;
            if (tt.kind == "castle" && tt.occupied) {
                ++tc.coloured;
                tc.colour_ok += d.colour == tt.colour;
            }
            if (!ports_ok || (tt.kind == "castle" && tt.occupied && d.colour != tt.colour)) mistake = true;
        }
        for (std::size_t j = 0; j < tokens.size(); ++j) {
            ++st.tokens[tokens[j].kind].found;
            st.tokens[tokens[j].kind].placed_found += placed;
            if (!token_used[j]) {
                mistake = true;
                if (!dump_dir.empty()) std::printf("  seed %llu: invented %s at reading cell [%d, %d]\n", static_cast<unsigned long long>(seed), tokens[j].kind.c_str(), tokens[j].col, tokens[j].row);
            }
        }
        if (placed) {
            // The same photo with every tile as the truth has it: what the pieces alone get right.
            auto again = vision::detect_pieces(rendering->image, true_tiles, *catalog, vision::ColourModels::daylight(), detector);
            if (again) {
                auto [oracle, exact] = score_pieces_on(catalog, expansions, truth_game, true_tiles, again.value());
                ++st.oracle_games;
                st.oracle_exact += exact;
                if (!exact && !dump_dir.empty()) explain_oracle(seed, truth_game, truth, true_tiles, again.value(), oracle, g);
            }
        }
        if (placed) {
            ++st.placed_boards;
            st.placed_truth += static_cast<int>(truth.pieces.size());
            st.placed_found += static_cast<int>(found.size());
            st.placed_matched += static_cast<int>(std::count_if(truth_match.begin(), truth_match.end(), [](int m) { return m >= 0; }));
        }
        // The score the photo gives against the record's final scoring.
        Record setup;
        setup.players = truth_game.players();
        setup.expansions = expansions;
        vision::PhotoOptions photo_options;
        photo_options.take_runner_up = bench.runner_up;
        photo_options.refit_clashing = bench.refit;
        auto photo = vision::build_photo_game(setup, catalog, reading.value(), found, tokens, photo_options);
        const bool has_tokens = !truth.tokens.empty();
        st.token_games += has_tokens;
        st.token_exact += has_tokens && photo && vision::final_points(photo->game) == vision::final_points(truth_game);
        if (photo) {  // tiles the photo score took against the reader's choice, against the truth
            const Board& on_board = photo->game.board();
            for (const auto& placed_tile : on_board.tiles()) {
                const std::pair<int, int> cell{placed_tile.at.x + photo->origin.x, placed_tile.at.y + photo->origin.y};
                const auto d = decoded.find(cell);
                const auto w = true_at.find(cell);
                if (d == decoded.end()) continue;
                const TileType& read = types[static_cast<std::size_t>(d->second->type)];
                if (placed_tile.type->id == read.id && vision::same_rotation(read, placed_tile.rot, d->second->rot)) continue;  // as read
                ++st.retaken;
                if (!dump_dir.empty()) {
                    const std::string at = "[" + std::to_string(placed_tile.at.x) + ", " + std::to_string(placed_tile.at.y) + "]";
                    for (const auto& warning : photo->warnings) {
                        if (warning.find("tile at " + at) == 0) std::printf("  seed %llu: %s (truth %s %d)\n", static_cast<unsigned long long>(seed), warning.c_str(),
                                                                             w == true_at.end() ? "none" : types[static_cast<std::size_t>(w->second->type)].id.c_str(),
                                                                             w == true_at.end() ? -1 : 90 * w->second->rot);
                    }
                }
                if (w != true_at.end()) {
                    const TileType& truth_type = types[static_cast<std::size_t>(w->second->type)];
                    st.retaken_right += placed_tile.type->id == truth_type.id && vision::same_rotation(truth_type, placed_tile.rot, w->second->rot);
                    st.retaken_was_right += read.id == truth_type.id && vision::same_rotation(truth_type, d->second->rot, w->second->rot);
                }
            }
        }
        if (!photo) {
            ++st.build_errors;
            if (!dump_dir.empty()) std::printf("  seed %llu: no score: %s\n", static_cast<unsigned long long>(seed), photo.error().to_string().c_str());
        } else if (vision::final_points(photo->game) == vision::final_points(truth_game)) {
            ++st.exact;
            st.placed_exact += placed;
        } else if (!dump_dir.empty()) {
            std::printf("  seed %llu: score differs\n", static_cast<unsigned long long>(seed));
        }
        if (mistake && !dump_dir.empty()) {
            cv::Mat img = rendering->image.clone();
            for (const auto& p : truth.pieces) cv::circle(img, p.base_px, 4, cv::Scalar(255, 255, 255), -1);
            for (const auto& t : truth.tokens) cv::circle(img, t.centre_px, 6, cv::Scalar(0, 255, 255), 2);
            for (const auto& d : tokens) cv::polylines(img, std::vector<std::vector<cv::Point>>{d.outline_px}, true, cv::Scalar(0, 255, 0), 2);
            for (const auto& d : found) {
                cv::polylines(img, std::vector<std::vector<cv::Point>>{d.outline_px}, true, cv::Scalar(255, 0, 255), 2);
                cv::circle(img, d.image_px, 3, cv::Scalar(0, 0, 0), -1);
                cv::putText(img, d.colour, d.image_px + cv::Point2d(6, 0), cv::FONT_HERSHEY_SIMPLEX, 0.5, cv::Scalar(255, 0, 255), 1);
            }
            std::vector<cv::Point> corners;  // the board only
            for (const auto& t : truth.tiles) {
                for (const auto& c : t.corners_px) corners.emplace_back(c);
            }
            const cv::Rect board = cv::boundingRect(corners) & cv::Rect(0, 0, img.cols, img.rows);
            cv::imwrite(dump_dir + "/pieces_" + std::string(vision::difficulty_name(preset)) + std::to_string(seed) + ".png", img(board));
        }
    }
    std::printf("PIECES %s: %d finished games (%d boards not read, %d scores not built), followers: %d true, %d found, med %.0f ms\n",
                std::string(vision::difficulty_name(preset)).c_str(), st.games, st.not_read, st.build_errors, st.all.truth, st.all.found,
                [&] {
                    auto v = st.ms;
                    if (v.empty()) return 0.0;
                    std::sort(v.begin(), v.end());
                    return v[v.size() / 2];
                }());
    std::printf("  %-10s %6s %6s %10s %8s\n", "colour", "true", "found", "precision", "recall");
    for (const auto& [name, c] : st.by_colour) {
        std::printf("  %-10s %6d %6d %9.1f%% %7.1f%%\n", name.c_str(), c.truth, c.found, pct(c.right, c.found), pct(c.right, c.truth));
    }
    std::printf("  %-10s %6d %6d %9.1f%% %7.1f%%   (kind: a follower found where one is, any colour)\n", "followers", st.all.truth, st.all.found,
                pct(st.matched, st.all.found), pct(st.matched, st.all.truth));
    std::printf("  recall standing %.1f%% (%d), lying %.1f%% (%d), occluded (<80%% visible) %.1f%% (%d); pose right %.1f%% of matched\n",
                pct(st.standing.right, st.standing.truth), st.standing.truth, pct(st.lying.right, st.lying.truth), st.lying.truth,
                pct(st.occluded.right, st.occluded.truth), st.occluded.truth, pct(st.pose_ok, st.matched));
    std::printf("  on the %d boards the reader placed right (every tile on its own cell): precision %.1f%%, recall %.1f%% (%d true, %d found),"
                " exact score %d\n", st.placed_boards, pct(st.placed_matched, st.placed_found), pct(st.placed_matched, st.placed_truth), st.placed_truth,
                st.placed_found, st.placed_exact);
    std::printf("  recall of followers on cells the reader decoded: %.1f%% (%d)\n", pct(st.on_read.right, st.on_read.truth), st.on_read.truth);
    std::printf("  base position error (median, mm on the tile plane): standing %.1f, lying %.1f\n", median_of(st.base_err_standing),
                median_of(st.base_err_lying));
    std::printf("  colour accuracy %.1f%%, feature assignment %.1f%% of matched (%.1f%% where the tile was read right, %d of %d)\n",
                pct(st.colour_ok, st.matched), pct(st.feature_ok, st.matched), pct(st.feature_ok_tile_right, st.tile_right), st.tile_right, st.matched);
    std::printf("  exact final score: %d of %d games (%.1f%%); with the true tiles (a perfect tile reader): %d of %d\n", st.exact, st.games,
                pct(st.exact, st.games), st.oracle_exact, st.oracle_games);
    std::printf("  tiles the score took against the reader's choice (their sides clashed): %d, right after %d, right as read %d\n", st.retaken,
                st.retaken_right, st.retaken_was_right);
    std::printf("  tiles (read boards, after the pieces' reread): %d true, %d read wrong, %d missed; under a true follower: %d, %d of them read wrong\n",
                st.tiles_truth, st.tiles_wrong, st.tiles_missed, st.piece_tiles, st.piece_tiles_wrong);
    {
        std::vector<std::pair<int, std::string>> as;
        for (const auto& [pair, count] : st.wrong_as) as.emplace_back(-count, pair);
        std::sort(as.begin(), as.end());
        std::string line;
        for (std::size_t i = 0; i < as.size() && i < 12; ++i) line += " " + as[i].second + " " + std::to_string(-as[i].first);
        std::printf("  under a follower read wrong as (truth->read):%s\n", line.c_str());
    }
    std::printf("  on the true board (true lattice and tiles: the pieces alone): followers precision %.1f%%, recall %.1f%% (%d true, %d found),"
                " feature right %.1f%% of matched, pose right %.1f%%; exact final score %d of %d; detection med %.0f ms\n",
                pct(st.true_board_matched, st.true_board_found), pct(st.true_board_matched, st.true_board_truth), st.true_board_truth, st.true_board_found,
                pct(st.true_board_feature_ok, st.true_board_matched), pct(st.true_board_pose_ok, st.true_board_matched), st.true_board_exact,
                st.true_board_games, median_of(st.true_board_ms));
    if (!st.tokens.empty()) {
        std::printf("  %-10s %6s %6s %10s %8s %9s %9s   %s\n", "kind", "true", "found", "precision", "recall", "ports_ok", "colour_ok",
                    "on boards placed right: precision, recall (true)");
        for (const auto& [kind, c] : st.tokens) {
            std::printf("  %-10s %6d %6d %9.1f%% %7.1f%% %8.1f%% %9s   %.1f%%, %.1f%% (%d)\n", kind.c_str(), c.truth, c.found, pct(c.right, c.found),
                        pct(c.right, c.truth), pct(c.where, c.right),
                        c.coloured > 0 ? (std::to_string(c.colour_ok) + "/" + std::to_string(c.coloured)).c_str() : "-", pct(c.placed_right, c.placed_found),
                        pct(c.placed_right, c.placed_truth), c.placed_truth);
        }
        std::printf("  (ports_ok: a bridge's axis, a ferry's jetty pair, of those found; colour_ok: a castle's owner, where a follower stands on it)\n");
        std::printf("  exact final score on games with a bridge, ferry or castle: %d of %d\n", st.token_exact, st.token_games);
    }
}

void pieces_colour_cast(const std::shared_ptr<const Catalog>& catalog, vision::Difficulty preset, int n, std::uint64_t seed0, double kelvin) {
    struct Path {
        int found = 0, matched = 0, colour_ok = 0;
        std::map<std::string, Count> by_colour;
    };
    Path daylight, calibrated, adapted;
    int games = 0, truth_n = 0, no_board = 0, no_calibration = 0;
    for (int b = 0; b < n; ++b) {
        const std::uint64_t seed = seed0 + static_cast<std::uint64_t>(b);
        RandomGameOptions rg;
        rg.seed = seed;
        rg.players = 2 + static_cast<int>(seed % 5);
        auto played = play_random_game(catalog, rg);
        if (!played) continue;
        auto options = vision::RenderOptions::for_difficulty(preset);
        options.colour_temperature_k = {kelvin, kelvin};
        auto rendering = vision::render_table(vision::scene_of(played->game), options, seed);
        if (!rendering) continue;
        const auto& truth = rendering->truth;
        auto reading = vision::read_board(rendering->image, *catalog);
        if (!reading || !reading->found) {
            ++no_board;
            continue;
        }
        const auto& view = reading->view;
        const int g = quarter_turn_of(view, truth);
        const vision::BoardReading true_tiles = with_true_tiles(reading.value(), truth, *catalog, g);
        // The calibration photo under the same light, then its white balance and models.
        std::vector<std::string> colours;
        for (const auto& p : played->game.players()) colours.push_back(p.color);
        auto shot = vision::render_colour_shot(colours, options, seed);
        auto calibration = shot ? calibration::calibrate_colours(shot.value(), colours, "colour shot") : Result<calibration::ColourShot>(shot.error());
        auto models = calibration ? calibration::colour_models_of(calibration->calibration) : Result<vision::ColourModels>(calibration.error());
        if (!models) {
            ++no_calibration;
            std::fprintf(stderr, "seed %llu: %s\n", static_cast<unsigned long long>(seed), models.error().to_string().c_str());
            continue;
        }
        ++games;
        truth_n += static_cast<int>(truth.pieces.size());
        for (const auto& p : truth.pieces) {
            for (Path* path : {&daylight, &calibrated, &adapted}) ++path->by_colour[p.colour].truth;
        }
        const cv::Mat balanced = calibration::apply_white_balance(rendering->image, calibration->calibration.white_balance_rgb);
        vision::PieceDetectorOptions fixed_light, own_light;  // the daylight models as they are, and adapted to the frame's light
        fixed_light.adapt_to_light = false;
        own_light.adapt_to_light = true;
        for (Path* path : {&daylight, &calibrated, &adapted}) {
            auto detection = path == &calibrated ? vision::detect_pieces(balanced, true_tiles, *catalog, models.value(), fixed_light)
                                                 : vision::detect_pieces(rendering->image, true_tiles, *catalog, vision::ColourModels::daylight(),
                                                                         path == &adapted ? own_light : fixed_light);
            if (!detection) continue;
            const auto& found = detection->pieces;
            path->found += static_cast<int>(found.size());
            for (const auto& d : found) ++path->by_colour[d.colour].found;
            std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
            for (std::size_t i = 0; i < truth.pieces.size(); ++i) {
                const cv::Point2d t = vision::apply_homography(view.image_to_top, truth.pieces[i].base_px);
                for (std::size_t j = 0; j < found.size(); ++j) {
                    const double d = cv::norm(t - found[j].top_px);
                    if (d < 0.4 * view.pitch_px) pairs.emplace_back(d, i, j);
                }
            }
            std::sort(pairs.begin(), pairs.end());
            std::vector<bool> used_t(truth.pieces.size(), false), used_f(found.size(), false);
            for (const auto& [d, i, j] : pairs) {
                if (used_t[i] || used_f[j]) continue;
                used_t[i] = used_f[j] = true;
                ++path->matched;
                if (found[j].colour == truth.pieces[i].colour) {
                    ++path->colour_ok;
                    ++path->by_colour[found[j].colour].right;
                }
            }
        }
    }
    std::printf("COLOUR CAST %s, light %.0f K (half-corrected by the camera): %d games (%d boards not found, %d calibrations failed), %d followers;"
                " true tiles\n",
                std::string(vision::difficulty_name(preset)).c_str(), kelvin, games, no_board, no_calibration, truth_n);
    for (const auto& [name, path] : {std::pair<const char*, const Path*>{"daylight models", &daylight}, {"calibrated", &calibrated}, {"adapted (frame)", &adapted}}) {
        std::printf("  %-16s colour accuracy %5.1f%% of %d matched; precision %5.1f%%, recall %5.1f%% (kind);  per colour P/R:", name,
                    pct(path->colour_ok, path->matched), path->matched, pct(path->matched, path->found), pct(path->matched, truth_n));
        for (const auto& [colour, c] : path->by_colour) std::printf(" %s %.0f/%.0f", colour.c_str(), pct(c.right, c.found), pct(c.right, c.truth));
        std::printf("\n");
    }
}

void pieces_real(const std::shared_ptr<const Catalog>& catalog, const std::string& dir, const std::string& out_dir, const PiecesBenchOptions& bench) {
    // The finished boards, then a webcam's frames of one game (its own light: each summary apart).
    for (const std::string sub : {"boards", "webcam_sequence"}) {
        const std::string photos_dir = dir + "/" + sub;
        if (!std::filesystem::exists(photos_dir)) {
            std::printf("\nreal photos (pieces): %s not found, skipped\n", photos_dir.c_str());
            continue;
        }
        std::error_code ec;
        std::filesystem::create_directories(out_dir, ec);
        std::printf("\nREAL PHOTOS, followers (%s -> overlays in %s)\n", photos_dir.c_str(), out_dir.c_str());
        std::vector<std::filesystem::path> files;
        for (const auto& e : std::filesystem::directory_iterator(photos_dir)) {
            std::string ext = e.path().extension().string();
            std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (ext == ".jpg" || ext == ".jpeg" || ext == ".png") files.push_back(e.path());
        }
        std::sort(files.begin(), files.end());
        int photos = 0, total = 0;
        for (const auto& f : files) {
            auto image = vision::load_image(f.string());
            if (!image) continue;
            auto reading = vision::read_board(image.value(), *catalog);
            if (!reading || !reading->found) {
                std::printf("  %-28s no board\n", f.filename().string().c_str());
                continue;
            }
            vision::PieceDetectorOptions detector = detector_options(bench);
            detector.keep_rejected = std::getenv("VB_REJECTED") != nullptr;
            auto detection = vision::detect_pieces(image.value(), reading.value(), *catalog, vision::ColourModels::daylight(), detector);
            if (!detection) {
                std::printf("  %-28s %s\n", f.filename().string().c_str(), detection.error().to_string().c_str());
                continue;
            }
            ++photos;
            if (std::getenv("VB_REJECTED") && f.filename().string() == std::getenv("VB_REJECTED")) {
                for (const auto& r : detection->rejected) std::printf("    rejected %s %s at %.0f,%.0f area %.0f mm2 solidity %.2f fit %.2f/%.2f\n", r.colour.c_str(), r.kind.c_str(), r.image_px.x, r.image_px.y, r.area_mm2, r.solidity, r.fit_standing, r.fit_lying);
            }
            std::map<std::string, int> by_colour;
            for (const auto& d : detection->pieces) ++by_colour[d.colour];
            total += static_cast<int>(detection->pieces.size());
            std::string counts;
            for (const auto& [c, k] : by_colour) counts += c + " " + std::to_string(k) + "  ";
            const auto& cast = detection->light_cast;
            std::printf("  %-28s %3zu followers  %s (glare veil lifted %.2f; light cast: art %s, residual %.3f, correction BGR %.2f %.2f %.2f%s)\n",
                        f.filename().string().c_str(), detection->pieces.size(), counts.c_str(), detection->veil_peak, cast.art.c_str(), cast.residual,
                        cast.correction_bgr[0], cast.correction_bgr[1], cast.correction_bgr[2], cast.applied ? "" : ", not applied");
            const cv::Mat overlay = vision::draw_pieces(image.value(), detection.value());
            cv::imwrite(out_dir + "/" + f.stem().string() + "_pieces.png", overlay);
        }
        std::printf("real summary (pieces, %s): %d photos read, %d followers found (no truth: check the overlays by eye)\n", sub.c_str(), photos, total);
    }
}

}  // namespace meeplecam::bench
