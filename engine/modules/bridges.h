// Bridges: one bridge per turn carries a road across two field sides of a tile.
#pragma once

#include <deque>
#include <map>
#include <optional>

#include "engine/rule_module.h"

namespace meeplecam {

// The bridges of "Bridges, Castles and Bazaars" (seed 002, footnotes 15-21).
// See docs/rules/bridges.md for every choice.
class BridgesModule : public RuleModule {
public:
    std::string_view name() const override { return "bridges"; }
    std::vector<std::string> catalogs() const override { return {"carcassonne-bridges-castles-bazaars"}; }
    std::vector<std::string> event_types() const override { return {"bridge"}; }
    Result<const TileType*> placed_type(Game& game, const Event& event, const TileType& drawn,
                                        const std::string& where) override;
    std::vector<PlacementOption> extra_placements(const Game& game, const TileType& type) const override;
    Status apply_event(Game& game, const Event& event, const std::string& where) override;
    void on_tile_placed(Game& game) override;
    std::vector<Event> options(const Game& game) const override;

    // Bridges a player may still build (3 with 2-4 players, 2 with 5-6).
    int bridges_left(const Game& game, int player) const;

private:
    // Explains why `player` may not bridge tile `tile_index` along `board_axis` (0 N-S, 1 E-W)
    // next to `anchor` (the cell of the tile placed this turn); Ok when they may.
    Status check_bridge(const Game& game, int player, int tile_index, int board_axis, Cell anchor,
                        const std::string& where) const;
    // Puts a bridge on a placed tile and rebuilds the structures it joins.
    void build(Game& game, int player, int tile_index, int board_axis);
    // The tile type with a bridge along `catalog_axis`, made once and kept (stable address).
    Result<const TileType*> variant(const TileType& base, int catalog_axis);

    std::vector<int> used_;                // bridges built per player
    bool built_this_turn_ = false;
    bool built_for_placement_ = false;     // a bridge built with the tile event, before on_tile_placed
    std::deque<TileType> variants_;
    std::map<std::pair<const TileType*, int>, const TileType*> variant_of_;
};

}  // namespace meeplecam
