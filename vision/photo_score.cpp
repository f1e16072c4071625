// The game a photo shows: tiles placed in a legal order, followers put on, final scoring.
#include "vision/photo_score.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include <opencv2/imgproc.hpp>

#include "vision/homography.h"

namespace meeplecam::vision {
namespace {

std::string cell_text(Cell c) { return to_string(c); }

cv::Scalar player_bgr(const std::string& colour) {
    static const std::map<std::string, cv::Scalar> bgr = {{"red", {40, 40, 220}},   {"blue", {220, 110, 30}}, {"green", {60, 180, 40}},
                                                          {"yellow", {30, 220, 240}}, {"black", {20, 20, 20}}, {"grey", {160, 160, 160}}};
    const auto it = bgr.find(colour);
    return it == bgr.end() ? cv::Scalar(255, 0, 255) : it->second;
}

void outlined_text(cv::Mat& img, const std::string& text, cv::Point at, double size, const cv::Scalar& colour, int thick) {
    cv::putText(img, text, at, cv::FONT_HERSHEY_SIMPLEX, size, cv::Scalar(0, 0, 0), thick + 2, cv::LINE_AA);
    cv::putText(img, text, at, cv::FONT_HERSHEY_SIMPLEX, size, colour, thick, cv::LINE_AA);
}

}  // namespace

std::map<std::string, int> final_points(const Game& game) {
    std::map<std::string, int> out;
    for (const auto& p : game.players()) out[p.color] = 0;
    for (const auto& ev : game.score_events()) {
        if (ev.phase != ScoreEvent::Phase::Final) continue;
        for (int w : ev.winners) out[game.players()[static_cast<std::size_t>(w)].color] += ev.points;
    }
    return out;
}

cv::Mat draw_photo_score(const cv::Mat& image, const BoardReading& reading, const PieceDetection& detection, const PhotoGame& photo) {
    cv::Mat out = draw_pieces(image, detection);
    const double scale = std::max(1.0, image.cols / 1600.0);
    const int thick = std::max(1, static_cast<int>(std::lround(scale)));
    const cv::Matx33d top_to_image = reading.view.image_to_top.inv();
    const double pitch = reading.view.pitch_px;
    auto cell_quad = [&](double col, double row, double inset) {
        std::vector<cv::Point> q;
        for (const auto& [dx, dy] : {std::pair{inset, inset}, std::pair{1 - inset, inset}, std::pair{1 - inset, 1 - inset}, std::pair{inset, 1 - inset}}) {
            const cv::Point2d p = apply_homography(top_to_image, cv::Point2d((col + dx) * pitch, (row + dy) * pitch));
            q.emplace_back(static_cast<int>(std::lround(p.x)), static_cast<int>(std::lround(p.y)));
        }
        return q;
    };
    const auto& types = photo.game.catalog().tiles();
    for (const auto& t : reading.tiles) {
        cv::polylines(out, std::vector<std::vector<cv::Point>>{cell_quad(t.col, t.row, 0.02)}, true, cv::Scalar(255, 255, 0), thick, cv::LINE_AA);
        const cv::Point2d c = apply_homography(top_to_image, cv::Point2d((t.col + 0.15) * pitch, (t.row + 0.3) * pitch));
        outlined_text(out, types[static_cast<std::size_t>(t.type)].id + std::to_string(90 * t.rot), c, 0.4 * scale, cv::Scalar(255, 255, 0), thick);
    }
    for (const auto& ev : photo.game.score_events()) {
        if (ev.phase != ScoreEvent::Phase::Final || ev.winners.empty()) continue;
        const cv::Scalar colour = player_bgr(photo.game.players()[static_cast<std::size_t>(ev.winners.front())].color);
        cv::Point2d mid(0, 0);
        for (const Cell& c : ev.tiles) {
            const double col = c.x + photo.origin.x, row = c.y + photo.origin.y;
            if (ev.feature != "farm") {
                cv::polylines(out, std::vector<std::vector<cv::Point>>{cell_quad(col, row, 0.08)}, true, colour, 2 * thick + 1, cv::LINE_AA);
            }
            mid += apply_homography(top_to_image, cv::Point2d((col + 0.5) * pitch, (row + 0.5) * pitch));
        }
        if (!ev.tiles.empty()) mid *= 1.0 / static_cast<double>(ev.tiles.size());
        outlined_text(out, ev.feature + " +" + std::to_string(ev.points), mid, 0.6 * scale, colour, thick + 1);
    }
    int y = static_cast<int>(30 * scale);
    for (const auto& [colour, points] : final_points(photo.game)) {
        outlined_text(out, colour + ": " + std::to_string(points), cv::Point(static_cast<int>(15 * scale), y), 0.9 * scale, player_bgr(colour), 2 * thick);
        y += static_cast<int>(32 * scale);
    }
    return out;
}

Result<PhotoGame> build_photo_game(const Record& setup, std::shared_ptr<const Catalog> catalog, const BoardReading& reading,
                                   const std::vector<DetectedPiece>& pieces) {
    const std::string where = "photo";
    if (!reading.found || reading.tiles.empty()) {
        return invalid(where, reading.message.empty() ? std::string("no board found") : reading.message);
    }
    if (!catalog) return invalid(where, "no catalog");
    // Board cells: lattice cells renumbered from the top-left occupied cell.
    Cell origin{reading.tiles[0].col, reading.tiles[0].row};
    for (const auto& t : reading.tiles) origin.x = std::min(origin.x, t.col), origin.y = std::min(origin.y, t.row);
    auto board_cell = [&](int col, int row) { return Cell{col - origin.x, row - origin.y}; };
    const auto& types = catalog->tiles();
    std::map<Cell, const DecodedTile*> at;
    for (const auto& t : reading.tiles) {
        if (t.type < 0 || t.type >= static_cast<int>(types.size())) return invalid(where, "the reading names a tile type the catalog lacks");
        at[board_cell(t.col, t.row)] = &t;
    }

    // Every piece's colour must be a player's.
    std::set<std::string> colours;
    std::string players_text;
    for (const auto& p : setup.players) {
        colours.insert(p.color);
        players_text += (players_text.empty() ? "" : ", ") + p.color;
    }
    for (const auto& piece : pieces) {
        if (!colours.count(piece.colour)) {
            return invalid("--players", "a " + piece.colour + " follower stands at " + cell_text(board_cell(piece.col, piece.row)) +
                                            ", but " + piece.colour + " is not among the players (" + players_text + ")");
        }
    }

    // Touching sides must match: name every pair that does not.
    std::string mismatches;
    int mismatch_count = 0;
    for (const auto& [cell, t] : at) {
        const TileType& a = types[static_cast<std::size_t>(t->type)];
        for (int side : {1, 2}) {  // east and south: each pair once
            const Cell other{cell.x + kSideDx[static_cast<std::size_t>(side)], cell.y + kSideDy[static_cast<std::size_t>(side)]};
            const auto it = at.find(other);
            if (it == at.end()) continue;
            const TileType& b = types[static_cast<std::size_t>(it->second->type)];
            const EdgeKind ea = a.edges[static_cast<std::size_t>((side - t->rot + 8) % 4)];
            const EdgeKind eb = b.edges[static_cast<std::size_t>((side + 2 - it->second->rot + 8) % 4)];
            if (ea != eb) {
                ++mismatch_count;
                if (mismatch_count <= 12) {
                    mismatches += (mismatches.empty() ? "" : "; ") + cell_text(cell) + " " + a.id + " shows " + std::string(edge_kind_name(ea)) +
                                  (side == 1 ? " east" : " south") + " but " + cell_text(other) + " " + b.id + " shows " +
                                  std::string(edge_kind_name(eb));
                }
            }
        }
    }
    if (mismatch_count > 0) {
        return invalid(where, "impossible board: " + std::to_string(mismatch_count) + " touching side" + (mismatch_count == 1 ? "" : "s") +
                                  " do not match (" + mismatches + (mismatch_count > 12 ? "; ..." : "") + ")");
    }

    // The first tile: a copy of the catalog's start tile type nearest the board's middle (any
    // tile when none was read: the board is the same whichever tile went first).
    Cell lo = at.begin()->first, hi = lo;
    for (const auto& [c, t] : at) lo = {std::min(lo.x, c.x), std::min(lo.y, c.y)}, hi = {std::max(hi.x, c.x), std::max(hi.y, c.y)};
    const double mx = (lo.x + hi.x) / 2.0, my = (lo.y + hi.y) / 2.0;
    const Cell* start = nullptr;
    double start_d = 1e18;
    for (int pass = 0; pass < 2 && start == nullptr; ++pass) {
        for (const auto& [c, t] : at) {
            const std::string& id = types[static_cast<std::size_t>(t->type)].id;
            if (pass == 0 && id != catalog->start_tile()) continue;
            const double d = (c.x - mx) * (c.x - mx) + (c.y - my) * (c.y - my);
            if (d < start_d) start = &c, start_d = d;
        }
    }

    ReplayOptions options;
    options.catalog = catalog;
    auto created = new_game_for(setup, options);
    if (!created) return created.error();
    PhotoGame out{std::move(created.value()), origin, {}, {}};
    Game& game = out.game;
    Board& board = game.mutable_board();

    // Breadth-first from the first tile, straight onto the board (the photo shows where tiles
    // are, not who drew them): every tile touches one already placed, and the board checks
    // that it fits.
    std::set<Cell> placed;
    std::deque<Cell> queue = {*start};
    placed.insert(*start);
    std::map<int, int> copies;  // per tile type
    bool first = true;
    while (!queue.empty()) {
        const Cell c = queue.front();
        queue.pop_front();
        const DecodedTile& t = *at.at(c);
        const TileType& type = types[static_cast<std::size_t>(t.type)];
        ++copies[t.type];
        if (first) {
            board.place_start(type, Placement{c, t.rot});
            first = false;
        } else {
            const auto check = board.check_placement(type, Placement{c, t.rot});
            if (!check.ok) return invalid(where, "impossible board: tile " + type.id + " at " + cell_text(c) + ": " + check.reason);
            board.place(type, Placement{c, t.rot});
        }
        for (int side = 0; side < 4; ++side) {
            const Cell n{c.x + kSideDx[static_cast<std::size_t>(side)], c.y + kSideDy[static_cast<std::size_t>(side)]};
            if (at.count(n) && placed.insert(n).second) queue.push_back(n);
        }
    }
    if (placed.size() != at.size()) {
        std::string loose;
        int n = 0;
        for (const auto& [c, t] : at) {
            if (placed.count(c)) continue;
            if (++n <= 8) loose += (loose.empty() ? "" : ", ") + cell_text(c);
        }
        return invalid(where, "impossible board: " + std::to_string(n) + " tile" + (n == 1 ? " is" : "s are") +
                                  " not joined to the rest (" + loose + (n > 8 ? ", ..." : "") + ")");
    }
    board.check_consistency();
    for (const auto& [type, n] : copies) {
        const TileType& tt = types[static_cast<std::size_t>(type)];
        const int allowed = tt.count_in(setup.edition);
        if (n > allowed) {
            out.warnings.push_back("tile " + tt.id + " was read " + std::to_string(n) + " times, but the " + setup.edition + " edition has " +
                                   std::to_string(allowed) + (allowed == 1 ? " copy" : " copies") + ": some are probably misread");
        }
    }

    // The followers, on the features under them.
    for (const auto& piece : pieces) {
        const Cell c = board_cell(piece.col, piece.row);
        if (!piece.on_tile || piece.feature < 0 || board.tile_at(c) < 0) {
            out.warnings.push_back("a " + piece.colour + " follower near " + cell_text(c) + " stands on no feature of a tile read; left out");
            out.follower_of_piece.push_back(-1);
            continue;
        }
        const int node = board.node_at(c, piece.port);
        if (node < 0) {
            out.warnings.push_back("a " + piece.colour + " follower at " + cell_text(c) + " stands on no feature; left out");
            out.follower_of_piece.push_back(-1);
            continue;
        }
        const int root = board.find(node);
        if (board.structure(root).kind != FeatureKind::Field && board.is_complete(root)) {
            out.warnings.push_back("a " + piece.colour + " follower at " + cell_text(c) + " " + std::string(port_name(piece.port)) + " stands on a completed " +
                                   std::string(feature_kind_name(board.structure(root).kind)) +
                                   " (scored during the game, its followers went home): left out");
            out.follower_of_piece.push_back(-1);
            continue;
        }
        out.follower_of_piece.push_back(board.add_follower(game.player_index(piece.colour), node, c, piece.port));
    }
    if (auto st = game.finish(); !st) return st.error();
    return out;
}

}  // namespace meeplecam::vision
