// Rule modules: expansions plug into the game through hooks that default to "no change".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/error.h"
#include "engine/event.h"

namespace meeplecam {

class Board;
class Game;
struct TileType;
struct FeatureDef;

// What a structure is worth, as a rule module values it (spin-off families replace the core's
// carcassonne values); `feature` renames the score event's feature when not empty.
struct FeatureValue {
    int points = 0;
    std::string explanation;
    std::string feature;
};

// A placement that is legal only with a module's help (e.g. a bridge); `extra` holds the fields
// to add to the tile event (e.g. {"bridge": {"at": [x, y], "axis": "EW"}}).
struct PlacementOption {
    Placement placement;
    nlohmann::json extra;
};

// An expansion's rules. Every hook defaults to no change; the core never names expansions.
class RuleModule {
public:
    virtual ~RuleModule() = default;
    // The record name of the expansion, e.g. "ferries".
    virtual std::string_view name() const = 0;
    // Reads the module's options (the record's "options": {name: {...}}); refuses unknown ones.
    virtual Status configure(const nlohmann::json& options);
    // Embedded catalogs whose tiles the module adds to the game.
    virtual std::vector<std::string> catalogs() const { return {}; }
    // Record event types the module understands (beyond tile, meeple, discard).
    virtual std::vector<std::string> event_types() const { return {}; }
    // Applies one of the module's own events; `where` names the event for errors.
    virtual Status apply_event(Game& game, const Event& event, const std::string& where);
    // Returns the type to place for a tile event (e.g. the drawn tile with its bridge); may
    // change the board first (a bridge on a neighbour). Default: the drawn type.
    virtual Result<const TileType*> placed_type(Game& /*game*/, const Event& /*event*/, const TileType& drawn,
                                                const std::string& /*where*/) {
        return &drawn;
    }
    // Placements of `type` for the player to move that only the module makes legal.
    virtual std::vector<PlacementOption> extra_placements(const Game& /*game*/, const TileType& /*type*/) const {
        return {};
    }
    // May veto a core event (tile, meeple, discard) before the core applies it.
    virtual Status before_core_event(Game& /*game*/, const Event& /*event*/, const std::string& /*where*/) {
        return Ok{};
    }
    // Runs after the core placed the turn's tile.
    virtual void on_tile_placed(Game& /*game*/) {}
    // Refuses to end a turn that still owes the module an action (e.g. a ferry on a new lake).
    virtual Status check_turn_end(const Game& /*game*/, const std::string& /*where*/) const { return Ok{}; }
    // Runs when a turn ends, before the core scores completed features.
    virtual void on_turn_end(Game& /*game*/) {}
    // Runs for every structure completed during the game when the core scores it, occupied or
    // not (castles score from unoccupied structures too); `points` is what it is worth.
    virtual void on_structure_completed(Game& /*game*/, int /*root*/, int /*points*/) {}
    // Runs after the core scored the turn's completed structures (castle scoring, auctions).
    virtual void on_turn_scored(Game& /*game*/) {}
    // Overrides who moves next (e.g. players placing auctioned tiles); nullopt: seat order.
    virtual std::optional<int> next_player(const Game& /*game*/) const { return std::nullopt; }
    // Overrides what a city structure is worth to a farm at the end (default: 3 when the city is
    // complete, else 0); e.g. a castle is worth 4.
    virtual std::optional<int> farm_city_value(const Game& /*game*/, int /*city_root*/) const { return std::nullopt; }
    // --- Game families (the City) replace parts of the core's Carcassonne scoring ---
    // True when the first tile is a turn of the first player, who may put a follower on it (the
    // City); default: the start tile is placed by no player.
    virtual bool start_tile_is_turn() const { return false; }
    // What a completed structure is worth during the game and why; nullopt: the core's value.
    virtual std::optional<std::pair<int, std::string>> completed_value(const Game& /*game*/, int /*root*/) const {
        return std::nullopt;
    }
    // A reason to refuse a follower on structure `root` of the tile `tile_index` just placed on
    // `board` (the City: not on a street or market that tile completed); nullopt: allowed.
    virtual std::optional<std::string> refuse_follower(const Game& /*game*/, const Board& /*board*/,
                                                       int /*tile_index*/, int /*root*/) const {
        return std::nullopt;
    }
    // True when the module ended the game before the supply ran out (the City: the wall); players
    // and generators then stop drawing and finish the game.
    virtual bool game_over(const Game& /*game*/) const { return false; }
    // Runs at the end of the game, after the core's final scoring.
    virtual void on_final_scoring(Game& /*game*/) {}
    // Lists the module events the turn's player may still play now (generators, `legal`).
    virtual std::vector<Event> options(const Game& /*game*/) const { return {}; }
    // Orders the modules' actions within a turn for generators and the UI, lower first: actions
    // on the board (bridges, ferries: 0) come before decisions taken at scoring (castles: 2).
    virtual int turn_phase() const { return 0; }
    // True when the turn's player must play one of options() before the turn may end.
    virtual bool must_act(const Game& /*game*/) const { return false; }

    // --- Tiles a module deals outside the normal draw (Bazaars: auctions) ---
    // Runs after a discard was applied (`player` discarded a tile of `type`).
    virtual void on_tile_discarded(Game& /*game*/, int /*player*/, const TileType& /*type*/) {}
    // How many tiles the module needs turned face up from the supply now (an auction reveals one
    // per player); whoever holds the face-down supply (the random-game generator) draws them and
    // passes their ids to reveal_event(). 0: none.
    virtual int tiles_to_reveal(const Game& /*game*/) const { return 0; }
    // The module event that turns `tiles` (drawn from the supply by the caller) face up.
    virtual std::optional<Event> reveal_event(const Game& /*game*/, const std::vector<std::string>& /*tiles*/) const {
        return std::nullopt;
    }
    // The tile the next player must place instead of drawing one (e.g. a tile won at an auction).
    virtual std::optional<std::string> assigned_tile(const Game& /*game*/) const { return std::nullopt; }

    // --- Spin-off families (Amazonas) that replace parts of the core's rules ---
    // Runs after the start tile was placed (e.g. lay out the rest of a multi-cell start board).
    virtual void on_start_placed(Game& /*game*/) {}
    // A reason why a placement the board allows is illegal (e.g. beyond the river's end); nullopt: allowed.
    // Game::legal_placements, discards and tile events honour it.
    virtual std::optional<std::string> refuse_placement(const Game& /*game*/, const TileType& /*type*/,
                                                        Placement /*p*/) const {
        return std::nullopt;
    }
    // The placed-tile indices a follower may go on this turn; nullopt: the turn's tile.
    virtual std::optional<std::vector<int>> follower_tiles(const Game& /*game*/) const { return std::nullopt; }
    // False when no follower may stand on a feature of this kind (follower options skip it).
    virtual bool follower_allowed(const Game& /*game*/, const FeatureDef& /*def*/) const { return true; }
    // Overrides what a structure is worth, completed during the game (final = false) or at the
    // end (final = true); nullopt: the core's carcassonne values.
    virtual std::optional<FeatureValue> feature_value(const Game& /*game*/, int /*root*/, bool /*final*/) const {
        return std::nullopt;
    }
    // The module's visible state for the score sheet (Amazonas: boats, river spaces, camps), as
    // JSON (null: nothing; `score --json` lists it under "modules": {name: ...}) and as one line.
    virtual nlohmann::json sheet_state(const Game& /*game*/) const { return nullptr; }
    virtual std::string sheet_line(const Game& /*game*/) const { return {}; }
};

using RuleModuleFactory = std::function<std::unique_ptr<RuleModule>()>;

// The rule modules a game family always plays with (the record's "game"): "amazonas" gets the
// Amazonas module; "carcassonne" none. Their record options key is the module's name.
std::vector<std::unique_ptr<RuleModule>> family_modules(std::string_view game);

// The explicit list of known rule modules, by record name. An expansion may be a bundle of
// modules (e.g. "bridges-castles-bazaars" = bridges + castles + bazaars).
class RuleModuleRegistry {
public:
    void add(std::string name, RuleModuleFactory factory);
    // Registers an expansion made of already registered modules.
    void add_bundle(std::string name, std::vector<std::string> parts);
    // Creates the module(s) of expansion `name`; an Invalid error when it is not registered.
    Result<std::vector<std::unique_ptr<RuleModule>>> create(std::string_view name) const;
    std::vector<std::string> names() const;

    // The registry with every module shipped in this build.
    static const RuleModuleRegistry& builtin();

private:
    std::vector<std::pair<std::string, RuleModuleFactory>> entries_;
    std::vector<std::pair<std::string, std::vector<std::string>>> bundles_;
};

}  // namespace meeplecam
