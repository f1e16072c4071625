#include <catch2/catch.hpp>

#include <set>

#include "engine/board.h"
#include "engine/random_game.h"
#include "replay_fixtures.h"

using namespace meeplecam;

namespace {

const TileType& T(const char* id) { return *test::base_catalog()->find(id); }

Board start_board() {
    Board b;
    b.place_start(T("D"), Placement{{0, 0}, 0});
    return b;
}

// Lists legal placements by brute force: every empty cell next to a tile, every rotation,
// deduplicated by the placed tile's structure (the slow, obviously-right generator).
std::set<std::pair<std::pair<int, int>, int>> brute_force(const Board& b, const TileType& t) {
    std::set<std::pair<std::pair<int, int>, int>> out;
    std::set<std::pair<int, int>> cells;
    for (const auto& pt : b.tiles()) {
        for (int s = 0; s < 4; ++s) cells.insert({pt.at.x + kSideDx[s], pt.at.y + kSideDy[s]});
    }
    for (const auto& [x, y] : cells) {
        for (int r : t.distinct_rotations) {
            if (b.check_placement(t, Placement{{x, y}, r}).ok) out.insert({{x, y}, r});
        }
    }
    return out;
}

}  // namespace

TEST_CASE("legal placements next to the start tile, counted by hand", "[board][perft]") {
    const Board b = start_board();
    // E (city N): only south of the start city (rot 180) or below it on the field side (3 rotations).
    CHECK(b.legal_placements(T("E")).size() == 4);
    // U (straight road, 2 distinct rotations): east, west, and south (rot 90 each).
    CHECK(b.legal_placements(T("U")).size() == 3);
    // C (all city): only north of the start tile.
    const auto c = b.legal_placements(T("C"));
    REQUIRE(c.size() == 1);
    CHECK(c[0].at == Cell{0, -1});
    // B (monastery, all field): only south.
    CHECK(b.legal_placements(T("B")).size() == 1);
}

TEST_CASE("placement checks name the clash", "[board]") {
    Board b = start_board();
    auto occupied = b.check_placement(T("E"), Placement{{0, 0}, 0});
    CHECK_FALSE(occupied.ok);
    CHECK_THAT(occupied.reason, Catch::Contains("already occupied"));
    auto far = b.check_placement(T("E"), Placement{{5, 5}, 0});
    CHECK_FALSE(far.ok);
    CHECK_THAT(far.reason, Catch::Contains("does not touch"));
    auto clash = b.check_placement(T("E"), Placement{{0, -1}, 0});
    CHECK_FALSE(clash.ok);
    CHECK_THAT(clash.reason, Catch::Contains("south side (field)") && Catch::Contains("(city)"));
}

TEST_CASE("a two-tile city completes and merges across the side", "[board]") {
    Board b = start_board();
    b.place(T("E"), Placement{{0, -1}, 2});
    REQUIRE(b.last_completed().size() == 1);
    const int root = b.last_completed()[0];
    CHECK(b.structure(root).kind == FeatureKind::City);
    CHECK(b.structure_cells(root).size() == 2);
    CHECK(b.is_complete(root));
    b.check_consistency();
}

TEST_CASE("a ring city through a tile with two caps counts that tile once", "[board]") {
    // I at [0,0] rot 180 has separate caps S and W; three N tiles (two-side city) close a ring
    // around the south-west corner that enters the I through both caps.
    Board b;
    b.place_start(T("I"), Placement{{0, 0}, 2});
    b.place(T("N"), Placement{{-1, 0}, 1});  // city E, S
    b.place(T("N"), Placement{{-1, 1}, 0});  // city N, E
    CHECK(b.last_completed().empty());
    b.place(T("N"), Placement{{0, 1}, 3});   // city W, N
    b.check_consistency();
    REQUIRE(b.last_completed().size() == 1);
    const int root = b.last_completed()[0];
    CHECK(b.find(b.node_at({0, 0}, *parse_port("S"))) == root);
    CHECK(b.find(b.node_at({0, 0}, *parse_port("W"))) == root);
    CHECK(b.structure(root).nodes.size() == 5);      // the I contributes two city nodes
    CHECK(b.structure_cells(root).size() == 4);      // but counts as one tile
}

TEST_CASE("the legal-placement generator equals brute force on random boards", "[board][perft]") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        RandomGameOptions opt;
        opt.seed = seed;
        opt.max_tiles = static_cast<int>(10 + seed * 3);
        auto g = play_random_game(test::base_catalog(), opt);
        REQUIRE(g);
        const Board& b = g->game.board();
        b.check_consistency();
        for (const auto& t : test::base_catalog()->tiles()) {
            std::set<std::pair<std::pair<int, int>, int>> fast;
            for (const auto& p : b.legal_placements(t)) {
                CHECK(fast.insert({{p.at.x, p.at.y}, p.rot}).second);  // no duplicates
            }
            CHECK(fast == brute_force(b, t));
        }
    }
}

TEST_CASE("rebuilding structures from scratch reproduces the incremental merge", "[board]") {
    for (std::uint64_t seed = 100; seed < 130; ++seed) {
        RandomGameOptions opt;
        opt.seed = seed;
        opt.max_tiles = static_cast<int>(5 + (seed % 10) * 7);
        auto g = play_random_game(test::base_catalog(), opt);
        REQUIRE(g);
        Board b = g->game.board();
        auto describe = [](const Board& board) {
            std::vector<std::tuple<std::vector<int>, int, int, bool, std::size_t>> out;
            for (int n = 0; n < board.node_count(); ++n) {
                if (board.find(n) != n) continue;
                const Structure& st = board.structure(n);
                std::vector<int> members = st.nodes;
                std::sort(members.begin(), members.end());
                out.emplace_back(members, st.open_sides, st.pennants, st.scored, st.follower_ids.size());
            }
            std::sort(out.begin(), out.end());
            return out;
        };
        const auto before = describe(b);
        const auto to_score = b.rebuild_structures();
        CHECK(to_score.empty());  // everything complete was already scored (or had no followers)
        b.check_consistency();
        CHECK(describe(b) == before);
    }
}
