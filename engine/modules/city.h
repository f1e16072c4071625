// Carcassonne — The City: the family rules for records with "game": "city".
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/rule_module.h"

namespace meeplecam {

// The City's stacks: 30, 25 and 20 tiles, in that order. A tile's stack follows from how many
// tiles were drawn (placed or discarded, the first tile included) before it.
inline constexpr int kCityStackSizes[3] = {30, 25, 20};
// Returns the stack (1..3) of the `n`-th tile drawn (1-based); 3 for anything past stack 2.
int city_stack_of_draw(int n);

// The family module of the City (not an expansion: new_game_for adds it for game "city").
// Streets, markets and residential areas; the first tile is the first player's turn; a follower
// may not go on a street or market its tile completed; streets score 1 or 2 per tile, markets
// tiles x goods; at the end followers on unfinished streets and markets leave with nothing and
// residential areas score 2 per adjacent market. See docs/rules/city.md (walls: not yet).
class CityModule : public RuleModule {
public:
    std::string_view name() const override { return "city"; }
    Status configure(const nlohmann::json& options) override;
    bool start_tile_is_turn() const override { return true; }
    std::optional<std::pair<int, std::string>> completed_value(const Game& game, int root) const override;
    std::optional<std::string> refuse_follower(const Game& game, const Board& board, int tile_index,
                                               int root) const override;
    void on_final_scoring(Game& game) override;

    // Tiles drawn so far (placed or discarded, the first tile included).
    static int tiles_drawn(const Game& game);
    // The stack (1..3) the open turn's tile came from; the stack of the next draw between turns.
    static int current_stack(const Game& game);
    // The distinct goods sold in a market structure.
    static std::set<std::string> goods_of(const Board& board, int root);
    // The market structures adjacent to a residential structure: markets of the same tile it
    // lists ("markets") and market halves facing its halves across a side.
    static std::set<int> markets_adjacent(const Board& board, int residential_root);
};

std::unique_ptr<RuleModule> make_city_module();

// The totals of a City catalog next to the known ones of the published game (75 tiles, 64
// designs, 32 public and 7 historic buildings, three goods); `differences` lists each mismatch.
struct CityCatalogTotals {
    int tiles = 0;
    int designs = 0;
    int public_buildings = 0;               // tile tag "public", once per building, times copies
    std::set<std::string> historic;         // tile tags "historic:NAME"
    int historic_copies = 0;                // historic tags times copies
    std::set<std::string> goods;            // goods sold by some market
    int street_tiles = 0;                   // copies with at least one street
    std::vector<std::string> differences;   // empty when every known total is met
};
CityCatalogTotals city_catalog_totals(const Catalog& catalog);

}  // namespace meeplecam
