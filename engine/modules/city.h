// Carcassonne — The City: the family rules for records with "game": "city".
#pragma once

#include <deque>
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

    // --- Walls (engine/modules/city_walls.cpp) ---
    std::vector<std::string> event_types() const override { return {"gate", "wall", "guard", "tower"}; }
    Status apply_event(Game& game, const Event& event, const std::string& where) override;
    Status before_core_event(Game& game, const Event& event, const std::string& where) override;
    void on_tile_placed(Game& game) override;
    void on_structure_completed(Game& game, int root, int points) override;
    void on_turn_scored(Game& game) override;
    std::vector<Event> options(const Game& game) const override;
    bool must_act(const Game& game) const override;
    int turn_phase() const override { return 3; }
    bool game_over(const Game& /*game*/) const override { return over_; }

    // A wall slot: the side `side` (0 N .. 3 W) of the placed tile at `at`, facing outside.
    struct Slot {
        Cell at;
        int side = 0;
        friend bool operator==(const Slot&, const Slot&) = default;
    };
    struct WallPiece {
        Slot slot;
        bool gate = false;
        int guard = -1;         // player of the guard on it, -1 none
        bool tower_cw = false;  // a tower stands at its clockwise end (the back of the wall)
        bool tower_ccw = false; // ... at its counter-clockwise end (the front)
    };
    // The wall from its counter-clockwise end (front) to its clockwise end (back).
    const std::deque<WallPiece>& wall() const { return wall_; }
    int wall_pieces_left() const { return pieces_left_; }
    // Players still to build in the wall round in progress (front first).
    const std::deque<int>& builders() const { return builders_; }
    // The slot after `s` going clockwise (city on the right) / counter-clockwise along the boundary.
    static Slot next_cw(const Board& board, Slot s);
    static Slot next_ccw(const Board& board, Slot s);
    // Why a tile at `c` would put part of `wall` beyond or inside the city (footnote [6]: no tile beyond the
    // wall, none that closes the wall in): a piece would stop being the clockwise neighbour of the one
    // before along the boundary, or the cell beyond a piece would become a hole. nullopt: allowed (a cell
    // directly beyond a piece is left to the board's closed side).
    static std::optional<std::string> wall_refusal(const Board& board, const std::deque<WallPiece>& wall, Cell c);
    std::optional<std::string> refuse_placement(const Game& game, const TileType& type, Placement p) const override;
    // Free slots between the wall's two ends (clockwise from the back); -1 when there is no wall.
    int free_slots_between_ends(const Board& board) const;

    // Tiles drawn so far (placed or discarded, the first tile included).
    static int tiles_drawn(const Game& game);
    // The stack (1..3) the open turn's tile came from; the stack of the next draw between turns.
    static int current_stack(const Game& game);
    static constexpr int kWallPieces = 70;
    static constexpr int kTowers = 12;
    // The distinct goods sold in a market structure.
    static std::set<std::string> goods_of(const Board& board, int root);
    // The market structures adjacent to a residential structure: markets of the same tile it
    // lists ("markets") and market halves facing its halves across a side.
    static std::set<int> markets_adjacent(const Board& board, int residential_root);
private:
    bool round_owed(const Game& game) const;
    void score_closed(Game& game, const std::vector<int>& roots, bool final_phase);
    std::vector<Slot> wall_slots_next(const Board& board) const;  // where the next piece may go
    void check_end(const Game& game);
    void close_city(Game& game);    // the end: the wall closes around the whole outer boundary
    void score_guards(Game& game);
    int find_piece(const Slot& s) const;
    int opposite_guard(const Board& board, const Slot& slot) const;  // index of a guarded piece opposite, or -1

    std::deque<WallPiece> wall_;
    int pieces_left_ = kWallPieces;
    std::vector<int> towers_used_;
    std::deque<int> builders_;      // the wall round: players to build, in order
    bool gate_pending_ = false;     // the first builder places the gate
    int scorer_ = -1;               // the player whose turn caused the round (tower)
    bool tower_pending_ = false;
    int guard_player_ = -1;         // may put a guard on the piece just placed
    int guard_piece_ = -1;          // 0: front, 1: back
    bool completed_this_turn_ = false;
    bool over_ = false;
    std::string over_reason_;
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
