// Castles (part of Bridges, Castles and Bazaars): a completed small city may become a castle
// that later scores the first structure completed in its fief.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/rule_module.h"

namespace meeplecam {

// The Castles part of "Bridges, Castles and Bazaars" (seed 002). Turn: tile, follower, castle
// conversions and castle choices, scoring (the core's, then the castles'). See
// docs/rules/castles.md for every rule and choice.
class CastlesModule : public RuleModule {
public:
    struct Castle {
        std::array<int, 2> nodes{};    // the two city cap nodes it stands on
        std::array<Cell, 2> cells{};   // their tiles, sorted
        std::map<int, int> followers;  // player -> followers inside
        int builder = -1;              // the player whose token it is
        int built_turn = -1;           // record index of the tile event of the turn it was built
        bool scored = false;
        int points = 0;                // what it scored (once scored)
    };

    std::string_view name() const override { return "castles"; }
    // Conversions and choices are decisions taken at scoring: after bridges and ferry moves.
    int turn_phase() const override { return 2; }
    std::vector<std::string> catalogs() const override { return {"carcassonne-bridges-castles-bazaars"}; }
    std::vector<std::string> event_types() const override { return {"castle", "castle-choice"}; }
    Status apply_event(Game& game, const Event& event, const std::string& where) override;
    Status before_core_event(Game& game, const Event& event, const std::string& where) override;
    void on_tile_placed(Game& game) override;
    Status check_turn_end(const Game& game, const std::string& where) const override;
    void on_structure_completed(Game& game, int root, int points) override;
    void on_turn_scored(Game& game) override;
    std::optional<int> farm_city_value(const Game& game, int city_root) const override;
    void on_final_scoring(Game& game) override;
    std::vector<Event> options(const Game& game) const override;

    // Castle tokens each player starts with: 3 with up to 4 players, 2 with 5 or 6.
    static int tokens_per_player(int players) { return players >= 5 ? 2 : 3; }
    int tokens_left(const Game& game, int player) const;
    const std::vector<Castle>& castles() const { return castles_; }
    // The 6 cells of a castle's fief: its 2 tiles and the 2 tiles beside each long side.
    static std::vector<Cell> fief(const Castle& castle);
    // Followers of `player` waiting in castles that have not scored.
    int followers_in_castles(int player) const;

    // For a board set up as it lies (a photo of a table, no turns): makes the completed small city
    // at `at`/`loc` a castle of `player` built in an earlier turn, not yet scored, with
    // `followers` of theirs inside (0 when its follower went home: an unknown owner still counts
    // for farms). Errors (Illegal) name the city: not a small city, already a castle, no token left.
    Status restore_castle(Game& game, Cell at, Port loc, int player, int followers, const std::string& where);

    // Why the city of `root` cannot become a castle (empty when it is a small city that may).
    static std::string small_city_problem(const Game& game, int root);

private:
    // A structure completed (and scored by the core) this turn: what a castle may score.
    struct Completion {
        int root = -1;
        int points = 0;
        std::vector<Cell> cells;  // where it lies (a monastery: its own tile only)
        std::string what;         // e.g. "road at [1, 0] (3 tiles)"
    };
    // A castle-choice event of the open turn.
    struct Choice {
        int target_node = -1;    // a node of the chosen structure (when target_castle < 0)
        int target_castle = -1;  // the chosen castle whose scoring this one copies
        std::string where;       // the event, for errors found at the end of the turn
    };
    // What one castle scores this turn.
    struct Outcome {
        int castle = -1;
        int points = 0;
        int from_completion = -1;  // index into the completions
        int from_castle = -1;      // or the castle it copies
    };

    Status build_castle(Game& game, const Event& e, int player, const std::string& where);
    Status choose(Game& game, const Event& e, int player, const std::string& where);
    // The structures the open turn will score (still complete, not yet scored), except `skip_root`.
    static std::vector<Completion> pending_completions(const Game& game, int skip_root = -1);
    static Completion completion_of(const Game& game, int root, int points);
    bool eligible(const Game& game, int castle) const;
    // Which castles score this turn, from `completions` and `choices`; an Illegal error naming
    // the castle-choice event when a choice cannot be honoured.
    Result<std::vector<Outcome>> resolve(const Game& game, const std::vector<Completion>& completions,
                                         const std::map<int, Choice>& choices) const;
    int castle_of_node(const Game& game, int node) const;
    std::vector<int> occupants(const Game& game, int root) const;
    std::string castle_name(int castle) const;

    std::vector<Castle> castles_;
    std::vector<int> tokens_used_;           // per player
    std::vector<Completion> turn_completions_;  // completions the core scored this turn
    std::map<int, Choice> choices_;          // castle index -> its choice this turn
    bool acted_ = false;                     // a castle event was played this turn
};

}  // namespace meeplecam
