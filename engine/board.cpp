#include "engine/board.h"

#include <algorithm>
#include <bit>

#include "engine/cell_neighbour.h"

namespace meeplecam {
namespace {

const char* kSideNames[4] = {"north", "east", "south", "west"};

EdgeKind edge_of(const PlacedTile& t, int board_side) {
    return t.type->edge_at(t.rot, board_side);
}

}  // namespace

std::string to_string(const Cell& c) { return "[" + std::to_string(c.x) + ", " + std::to_string(c.y) + "]"; }

int Board::tile_at(Cell c) const {
    auto it = cell_to_tile_.find(key(c));
    return it == cell_to_tile_.end() ? -1 : it->second;
}

const FeatureDef& Board::node_def(int node) const {
    return tiles_[node_tile_[node]].type->features[node_feature_[node]];
}

int Board::node_at(Cell at, Port p) const {
    const int ti = tile_at(at);
    if (ti < 0) return -1;
    const PlacedTile& t = tiles_[ti];
    const int f = t.type->feature_at(p, t.rot);
    return f < 0 ? -1 : t.node(f);
}

Port Board::node_port(int node) const {
    const PlacedTile& t = tiles_[node_tile_[node]];
    Port best = kCentre;
    for (Port p : node_def(node).ports) best = std::min(best, rotate_port(p, t.rot));
    return best;
}

int Board::find(int node) const {
    while (parent_[node] != node) {
        parent_[node] = parent_[parent_[node]];
        node = parent_[node];
    }
    return node;
}

int Board::unite(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return a;
    if (structures_[a].nodes.size() < structures_[b].nodes.size()) std::swap(a, b);
    Structure& into = structures_[a];
    Structure& from = structures_[b];
    MEEPLECAM_CHECK(into.kind == from.kind, "merging features of different kinds");
    parent_[b] = a;
    into.open_sides += from.open_sides;
    into.pennants += from.pennants;
    into.scored = into.scored || from.scored;
    into.nodes.insert(into.nodes.end(), from.nodes.begin(), from.nodes.end());
    into.follower_ids.insert(into.follower_ids.end(), from.follower_ids.begin(), from.follower_ids.end());
    from = Structure{};
    return a;
}

void Board::add_tile_nodes(int tile_index) {
    const PlacedTile& t = tiles_[tile_index];
    for (std::size_t f = 0; f < t.type->features.size(); ++f) add_node(tile_index, static_cast<int>(f));
}

int Board::add_node(int tile_index, int feature) {
    const PlacedTile& t = tiles_[tile_index];
    {
        const FeatureDef& def = t.type->features[feature];
        const int node = static_cast<int>(parent_.size());
        parent_.push_back(node);
        node_tile_.push_back(tile_index);
        node_feature_.push_back(feature);
        Structure s;
        s.kind = def.kind;
        s.open_sides = std::popcount(static_cast<unsigned>(def.side_mask));
        s.pennants = def.pennants;
        s.nodes.push_back(node);
        structures_.push_back(std::move(s));
        return node;
    }
}

void Board::replace_tile_type(int tile_index, const TileType& variant) {
    PlacedTile& t = tiles_[tile_index];
    const std::size_t old_count = t.type->features.size();
    MEEPLECAM_CHECK(variant.features.size() >= old_count, "a variant keeps the tile's features first");
    t.type = &variant;
    for (std::size_t f = old_count; f < variant.features.size(); ++f) {
        const int node = add_node(tile_index, static_cast<int>(f));
        tiles_[tile_index].extra_nodes.push_back(node);
    }
    const Cell at = tiles_[tile_index].at;
    for (int s = 0; s < 4; ++s) {
        if (tile_at(neighbour(at, s)) < 0) refresh_border_cell(neighbour(at, s));
    }
}

void Board::refresh_border_cell(Cell c) {
    BorderCell cell{c, 0, 0};
    bool touches = false;
    for (int s = 0; s < 4; ++s) {
        const int ti = tile_at(neighbour(c, s));
        if (ti < 0) continue;
        touches = true;
        // A closed side (a wall) demands EdgeKind::None, which no tile shows: nothing fits here.
        const auto need = side_closed(neighbour(c, s), (s + 2) % 4)
                              ? static_cast<std::uint16_t>(EdgeKind::None)
                              : static_cast<std::uint16_t>(edge_of(tiles_[ti], (s + 2) % 4));
        cell.mask |= static_cast<std::uint16_t>(0xF << (kEdgeBits * s));
        cell.value |= static_cast<std::uint16_t>(need << (kEdgeBits * s));
    }
    auto it = border_index_.find(key(c));
    if (!touches) {
        if (it != border_index_.end()) remove_border_cell(c);
        return;
    }
    if (it == border_index_.end()) {
        border_index_[key(c)] = static_cast<int>(border_.size());
        border_.push_back(cell);
    } else {
        border_[it->second] = cell;
    }
}

void Board::remove_border_cell(Cell c) {
    auto it = border_index_.find(key(c));
    if (it == border_index_.end()) return;
    const int idx = it->second;
    border_index_.erase(it);
    if (idx != static_cast<int>(border_.size()) - 1) {
        border_[idx] = border_.back();
        border_index_[key(border_[idx].at)] = idx;
    }
    border_.pop_back();
}

void Board::place_start(const TileType& type, Placement p) {
    MEEPLECAM_CHECK(tiles_.empty(), "the start tile goes on an empty board");
    place(type, p);
}

PlacementCheck Board::check_placement(const TileType& type, Placement p) const {
    if (p.rot < 0 || p.rot > 3) return {false, "rotation must be 0, 90, 180 or 270"};
    if (const int ti = tile_at(p.at); ti >= 0) {
        return {false, "cell " + to_string(p.at) + " is already occupied by tile " + tiles_[ti].type->id};
    }
    if (tiles_.empty()) return {true, ""};
    bool touches = false;
    for (int s = 0; s < 4; ++s) {
        const Cell n = neighbour(p.at, s);
        const int ti = tile_at(n);
        if (ti < 0) continue;
        touches = true;
        if (side_closed(n, (s + 2) % 4)) {
            return {false, "cell " + to_string(p.at) + " lies beyond a wall (the " + kSideNames[(s + 2) % 4] +
                               " side of tile " + tiles_[ti].type->id + " at " + to_string(n) + " is closed)"};
        }
        const EdgeKind mine = type.edge_at(p.rot, s);
        const EdgeKind theirs = edge_of(tiles_[ti], (s + 2) % 4);
        if (mine != theirs) {
            return {false, "its " + std::string(kSideNames[s]) + " side (" + std::string(edge_kind_name(mine)) +
                               ") faces the " + kSideNames[(s + 2) % 4] + " side of tile " +
                               tiles_[ti].type->id + " at " + to_string(n) + " (" +
                               std::string(edge_kind_name(theirs)) + ")"};
        }
    }
    if (!touches) return {false, "cell " + to_string(p.at) + " does not touch any placed tile by a side"};
    return {true, ""};
}

int Board::place(const TileType& type, Placement p) {
    const int ti = static_cast<int>(tiles_.size());
    tiles_.push_back(PlacedTile{&type, p.at, p.rot, static_cast<int>(parent_.size()),
                                static_cast<int>(type.features.size()), {}});
    cell_to_tile_[key(p.at)] = ti;
    add_tile_nodes(ti);
    remove_border_cell(p.at);
    const PlacedTile& t = tiles_[ti];
    std::vector<int> closed_apart;  // neighbour nodes facing a feature of another kind (the City)

    for (int s = 0; s < 4; ++s) {
        const Cell n = neighbour(p.at, s);
        const int nt = tile_at(n);
        if (nt < 0) {
            refresh_border_cell(n);
            continue;
        }
        const PlacedTile& other = tiles_[nt];
        int mine[3], theirs[3];
        for (int k = 0; k < 3; ++k) {
            const Port q = static_cast<Port>(3 * s + k);
            mine[k] = t.node(t.type->feature_at(q, t.rot));
            theirs[k] = other.node(other.type->feature_at(facing_port(q), other.rot));
        }
        // Each feature touching this side loses one open side, counted once per feature.
        for (int k = 0; k < 3; ++k) {
            if (k == 0 || (mine[k] != mine[0] && (k < 2 || mine[k] != mine[1]))) {
                --structures_[find(mine[k])].open_sides;
            }
            if (k == 0 || (theirs[k] != theirs[0] && (k < 2 || theirs[k] != theirs[1]))) {
                --structures_[find(theirs[k])].open_sides;
            }
        }
        // Only features of one kind join (the City: a market half facing a residential half closes both).
        for (int k = 0; k < 3; ++k) {
            if (node_def(mine[k]).kind == node_def(theirs[k]).kind) {
                unite(mine[k], theirs[k]);
            } else {
                closed_apart.push_back(theirs[k]);
            }
        }
    }

    last_completed_.clear();
    // Candidates: the tile's own features, and (the City) neighbours' features that were closed by
    // a side of another kind without joining the tile (a market closed by a residential half).
    std::vector<int> candidates;
    for (std::size_t f = 0; f < t.type->features.size(); ++f) candidates.push_back(t.node(static_cast<int>(f)));
    candidates.insert(candidates.end(), closed_apart.begin(), closed_apart.end());
    for (int candidate : candidates) {
        const int root = find(candidate);
        const Structure& st = structures_[root];
        if (completes_by_sides(st.kind) && st.open_sides == 0 &&
            std::find(last_completed_.begin(), last_completed_.end(), root) == last_completed_.end()) {
            last_completed_.push_back(root);
        }
    }
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
            const Cell c{p.at.x + dx, p.at.y + dy};
            const int mt = tile_at(c);
            if (mt < 0) continue;
            const PlacedTile& m = tiles_[mt];
            for (std::size_t f = 0; f < m.type->features.size(); ++f) {
                if (m.type->features[f].kind == FeatureKind::Monastery && block_tiles(c) == 9) {
                    last_completed_.push_back(find(m.node(static_cast<int>(f))));
                }
            }
        }
    }
    return ti;
}

std::vector<Placement> Board::legal_placements(const TileType& type) const {
    std::vector<Placement> out;
    for (const BorderCell& b : border_) {
        for (int r : type.distinct_rotations) {
            if ((type.signature[r] & b.mask) == b.value) out.push_back(Placement{b.at, r});
        }
    }
    return out;
}

bool Board::has_legal_placement(const TileType& type) const {
    for (const BorderCell& b : border_) {
        for (int r : type.distinct_rotations) {
            if ((type.signature[r] & b.mask) == b.value) return true;
        }
    }
    return false;
}

bool Board::is_complete(int root) const {
    const Structure& st = structures_[root];
    switch (st.kind) {
        case FeatureKind::Road:
        case FeatureKind::City:
        case FeatureKind::Street:  // The City
        case FeatureKind::Market: return st.open_sides == 0;
        case FeatureKind::Monastery: return block_tiles(tiles_[node_tile_[st.nodes.front()]].at) == 9;
        default: return false;
    }
}

int Board::block_tiles(Cell c) const {
    int n = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) n += tile_at(Cell{c.x + dx, c.y + dy}) >= 0 ? 1 : 0;
    }
    return n;
}

std::vector<Cell> Board::structure_cells(int root) const {
    std::vector<int> tiles;
    for (int node : structures_[root].nodes) tiles.push_back(node_tile_[node]);
    std::sort(tiles.begin(), tiles.end());
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    std::vector<Cell> cells;
    for (int ti : tiles) cells.push_back(tiles_[ti].at);
    std::sort(cells.begin(), cells.end());
    return cells;
}

int Board::add_follower(int player, int node, Cell at, Port loc) {
    const int id = static_cast<int>(followers_.size());
    followers_.push_back(Follower{player, node, at, loc, true});
    structures_[find(node)].follower_ids.push_back(id);
    return id;
}

std::vector<int> Board::release_followers(int root) {
    std::vector<int> ids;
    ids.swap(structures_[root].follower_ids);
    for (int id : ids) followers_[id].on_board = false;
    return ids;
}

void Board::check_consistency() const {
    for (std::size_t ti = 0; ti < tiles_.size(); ++ti) {
        const PlacedTile& t = tiles_[ti];
        MEEPLECAM_CHECK(tile_at(t.at) == static_cast<int>(ti), "cell index out of date at " + to_string(t.at));
        for (int s = 0; s < 4; ++s) {
            const Cell n = neighbour(t.at, s);
            const int nt = tile_at(n);
            if (nt < 0) {
                auto it = border_index_.find(key(n));
                MEEPLECAM_CHECK(it != border_index_.end(), "empty neighbour " + to_string(n) + " missing from border");
                continue;
            }
            MEEPLECAM_CHECK(edge_of(t, s) == edge_of(tiles_[nt], (s + 2) % 4),
                            "sides do not match between " + to_string(t.at) + " and " + to_string(n));
        }
    }
    for (std::size_t i = 0; i < border_.size(); ++i) {
        const BorderCell& b = border_[i];
        MEEPLECAM_CHECK(tile_at(b.at) < 0, "border cell " + to_string(b.at) + " is occupied");
        MEEPLECAM_CHECK(border_index_.at(key(b.at)) == static_cast<int>(i), "border index out of date");
        std::uint16_t mask = 0, value = 0;
        for (int s = 0; s < 4; ++s) {
            const int nt = tile_at(neighbour(b.at, s));
            if (nt < 0) continue;
            mask |= static_cast<std::uint16_t>(0xF << (kEdgeBits * s));
            const int need = side_closed(neighbour(b.at, s), (s + 2) % 4) ? 0 : static_cast<int>(edge_of(tiles_[nt], (s + 2) % 4));
            value |= static_cast<std::uint16_t>(need << (kEdgeBits * s));
        }
        MEEPLECAM_CHECK(mask == b.mask && value == b.value, "stale border demand at " + to_string(b.at));
    }
    MEEPLECAM_CHECK(border_.size() == border_index_.size(), "border index size mismatch");
    std::size_t members = 0;
    for (int node = 0; node < node_count(); ++node) {
        if (find(node) != node) continue;
        const Structure& st = structures_[node];
        members += st.nodes.size();
        int open = 0, pennants = 0;
        for (int m : st.nodes) {
            MEEPLECAM_CHECK(find(m) == node, "structure member list out of date");
            const PlacedTile& t = tiles_[node_tile_[m]];
            const FeatureDef& def = node_def(m);
            MEEPLECAM_CHECK(def.kind == st.kind, "structure mixes feature kinds");
            pennants += def.pennants;
            for (int s = 0; s < 4; ++s) {
                const int bs = (s + t.rot) % 4;
                if (def.side_mask & (1u << s)) open += tile_at(neighbour(t.at, bs)) < 0 && !side_closed(t.at, bs) ? 1 : 0;
            }
        }
        MEEPLECAM_CHECK(open == st.open_sides, "open side count out of date");
        MEEPLECAM_CHECK(pennants == st.pennants, "pennant count out of date");
        for (int id : st.follower_ids) {
            MEEPLECAM_CHECK(followers_[id].on_board && find(followers_[id].node) == node, "follower list out of date");
        }
    }
    MEEPLECAM_CHECK(members == static_cast<std::size_t>(node_count()), "structures do not cover every node");
}

void Board::add_link(int a, int b) {
    MEEPLECAM_CHECK(node_def(a).kind == node_def(b).kind, "a link joins features of one kind");
    links_.emplace_back(a, b);
}

bool Board::remove_link(int a, int b) {
    for (auto it = links_.begin(); it != links_.end(); ++it) {
        if ((it->first == a && it->second == b) || (it->first == b && it->second == a)) {
            links_.erase(it);
            return true;
        }
    }
    return false;
}

std::vector<int> Board::rebuild_structures() {
    // Remember which member sets were scored, and where followers stand.
    std::vector<std::vector<int>> scored_sets;
    for (int node = 0; node < node_count(); ++node) {
        if (find(node) == node && structures_[node].scored) {
            std::vector<int> members = structures_[node].nodes;
            std::sort(members.begin(), members.end());
            scored_sets.push_back(std::move(members));
        }
    }
    std::sort(scored_sets.begin(), scored_sets.end());

    const int nodes = node_count();
    for (int node = 0; node < nodes; ++node) {
        parent_[node] = node;
        const PlacedTile& t = tiles_[node_tile_[node]];
        const FeatureDef& def = node_def(node);
        Structure s;
        s.kind = def.kind;
        s.pennants = def.pennants;
        s.nodes.push_back(node);
        for (int side = 0; side < 4; ++side) {
            const int bs = (side + t.rot) % 4;
            if (def.side_mask & (1u << side)) s.open_sides += tile_at(neighbour(t.at, bs)) < 0 && !side_closed(t.at, bs) ? 1 : 0;
        }
        structures_[node] = std::move(s);
    }
    for (const PlacedTile& t : tiles_) {
        for (int s = 0; s < 2; ++s) {  // east and south neighbours: each touching side once
            const int side = s + 1;
            const int nt = tile_at(neighbour(t.at, side));
            if (nt < 0) continue;
            const PlacedTile& other = tiles_[nt];
            for (int k = 0; k < 3; ++k) {
                const Port q = static_cast<Port>(3 * side + k);
                const int a = t.node(t.type->feature_at(q, t.rot));
                const int b = other.node(other.type->feature_at(facing_port(q), other.rot));
                if (node_def(a).kind == node_def(b).kind) unite(a, b);  // the City: unlike halves stay apart
            }
        }
    }
    for (const auto& [a, b] : links_) unite(a, b);
    for (std::size_t id = 0; id < followers_.size(); ++id) {
        if (followers_[id].on_board) structures_[find(followers_[id].node)].follower_ids.push_back(static_cast<int>(id));
    }

    std::vector<int> to_score;
    for (int node = 0; node < nodes; ++node) {
        if (find(node) != node) continue;
        Structure& st = structures_[node];
        std::vector<int> members = st.nodes;
        std::sort(members.begin(), members.end());
        st.scored = std::binary_search(scored_sets.begin(), scored_sets.end(), members);
        if (completes_by_sides(st.kind) && st.open_sides == 0 && !st.scored) {
            to_score.push_back(node);
        }
    }
    return to_score;
}

bool Board::side_closed(Cell c, int side) const {
    if (closed_.empty()) return false;
    return std::binary_search(closed_.begin(), closed_.end(), std::make_pair(key(c), side));
}

std::vector<int> Board::close_side(Cell c, int side) {
    const int ti = tile_at(c);
    MEEPLECAM_CHECK(ti >= 0, "closing a side of an empty cell " + to_string(c));
    MEEPLECAM_CHECK(tile_at(neighbour(c, side)) < 0, "closing a side that faces a tile at " + to_string(c));
    if (side_closed(c, side)) return {};
    const auto entry = std::make_pair(key(c), side);
    closed_.insert(std::upper_bound(closed_.begin(), closed_.end(), entry), entry);
    const PlacedTile& t = tiles_[ti];
    std::vector<int> completed;
    int seen[3] = {-1, -1, -1};
    for (int k = 0; k < 3; ++k) {
        const int node = t.node(t.type->feature_at(static_cast<Port>(3 * side + k), t.rot));
        if (node == seen[0] || node == seen[1]) continue;  // one open side per feature and side
        seen[k] = node;
        const int root = find(node);
        Structure& st = structures_[root];
        --st.open_sides;
        if (completes_by_sides(st.kind) && st.open_sides == 0 && !st.scored &&
            std::find(completed.begin(), completed.end(), root) == completed.end()) {
            completed.push_back(root);
        }
    }
    refresh_border_cell(neighbour(c, side));
    return completed;
}

}  // namespace meeplecam
