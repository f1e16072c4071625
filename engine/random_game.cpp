#include "engine/random_game.h"

#include <algorithm>
#include <random>

namespace meeplecam {
namespace {

const char* kColors[6] = {"red", "blue", "green", "yellow", "black", "grey"};

}  // namespace

Status RandomGameOptions::check() const {
    if (players < 1 || players > 6) return invalid("random game", "players must be 1..6");
    if (!(follower_chance >= 0.0 && follower_chance <= 1.0)) return invalid("random game", "follower_chance must be 0..1");
    return Ok{};
}

Result<RandomGame> play_random_game(std::shared_ptr<const Catalog> catalog, const RandomGameOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    Record record;
    record.game = catalog ? catalog->game() : options.game;
    record.edition = options.edition;
    record.expansions = options.expansions;
    record.options = options.rule_options;
    for (int i = 0; i < options.players; ++i) record.players.push_back(PlayerInfo{kColors[i], kColors[i]});
    ReplayOptions setup;
    setup.catalog = catalog;
    setup.check_consistency = options.check_consistency;
    auto created = new_game_for(record, setup);
    if (!created) return created.error();
    Game game = std::move(created.value());
    const Catalog& tiles = game.catalog();  // the shipped catalogs plus the expansions' tiles

    std::mt19937_64 rng(options.seed);
    // A catalog without a start tile (the City) starts with the top tile of the shuffled bag.
    const TileType* start = tiles.start_tile().empty() ? nullptr : tiles.find(tiles.start_tile());
    if (!start && !tiles.start_tile().empty()) return invalid("random game", "the catalog names an unknown start tile");
    std::vector<const TileType*> bag;
    bool start_taken = false;
    for (const TileType& t : tiles.tiles()) {
        if (t.has_tag("set-aside")) continue;  // not shuffled in (Amazonas: start board, doubles, mouth)
        for (int i = 0; i < t.count_in(options.edition); ++i) {
            if (&t == start && !start_taken) {
                start_taken = true;
                continue;
            }
            bag.push_back(&t);
        }
    }
    std::shuffle(bag.begin(), bag.end(), rng);
    std::size_t next = 0;  // the top of the face-down bag
    if (!start) {
        if (bag.empty()) return invalid("random game", "the catalog has no tiles");
        start = bag[next++];
    }
    // The City: the first tile is the first player's turn (a follower may go on it).
    const bool start_turn = std::any_of(game.modules().begin(), game.modules().end(),
                                        [](const auto& m) { return m->start_tile_is_turn(); });

    auto apply = [&](Event e) -> Status {
        const int index = static_cast<int>(record.events.size());
        if (auto st = game.apply(e, index); !st) return st;
        record.events.push_back(std::move(e));
        return Ok{};
    };
    Event first;
    first.type = "tile";
    first.tile = start->id;
    if (start_turn) first.player = record.players[0].color;
    if (auto st = apply(first); !st) return st.error();

    std::uniform_real_distribution<double> coin(0.0, 1.0);
    if (start_turn) {
        const auto spots = game.current_follower_options();
        if (!spots.empty() && coin(rng) < options.follower_chance) {
            Event m;
            m.type = "meeple";
            m.player = first.player;
            m.at = first.at;
            m.loc = std::string(port_name(spots[std::uniform_int_distribution<std::size_t>(0, spots.size() - 1)(rng)].loc));
            if (auto st = apply(m); !st) return st.error();
        }
    }
    int placed = 1;
    // A tile a rule module assigns to the next player (an auctioned tile), if any.
    auto assigned = [&]() -> const TileType* {
        for (const auto& m : game.modules()) {
            if (auto id = m->assigned_tile(game)) return tiles.find(*id);
        }
        return nullptr;
    };
    while (true) {
        if (options.max_tiles >= 0 && placed >= options.max_tiles) break;
        if (std::any_of(game.modules().begin(), game.modules().end(), [&](const auto& m) { return m->game_over(game); })) {
            break;  // a module ended the game early (the City's wall)
        }
        const TileType* type = assigned();
        if (!type) {
            if (next >= bag.size()) break;
            type = bag[next++];
        }
        const int player = game.next_player();
        const std::string color = record.players[player].color;
        const auto moves = game.legal_placements(*type);
        std::vector<PlacementOption> helped;  // placements a rule module makes legal (bridges)
        for (const auto& m : game.modules()) {
            auto more = m->extra_placements(game, *type);
            helped.insert(helped.end(), more.begin(), more.end());
        }
        const bool use_help = !helped.empty() && coin(rng) < (moves.empty() ? 0.7 : 0.1);
        if (moves.empty() && !use_help) {
            Event d;
            d.type = "discard";
            d.player = color;
            d.tile = type->id;
            if (auto st = apply(d); !st) return st.error();
            continue;
        }
        PlacementOption chosen;
        if (use_help) {
            chosen = helped[std::uniform_int_distribution<std::size_t>(0, helped.size() - 1)(rng)];
        } else {
            chosen.placement = moves[std::uniform_int_distribution<std::size_t>(0, moves.size() - 1)(rng)];
        }
        const Placement p = chosen.placement;
        Event t;
        t.type = "tile";
        t.player = color;
        t.tile = type->id;
        t.at = p.at;
        t.rot = p.rot;
        if (chosen.extra.is_object()) t.raw = chosen.extra;
        if (auto st = apply(t); !st) return st.error();
        ++placed;
        const auto spots = game.current_follower_options();
        if (!spots.empty() && coin(rng) < options.follower_chance) {
            Event m;
            m.type = "meeple";
            m.player = color;
            m.at = p.at;
            m.loc = std::string(port_name(spots[std::uniform_int_distribution<std::size_t>(0, spots.size() - 1)(rng)].loc));
            if (auto st = apply(m); !st) return st.error();
        }
        // Rule modules' actions, in turn-phase order: the mandatory ones always, the optional
        // ones by a coin flip.
        std::vector<std::size_t> order(game.modules().size());
        for (std::size_t mi = 0; mi < order.size(); ++mi) order[mi] = mi;
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return game.modules()[a]->turn_phase() < game.modules()[b]->turn_phase();
        });
        for (std::size_t mi : order) {
            for (int guard = 0; guard < 64; ++guard) {  // the City: up to 16 wall pieces + guards + a tower
                const RuleModule& module = *game.modules()[mi];
                const auto choices = module.options(game);
                if (choices.empty() || (!module.must_act(game) && coin(rng) < 0.5)) break;
                if (auto st = apply(choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(rng)]);
                    !st) {
                    return st.error();
                }
            }
        }
        // Tiles a module deals after the turn (an auction): revealed from the top of the bag,
        // then the module's mandatory follow-ups (the auction rounds).
        for (std::size_t mi = 0; mi < game.modules().size(); ++mi) {
            const int n = game.modules()[mi]->tiles_to_reveal(game);
            if (n <= 0) continue;
            if (bag.size() - next < static_cast<std::size_t>(n)) {
                return invalid("random game", "a rule module asked for more tiles than the bag holds");
            }
            std::vector<std::string> shown;
            for (int k = 0; k < n; ++k) shown.push_back(bag[next++]->id);
            auto reveal = game.modules()[mi]->reveal_event(game, shown);
            if (!reveal) return invalid("random game", "a rule module asked for tiles but made no event of them");
            if (auto st = apply(std::move(*reveal)); !st) return st.error();
            for (int guard = 0; guard < 64 && game.modules()[mi]->must_act(game); ++guard) {
                const auto choices = game.modules()[mi]->options(game);
                if (choices.empty()) break;
                if (auto st = apply(choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(rng)]);
                    !st) {
                    return st.error();
                }
            }
        }
    }
    if (auto st = game.finish(); !st) return st.error();
    record.finished = true;
    return RandomGame{std::move(record), std::move(game)};
}

}  // namespace meeplecam
