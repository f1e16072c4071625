// Random games: a seeded player that plays legal games to the end (soak tests, benchmarks).
#pragma once

#include <cstdint>
#include <memory>

#include "engine/record.h"

namespace meeplecam {

struct RandomGameOptions {
    std::uint64_t seed = 1;        // same seed, same game
    int players = 2;               // 1..6
    double follower_chance = 0.6;  // probability of placing a follower when one may be placed
    std::string edition = "C3";
    std::string game = "carcassonne";  // carcassonne | city | amazonas (used when no catalog is given)
    std::vector<std::string> expansions;  // rule modules to play with (their catalogs join the bag)
    int max_tiles = -1;            // stop after this many tiles (-1: play the whole bag)
    bool check_consistency = false;  // verify every board invariant after each tile
    nlohmann::json rule_options = nlohmann::json::object();  // the record's "options" {module: {...}}

    // Refuses impossible values (an Invalid error naming the field).
    Status check() const;
};

struct RandomGame {
    Record record;  // what was played, finished
    Game game;      // the finished game
};

// Plays a whole legal game: draws from the shuffled supply, discards unplaceable tiles.
// Rule modules may deal tiles outside the normal draw: tiles they ask revealed
// (RuleModule::tiles_to_reveal, e.g. an auction) are taken from the top of the bag, and a tile a
// module assigns to the next player (RuleModule::assigned_tile) is placed instead of a drawn one.
// `catalog` replaces the shipped catalogs when not null (benchmarks use scaled copies).
Result<RandomGame> play_random_game(std::shared_ptr<const Catalog> catalog, const RandomGameOptions& options);

}  // namespace meeplecam
