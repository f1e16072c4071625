// Board: placed tiles, the open border, legal placements, and features merged incrementally.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/catalog.h"
#include "engine/error.h"

namespace meeplecam {

struct Cell {
    int x = 0;
    int y = 0;
    friend bool operator==(const Cell&, const Cell&) = default;
    friend auto operator<=>(const Cell&, const Cell&) = default;
};

std::string to_string(const Cell& c);  // "[x, y]"

// A tile type at a cell with a rotation (quarter turns clockwise).
struct Placement {
    Cell at;
    int rot = 0;  // quarter turns, 0..3
    friend bool operator==(const Placement&, const Placement&) = default;
};

struct PlacedTile {
    const TileType* type = nullptr;
    Cell at;
    int rot = 0;
    int first_node = 0;            // node id of feature 0; feature f < base_features is first_node + f
    int base_features = 0;         // features the tile had when placed
    std::vector<int> extra_nodes;  // nodes of features a variant added later (e.g. a bridge)

    // Returns the node id of feature `f` of this tile.
    int node(int f) const { return f < base_features ? first_node + f : extra_nodes[f - base_features]; }
};

// A connected feature (road, city, field, monastery) made of feature nodes on tiles.
struct Structure {
    FeatureKind kind = FeatureKind::Field;
    int open_sides = 0;              // tile sides of the structure not yet touching a tile
    int pennants = 0;
    std::vector<int> nodes;          // member feature nodes
    std::vector<int> follower_ids;   // indices into Board::followers() standing on it
    bool scored = false;             // scored during the game (completed)
};

// True for the kinds that are complete once no side is open: roads, cities, and the City's
// streets and markets.
constexpr bool completes_by_sides(FeatureKind k) {
    return k == FeatureKind::Road || k == FeatureKind::City || k == FeatureKind::Street || k == FeatureKind::Market;
}

struct Follower {
    int player = 0;
    int node = 0;      // feature node it stands on
    Cell at;
    Port loc = 0;      // port it was placed on, board orientation
    bool on_board = true;
};

// Why a placement is refused, for error messages.
struct PlacementCheck {
    bool ok = false;
    std::string reason;
};

class Board {
public:
    // What an empty border cell demands of a tile: mask and value over the packed edge signature.
    struct BorderCell {
        Cell at;
        std::uint16_t mask = 0;
        std::uint16_t value = 0;
    };

    Board() = default;

    // Places the first tile. Assumes the board is empty.
    void place_start(const TileType& type, Placement p);
    // Explains why `type` may not go at `p` (empty reason when it may).
    PlacementCheck check_placement(const TileType& type, Placement p) const;
    // Places a tile; assumes check_placement() said yes. Returns the placed tile index.
    int place(const TileType& type, Placement p);

    // Lists every legal placement of `type`, one per distinct result (symmetric rotations once).
    std::vector<Placement> legal_placements(const TileType& type) const;
    // Returns true when `type` has at least one legal placement.
    bool has_legal_placement(const TileType& type) const;

    // Tile at a cell, or -1.
    int tile_at(Cell c) const;
    const std::vector<PlacedTile>& tiles() const { return tiles_; }
    std::size_t size() const { return tiles_.size(); }
    std::size_t border_size() const { return border_.size(); }
    const std::vector<BorderCell>& border() const { return border_; }
    // The edge a placed tile shows on a board side (0 N, 1 E, 2 S, 3 W).
    static EdgeKind edge_on(const PlacedTile& t, int board_side) { return t.type->edge_at(t.rot, board_side); }

    // Feature node of the tile at `at` owning board port `p`; -1 if none.
    int node_at(Cell at, Port p) const;
    // Root structure id of a node (union-find with path halving).
    int find(int node) const;
    const Structure& structure(int root) const { return structures_[root]; }
    Structure& structure(int root) { return structures_[root]; }
    int node_count() const { return static_cast<int>(node_tile_.size()); }
    int node_tile(int node) const { return node_tile_[node]; }
    int node_feature(int node) const { return node_feature_[node]; }
    const FeatureDef& node_def(int node) const;
    // Returns the first board port a node owns (its canonical `loc`).
    Port node_port(int node) const;

    // Structures the last placed tile completed (roads, cities, monasteries).
    const std::vector<int>& last_completed() const { return last_completed_; }
    bool is_complete(int root) const;
    // Number of tiles in the 3x3 block around a cell (monastery scoring), itself included.
    int block_tiles(Cell c) const;
    // Distinct tile cells of a structure, sorted.
    std::vector<Cell> structure_cells(int root) const;

    // Followers (all ever placed; `on_board` false once returned).
    const std::vector<Follower>& followers() const { return followers_; }
    int add_follower(int player, int node, Cell at, Port loc);
    // Returns the followers of a structure to their owners; yields their ids.
    std::vector<int> release_followers(int root);

    // Checks every invariant (sides match, border cache, structure sums); throws on a break.
    void check_consistency() const;

    // --- Changes after placement (rule modules: ferries join and re-join jetties) ---

    // Records an extra link joining two feature nodes of one kind (e.g. a ferry joining two
    // jetties). It takes effect at the next rebuild_structures(), which must follow.
    void add_link(int a, int b);
    // Removes an extra link; returns false when there is no such link. Call rebuild_structures() after.
    bool remove_link(int a, int b);
    // Replaces a placed tile's type by a variant that keeps its features first and may add more
    // (e.g. the tile with a bridge). Updates the border; call rebuild_structures() after.
    void replace_tile_type(int tile_index, const TileType& variant);
    const std::vector<std::pair<int, int>>& links() const { return links_; }

    // --- Closed sides (the City's walls): a tile side facing an empty cell, closed for good ---
    // Closes side `side` of the placed tile at `c` (the neighbour must be empty): the features on
    // it lose that open side, and no tile may ever go on the cell beyond. Returns the structures
    // (roads, cities, streets, markets) this completed. Closing a closed side does nothing.
    std::vector<int> close_side(Cell c, int side);
    bool side_closed(Cell c, int side) const;
    // Number of closed sides.
    int closed_side_count() const { return static_cast<int>(closed_.size()); }
    // Recomputes every structure from the tiles and links (for changes the incremental merge cannot
    // undo). A structure stays scored only when it has exactly the members of a structure that was
    // scored just before this call (so links must not merge anything before it); returns the
    // complete, unscored roads and cities (to be scored).
    std::vector<int> rebuild_structures();

private:
    static std::uint64_t key(Cell c) {
        return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(c.x)) << 32) |
               static_cast<std::uint32_t>(c.y);
    }
    void refresh_border_cell(Cell c);
    void remove_border_cell(Cell c);
    int unite(int a, int b);
    void add_tile_nodes(int tile_index);
    int add_node(int tile_index, int feature);

    std::vector<PlacedTile> tiles_;
    std::unordered_map<std::uint64_t, int> cell_to_tile_;
    std::vector<BorderCell> border_;
    std::unordered_map<std::uint64_t, int> border_index_;

    // Union-find over feature nodes; structures_ is indexed by node and valid at roots.
    mutable std::vector<int> parent_;
    std::vector<int> node_tile_;
    std::vector<int> node_feature_;
    std::vector<Structure> structures_;
    std::vector<int> last_completed_;
    std::vector<Follower> followers_;
    std::vector<std::pair<int, int>> links_;
    std::vector<std::pair<std::uint64_t, int>> closed_;  // (cell key, side) of closed sides, sorted
};

}  // namespace meeplecam
