// Game: players, turns, followers and scoring on top of a Board; applies record events.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/board.h"
#include "engine/catalog.h"
#include "engine/event.h"
#include "engine/rule_module.h"

namespace meeplecam {

struct PlayerInfo {
    std::string name;
    std::string color;
};

// Options of a game, with the defaults of the 3rd-edition rules.
struct GameOptions {
    std::string edition = "C3";       // which tile counts apply ("C1", "C2", "C3")
    int followers_per_player = 7;     // followers each player owns
    bool check_consistency = false;   // verify every board invariant after each tile (slow; tests)

    // Refuses impossible values (an Invalid error naming the field).
    Status check() const;
};

// One score: a feature scored during the game or at its end, with its explanation.
struct ScoreEvent {
    enum class Phase { Turn, Final };
    Phase phase = Phase::Turn;
    int event_index = -1;            // the record event that began the scoring turn (Turn phase)
    std::string feature;             // "road", "city", "monastery", "farm"
    int points = 0;                  // what each winner receives
    std::vector<int> winners;        // player indices
    std::map<int, int> followers;    // player index -> followers on the feature
    std::vector<Cell> tiles;         // tiles of the feature (for a monastery: its 3x3 block)
    int pennants = 0;
    int cities = 0;                  // farms: completed cities touched
    bool completed = false;
    std::string explanation;
};

// A place a follower may go on the tile just placed.
struct FollowerOption {
    Port loc = 0;
    FeatureKind kind = FeatureKind::Field;
};

class Game {
public:
    // Creates a game for `players` with the catalog's tiles; modules add their own.
    static Result<Game> create(std::shared_ptr<const Catalog> catalog, std::vector<PlayerInfo> players,
                               const GameOptions& options, std::vector<std::unique_ptr<RuleModule>> modules = {});

    Game(Game&&) noexcept = default;
    Game& operator=(Game&&) noexcept = default;
    Game(const Game&) = delete;

    // Applies one record event; `index` is its position in the record, for messages.
    Status apply(const Event& event, int index);
    // Ends the open turn: scores what its tile completed and returns those followers. A live
    // session keeps the turn open until the next tile (a follower may still come); a replayed
    // record closes it. Fails when a rule module is still owed an action. Idempotent.
    Status close_turn();
    // Ends the game: scores the last turn and runs final scoring. Idempotent.
    Status finish();

    // Legal placements of a tile type on the current board.
    // Legal placements of a tile type (rule modules may refuse some, e.g. Amazonas beyond the river's end).
    std::vector<Placement> legal_placements(const TileType& type) const;
    // Where the next player could put a follower after placing `type` at `p` (the placement must be legal).
    Result<std::vector<FollowerOption>> follower_options(const TileType& type, Placement p) const;
    // Where the player of the open turn may still put a follower (empty once one is placed).
    std::vector<FollowerOption> current_follower_options() const;
    // The player of the open turn, or -1 between turns.
    int turn_player() const { return turn_open_ ? turn_player_ : -1; }

    const Board& board() const { return board_; }
    const Catalog& catalog() const { return *catalog_; }
    const std::vector<PlayerInfo>& players() const { return players_; }
    const std::vector<int>& scores() const { return scores_; }
    const std::vector<ScoreEvent>& score_events() const { return score_events_; }
    int followers_left(int player) const { return followers_left_[player]; }
    // Copies of a tile type not yet drawn (placed or discarded).
    int supply_left(const TileType& type) const;
    // The player whose turn comes next (after the current turn ends).
    int next_player() const;
    int player_index(std::string_view color) const;
    bool finished() const { return finished_; }
    const GameOptions& options() const { return options_; }
    const std::vector<std::unique_ptr<RuleModule>>& modules() const { return modules_; }

    // --- For rule modules ---
    // The board, to change after placement (links, rebuilds).
    Board& mutable_board() { return board_; }
    // Placed-tile index of the open turn's tile, or -1 between turns.
    int turn_tile() const { return turn_open_ ? turn_tile_ : -1; }
    // Index of the record event that began the open turn (already set when modules' on_tile_placed runs).
    int turn_event() const { return turn_event_; }
    // Queues a structure to be scored when the turn ends (if it is still complete then).
    void add_pending_completion(int root) { pending_completed_.push_back(root); }
    // Structures completed during the open turn, to be scored when it ends (node ids: use find();
    // a module may have scored or re-opened some since).
    const std::vector<int>& pending_completions() const { return pending_completed_; }
    // Records a score event and adds its points to each winner (points may be negative).
    void add_score(ScoreEvent event);
    // Returns a follower that a module kept off the board (e.g. in a castle) to its owner's supply.
    void return_follower_to_supply(int player) { ++followers_left_[player]; }
    // Takes a follower from a player's supply for a module's own use (the City: a guard on the
    // wall); false when none is left.
    bool take_follower_from_supply(int player) {
        if (followers_left_[player] <= 0) return false;
        --followers_left_[player];
        return true;
    }
    // Copies of all tile types not yet drawn.
    int tiles_left() const;
    // What a completed structure is worth during the game (road 1/tile, city 2/tile + 2/pennant,
    // monastery 9), with the sentence that explains it.
    std::pair<int, std::string> completed_value(int root) const;
    // The placed tiles a follower may go on this turn: the turn's tile unless a module says
    // otherwise (Amazonas: the double after a "!" tile).
    std::vector<int> follower_tiles() const;
    // True when the open turn's player placed a follower this turn.
    bool follower_placed() const { return turn_open_ && meeple_placed_; }
private:
    Game() = default;
    struct Mover {
        int player = -1;
        const TileType* type = nullptr;
    };
    // Checks that the event's player is the one to move and its tile is known.
    Result<Mover> check_turn_and_tile(const Event& e, const std::string& where) const;
    Status apply_tile(const Event& e, int index, const std::string& where);
    Status apply_meeple(const Event& e, const std::string& where);
    Status apply_discard(const Event& e, const std::string& where);
    Result<const TileType*> draw(const std::string& id, const std::string& where);
    Status end_turn(const std::string& where);
    void score_completed(int root);
    void score_final();
    ScoreEvent make_score(int root, ScoreEvent::Phase phase, int points) const;
    std::vector<FollowerOption> free_features(const Board& board, int tile_index) const;
    // free_features() less the spots a rule module refuses (RuleModule::refuse_follower).
    std::vector<FollowerOption> allowed_features(const Board& board, int tile_index) const;
    // A module's reason to refuse a placement the board allows (first module that objects).
    std::optional<std::string> module_refusal(const TileType& type, Placement p) const;

    std::shared_ptr<const Catalog> catalog_;
    std::vector<std::unique_ptr<RuleModule>> modules_;
    std::vector<PlayerInfo> players_;
    GameOptions options_;
    Board board_;
    std::vector<int> scores_;
    std::vector<int> followers_left_;
    std::vector<int> drawn_;             // per tile type index
    std::vector<ScoreEvent> score_events_;

    // Turn state.
    bool started_ = false;
    bool turn_open_ = false;
    bool meeple_placed_ = false;
    int turn_player_ = -1;
    int turn_event_ = -1;
    int turn_tile_ = -1;                 // placed tile index of the open turn
    int next_player_ = 0;
    std::vector<int> pending_completed_; // structures completed this turn, scored at its end
    bool finished_ = false;
};

}  // namespace meeplecam
