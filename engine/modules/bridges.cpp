#include "engine/modules/bridges.h"

#include "engine/cell_neighbour.h"
#include "engine/game.h"

namespace meeplecam {
namespace {

const char* kAxisNames[2] = {"NS", "EW"};


bool touches(Cell a, Cell b) { return std::abs(a.x - b.x) + std::abs(a.y - b.y) == 1; }

// Reads {"at": [x, y], "axis": "NS" | "EW"}.
Result<std::pair<Cell, int>> parse_bridge(const nlohmann::json& j, const std::string& where) {
    if (!j.is_object() || !j.contains("at") || !j["at"].is_array() || j["at"].size() != 2 ||
        !j["at"][0].is_number_integer() || !j["at"][1].is_number_integer()) {
        return invalid(where, "a bridge needs 'at': [x, y]");
    }
    if (!j.contains("axis") || !j["axis"].is_string() || (j["axis"] != "NS" && j["axis"] != "EW")) {
        return invalid(where, "a bridge needs 'axis': \"NS\" or \"EW\"");
    }
    return std::make_pair(Cell{j["at"][0].get<int>(), j["at"][1].get<int>()}, j["axis"] == "NS" ? 0 : 1);
}

nlohmann::json bridge_json(Cell at, int axis) { return {{"at", {at.x, at.y}}, {"axis", kAxisNames[axis]}}; }

}  // namespace

int BridgesModule::bridges_left(const Game& game, int player) const {
    const int supply = game.players().size() <= 4 ? 3 : 2;
    const int used = player < static_cast<int>(used_.size()) ? used_[player] : 0;
    return supply - used;
}

Result<const TileType*> BridgesModule::variant(const TileType& base, int catalog_axis) {
    const auto key = std::make_pair(&base, catalog_axis);
    if (auto it = variant_of_.find(key); it != variant_of_.end()) return it->second;
    auto made = with_bridge(base, catalog_axis);
    if (!made) return made.error();
    variants_.push_back(std::move(made.value()));
    variant_of_[key] = &variants_.back();
    return &variants_.back();
}

Status BridgesModule::check_bridge(const Game& game, int player, int tile_index, int board_axis, Cell anchor,
                                   const std::string& where) const {
    const Board& b = game.board();
    const PlacedTile& t = b.tiles()[tile_index];
    if (t.at != anchor && !touches(t.at, anchor)) {
        return illegal(where, "a bridge goes on the tile just placed or on a tile touching it by a side");
    }
    if (built_this_turn_) return illegal(where, "only one bridge may be built per turn");
    if (bridges_left(game, player) <= 0) return illegal(where, game.players()[player].color + " has no bridge left");
    for (const FeatureDef& f : t.type->features) {
        if (f.has_tag("bridge")) return illegal(where, "the tile at " + to_string(t.at) + " already has a bridge");
    }
    for (int side : {board_axis, board_axis + 2}) {
        if (Board::edge_on(t, side) != EdgeKind::Field) {
            return illegal(where, "both ends of a bridge must lie on field sides; the " +
                                      std::string(port_name(static_cast<Port>(3 * side + 1))) + " side of tile " +
                                      t.type->id + " at " + to_string(t.at) + " is " +
                                      std::string(edge_kind_name(Board::edge_on(t, side))));
        }
        const int n = b.tile_at(neighbour(t.at, side));
        if (n >= 0 && Board::edge_on(b.tiles()[n], (side + 2) % 4) != EdgeKind::Road) {
            return illegal(where, "each end of a bridge must continue a road or face an empty cell; the " +
                                      std::string(port_name(static_cast<Port>(3 * side + 1))) + " end meets tile " +
                                      b.tiles()[n].type->id + " at " + to_string(b.tiles()[n].at) + " (" +
                                      std::string(edge_kind_name(Board::edge_on(b.tiles()[n], (side + 2) % 4))) + ")");
        }
    }
    return Ok{};
}

void BridgesModule::build(Game& game, int player, int tile_index, int board_axis) {
    Board& b = game.mutable_board();
    const PlacedTile& t = b.tiles()[tile_index];
    auto v = variant(*t.type, (board_axis + t.rot) % 2);
    MEEPLECAM_CHECK(v.has_value(), "a checked bridge has a variant");
    b.replace_tile_type(tile_index, *v.value());
    for (int root : b.rebuild_structures()) game.add_pending_completion(root);
    if (static_cast<int>(used_.size()) <= player) used_.resize(player + 1, 0);
    ++used_[player];
    built_this_turn_ = true;
}

Result<const TileType*> BridgesModule::placed_type(Game& game, const Event& e, const TileType& drawn,
                                                   const std::string& where) {
    built_this_turn_ = false;  // a tile event starts a new turn
    built_for_placement_ = false;
    if (!e.raw.contains("bridge")) return &drawn;
    auto bridge = parse_bridge(e.raw["bridge"], where);
    if (!bridge) return bridge.error();
    const auto [at, axis] = bridge.value();
    const int player = game.player_index(e.player);
    if (at == e.at) {
        // On the tile being placed: place the tile with its bridge (the core checks its sides).
        if (bridges_left(game, player) <= 0) return illegal(where, e.player + " has no bridge left");
        auto v = variant(drawn, (axis + e.rot) % 2);
        if (!v) return illegal(where, v.error().message);
        if (static_cast<int>(used_.size()) <= player) used_.resize(player + 1, 0);
        ++used_[player];
        built_for_placement_ = true;
        return v.value();
    }
    const int tile = game.board().tile_at(at);
    if (tile < 0 || !touches(at, e.at)) {
        return illegal(where, "the bridge must be on the tile placed or on a placed tile touching it by a side");
    }
    if (auto st = check_bridge(game, player, tile, axis, e.at, where); !st) return st.error();
    build(game, player, tile, axis);
    built_for_placement_ = true;
    return &drawn;
}

void BridgesModule::on_tile_placed(Game& /*game*/) {
    built_this_turn_ = built_for_placement_;
    built_for_placement_ = false;
}

Status BridgesModule::apply_event(Game& game, const Event& e, const std::string& where) {
    const int turn_tile = game.turn_tile();
    if (turn_tile < 0) return illegal(where, "a bridge is built during a turn, after its tile");
    const int player = game.player_index(e.player);
    if (player != game.turn_player()) {
        return illegal(where, "it is " + game.players()[game.turn_player()].color + "'s turn, not " + e.player + "'s");
    }
    auto bridge = parse_bridge(e.raw, where);
    if (!bridge) return bridge.error();
    const auto [at, axis] = bridge.value();
    const int tile = game.board().tile_at(at);
    if (tile < 0) return illegal(where, "there is no tile at " + to_string(at));
    if (auto st = check_bridge(game, player, tile, axis, game.board().tiles()[turn_tile].at, where); !st) return st;
    build(game, player, tile, axis);
    return Ok{};
}

std::vector<PlacementOption> BridgesModule::extra_placements(const Game& game, const TileType& type) const {
    std::vector<PlacementOption> out;
    const int player = game.next_player();
    if (bridges_left(game, player) <= 0) return out;
    const Board& b = game.board();
    for (const Board::BorderCell& cell : b.border()) {
        for (int r : type.distinct_rotations) {
            const std::uint16_t sig = type.signature[r];
            if ((sig & cell.mask) == cell.value) continue;  // fits without a bridge
            auto mine = [&](int s) { return static_cast<EdgeKind>((sig >> (kEdgeBits * s)) & 0xF); };
            auto theirs = [&](int s) { return static_cast<EdgeKind>((cell.value >> (kEdgeBits * s)) & 0xF); };
            auto touching = [&](int s) { return ((cell.mask >> (kEdgeBits * s)) & 0xF) != 0; };
            // (a) A bridge on the new tile: its two field ends become roads.
            for (int axis = 0; axis < 2; ++axis) {
                if (mine(axis) != EdgeKind::Field || mine(axis + 2) != EdgeKind::Field) continue;
                bool fits = true;
                for (int s = 0; s < 4 && fits; ++s) {
                    const EdgeKind e = (s % 2 == axis) ? EdgeKind::Road : mine(s);
                    fits = !touching(s) || e == theirs(s);
                }
                if (fits) out.push_back({Placement{cell.at, r}, {{"bridge", bridge_json(cell.at, axis)}}});
            }
            // (b) A bridge on one neighbour whose field side faces the new tile's road.
            int mismatch = -1, count = 0;
            for (int s = 0; s < 4; ++s) {
                if (touching(s) && mine(s) != theirs(s)) {
                    mismatch = s;
                    ++count;
                }
            }
            if (count != 1 || mine(mismatch) != EdgeKind::Road || theirs(mismatch) != EdgeKind::Field) continue;
            const Cell at = neighbour(cell.at, mismatch);
            const int tile = b.tile_at(at);
            const int axis = mismatch % 2;
            if (check_bridge(game, player, tile, axis, cell.at, "").has_value()) {
                out.push_back({Placement{cell.at, r}, {{"bridge", bridge_json(at, axis)}}});
            }
        }
    }
    return out;
}

std::vector<Event> BridgesModule::options(const Game& game) const {
    std::vector<Event> out;
    const int turn_tile = game.turn_tile();
    if (turn_tile < 0 || built_this_turn_) return out;
    const int player = game.turn_player();
    const Board& b = game.board();
    const Cell anchor = b.tiles()[turn_tile].at;
    std::vector<int> candidates = {turn_tile};
    for (int s = 0; s < 4; ++s) {
        if (const int n = b.tile_at(neighbour(anchor, s)); n >= 0) candidates.push_back(n);
    }
    for (int tile : candidates) {
        for (int axis = 0; axis < 2; ++axis) {
            if (!check_bridge(game, player, tile, axis, anchor, "").has_value()) continue;
            Event e;
            e.type = "bridge";
            e.player = game.players()[player].color;
            e.at = b.tiles()[tile].at;
            e.raw = bridge_json(e.at, axis);
            e.raw["type"] = "bridge";
            e.raw["player"] = e.player;
            out.push_back(std::move(e));
        }
    }
    return out;
}

}  // namespace meeplecam
