// Soak: thousands of seeded random games, invariants checked, records round-tripped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "engine/modules/castles.h"
#include "engine/modules/city.h"
#include "engine/random_game.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;

namespace {

// Rule options for game `i` of a soak (the record's "options"); empty: defaults.
using SoakOptions = std::function<nlohmann::json(int)>;
// Checks run on every finished game of a soak (module-specific invariants).
using SoakCheck = std::function<void(const RandomGame&)>;

// Plays `games` seeded random games with `expansions`, checking invariants and record round-trips.
void soak(int games, const std::vector<std::string>& expansions, const SoakOptions& rule_options = {},
          const SoakCheck& extra = {}, const std::string& game = "carcassonne") {
    const int kGames = games;
    WARN("playing " << games << " random games (MEEPLECAM_SOAK_FACTOR scales the count)");
    int discards = 0, total_tiles = 0, bag_total = 0;
    for (int i = 0; i < kGames; ++i) {
        RandomGameOptions opt;
        opt.seed = (static_cast<std::uint64_t>(i) + test::soak_seed_offset()) * 7919u + 17u;
        opt.players = game == "city" ? 2 + i % 3 : 1 + i % 6;  // the City: 2-4 players
        opt.game = game;
        opt.follower_chance = (i % 5) / 4.0;
        opt.check_consistency = (i % 10) == 0;  // full invariant check after every tile, every 10th game
        opt.expansions = expansions;
        if (rule_options) opt.rule_options = rule_options(i);
        auto played = play_random_game(expansions.empty() && game == "carcassonne" ? test::base_catalog() : nullptr, opt);
        if (!played) FAIL("seed " << opt.seed << ": " << played.error().to_string());
        const Game& g = played->game;
        g.board().check_consistency();
        total_tiles += static_cast<int>(g.board().size()) + g.tiles_left();  // the City's wall may end it early
        for (const TileType& t : g.catalog().tiles()) bag_total += t.count_in(opt.edition);
        if (extra) extra(played.value());

        // Followers never exceed the supply; the sum of score events equals the totals.
        std::vector<int> sum(g.players().size(), 0);
        for (const auto& ev : g.score_events()) {
            for (int p : ev.winners) sum[p] += ev.points;
        }
        for (std::size_t p = 0; p < g.players().size(); ++p) {
            REQUIRE(g.followers_left(static_cast<int>(p)) >= 0);
            REQUIRE(g.followers_left(static_cast<int>(p)) <= 7);
            REQUIRE(sum[p] == g.scores()[p]);
        }
        for (const auto& e : played->record.events) discards += e.type == "discard" ? 1 : 0;

        // The written record replays to the same score sheet.
        auto parsed = parse_record_text(played->record.to_json().dump(), "soak");
        REQUIRE(parsed);
        auto again = replay(parsed.value());
        if (!again) FAIL("seed " << opt.seed << ": " << again.error().to_string());
        REQUIRE(score_sheet_json(again.value()) == score_sheet_json(g));
    }
    // Every tile of the bag is placed, discarded, or left when a module ended the game.
    CHECK(total_tiles + discards == bag_total);
}


// Empty cells joined to the far outside of the city (not holes), within the bounding box + 1.
std::set<std::pair<int, int>> outside_of(const Board& board) {
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    for (std::size_t i = 0; i < board.tiles().size(); ++i) {
        const Cell c = board.tiles()[i].at;
        if (i == 0) x0 = x1 = c.x, y0 = y1 = c.y;
        x0 = std::min(x0, c.x), x1 = std::max(x1, c.x), y0 = std::min(y0, c.y), y1 = std::max(y1, c.y);
    }
    --x0, --y0, ++x1, ++y1;
    std::set<std::pair<int, int>> out{{x0, y0}};
    std::vector<Cell> todo{Cell{x0, y0}};
    while (!todo.empty()) {
        const Cell c = todo.back();
        todo.pop_back();
        for (int s = 0; s < 4; ++s) {
            const Cell n{c.x + kSideDx[s], c.y + kSideDy[s]};
            if (n.x < x0 || n.x > x1 || n.y < y0 || n.y > y1 || board.tile_at(n) >= 0) continue;
            if (out.insert({n.x, n.y}).second) todo.push_back(n);
        }
    }
    return out;
}

// The City's wall invariant: one chain of pieces, each against a placed tile and facing an empty cell of
// the city's outside (no tile beyond it, no piece on a hole), each piece the clockwise successor of the
// one before along the city's outer boundary. Returns what breaks, empty when it holds.
std::string city_wall_problem(const Game& g) {
    const CityModule* city = nullptr;
    for (const auto& m : g.modules()) {
        if (!city) city = dynamic_cast<const CityModule*>(m.get());
    }
    if (!city) return "no City module";
    const Board& b = g.board();
    const auto& wall = city->wall();
    if (wall.empty()) return {};
    const auto outside = outside_of(b);
    int gates = 0;
    for (std::size_t i = 0; i < wall.size(); ++i) {
        const auto& s = wall[i].slot;
        gates += wall[i].gate ? 1 : 0;
        const Cell beyond{s.at.x + kSideDx[s.side], s.at.y + kSideDy[s.side]};
        if (b.tile_at(s.at) < 0) return "piece " + std::to_string(i) + " lies against no tile at " + to_string(s.at);
        if (b.tile_at(beyond) >= 0) return "a tile lies beyond piece " + std::to_string(i) + " at " + to_string(beyond);
        if (!outside.count({beyond.x, beyond.y})) return "piece " + std::to_string(i) + " faces a hole at " + to_string(beyond);
        if (i + 1 < wall.size() && !(CityModule::next_cw(b, s) == wall[i + 1].slot)) {
            return "pieces " + std::to_string(i) + " and " + std::to_string(i + 1) + " are not neighbours along the boundary (" +
                   to_string(s.at) + " side " + std::to_string(s.side) + ", " + to_string(wall[i + 1].slot.at) + " side " +
                   std::to_string(wall[i + 1].slot.side) + ")";
        }
    }
    if (gates != 1) return std::to_string(gates) + " gates in the wall";
    if (static_cast<int>(wall.size()) - 1 + city->wall_pieces_left() != CityModule::kWallPieces) return "wall pieces do not add up to 70";
    return {};
}

}  // namespace

TEST_CASE("10,000 random base games keep every invariant and replay to the same scores", "[soak]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    soak(games, {});
}

TEST_CASE("10,000 random City games keep every invariant and replay to the same scores", "[soak][city]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    int completed = 0, final_residential = 0, refused_spots = 0, towers = 0, guards = 0, early_end = 0;
    int city_games = 0, walls = 0, stepped = 0;
    soak(games, {}, {}, [&](const RandomGame& played) {
        const Game& g = played.game;
        const CityModule* city = nullptr;
        for (const auto& m : g.modules()) {
            if (!city) city = dynamic_cast<const CityModule*>(m.get());
        }
        REQUIRE(city);
        for (const auto& ev : g.score_events()) {
            completed += ev.completed ? 1 : 0;
            final_residential += ev.feature == "residential" ? 1 : 0;
            REQUIRE((ev.feature == "street" || ev.feature == "market" || ev.feature == "residential" ||
                     ev.feature == "tower" || ev.feature == "guard"));
            towers += ev.feature == "tower" ? 1 : 0;
            guards += ev.feature == "guard" ? 1 : 0;
            // At the end only wall-closed streets/markets score; unfinished ones (at holes) give 0.
            if (ev.phase == ScoreEvent::Phase::Final && (ev.feature == "street" || ev.feature == "market") && !ev.completed) {
                REQUIRE(ev.points == 0);
            }
        }
        // At the end no follower is left on a street or market; only stewards stay.
        for (const Follower& f : g.board().followers()) {
            if (f.on_board) REQUIRE(g.board().node_def(f.node).kind == FeatureKind::Residential);
        }
        // The wall stays one chain on the city's outside with no tile beyond it: at the end, and (every 50th call
        // game) after every event of the replayed record.
        const std::string wall_problem = city_wall_problem(g);
        INFO("City game " << city_games << " (" << g.players().size() << " players): " << wall_problem);
        REQUIRE(wall_problem.empty());
        walls += city->wall().empty() ? 0 : 1;
        if (++city_games % 50 == 0) {
            auto step = new_game_for(played.record);
            REQUIRE(step);
            for (std::size_t i = 0; i < played.record.events.size(); ++i) {
                REQUIRE(step.value().apply(played.record.events[i], static_cast<int>(i)));
                const std::string problem = city_wall_problem(step.value());
                INFO("seed game " << city_games << ", after event " << i);
                REQUIRE(problem.empty());
            }
            ++stepped;
        }
        refused_spots += g.board().size() > 0 ? 0 : 1;
        early_end += g.tiles_left() > 0 ? 1 : 0;  // the wall ended the game before the last tile
    }, "city");
    CHECK(towers > games / 10);
    CHECK(guards > games / 10);
    CHECK(early_end > games / 10);
    CHECK(completed > games / 10);
    CHECK(final_residential > games / 10);
    CHECK(refused_spots == 0);
    INFO("games with a wall " << walls << ", replayed event by event " << stepped);
    // Scaled with the game count (MEEPLECAM_SOAK_FACTOR): 5,000 and 200 at 10,000 games.
    CHECK(walls > games / 2);
    CHECK(stepped >= games / 50);
}

TEST_CASE("10,000 random games with Ferries keep every invariant and replay to the same scores", "[soak]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    soak(games, {"ferries"});
}

TEST_CASE("10,000 random games with Bridges keep every invariant and replay to the same scores", "[soak]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    soak(games, {"bridges"});
}

TEST_CASE("10,000 random games with Castles keep every invariant and replay to the same scores", "[soak]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    int built = 0, scored = 0, chained = 0, choices = 0;
    soak(games, {"castles"}, {}, [&](const RandomGame& played) {
        const Game& g = played.game;
        const auto* castles = dynamic_cast<const CastlesModule*>(g.modules().front().get());
        REQUIRE(castles);
        // Every follower is in the supply, on the board or in a castle that has not scored.
        std::vector<int> on_board(g.players().size(), 0);
        for (const auto& f : g.board().followers()) on_board[f.player] += f.on_board ? 1 : 0;
        for (std::size_t p = 0; p < g.players().size(); ++p) {
            const int player = static_cast<int>(p);
            REQUIRE(g.followers_left(player) + on_board[p] + castles->followers_in_castles(player) == 7);
            REQUIRE(castles->tokens_left(g, player) >= 0);
        }
        for (const auto& c : castles->castles()) {
            ++built;
            scored += c.scored ? 1 : 0;
            REQUIRE(g.board().structure(g.board().find(c.nodes[0])).scored);
        }
        for (const auto& e : played.record.events) choices += e.type == "castle-choice" ? 1 : 0;
        for (const auto& ev : g.score_events()) {
            chained += ev.feature == "castle" && ev.explanation.find("in its fief scored") != std::string::npos ? 1 : 0;
        }
    });
    INFO("castles built " << built << ", scored " << scored << ", chained " << chained << ", choices " << choices);
    CHECK(built > games / 10);
    CHECK(scored > games / 100);
    CHECK(chained > 0);
    CHECK(choices > 0);
}

TEST_CASE("1,000 random games with Ferries and Castles together keep every invariant", "[soak]") {
    const int games = test::soak_games(1'000);  // MEEPLECAM_SOAK_FACTOR scales it
    int castles_built = 0;
    soak(games, {"ferries", "castles"}, {}, [&](const RandomGame& played) {
        for (const auto& e : played.record.events) castles_built += e.type == "castle" ? 1 : 0;
    });
    CHECK(castles_built > games / 10);
}

TEST_CASE("10,000 random games with Bazaars keep every invariant and replay to the same scores", "[soak]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    // Every 4th game plays the no-bidding variant, every 4th (offset 2) limits bids to the score.
    int auctions = 0, buys = 0, sells = 0, free_tiles = 0, bank = 0, negative = 0, placed_after = 0;
    auto rule_options = [](int i) {
        if (i % 4 == 1) return nlohmann::json{{"bazaars", {{"variant", "no-bidding"}}}};
        if (i % 4 == 2) return nlohmann::json{{"bazaars", {{"bids_limited_to_score", true}}}};
        return nlohmann::json::object();
    };
    auto check = [&](const RandomGame& played) {
        const Game& g = played.game;
        const auto& events = played.record.events;
        const int n = static_cast<int>(g.players().size());
        const bool limited = played.record.options.contains("bazaars") &&
                             played.record.options["bazaars"].value("bids_limited_to_score", false);
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (events[i].type != "auction") continue;
            ++auctions;
            // One round per player, then every player places (or discards) the tile acquired,
            // starting with the player after the active player.
            REQUIRE(events[i].raw["tiles"].size() == static_cast<std::size_t>(n));
            std::size_t k = i + 1;
            for (int r = 0; r < n; ++r, ++k) {
                REQUIRE(k < events.size());
                REQUIRE(events[k].type == "auction-round");
                const auto& raw = events[k].raw;
                if (raw.contains("free")) ++free_tiles;
                if (raw.value("deal", "") == "buy") ++buys;
                if (raw.value("deal", "") == "sell") ++sells;
            }
            const int active = g.player_index(events[i].player);
            for (int r = 1; r <= n && k < events.size(); ++k) {
                if (events[k].type != "tile" && events[k].type != "discard") continue;
                REQUIRE(events[k].player == g.players()[(active + r) % n].color);
                ++placed_after;
                ++r;
            }
        }
        int auction_points = 0;
        for (const auto& ev : g.score_events()) {
            if (ev.feature != "auction") continue;
            auction_points += ev.points;
            REQUIRE(ev.points != 0);
            REQUIRE(ev.winners.size() == 1);
            if (ev.explanation.find("bank") != std::string::npos) ++bank;
        }
        REQUIRE(auction_points <= 0);  // points only change hands, or go to the bank
        for (int s : g.scores()) {
            if (s < 0) ++negative;
            if (limited) REQUIRE(s >= 0);  // nobody pays more than their score
        }
    };
    soak(games, {"bazaars"}, rule_options, check);
    INFO("auctions " << auctions << ", buys " << buys << ", sells " << sells << ", free " << free_tiles << ", bank "
                     << bank << ", negative final scores " << negative);
    CHECK(auctions > games);
    CHECK(buys > games / 10);
    CHECK(sells > games / 10);
    CHECK(free_tiles > auctions);  // the last tile of each auction, and every tile without bidding
    CHECK(bank > games / 100);
    CHECK(negative > games / 1000);
    CHECK(placed_after > auctions);
}

TEST_CASE("10,000 random games with every expansion together keep every invariant", "[soak]") {
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    // Bridges, Castles, Bazaars and Ferries at once; the bazaar options alternate.
    int bridges = 0, castles = 0, auctions = 0, ferry_moves = 0;
    auto rule_options = [](int i) {
        if (i % 3 == 1) return nlohmann::json{{"bazaars", {{"variant", "no-bidding"}}}};
        if (i % 3 == 2) return nlohmann::json{{"bazaars", {{"bids_limited_to_score", true}}}};
        return nlohmann::json::object();
    };
    soak(games, {"bridges-castles-bazaars", "ferries"}, rule_options, [&](const RandomGame& played) {
        for (const auto& e : played.record.events) {
            bridges += e.type == "bridge" || e.raw.contains("bridge") ? 1 : 0;
            castles += e.type == "castle" ? 1 : 0;
            auctions += e.type == "auction" ? 1 : 0;
            ferry_moves += e.type == "ferry-move" ? 1 : 0;
        }
    });
    INFO("bridges " << bridges << ", castles " << castles << ", auctions " << auctions << ", ferry moves " << ferry_moves);
    CHECK(bridges > games);
    CHECK(castles > games / 10);
    CHECK(auctions > games / 2);
    CHECK(ferry_moves > games / 10);
}
