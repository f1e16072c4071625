#include "engine/modules/ferries.h"

#include <algorithm>

#include "engine/cell_neighbour.h"
#include "engine/game.h"

namespace meeplecam {
namespace {

bool is_lake_tile(const TileType& t) {
    return std::any_of(t.features.begin(), t.features.end(),
                       [](const FeatureDef& f) { return f.kind == FeatureKind::Lake; });
}

bool is_jetty(const Board& b, int node) {
    if (node < 0) return false;
    const FeatureDef& def = b.node_def(node);
    return def.kind == FeatureKind::Road && def.has_tag("jetty");
}


// Reads "jetties": [P, Q] as two distinct jetty ports of the lake tile at `at`.
Result<std::pair<Port, Port>> parse_jetties(const Board& b, const Event& e, const std::string& where) {
    const auto& j = e.raw;
    if (!j.contains("jetties") || !j["jetties"].is_array() || j["jetties"].size() != 2 || !j["jetties"][0].is_string() ||
        !j["jetties"][1].is_string()) {
        return invalid(where, "'jetties' must be two port names, e.g. [\"E\", \"W\"]");
    }
    std::pair<Port, Port> ports;
    for (int i = 0; i < 2; ++i) {
        const std::string name = j["jetties"][i].get<std::string>();
        const auto p = parse_port(name);
        if (!p) return invalid(where, "unknown port '" + name + "'");
        if (!is_jetty(b, b.node_at(e.at, *p))) {
            return illegal(where, "port " + name + " of the tile at " + to_string(e.at) + " is not a jetty");
        }
        (i == 0 ? ports.first : ports.second) = *p;
    }
    if (ports.first == ports.second) return illegal(where, "a ferry joins two different jetties");
    return ports;
}

Result<Cell> parse_at(const Event& e, const std::string& where) {
    const auto& j = e.raw;
    if (!j.contains("at") || !j["at"].is_array() || j["at"].size() != 2 || !j["at"][0].is_number_integer() ||
        !j["at"][1].is_number_integer()) {
        return invalid(where, "'at' must be [x, y] with two integers");
    }
    return Cell{j["at"][0].get<int>(), j["at"][1].get<int>()};
}

Event ferry_event(const std::string& type, const std::string& player, Cell at, Port a, Port b) {
    Event e;
    e.type = type;
    e.player = player;
    e.at = at;
    e.raw = {{"type", type}, {"player", player}, {"at", {at.x, at.y}}, {"jetties", {port_name(a), port_name(b)}}};
    return e;
}

// Lists the jetty ports of a placed lake tile, in board orientation.
std::vector<Port> jetty_ports(const Board& b, int tile_index) {
    std::vector<Port> out;
    const PlacedTile& t = b.tiles()[tile_index];
    for (int s = 0; s < 4; ++s) {
        const Port mid = static_cast<Port>(3 * s + 1);
        if (is_jetty(b, b.node_at(t.at, mid))) out.push_back(mid);
    }
    return out;
}

}  // namespace

std::optional<std::pair<Port, Port>> FerriesModule::ferry_on(int tile_index) const {
    auto it = ferries_.find(tile_index);
    if (it == ferries_.end()) return std::nullopt;
    return it->second;
}

bool FerriesModule::must_act(const Game& game) const {
    return lake_needing_ferry_ >= 0 && game.turn_tile() == lake_needing_ferry_;
}

void FerriesModule::on_tile_placed(Game& game) {
    moved_.clear();
    candidates_.reset();
    ferry_acted_ = false;
    const int t = game.turn_tile();
    lake_needing_ferry_ = is_lake_tile(*game.board().tiles()[t].type) ? t : -1;
}

Status FerriesModule::before_core_event(Game& /*game*/, const Event& event, const std::string& where) {
    if (event.type == "meeple" && ferry_acted_) {
        return illegal(where, "a follower must be placed before the ferry (turn order: tile, follower, ferry, ferry moves)");
    }
    return Ok{};
}

Status FerriesModule::check_turn_end(const Game& game, const std::string& where) const {
    if (lake_needing_ferry_ >= 0 && game.turn_tile() == lake_needing_ferry_) {
        return illegal(where, "the lake tile at " + to_string(game.board().tiles()[lake_needing_ferry_].at) +
                                  " needs its ferry before the turn ends");
    }
    return Ok{};
}

Status FerriesModule::apply_event(Game& game, const Event& event, const std::string& where) {
    if (game.turn_tile() < 0) return illegal(where, "a ferry is placed or moved only during a turn, after its tile");
    if (event.player != game.players()[game.turn_player()].color) {
        return illegal(where, "it is " + game.players()[game.turn_player()].color + "'s turn, not " + event.player + "'s");
    }
    return event.type == "ferry" ? place_ferry(game, event, where) : move_ferry(game, event, where);
}

Status FerriesModule::place_ferry(Game& game, const Event& e, const std::string& where) {
    Board& board = game.mutable_board();
    if (lake_needing_ferry_ < 0) return illegal(where, "only the lake tile just placed gets a new ferry");
    auto at = parse_at(e, where);
    if (!at) return at.error();
    Event located = e;
    located.at = at.value();
    const Cell lake = board.tiles()[lake_needing_ferry_].at;
    if (located.at != lake) {
        return illegal(where, "the new ferry goes on the lake tile just placed, at " + to_string(lake));
    }
    auto ports = parse_jetties(board, located, where);
    if (!ports) return ports.error();
    const int a = board.node_at(lake, ports->first), b = board.node_at(lake, ports->second);
    board.add_link(a, b);
    for (int root : board.rebuild_structures()) game.add_pending_completion(root);
    ferries_[lake_needing_ferry_] = ports.value();
    lake_needing_ferry_ = -1;
    ferry_acted_ = true;
    return Ok{};
}

Status FerriesModule::move_ferry(Game& game, const Event& e, const std::string& where) {
    Board& board = game.mutable_board();
    if (lake_needing_ferry_ >= 0) return illegal(where, "place the new ferry on the lake tile before moving others");
    auto at = parse_at(e, where);
    if (!at) return at.error();
    Event located = e;
    located.at = at.value();
    const int tile = board.tile_at(located.at);
    auto current = tile >= 0 ? ferry_on(tile) : std::nullopt;
    if (!current) return illegal(where, "there is no ferry at " + to_string(located.at));
    if (tile == game.turn_tile()) return illegal(where, "the ferry placed this turn cannot move this turn");
    if (moved_.count(tile)) return illegal(where, "the ferry at " + to_string(located.at) + " already moved this turn");
    if (!candidates_) candidates_ = movable_ferries(game);
    if (std::find(candidates_->begin(), candidates_->end(), tile) == candidates_->end()) {
        return illegal(where, "the ferry at " + to_string(located.at) +
                                  " is not the first ferry along a road the tile just placed extended");
    }
    auto ports = parse_jetties(board, located, where);
    if (!ports) return ports.error();
    const auto same = [&](std::pair<Port, Port> x, std::pair<Port, Port> y) {
        return (x.first == y.first && x.second == y.second) || (x.first == y.second && x.second == y.first);
    };
    if (same(ports.value(), current.value())) return illegal(where, "the ferry already joins those jetties");
    const bool removed =
        board.remove_link(board.node_at(located.at, current->first), board.node_at(located.at, current->second));
    MEEPLECAM_CHECK(removed, "a ferry's link is on the board");
    board.add_link(board.node_at(located.at, ports->first), board.node_at(located.at, ports->second));
    for (int root : board.rebuild_structures()) game.add_pending_completion(root);
    ferries_[tile] = ports.value();
    moved_.insert(tile);
    ferry_acted_ = true;
    return Ok{};
}

std::vector<int> FerriesModule::movable_ferries(const Game& game) const {
    const Board& b = game.board();
    const int start = game.turn_tile();
    std::vector<int> out;
    if (start < 0) return out;
    const PlacedTile& placed = b.tiles()[start];
    for (int s = 0; s < 4; ++s) {
        const int own = b.node_at(placed.at, static_cast<Port>(3 * s + 1));
        if (own < 0 || b.node_def(own).kind != FeatureKind::Road) continue;
        Cell cur = neighbour(placed.at, s);
        int in_side = (s + 2) % 4;
        for (std::size_t steps = 0; steps <= b.size(); ++steps) {
            const int ti = b.tile_at(cur);
            if (ti < 0 || ti == start) break;
            const Port in_port = static_cast<Port>(3 * in_side + 1);
            const int node = b.node_at(cur, in_port);
            if (node < 0 || b.node_def(node).kind != FeatureKind::Road) break;
            if (is_jetty(b, node)) {
                const auto ferry = ferry_on(ti);
                if (ferry && (ferry->first == in_port || ferry->second == in_port)) out.push_back(ti);
                break;  // a ferry (the first one) or an unferried jetty ends the walk
            }
            // Follow the road feature out through its other side.
            int out_side = -1;
            for (int side = 0; side < 4 && out_side < 0; ++side) {
                if (side != in_side && b.node_at(cur, static_cast<Port>(3 * side + 1)) == node) out_side = side;
            }
            if (out_side < 0) break;  // the road ends on this tile
            cur = neighbour(cur, out_side);
            in_side = (out_side + 2) % 4;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<Event> FerriesModule::options(const Game& game) const {
    std::vector<Event> out;
    if (game.turn_tile() < 0) return out;
    const Board& b = game.board();
    const std::string player = game.players()[game.turn_player()].color;
    auto pairs = [&](int tile, const std::string& type, std::optional<std::pair<Port, Port>> skip) {
        const auto jetties = jetty_ports(b, tile);
        for (std::size_t i = 0; i < jetties.size(); ++i) {
            for (std::size_t k = i + 1; k < jetties.size(); ++k) {
                if (skip && ((skip->first == jetties[i] && skip->second == jetties[k]) ||
                             (skip->first == jetties[k] && skip->second == jetties[i]))) {
                    continue;
                }
                out.push_back(ferry_event(type, player, b.tiles()[tile].at, jetties[i], jetties[k]));
            }
        }
    };
    if (lake_needing_ferry_ >= 0) {
        pairs(lake_needing_ferry_, "ferry", std::nullopt);
        return out;
    }
    const std::vector<int> movable = candidates_ ? *candidates_ : movable_ferries(game);
    for (int tile : movable) {
        if (!moved_.count(tile) && tile != game.turn_tile()) pairs(tile, "ferry-move", ferry_on(tile));
    }
    return out;
}

}  // namespace meeplecam
