// Amazonas: the spin-off family "Carcassonne - Amazonas" (seed 001) as a rule module the game
// uses when the record's game is "amazonas". See docs/rules/amazonas.md for every choice.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "engine/rule_module.h"

namespace meeplecam {

class Catalog;

// The totals of an Amazonas catalog, compared with the published game (65 standard land tiles,
// 15 Amazon tiles of which 3 carry "!", 4 doubles of two halves, a 2x4 start board, a mouth).
struct AmazonasCatalogTotals {
    int standard = 0, amazon = 0, exclaim = 0, doubles = 0, start_cells = 0, mouths = 0;
    int boats = 0, fruit = 0, animals = 0, caimans = 0, piranhas = 0;
    std::vector<std::string> differences;  // one sentence per total that differs
};
AmazonasCatalogTotals amazonas_catalog_totals(const Catalog& catalog);

// The river runs east along row y = 0 from the source at [0, 0]; the start board covers
// x = 0..3, y = 0..1. Land tiles may not go east of the river's end; Amazon tiles extend it.
class AmazonasModule : public RuleModule {
public:
    struct BoatMove {
        int event_index = -1;  // the record event that began the turn
        int player = 0;
        int from = 0;
        int to = 0;
        std::string reason;    // "boat icons", "no piece placed", "Amazon scoring: no points"
    };

    std::string_view name() const override { return "amazonas"; }
    std::vector<std::string> event_types() const override { return {"double", "camp"}; }
    Status apply_event(Game& game, const Event& event, const std::string& where) override;
    Status before_core_event(Game& game, const Event& event, const std::string& where) override;
    void on_start_placed(Game& game) override;
    std::optional<std::string> refuse_placement(const Game& game, const TileType& type, Placement p) const override;
    std::optional<std::vector<int>> follower_tiles(const Game& game) const override;
    bool follower_allowed(const Game& game, const FeatureDef& def) const override;
    std::optional<FeatureValue> feature_value(const Game& game, int root, bool final) const override;
    void on_tile_placed(Game& game) override;
    Status check_turn_end(const Game& game, const std::string& where) const override;
    void on_turn_end(Game& game) override;
    void on_final_scoring(Game& game) override;
    std::vector<Event> options(const Game& game) const override;
    bool must_act(const Game& /*game*/) const override { return owe_double_; }
    nlohmann::json sheet_state(const Game& game) const override;
    std::string sheet_line(const Game& game) const override;

    // Boat positions (0 = the source), river spaces (the last is spaces() - 1), the river's end x.
    const std::vector<int>& boats() const { return boats_; }
    int spaces() const { return spaces_; }
    int river_end() const { return end_x_; }
    int camps_left(int player) const { return camps_left_[player]; }
    const std::vector<BoatMove>& boat_moves() const { return moves_; }
    const std::set<std::string>& doubles_used() const { return doubles_used_; }

    static constexpr int kCampsPerPlayer = 2;
    static constexpr int kMeeplesPerPlayer = 4;

private:
    Status place_double(Game& game, const Event& e, const std::string& where);
    Status place_camp(Game& game, const Event& e, const std::string& where);
    void advance(Game& game, int player, int by, const std::string& reason);
    void boat_icons_joined(Game& game, int tile_index);
    void amazon_scoring(Game& game, const std::vector<int>& tiles);
    bool piece_placed(const Game& game) const;

    bool started_ = false;
    int spaces_ = 0;
    int end_x_ = 3;
    std::vector<int> boats_;
    std::vector<int> camps_left_;
    std::vector<BoatMove> moves_;
    std::set<std::string> doubles_used_;
    std::set<int> camp_ids_;                  // board follower ids that are camps
    // Turn state.
    bool exclaim_turn_ = false;               // the turn's tile carries "!"
    bool owe_double_ = false;                 // ... and its double is not placed yet
    std::vector<int> double_tiles_;           // the double's two placed tiles this turn
    std::vector<std::vector<int>> amazon_this_turn_;  // Amazon tiles placed this turn (a double = 2 cells)
    std::size_t followers_at_start_ = 0;      // board followers when the turn's tile was placed
};

}  // namespace meeplecam
