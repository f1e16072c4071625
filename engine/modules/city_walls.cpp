// Carcassonne — The City: walls, the gate, guards and towers (docs/rules/city.md, "Walls").
#include <algorithm>
#include <cstdlib>
#include <set>

#include "engine/game.h"
#include "engine/modules/city.h"

namespace meeplecam {
namespace {

constexpr const char* kSideLetters[4] = {"N", "E", "S", "W"};

Cell step(Cell c, int side) { return Cell{c.x + kSideDx[side], c.y + kSideDy[side]}; }

std::optional<int> parse_side(const nlohmann::json& raw) {
    if (!raw.contains("side") || !raw["side"].is_string()) return std::nullopt;
    const std::string s = raw["side"].get<std::string>();
    for (int i = 0; i < 4; ++i) {
        if (s == kSideLetters[i]) return i;
    }
    return std::nullopt;
}

Result<Cell> parse_at(const nlohmann::json& raw, const std::string& where) {
    if (!raw.contains("at") || !raw["at"].is_array() || raw["at"].size() != 2 || !raw["at"][0].is_number_integer() ||
        !raw["at"][1].is_number_integer()) {
        return invalid(where, "'at' must be [x, y]: the tile the wall piece lies against");
    }
    return Cell{raw["at"][0].get<int>(), raw["at"][1].get<int>()};
}

std::string slot_text(const CityModule::Slot& s) { return to_string(s.at) + " " + kSideLetters[s.side]; }

// Empty cells connected to the far outside (not holes inside the city), within the bounding box + 1.
std::set<std::pair<int, int>> outside_cells(const Board& board) {
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    bool first = true;
    for (const PlacedTile& t : board.tiles()) {
        if (first) {
            x0 = x1 = t.at.x;
            y0 = y1 = t.at.y;
            first = false;
        }
        x0 = std::min(x0, t.at.x), x1 = std::max(x1, t.at.x), y0 = std::min(y0, t.at.y), y1 = std::max(y1, t.at.y);
    }
    --x0, --y0, ++x1, ++y1;
    std::set<std::pair<int, int>> out;
    std::vector<Cell> todo = {Cell{x0, y0}};
    out.insert({x0, y0});
    while (!todo.empty()) {
        const Cell c = todo.back();
        todo.pop_back();
        for (int s = 0; s < 4; ++s) {
            const Cell n = step(c, s);
            if (n.x < x0 || n.x > x1 || n.y < y0 || n.y > y1 || board.tile_at(n) >= 0) continue;
            if (out.insert({n.x, n.y}).second) todo.push_back(n);
        }
    }
    return out;
}

// The slot after `s` going clockwise along the boundary of the cells `occupied` says are taken.
template <class Occupied>
CityModule::Slot walk_cw(const Occupied& occupied, CityModule::Slot s) {
    const int t = (s.side + 1) % 4;
    const Cell diag = step(step(s.at, t), s.side);
    const Cell ahead = step(s.at, t);
    if (occupied(diag)) return CityModule::Slot{diag, (s.side + 3) % 4};
    if (occupied(ahead)) return CityModule::Slot{ahead, s.side};
    return CityModule::Slot{s.at, t};
}

// True when removing `c` from the empty cells may split them: its empty side neighbours fall into two or
// more groups around it (two side neighbours are joined when the corner cell between them is empty too).
template <class Occupied>
bool may_split_empty_space(const Occupied& occupied, Cell c) {
    // The 8 cells round c, clockwise from N; even indices are side neighbours, odd ones corners.
    const int dx[8] = {0, 1, 1, 1, 0, -1, -1, -1};
    const int dy[8] = {-1, -1, 0, 1, 1, 1, 0, -1};
    bool empty[8];
    for (int i = 0; i < 8; ++i) empty[i] = !occupied(Cell{c.x + dx[i], c.y + dy[i]});
    int groups = 0, sides = 0;
    for (int i = 0; i < 8; i += 2) {
        if (!empty[i]) continue;
        ++sides;
        // Starts a new group unless joined to the previous side neighbour through the corner between.
        const int prev = (i + 6) % 8;
        if (!(empty[prev] && empty[(i + 7) % 8])) ++groups;
    }
    if (sides == 4 && groups == 0) return false;  // all eight empty: one group round c
    return groups >= 2;
}

}  // namespace

CityModule::Slot CityModule::next_cw(const Board& board, Slot s) {
    return walk_cw([&](Cell c) { return board.tile_at(c) >= 0; }, s);
}

std::optional<std::string> CityModule::wall_refusal(const Board& board, const std::deque<WallPiece>& wall, Cell c) {
    if (wall.empty() || board.tile_at(c) >= 0) return std::nullopt;
    bool touches = false;
    for (int s = 0; s < 4; ++s) touches = touches || board.tile_at(step(c, s)) >= 0;
    if (!touches) return std::nullopt;  // the board gives the reason
    for (const WallPiece& piece : wall) {
        if (step(piece.slot.at, piece.slot.side) == c) return std::nullopt;  // directly beyond: the board's closed side says so
    }
    auto occupied = [&](Cell x) { return x == c || board.tile_at(x) >= 0; };
    // Each piece must stay the clockwise neighbour of the one before along the city's boundary; only
    // pieces against a tile next to c (sides or corners) can see their next slot move.
    for (std::size_t i = 0; i + 1 < wall.size(); ++i) {
        const Cell a = wall[i].slot.at;
        if (std::abs(a.x - c.x) > 1 || std::abs(a.y - c.y) > 1) continue;
        if (!(walk_cw(occupied, wall[i].slot) == wall[i + 1].slot)) {
            return "it would stand beyond the wall between " + slot_text(wall[i].slot) + " and " + slot_text(wall[i + 1].slot) +
                   " (no tile may go beyond the wall [6])";
        }
    }
    // The cell beyond every piece must stay part of the outside: a tile may not close the wall in [6].
    if (!may_split_empty_space(occupied, c)) return std::nullopt;
    int x0 = c.x, x1 = c.x, y0 = c.y, y1 = c.y;
    for (const PlacedTile& t : board.tiles()) {
        x0 = std::min(x0, t.at.x), x1 = std::max(x1, t.at.x), y0 = std::min(y0, t.at.y), y1 = std::max(y1, t.at.y);
    }
    --x0, --y0, ++x1, ++y1;
    std::set<std::pair<int, int>> outside{{x0, y0}};
    std::vector<Cell> todo{Cell{x0, y0}};
    while (!todo.empty()) {
        const Cell at = todo.back();
        todo.pop_back();
        for (int s = 0; s < 4; ++s) {
            const Cell n = step(at, s);
            if (n.x < x0 || n.x > x1 || n.y < y0 || n.y > y1 || occupied(n)) continue;
            if (outside.insert({n.x, n.y}).second) todo.push_back(n);
        }
    }
    for (const WallPiece& piece : wall) {
        const Cell beyond = step(piece.slot.at, piece.slot.side);
        if (!outside.count({beyond.x, beyond.y})) {
            return "it would close in the wall: the cell " + to_string(beyond) + " beyond the piece at " + slot_text(piece.slot) +
                   " would become a hole inside the city (the wall must stay on the city's outside [6])";
        }
    }
    return std::nullopt;
}

std::optional<std::string> CityModule::refuse_placement(const Game& game, const TileType& /*type*/, Placement p) const {
    return wall_refusal(game.board(), wall_, p.at);
}

CityModule::Slot CityModule::next_ccw(const Board& board, Slot s) {
    const int t = (s.side + 3) % 4;
    const Cell diag = step(step(s.at, t), s.side);
    const Cell ahead = step(s.at, t);
    if (board.tile_at(diag) >= 0) return Slot{diag, (s.side + 1) % 4};
    if (board.tile_at(ahead) >= 0) return Slot{ahead, s.side};
    return Slot{s.at, t};
}

int CityModule::find_piece(const Slot& s) const {
    for (std::size_t i = 0; i < wall_.size(); ++i) {
        if (wall_[i].slot == s) return static_cast<int>(i);
    }
    return -1;
}

int CityModule::free_slots_between_ends(const Board& board) const {
    if (wall_.empty()) return -1;
    const int limit = 4 * static_cast<int>(board.size()) + 8;
    Slot s = next_cw(board, wall_.back().slot);
    int n = 0;
    while (n < limit) {
        if (find_piece(s) >= 0) return n;  // reached the front (or the ring is closed)
        ++n;
        s = next_cw(board, s);
    }
    return n;
}

std::vector<CityModule::Slot> CityModule::wall_slots_next(const Board& board) const {
    std::vector<Slot> out;
    if (wall_.empty()) return out;
    const Slot back = next_cw(board, wall_.back().slot);
    const Slot front = next_ccw(board, wall_.front().slot);
    if (find_piece(back) < 0) out.push_back(back);
    if (find_piece(front) < 0 && !(front == back)) out.push_back(front);
    return out;
}

int CityModule::opposite_guard(const Board& board, const Slot& slot) const {
    // Along the row/column into the city up to the first gap; the piece on the far side, if guarded.
    const int inward = (slot.side + 2) % 4;
    Cell c = slot.at;
    while (board.tile_at(step(c, inward)) >= 0) c = step(c, inward);
    const int opposite = find_piece(Slot{c, inward});
    return opposite >= 0 && wall_[opposite].guard >= 0 ? opposite : -1;
}

bool CityModule::round_owed(const Game& game) const {
    if (over_ || pieces_left_ <= 0 || game.turn_tile() < 0 || current_stack(game) < 2) return false;
    const Board& board = game.board();
    for (int r : game.pending_completions()) {
        const int root = board.find(r);
        const Structure& st = board.structure(root);
        if ((st.kind == FeatureKind::Street || st.kind == FeatureKind::Market) && board.is_complete(root)) return true;
    }
    return false;
}

void CityModule::on_tile_placed(Game& /*game*/) {
    completed_this_turn_ = false;
    tower_pending_ = false;
    guard_player_ = -1;
}

void CityModule::on_structure_completed(Game& game, int root, int /*points*/) {
    const FeatureKind k = game.board().structure(root).kind;
    if (k == FeatureKind::Street || k == FeatureKind::Market) completed_this_turn_ = true;
}

void CityModule::on_turn_scored(Game& game) {
    if (!completed_this_turn_ || over_ || pieces_left_ <= 0 || current_stack(game) < 2) return;
    completed_this_turn_ = false;
    const int n = static_cast<int>(game.players().size());
    if (towers_used_.empty()) towers_used_.assign(n, 0);
    int per = current_stack(game) == 2 ? 1 : 2;
    if (n == 2) per *= 2;  // two players build twice as many
    scorer_ = game.turn_player();
    builders_.clear();
    for (int r = 0; r < per; ++r) {
        for (int i = 0; i < n; ++i) builders_.push_back((scorer_ + i) % n);
    }
    gate_pending_ = wall_.empty();
    tower_pending_ = true;
}

void CityModule::score_closed(Game& game, const std::vector<int>& roots, bool final_phase) {
    Board& board = game.mutable_board();
    for (int root : roots) {
        Structure& st = board.structure(root);
        if (st.scored || !board.is_complete(root)) continue;
        st.scored = true;
        if (st.follower_ids.empty()) continue;
        const auto value = completed_value(game, root);
        ScoreEvent ev;
        ev.phase = final_phase ? ScoreEvent::Phase::Final : ScoreEvent::Phase::Turn;
        ev.event_index = final_phase ? -1 : game.turn_event();
        ev.feature = std::string(feature_kind_name(st.kind));
        ev.points = value ? value->first : 0;
        ev.completed = true;
        for (int id : st.follower_ids) ++ev.followers[board.followers()[id].player];
        int most = 0;
        for (const auto& [p, k] : ev.followers) most = std::max(most, k);
        for (const auto& [p, k] : ev.followers) {
            if (k == most) ev.winners.push_back(p);
        }
        ev.tiles = board.structure_cells(root);
        ev.explanation = (value ? value->second : std::string("?")) + ", closed by the wall = " +
                         std::to_string(ev.points) + " points";
        for (int id : board.release_followers(root)) game.return_follower_to_supply(board.followers()[id].player);
        game.add_score(std::move(ev));
    }
}

void CityModule::check_end(const Game& game) {
    if (over_ || !builders_.empty() || wall_.empty()) return;
    if (pieces_left_ <= 0) {
        over_ = true;
        over_reason_ = "the last wall piece was built";
    } else if (wall_slots_next(game.board()).empty()) {
        over_ = true;
        over_reason_ = "the wall encloses the city";
    } else if (free_slots_between_ends(game.board()) <= 5) {
        over_ = true;
        over_reason_ = "the two ends of the wall are " + std::to_string(free_slots_between_ends(game.board())) +
                       " pieces apart (5 or fewer)";
    }
}

Status CityModule::before_core_event(Game& game, const Event& e, const std::string& where) {
    if (e.type != "tile" && e.type != "discard") return Ok{};
    if (over_) return illegal(where, "the game is over: " + over_reason_ + "; the record must end (finished)");
    if (!builders_.empty()) {
        return illegal(where, "the wall round is not finished: " + game.players()[builders_.front()].color +
                                  " must place " + (gate_pending_ ? "the gate (a 'gate' event)" : "a wall piece (a 'wall' event)"));
    }
    if (round_owed(game)) {
        return illegal(where, "the turn's tile completed a street or market in stack " +
                                  std::to_string(current_stack(game)) + ": the walls are built first, starting with " +
                                  game.players()[game.turn_player()].color + "'s " +
                                  (wall_.empty() ? "gate ('gate' event)" : "wall piece ('wall' event)"));
    }
    tower_pending_ = false;
    guard_player_ = -1;
    return Ok{};
}

Status CityModule::apply_event(Game& game, const Event& e, const std::string& where) {
    if (over_ && e.type != "guard" && e.type != "tower") return illegal(where, "the game is over: " + over_reason_);
    const int player = game.player_index(e.player);
    if (player < 0) return invalid(where, "unknown player colour '" + e.player + "'");
    if (game.turn_tile() >= 0) {  // the walls come after the turn's scoring: end the turn first
        if (auto st = game.close_turn(); !st) return st;
    }
    if (e.type == "gate" || e.type == "wall") {
        auto at = parse_at(e.raw, where);
        if (!at) return at.error();
        const auto side = parse_side(e.raw);
        if (!side) return invalid(where, "'side' must be N, E, S or W: the side of the tile at 'at' the piece lies along");
        if (builders_.empty()) return illegal(where, "no wall round is in progress (walls follow a scoring from stack 2 on)");
        if (builders_.front() != player) {
            return illegal(where, "it is " + game.players()[builders_.front()].color + "'s wall piece, not " + e.player + "'s");
        }
        const Slot slot{at.value(), *side};
        const Board& board = game.board();
        if (e.type == "gate") {
            if (!gate_pending_) return illegal(where, "the gate is already placed; add a 'wall' piece at an end");
            if (board.tile_at(slot.at) < 0) return illegal(where, "the gate must lie against a tile; " + to_string(slot.at) + " is empty");
            const Cell beyond = step(slot.at, slot.side);
            if (board.tile_at(beyond) >= 0) return illegal(where, "side " + slot_text(slot) + " faces a tile, not the outside");
            if (!outside_cells(board).count({beyond.x, beyond.y})) {
                return illegal(where, "side " + slot_text(slot) + " faces a hole inside the city, not the outside");
            }
            WallPiece piece;
            piece.slot = slot;
            piece.gate = true;
            wall_.push_back(piece);
            gate_pending_ = false;
            guard_player_ = -1;  // never a guard on the gate
        } else {
            if (gate_pending_) return illegal(where, "the first piece of the wall is the gate (a 'gate' event)");
            const auto next = wall_slots_next(board);
            if (std::find(next.begin(), next.end(), slot) == next.end()) {
                std::string ends;
                for (const Slot& s : next) ends += (ends.empty() ? "" : " or ") + slot_text(s);
                return illegal(where, "a wall piece must continue an end of the wall: " +
                                          (ends.empty() ? std::string("none is free") : ends) + ", not " + slot_text(slot));
            }
            WallPiece piece;
            piece.slot = slot;
            const bool at_back = slot == next_cw(board, wall_.back().slot);
            if (at_back) {
                wall_.push_back(piece);
            } else {
                wall_.push_front(piece);
            }
            --pieces_left_;
            guard_player_ = player;
            guard_piece_ = at_back ? 1 : 0;
        }
        builders_.pop_front();
        if (pieces_left_ <= 0) builders_.clear();  // as many as remain, in order
        score_closed(game, game.mutable_board().close_side(slot.at, slot.side), false);
        if (!wall_slots_next(game.board()).empty() || builders_.empty()) {
            // keep going
        } else {
            builders_.clear();  // the ring closed
        }
        check_end(game);
        return Ok{};
    }
    if (e.type == "guard") {
        if (guard_player_ != player) {
            return illegal(where, "a guard goes only on the wall piece its player has just placed (not on the gate)");
        }
        WallPiece& piece = guard_piece_ == 1 ? wall_.back() : wall_.front();
        const int opposite = opposite_guard(game.board(), piece.slot);
        if (opposite >= 0) {
            return illegal(where, "a guard (" + game.players()[wall_[opposite].guard].color + ") already stands on the wall piece opposite, at " +
                                      slot_text(wall_[opposite].slot));
        }
        if (!game.take_follower_from_supply(player)) return illegal(where, e.player + " has no follower left for a guard");
        piece.guard = player;
        guard_player_ = -1;
        return Ok{};
    }
    if (e.type == "tower") {
        if (!builders_.empty() || !tower_pending_) {
            return illegal(where, "a tower comes only after a wall round is complete, once, by the player whose tile caused it");
        }
        if (player != scorer_) return illegal(where, "only " + game.players()[scorer_].color + " may place this tower");
        const int n = static_cast<int>(game.players().size());
        if (towers_used_.empty()) towers_used_.assign(n, 0);
        if (towers_used_[player] >= kTowers / n) {
            return illegal(where, e.player + " has no tower left (" + std::to_string(kTowers / n) + " each)");
        }
        auto at = parse_at(e.raw, where);
        if (!at) return at.error();
        const auto side = parse_side(e.raw);
        if (!side) return invalid(where, "'side' must be N, E, S or W: the end piece of the wall");
        const Slot slot{at.value(), *side};
        int points = 0;
        if ((wall_.back().slot == slot && wall_.back().tower_cw) || (wall_.front().slot == slot && wall_.front().tower_ccw)) {
            return illegal(where, "a tower already stands at that end of the wall (" + slot_text(slot) + ")");
        }
        if (wall_.back().slot == slot && !wall_.back().gate) {
            for (int i = static_cast<int>(wall_.size()) - 1; i >= 0; --i) {
                if (wall_[i].gate || (i != static_cast<int>(wall_.size()) - 1 && wall_[i].tower_cw)) break;
                ++points;
            }
            wall_.back().tower_cw = true;
        } else if (wall_.front().slot == slot && !wall_.front().gate) {
            for (std::size_t i = 0; i < wall_.size(); ++i) {
                if (wall_[i].gate || (i != 0 && wall_[i].tower_ccw)) break;
                ++points;
            }
            wall_.front().tower_ccw = true;
        } else {
            return illegal(where, "a tower stands at an end of the wall: " + slot_text(wall_.front().slot) + " or " +
                                      slot_text(wall_.back().slot));
        }
        ++towers_used_[player];
        tower_pending_ = false;
        ScoreEvent ev;
        ev.phase = ScoreEvent::Phase::Turn;
        ev.event_index = game.turn_event();
        ev.feature = "tower";
        ev.points = points;
        ev.winners = {player};
        ev.followers[player] = 0;
        ev.completed = true;
        ev.tiles = {slot.at};
        ev.explanation = "Tower: " + std::to_string(points) + " wall piece(s) back to the previous tower or the gate x 1 = " +
                         std::to_string(points) + " points";
        game.add_score(std::move(ev));
        return Ok{};
    }
    return invalid(where, "unknown City event '" + e.type + "'");
}

std::vector<Event> CityModule::options(const Game& game) const {
    std::vector<Event> out;
    auto make = [&](const std::string& type, int player, const Slot& s) {
        Event e;
        e.type = type;
        e.player = game.players()[player].color;
        e.raw = {{"type", type}, {"player", e.player}, {"at", {s.at.x, s.at.y}}, {"side", kSideLetters[s.side]}};
        out.push_back(std::move(e));
    };
    if (over_ && guard_player_ < 0) return out;
    const Board& board = game.board();
    const bool owed = round_owed(game);
    if (!builders_.empty() || owed) {
        const int player = builders_.empty() ? game.turn_player() : builders_.front();
        const bool gate = builders_.empty() ? wall_.empty() : gate_pending_;
        if (gate) {
            const auto outside = outside_cells(board);
            for (const PlacedTile& t : board.tiles()) {
                for (int s = 0; s < 4; ++s) {
                    const Cell n = step(t.at, s);
                    if (board.tile_at(n) < 0 && outside.count({n.x, n.y})) make("gate", player, Slot{t.at, s});
                }
            }
        } else {
            for (const Slot& s : wall_slots_next(board)) make("wall", player, s);
        }
    }
    if (guard_player_ >= 0 && game.followers_left(guard_player_) > 0 &&
        opposite_guard(board, (guard_piece_ == 1 ? wall_.back() : wall_.front()).slot) < 0) {
        Event g;
        g.type = "guard";
        g.player = game.players()[guard_player_].color;
        g.raw = {{"type", "guard"}, {"player", g.player}};
        out.push_back(std::move(g));
    }
    if (builders_.empty() && tower_pending_ && !wall_.empty() && !owed) {
        const int n = static_cast<int>(game.players().size());
        const int used = towers_used_.empty() ? 0 : towers_used_[scorer_];
        if (used < kTowers / n) {
            if (!wall_.back().gate && !wall_.back().tower_cw) make("tower", scorer_, wall_.back().slot);
            if (!wall_.front().gate && !wall_.front().tower_ccw && !(wall_.front().slot == wall_.back().slot)) {
                make("tower", scorer_, wall_.front().slot);
            }
        }
    }
    return out;
}

bool CityModule::must_act(const Game& game) const { return !builders_.empty() || round_owed(game); }

void CityModule::close_city(Game& game) {
    Board& board = game.mutable_board();
    if (board.size() == 0) return;
    const auto outside = outside_cells(board);
    std::vector<int> completed;
    std::vector<std::pair<Cell, int>> sides;
    for (const PlacedTile& t : board.tiles()) {
        for (int s = 0; s < 4; ++s) {
            const Cell n = step(t.at, s);
            if (board.tile_at(n) < 0 && outside.count({n.x, n.y})) sides.emplace_back(t.at, s);
        }
    }
    for (const auto& [c, s] : sides) {
        auto done = board.close_side(c, s);
        completed.insert(completed.end(), done.begin(), done.end());
    }
    score_closed(game, completed, true);
}

void CityModule::score_guards(Game& game) {
    const Board& board = game.board();
    for (const WallPiece& piece : wall_) {
        if (piece.guard < 0) continue;
        const int inward = (piece.slot.side + 2) % 4;
        int pub = 0, hist = 0;
        std::vector<Cell> cells;
        for (Cell c = piece.slot.at; board.tile_at(c) >= 0; c = step(c, inward)) {
            cells.push_back(c);
            for (const auto& tag : board.tiles()[board.tile_at(c)].type->tags) {
                pub += tag == "public" ? 1 : 0;
                hist += tag.rfind("historic:", 0) == 0 ? 1 : 0;
            }
        }
        ScoreEvent ev;
        ev.phase = ScoreEvent::Phase::Final;
        ev.feature = "guard";
        ev.points = 2 * pub + 3 * hist;
        ev.winners = {piece.guard};
        ev.followers[piece.guard] = 1;
        ev.tiles = cells;
        ev.explanation = "Guard at " + slot_text(piece.slot) + ": " + std::to_string(pub) + " public x 2 + " +
                         std::to_string(hist) + " historic x 3 = " + std::to_string(ev.points) + " points";
        game.add_score(std::move(ev));
    }
}

}  // namespace meeplecam
