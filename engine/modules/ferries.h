// Ferries: lake tiles whose jetties a ferry joins into one road; ferries move when roads grow.
#pragma once

#include <map>
#include <optional>
#include <set>

#include "engine/rule_module.h"

namespace meeplecam {

// The Ferries mini expansion (seed 003). Turn: tile, follower, ferry (on a new lake tile),
// ferry moves, scoring. See docs/rules/ferries.md for every choice.
class FerriesModule : public RuleModule {
public:
    std::string_view name() const override { return "ferries"; }
    std::vector<std::string> catalogs() const override { return {"carcassonne-ferries"}; }
    std::vector<std::string> event_types() const override { return {"ferry", "ferry-move"}; }
    Status apply_event(Game& game, const Event& event, const std::string& where) override;
    Status before_core_event(Game& game, const Event& event, const std::string& where) override;
    void on_tile_placed(Game& game) override;
    Status check_turn_end(const Game& game, const std::string& where) const override;
    std::vector<Event> options(const Game& game) const override;
    bool must_act(const Game& game) const override;

    // The jetty pair (board ports) of the ferry on a placed lake tile, if any.
    std::optional<std::pair<Port, Port>> ferry_on(int tile_index) const;
    // Lake tiles whose ferry the turn's player may move: the first ferry along each road the
    // tile just placed extended.
    std::vector<int> movable_ferries(const Game& game) const;

private:
    Status place_ferry(Game& game, const Event& e, const std::string& where);
    Status move_ferry(Game& game, const Event& e, const std::string& where);

    std::map<int, std::pair<Port, Port>> ferries_;  // placed tile index -> joined jetties
    int lake_needing_ferry_ = -1;                   // the turn's lake tile until its ferry is placed
    bool ferry_acted_ = false;                      // a ferry was placed or moved this turn
    std::set<int> moved_;                           // ferries moved this turn
    std::optional<std::vector<int>> candidates_;    // movable ferries, fixed at the first move
};

}  // namespace meeplecam
