// Soak: thousands of seeded random games, invariants checked, records round-tripped.
#include <catch2/catch.hpp>

#include <functional>

#include "engine/modules/castles.h"
#include "engine/random_game.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;

namespace {

// Plays `games` seeded random games with `expansions`, checking invariants and record round-trips;
// `extra` checks each finished game further.
void soak(int games, const std::vector<std::string>& expansions,
          const std::function<void(const RandomGame&)>& extra = {}) {
    const int kGames = games;
    int discards = 0, total_tiles = 0, bag = 0;
    for (int i = 0; i < kGames; ++i) {
        RandomGameOptions opt;
        opt.seed = static_cast<std::uint64_t>(i) * 7919u + 17u;
        opt.players = 1 + i % 6;
        opt.follower_chance = (i % 5) / 4.0;
        opt.check_consistency = (i % 10) == 0;  // full invariant check after every tile, every 10th game
        opt.expansions = expansions;
        auto played = play_random_game(expansions.empty() ? test::base_catalog() : nullptr, opt);
        if (!played) FAIL("seed " << opt.seed << ": " << played.error().to_string());
        const Game& g = played->game;
        g.board().check_consistency();
        total_tiles += static_cast<int>(g.board().size());
        if (i == 0) {
            for (const TileType& t : g.catalog().tiles()) bag += t.count_in(opt.edition);
        }

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
        if (extra) extra(played.value());
    }
    // Every tile of the bag is either placed or discarded.
    CHECK(total_tiles + discards == kGames * bag);
}

}  // namespace

TEST_CASE("10,000 random base games keep every invariant and replay to the same scores", "[soak]") {
    soak(10'000, {});
}

TEST_CASE("10,000 random games with Ferries keep every invariant and replay to the same scores", "[soak]") {
    soak(10'000, {"ferries"});
}

TEST_CASE("10,000 random games with Bridges keep every invariant and replay to the same scores", "[soak]") {
    soak(10'000, {"bridges"});
}

TEST_CASE("10,000 random games with Castles keep every invariant and replay to the same scores", "[soak]") {
    int built = 0, scored = 0, chained = 0, choices = 0;
    soak(10'000, {"castles"}, [&](const RandomGame& played) {
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
    CHECK(built > 1000);
    CHECK(scored > 100);
    CHECK(chained > 0);
    CHECK(choices > 0);
}

TEST_CASE("1,000 random games with Ferries and Castles together keep every invariant", "[soak]") {
    int castles_built = 0;
    soak(1'000, {"ferries", "castles"}, [&](const RandomGame& played) {
        for (const auto& e : played.record.events) castles_built += e.type == "castle" ? 1 : 0;
    });
    CHECK(castles_built > 100);
}
