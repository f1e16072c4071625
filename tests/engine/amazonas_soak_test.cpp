// Soak for the Amazonas family: seeded random games, invariants, record round-trips.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "engine/modules/amazonas.h"
#include "engine/random_game.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;

TEST_CASE("10,000 random Amazonas games keep every invariant and replay to the same scores", "[soak][amazonas]") {
    auto loaded = Catalog::embedded("amazonas");
    REQUIRE(loaded);
    const auto catalog = std::make_shared<const Catalog>(std::move(loaded.value()));
    const int games = test::soak_games(10'000);  // MEEPLECAM_SOAK_FACTOR scales it
    int doubles = 0, camps = 0, races = 0, amazon_scores = 0, moves = 0, discards = 0;
    for (int i = 0; i < games; ++i) {
        RandomGameOptions opt;
        opt.seed = (static_cast<std::uint64_t>(i) + test::soak_seed_offset()) * 7919u + 29u;
        opt.players = 2 + i % 4;  // 2..5
        opt.follower_chance = (i % 5) / 4.0;
        opt.check_consistency = (i % 10) == 0;
        auto played = play_random_game(catalog, opt);
        if (!played) FAIL("seed " << opt.seed << ": " << played.error().to_string());
        const Game& g = played->game;
        g.board().check_consistency();
        const auto* amz = dynamic_cast<const AmazonasModule*>(g.modules().front().get());
        REQUIRE(amz);
        // Every land tile is placed or discarded; 3 doubles join the 80 land tiles and the board.
        int discarded = 0;
        for (const auto& e : played->record.events) {
            discarded += e.type == "discard" ? 1 : 0;
            doubles += e.type == "double" ? 1 : 0;
            camps += e.type == "camp" ? 1 : 0;
        }
        discards += discarded;
        REQUIRE(g.board().size() + discarded == 8 + 80 + 6);
        REQUIRE(amz->doubles_used().size() == 3);
        REQUIRE(amz->spaces() == (opt.players <= 3 ? 16 : 8) + 15 + 2 * 3);
        REQUIRE(amz->river_end() == 3 + 15 + 2 * 3);
        std::vector<int> sum(g.players().size(), 0);
        for (const auto& ev : g.score_events()) {
            for (int p : ev.winners) sum[p] += ev.points;
            races += ev.feature == "river" ? 1 : 0;
            amazon_scores += ev.feature == "amazon" ? 1 : 0;
        }
        for (std::size_t p = 0; p < g.players().size(); ++p) {
            const int player = static_cast<int>(p);
            REQUIRE(sum[p] == g.scores()[p]);
            REQUIRE(g.followers_left(player) >= 0);
            REQUIRE(g.followers_left(player) <= AmazonasModule::kMeeplesPerPlayer);
            REQUIRE(amz->camps_left(player) >= 0);
            REQUIRE(amz->boats()[p] >= 0);
            REQUIRE(amz->boats()[p] < amz->spaces());
        }
        // Boats only go forward, each move starts where the boat's last move ended, and the last move ends
        // where the boat stands; no land tile lies east of the river's end.
        std::vector<int> at(g.players().size(), 0);
        for (const auto& m : amz->boat_moves()) {
            REQUIRE(m.to >= m.from);
            REQUIRE(m.from == at[m.player]);
            at[m.player] = m.to;
        }
        for (std::size_t p = 0; p < g.players().size(); ++p) REQUIRE(at[p] == amz->boats()[p]);
        moves += static_cast<int>(amz->boat_moves().size());
        // Pieces: camps stand only on jungle and meeples never on jungle or the Amazon; every meeple is on
        // the board or in the supply (4), every camp on the board or unused (2).
        std::vector<int> meeples_out(g.players().size(), 0), camps_out(g.players().size(), 0);
        for (const auto& f : g.board().followers()) {
            if (!f.on_board) continue;
            const FeatureDef& def = g.board().node_def(f.node);
            REQUIRE_FALSE((def.kind == FeatureKind::Road && def.has_tag("amazon")));
            ++(def.kind == FeatureKind::Field ? camps_out : meeples_out)[f.player];
        }
        for (std::size_t p = 0; p < g.players().size(); ++p) {
            const int player = static_cast<int>(p);
            REQUIRE(meeples_out[p] + g.followers_left(player) == AmazonasModule::kMeeplesPerPlayer);
            REQUIRE(camps_out[p] + amz->camps_left(player) == AmazonasModule::kCampsPerPlayer);
        }
        // One Amazon scoring per Amazon tile and per double (15 + 3): the first place always scores, since
        // every Amazon tile of the catalog shows a caiman or a piranha.
        std::set<std::vector<Cell>> scored_river_tiles;
        for (const auto& ev : g.score_events()) {
            if (ev.feature == "amazon") scored_river_tiles.insert(ev.tiles);
        }
        REQUIRE(scored_river_tiles.size() == 15 + 3);
        // The race: the boats furthest down the river, and only they, share the first prize.
        const int lead = *std::max_element(amz->boats().begin(), amz->boats().end());
        std::vector<int> leaders;
        for (std::size_t p = 0; p < g.players().size(); ++p) {
            if (amz->boats()[p] == lead) leaders.push_back(static_cast<int>(p));
        }
        const auto first_prize = std::find_if(g.score_events().begin(), g.score_events().end(),
                                              [](const ScoreEvent& ev) { return ev.feature == "river"; });
        REQUIRE(first_prize != g.score_events().end());
        REQUIRE(first_prize->points == (opt.players <= 3 ? 6 : 7));
        REQUIRE(first_prize->winners == leaders);
        for (const auto& t : g.board().tiles()) {
            REQUIRE(t.at.x <= amz->river_end());
            if (t.at.y == 0 && t.at.x >= 0) REQUIRE((t.type->has_tag("amazon") || t.type->has_tag("start-board")));
        }
        auto parsed = parse_record_text(played->record.to_json().dump(), "soak");
        REQUIRE(parsed);
        auto again = replay(parsed.value());
        if (!again) FAIL("seed " << opt.seed << ": " << again.error().to_string());
        REQUIRE(score_sheet_json(again.value()) == score_sheet_json(g));
    }
    INFO("doubles " << doubles << ", camps " << camps << ", races " << races << ", Amazon scorings " << amazon_scores
                    << ", boat moves " << moves << ", discards " << discards);
    CHECK(doubles == 3 * games);
    CHECK(camps > games);
    CHECK(races > games);  // 2 players: often only the first scores
    CHECK(amazon_scores > 10 * games);
}
