// The game a photo shows: tiles placed in a legal order, followers put on, final scoring.
#include "vision/photo_score.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <deque>
#include <map>
#include <set>
#include <sstream>

#include <opencv2/imgproc.hpp>

#include "engine/modules/castles.h"
#include "vision/homography.h"
#include "vision/tile_classifier.h"

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
    // Followers left out of the score: crossed out in red, with the reason.
    for (std::size_t i = 0; i < detection.pieces.size() && i < photo.left_out.size(); ++i) {
        if (photo.left_out[i].empty()) continue;
        const auto& d = detection.pieces[i];
        const double r = 10 * scale;
        const cv::Scalar red(0, 0, 255);
        cv::line(out, d.image_px + cv::Point2d(-r, -r), d.image_px + cv::Point2d(r, r), red, 2 * thick, cv::LINE_AA);
        cv::line(out, d.image_px + cv::Point2d(-r, r), d.image_px + cv::Point2d(r, -r), red, 2 * thick, cv::LINE_AA);
        const cv::Point at(static_cast<int>(d.image_px.x + 8 * scale), static_cast<int>(d.image_px.y + 16 * scale));
        outlined_text(out, "left out: " + photo.left_out[i], at, 0.45 * scale, red, thick);
    }
    int y = static_cast<int>(30 * scale);
    for (const auto& [colour, points] : final_points(photo.game)) {
        outlined_text(out, colour + ": " + std::to_string(points), cv::Point(static_cast<int>(15 * scale), y), 0.9 * scale, player_bgr(colour), 2 * thick);
        y += static_cast<int>(32 * scale);
    }
    return out;
}

Result<PhotoGame> build_photo_game(const Record& setup, std::shared_ptr<const Catalog> catalog, const BoardReading& reading,
                                   const std::vector<DetectedPiece>& pieces, const std::vector<DetectedPiece>& tokens, const PhotoOptions& options) {
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

    // A piece of a colour no player has is no follower in play (a false one: art or a table of
    // that colour): it is left out with a warning, not counted.
    std::set<std::string> colours;
    std::string players_text;
    for (const auto& p : setup.players) {
        colours.insert(p.color);
        players_text += (players_text.empty() ? "" : ", ") + p.color;
    }

    // A bridge makes its tile the engine's bridge variant (its bridged sides show road), before
    // the sides are compared and the tiles placed.
    auto variants = std::make_shared<std::deque<TileType>>();
    std::map<Cell, const TileType*> shown;  // per cell: the type as it lies (printed, or with its bridge)
    std::map<Cell, int> turn;               // per cell: its rotation
    std::vector<std::string> warnings;
    for (const auto& [cell, t] : at) shown[cell] = &types[static_cast<std::size_t>(t->type)], turn[cell] = t->rot;
    for (const auto& token : tokens) {
        if (token.kind != "bridge") continue;
        const Cell c = board_cell(token.col, token.row);
        const auto it = at.find(c);
        if (it == at.end()) {
            warnings.push_back("a bridge at " + cell_text(c) + " lies on no tile read; left out");
            continue;
        }
        auto variant = with_bridge(*shown[c], (side_of(token.port) + turn[c]) % 2);
        const DecodedTile& read = *it->second;
        if (!variant && read.runner_type >= 0 && read.runner_type < static_cast<int>(types.size())) {
            // A bridge hides the art under it: the reader's second choice may be the tile that takes it.
            auto runner = with_bridge(types[static_cast<std::size_t>(read.runner_type)], (side_of(token.port) + read.runner_rot) % 2);
            if (runner) {
                warnings.push_back("tile at " + cell_text(c) + " read as " + shown[c]->id + " but a bridge lies on it: taken as the reader's second choice " +
                                   runner->id);
                variant = std::move(runner);
                turn[c] = read.runner_rot;
            }
        }
        if (!variant) {
            warnings.push_back("a bridge at " + cell_text(c) + " cannot lie there (" + variant.error().message + "); left out");
            continue;
        }
        variants->push_back(std::move(variant.value()));
        shown[c] = &variants->back();
    }

    // The type each cell is taken as (the reader's choice, or its second: below).
    std::map<Cell, int> type_of;
    for (const auto& [cell, t] : at) type_of[cell] = t->type;
    // How many of the read neighbours of `cell` (other than `skip`) clash with `type` at `rot` there.
    auto clashes_at = [&](const Cell& cell, const TileType& type, int rot, const Cell* skip = nullptr) {
        int n = 0;
        for (int side = 0; side < 4; ++side) {
            const Cell other{cell.x + kSideDx[static_cast<std::size_t>(side)], cell.y + kSideDy[static_cast<std::size_t>(side)]};
            if (!at.count(other) || (skip != nullptr && other == *skip)) continue;
            const EdgeKind mine = type.edge_at(rot, side);
            const EdgeKind theirs = shown.at(other)->edge_at(turn.at(other), side + 2);
            n += mine != theirs ? 1 : 0;
        }
        return n;
    };
    // The cells whose tiles clash with a neighbour as they stand, least sure first.
    auto clashing_cells = [&]() {
        std::vector<Cell> clashing;
        for (const auto& [cell, t] : at) {
            if (clashes_at(cell, *shown.at(cell), turn.at(cell)) > 0) clashing.push_back(cell);
        }
        std::sort(clashing.begin(), clashing.end(), [&](const Cell& a, const Cell& b) { return at.at(a)->confidence < at.at(b)->confidence; });
        return clashing;
    };
    // A misread tile makes the board impossible. Where the reader's second choice for a tile whose
    // sides clash fits every read neighbour, the board takes it (least sure tiles first), with a
    // warning naming both (PhotoOptions::take_runner_up).
    std::set<Cell> replaced;
    for (int pass = 0; options.take_runner_up && pass < 3; ++pass) {
        const std::vector<Cell> clashing = clashing_cells();
        bool changed = false;
        for (const Cell& cell : clashing) {
            const DecodedTile& t = *at.at(cell);
            if (replaced.count(cell) || shown.at(cell) != &types[static_cast<std::size_t>(t.type)]) continue;  // taken once; a bridge's variant stays
            if (t.runner_type < 0 || t.runner_type >= static_cast<int>(types.size())) continue;
            if (clashes_at(cell, *shown.at(cell), turn.at(cell)) == 0) continue;  // an earlier change mended it
            const TileType& runner = types[static_cast<std::size_t>(t.runner_type)];
            if (clashes_at(cell, runner, t.runner_rot) > 0) continue;
            warnings.push_back("tile at " + cell_text(cell) + " read as " + shown.at(cell)->id + " " + std::to_string(90 * turn.at(cell)) +
                               " clashes with its neighbours: taken as the reader's second choice " + runner.id + " " + std::to_string(90 * t.runner_rot) +
                               ", which fits them");
            shown[cell] = &runner;
            turn[cell] = t.runner_rot;
            type_of[cell] = t.runner_type;
            replaced.insert(cell);
            changed = true;
        }
        if (!changed) break;
    }

    // A board on a table is legal, so where sides still clash the reader chose against the rules:
    // each clashing tile is taken as the best of its scored readings (BoardReading::hypotheses)
    // that fits every read neighbour, then each clashing pair of touching tiles as the best pair
    // that fits each other and their other neighbours, when that costs at most
    // PhotoOptions::max_refit_loss of the reader's score (least sure tiles first; a warning names both).
    if (options.refit_clashing && !reading.hypotheses.empty()) {
        std::map<Cell, const CellHypotheses*> scored;
        for (const auto& h : reading.hypotheses) {
            if (!h.hyps.empty()) scored[board_cell(h.col, h.row)] = &h;
        }
        // The reader's score of a reading with the decoder's prior (common tiles win ties); -inf when unscored.
        auto value = [&](const Hypothesis& h) {
            const int n = types[static_cast<std::size_t>(h.type)].count_in(setup.edition);
            return h.score + options.count_prior * (n > 0 ? std::log(static_cast<double>(n)) : -10.0);
        };
        auto current_value = [&](const Cell& cell) {
            double best = -std::numeric_limits<double>::infinity();
            for (const auto& h : scored.at(cell)->hyps) {
                if (h.type == type_of.at(cell) && same_rotation(types[static_cast<std::size_t>(h.type)], h.rot, turn.at(cell))) best = std::max(best, value(h));
            }
            return best;
        };
        // Whether `cell` may be read again: scored, printed (a bridge's variant stays) and not changed yet.
        auto refittable = [&](const Cell& cell) {
            return scored.count(cell) && !replaced.count(cell) && shown.at(cell) == &types[static_cast<std::size_t>(type_of.at(cell))];
        };
        auto take = [&](const Cell& cell, const Hypothesis& h, double loss) {
            const TileType& type = types[static_cast<std::size_t>(h.type)];
            char lost[32];
            std::snprintf(lost, sizeof lost, "%.1f", loss);
            warnings.push_back("tile at " + cell_text(cell) + " read as " + shown.at(cell)->id + " " + std::to_string(90 * turn.at(cell)) +
                               " clashes with its neighbours: taken as " + type.id + " " + std::to_string(90 * h.rot) +
                               ", the reader's best reading that fits them (" + lost + " less likely)");
            shown[cell] = &type;
            turn[cell] = h.rot;
            type_of[cell] = h.type;
            replaced.insert(cell);
        };
        for (int pass = 0; pass < 3; ++pass) {
            const std::vector<Cell> clashing = clashing_cells();
            if (clashing.empty()) break;
            bool changed = false;
            for (const Cell& cell : clashing) {
                if (!refittable(cell) || clashes_at(cell, *shown.at(cell), turn.at(cell)) == 0) continue;
                const double now = current_value(cell);
                const Hypothesis* best = nullptr;
                for (const auto& h : scored.at(cell)->hyps) {
                    if (clashes_at(cell, types[static_cast<std::size_t>(h.type)], h.rot) > 0) continue;
                    if (best == nullptr || value(h) > value(*best)) best = &h;
                }
                if (best != nullptr && now - value(*best) <= options.max_refit_loss) {
                    take(cell, *best, now - value(*best));
                    changed = true;
                }
            }
            for (const Cell& cell : clashing) {
                for (int side : {1, 2}) {
                    const Cell other{cell.x + kSideDx[static_cast<std::size_t>(side)], cell.y + kSideDy[static_cast<std::size_t>(side)]};
                    if (!at.count(other) || !refittable(cell) || !refittable(other)) continue;
                    if (shown.at(cell)->edge_at(turn.at(cell), side) == shown.at(other)->edge_at(turn.at(other), side + 2)) continue;
                    const double now = current_value(cell) + current_value(other);
                    const Hypothesis* best_a = nullptr;
                    const Hypothesis* best_b = nullptr;
                    double best = -std::numeric_limits<double>::infinity();
                    for (const auto& a : scored.at(cell)->hyps) {
                        const TileType& ta = types[static_cast<std::size_t>(a.type)];
                        if (clashes_at(cell, ta, a.rot, &other) > 0) continue;
                        for (const auto& b : scored.at(other)->hyps) {
                            const TileType& tb = types[static_cast<std::size_t>(b.type)];
                            if (value(a) + value(b) <= best || ta.edge_at(a.rot, side) != tb.edge_at(b.rot, side + 2)) continue;
                            if (clashes_at(other, tb, b.rot, &cell) > 0) continue;
                            best = value(a) + value(b), best_a = &a, best_b = &b;
                        }
                    }
                    if (best_a != nullptr && now - best <= options.max_refit_loss) {
                        const double loss_a = current_value(cell) - value(*best_a), loss_b = current_value(other) - value(*best_b);
                        take(cell, *best_a, loss_a);
                        take(other, *best_b, loss_b);
                        changed = true;
                    }
                }
            }
            if (!changed) break;
        }
    }

    // Touching sides must match: name every pair that does not.
    std::string mismatches;
    int mismatch_count = 0;
    for (const auto& [cell, t] : at) {
        const TileType& a = *shown.at(cell);
        for (int side : {1, 2}) {  // east and south: each pair once
            const Cell other{cell.x + kSideDx[static_cast<std::size_t>(side)], cell.y + kSideDy[static_cast<std::size_t>(side)]};
            const auto it = at.find(other);
            if (it == at.end()) continue;
            const TileType& b = *shown.at(it->first);
            const EdgeKind ea = a.edge_at(turn.at(cell), side);
            const EdgeKind eb = b.edge_at(turn.at(it->first), side + 2);
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
            const std::string& id = types[static_cast<std::size_t>(type_of.at(c))].id;
            if (pass == 0 && id != catalog->start_tile()) continue;
            const double d = (c.x - mx) * (c.x - mx) + (c.y - my) * (c.y - my);
            if (d < start_d) start = &c, start_d = d;
        }
    }

    ReplayOptions replay;
    replay.catalog = catalog;
    auto created = new_game_for(setup, replay);
    if (!created) return created.error();
    PhotoGame out{variants, std::move(created.value()), origin, std::move(warnings), {}, {}};
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
        const TileType& type = *shown.at(c);
        ++copies[type_of.at(c)];
        if (first) {
            board.place_start(type, Placement{c, turn.at(c)});
            first = false;
        } else {
            const auto check = board.check_placement(type, Placement{c, turn.at(c)});
            if (!check.ok) return invalid(where, "impossible board: tile " + type.id + " at " + cell_text(c) + ": " + check.reason);
            board.place(type, Placement{c, turn.at(c)});
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
        if (n > options.max_loose_tiles) {
            return invalid(where, "impossible board: " + std::to_string(n) + " tile" + (n == 1 ? " is" : "s are") +
                                      " not joined to the rest (" + loose + (n > 8 ? ", ..." : "") + ")");
        }
        // A tile or two apart from the board (invented, or the tiles joining them were missed):
        // scored without them (PhotoOptions::max_loose_tiles); a follower there is left out.
        out.warnings.push_back(std::to_string(n) + " tile" + (n == 1 ? " is" : "s are") + " not joined to the rest (" + loose +
                               "): left out of the board (invented, or the tiles joining " + (n == 1 ? "it" : "them") + " were missed)");
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

    // Ferries link their jetties into one road; the structures are then rebuilt.
    bool changed = false;
    for (const auto& t : tokens) {
        const Cell c = board_cell(t.col, t.row);
        if (t.kind == "ferry") {
            const int a = board.node_at(c, t.port), b = board.node_at(c, t.port2);
            if (a < 0 || b < 0 || a == b) {
                out.warnings.push_back("a ferry at " + cell_text(c) + " joins no two jetties; left out");
                continue;
            }
            board.add_link(a, b);
            changed = true;
        }
    }
    if (changed) board.rebuild_structures();
    // Castles mark their small cities (for farms: a castle counts 4).
    CastlesModule* castles = nullptr;
    for (const auto& m : game.modules()) {
        if (auto* cm = dynamic_cast<CastlesModule*>(m.get())) castles = cm;
    }
    for (const auto& t : tokens) {
        if (t.kind != "castle") continue;
        const Cell c = board_cell(t.col, t.row);
        if (castles == nullptr) {
            out.warnings.push_back("a castle at " + cell_text(c) + ", but castles are not among the expansions; left out");
            continue;
        }
        int player = t.colour.empty() ? -1 : game.player_index(t.colour);
        if (player < 0) {  // no follower on it (it scored) or not a player's colour: any player with a token left
            for (int p = 0; p < static_cast<int>(game.players().size()) && player < 0; ++p) {
                if (castles->tokens_left(game, p) > 0) player = p;
            }
        }
        if (auto st = castles->restore_castle(game, c, t.port, std::max(0, player), t.colour.empty() ? 0 : 1, where); !st) {
            out.warnings.push_back("a castle at " + cell_text(c) + ": " + st.error().message + "; left out");
        }
    }

    // The followers, on the features under them.
    auto leave_out = [&](const std::string& warning, const std::string& reason) {
        out.warnings.push_back(warning);
        out.follower_of_piece.push_back(-1);
        out.left_out.push_back(reason);
    };
    for (const auto& piece : pieces) {
        const Cell c = board_cell(piece.col, piece.row);
        if (!colours.count(piece.colour)) {
            leave_out("a " + piece.colour + " follower at " + cell_text(c) + ", but " + piece.colour + " is not among the players (" + players_text +
                          "): left out, not counted (a false follower, or a player missing from the players)",
                      "not a player's colour");
            continue;
        }
        if (at.count(c) && !placed.count(c)) {
            leave_out("a " + piece.colour + " follower at " + cell_text(c) + " stands on a tile not joined to the rest; left out", "on a tile left out");
            continue;
        }
        if (!piece.on_tile || piece.feature < 0 || board.tile_at(c) < 0) {
            leave_out("a " + piece.colour + " follower near " + cell_text(c) + " stands on no feature of a tile read; left out", "on no feature");
            continue;
        }
        // By feature index where the tile has it (a bridge's deck; a field that lost a port to a bridge), else by port.
        const PlacedTile& on = board.tiles()[static_cast<std::size_t>(board.tile_at(c))];
        // A tile taken as the reader's second choice has other features: by port there.
        const bool by_index = piece.feature < static_cast<int>(on.type->features.size()) && !replaced.count(c);
        const int node = by_index ? on.node(piece.feature) : board.node_at(c, piece.port);
        if (node < 0) {
            leave_out("a " + piece.colour + " follower at " + cell_text(c) + " stands on no feature; left out", "on no feature");
            continue;
        }
        const int root = board.find(node);
        if (board.structure(root).kind != FeatureKind::Field && board.is_complete(root)) {
            leave_out("a " + piece.colour + " follower at " + cell_text(c) + " " + std::string(port_name(piece.port)) + " stands on a completed " +
                          std::string(feature_kind_name(board.structure(root).kind)) + " (scored during the game, its followers went home): left out",
                      "on a completed " + std::string(feature_kind_name(board.structure(root).kind)));
            continue;
        }
        out.follower_of_piece.push_back(board.add_follower(game.player_index(piece.colour), node, c, piece.port));
        out.left_out.emplace_back();
    }
    if (auto st = game.finish(); !st) return st.error();
    return out;
}

PieceDetectorOptions detector_options_for(const std::vector<std::string>& expansions) {
    PieceDetectorOptions detector;
    for (const auto& e : expansions) {
        detector.find_bridges = detector.find_bridges || e == "bridges" || e == "bridges-castles-bazaars";
        detector.find_castles = detector.find_castles || e == "castles" || e == "bridges-castles-bazaars";
    }
    return detector;
}

Result<PieceDetection> detect_pieces_rereading(const cv::Mat& bgr, BoardReading& board, const Catalog& catalog, const ColourModels& colours,
                                               const PieceDetectorOptions& detector, const ReaderOptions& reader) {
    auto pieces = detect_pieces(bgr, board, catalog, colours, detector);
    if (!pieces) return pieces;
    std::vector<BridgeOnCell> bridges;
    std::vector<CoverOnBoard> covers;  // every other piece hides the art under it
    auto cover = [&](const DetectedPiece& piece) {
        if (piece.outline_px.size() < 3) return;
        CoverOnBoard c;
        for (const auto& q : piece.outline_px) c.outline_top.emplace_back(apply_homography(board.view.image_to_top, cv::Point2d(q)));
        covers.push_back(std::move(c));
    };
    const bool cover_all = reader.cover_pieces || reader.pennants_under_pieces;
    for (const auto& t : pieces->tokens) {
        if (t.kind == "bridge") bridges.push_back({t.col, t.row, side_of(t.port) % 2});
        else if (cover_all) cover(t);
    }
    if (cover_all) {
        for (const auto& f : pieces->pieces) cover(f);
    }
    if (bridges.empty() && covers.empty()) return pieces;
    const auto before = board.tiles;
    if (!bridges.empty() || reader.cover_pieces) {
        const std::vector<CoverOnBoard> none;
        if (auto st = reread_under_pieces(board, bridges, reader.cover_pieces ? covers : none, catalog, reader); !st) return st.error();
    }
    const bool same = before.size() == board.tiles.size() &&
                      std::equal(before.begin(), before.end(), board.tiles.begin(), [](const DecodedTile& a, const DecodedTile& b) {
                          return a.col == b.col && a.row == b.row && a.type == b.type && a.rot == b.rot;
                      });
    // Only the pennants read again: a twin has its twin's sides and features, so the pieces stand as detected.
    if (!reader.cover_pieces && reader.pennants_under_pieces) {
        if (auto changed = decide_pennants_under_pieces(board, covers, catalog, reader); !changed) return changed.error();
    }
    if (!same) {  // detect again on the board as now read (terrains, features)
        const double first_ms = pieces->ms;
        pieces = detect_pieces(bgr, board, catalog, colours, detector);
        if (!pieces) return pieces;
        pieces->ms += first_ms;
    }
    // A bridge on a cell the reader read bare fits no tile there among its neighbours: not a bridge.
    std::set<std::pair<int, int>> bridged;
    for (const auto& t : board.tiles) {
        if (t.bridge_axis >= 0) bridged.insert({t.col, t.row});
    }
    auto& tokens = pieces->tokens;
    tokens.erase(std::remove_if(tokens.begin(), tokens.end(), [&](const DetectedPiece& t) { return t.kind == "bridge" && !bridged.count({t.col, t.row}); }),
                 tokens.end());
    return pieces;
}

Result<PhotoReading> read_photo(const cv::Mat& bgr, const Catalog& catalog, const std::string& edition,
                                const std::vector<std::string>& expansions, const ColourModels& colours) {
    ReaderOptions reader_options;
    reader_options.decoder.edition = edition;
    auto board = read_board(bgr, catalog, reader_options);
    if (!board) return board.error();
    if (!board->found) return invalid("photo", board->message.empty() ? std::string("no board found") : board->message);
    auto pieces = detect_pieces_rereading(bgr, board.value(), catalog, colours, detector_options_for(expansions), reader_options);
    if (!pieces) return pieces.error();
    return PhotoReading{std::move(board.value()), std::move(pieces.value())};
}

std::string photo_score_text(const std::string& title, const PhotoGame& photo, std::size_t tiles, const PieceDetection& detection) {
    const Game& game = photo.game;
    const auto points = final_points(game);
    std::ostringstream out;
    const auto count_of = [](std::size_t n, const std::string& one, const std::string& many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    out << title << ": " << count_of(tiles, "tile", "tiles") << ", " << count_of(detection.pieces.size(), "follower", "followers");
    const auto left_out = std::count_if(photo.left_out.begin(), photo.left_out.end(), [](const std::string& why) { return !why.empty(); });
    if (left_out > 0) out << " (" << left_out << " left out)";
    for (const std::string kind : {"bridge", "ferry", "castle"}) {
        const auto k = std::count_if(detection.tokens.begin(), detection.tokens.end(), [&](const DetectedPiece& t) { return t.kind == kind; });
        if (k > 0) out << ", " << count_of(static_cast<std::size_t>(k), kind, kind == "ferry" ? std::string("ferries") : kind + "s");
    }
    out << "\n\nFinal scoring (as if the game ended now)\n";
    for (const auto& p : game.players()) out << "  " << p.color << "  " << points.at(p.color) << "\n";
    out << "\n";
    for (const auto& ev : game.score_events()) {
        if (ev.phase != ScoreEvent::Phase::Final) continue;
        std::string winners;
        for (int w : ev.winners) winners += (winners.empty() ? "" : ", ") + game.players()[static_cast<std::size_t>(w)].color;
        out << "  " << ev.feature << " at " << (ev.tiles.empty() ? std::string("?") : to_string(ev.tiles.front())) << ": " << ev.explanation
            << " -> " << (winners.empty() ? std::string("nobody") : winners) << "\n";
    }
    for (const auto& w : photo.warnings) out << "warning: " << w << "\n";
    return out.str();
}

}  // namespace meeplecam::vision
