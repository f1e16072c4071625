// Soak: thousands of seeded random games, invariants checked, records round-tripped.
#include <catch2/catch.hpp>

#include "engine/random_game.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;

namespace {

// Plays `games` seeded random games with `expansions`, checking invariants and record round-trips.
void soak(int games, const std::vector<std::string>& expansions) {
    const int kGames = games;
    int discards = 0, total_tiles = 0;
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
    // Every tile of the bag is either placed or discarded.
    const int bag = expansions.empty() ? 72 : 80;
    CHECK(total_tiles + discards == kGames * bag);
}

}  // namespace

TEST_CASE("10,000 random base games keep every invariant and replay to the same scores", "[soak]") {
    soak(10'000, {});
}

TEST_CASE("10,000 random games with Ferries keep every invariant and replay to the same scores", "[soak]") {
    soak(10'000, {"ferries"});
}
