// Engine benchmarks: legal placements on 72- and 1,000-tile boards, a whole random game.
// Targets (issue 2): <= 5 us, <= 50 us, <= 0.5 ms median on the 2-core dev machine.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "engine/embedded_catalogs.h"
#include "engine/random_game.h"

using namespace meeplecam;

namespace {

// Returns the named embedded catalogs merged, every tile count multiplied by `factor`.
std::shared_ptr<const Catalog> catalog_scaled(int factor, const std::vector<std::string>& names = {"carcassonne-base"}) {
    std::optional<Catalog> merged;
    for (const auto& name : names) {
        for (const auto& e : embedded_catalogs()) {
            if (e.name != name) continue;
            auto doc = nlohmann::json::parse(e.text);
            for (auto& t : doc["tiles"]) {
                if (t["count"].is_object()) t["count"] = t["count"].value("C3", 1);
                t["count"] = t["count"].get<int>() * factor;
            }
            auto c = Catalog::from_json(doc, "scaled " + name);
            if (!c) throw std::runtime_error(c.error().to_string());
            if (!merged) {
                merged = std::move(c.value());
            } else if (auto st = merged->merge(c.value()); !st) {
                throw std::runtime_error(st.error().to_string());
            }
        }
    }
    if (!merged) throw std::runtime_error("no catalog");
    return std::make_shared<const Catalog>(std::move(*merged));
}

// Plays a seeded game up to `tiles` tiles and keeps it.
RandomGame board_of(int tiles, int factor) {
    RandomGameOptions opt;
    opt.seed = 42;
    opt.max_tiles = tiles;
    auto g = play_random_game(catalog_scaled(factor), opt);
    if (!g) throw std::runtime_error(g.error().to_string());
    return std::move(g.value());
}

void legal_placements_on(benchmark::State& state, const RandomGame& g) {
    const auto& tiles = g.game.catalog().tiles();
    std::size_t i = 0, found = 0;
    for (auto _ : state) {
        const auto moves = g.game.legal_placements(tiles[i++ % tiles.size()]);
        found += moves.size();
        benchmark::DoNotOptimize(moves.data());
    }
    state.counters["board_tiles"] = static_cast<double>(g.game.board().size());
    state.counters["open_border"] = static_cast<double>(g.game.board().border_size());
    state.counters["moves_per_call"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}

void BM_LegalPlacements_72TileBoard(benchmark::State& state) {
    static const RandomGame g = board_of(72, 1);
    legal_placements_on(state, g);
}
BENCHMARK(BM_LegalPlacements_72TileBoard)->Repetitions(5)->ReportAggregatesOnly(true);

void BM_LegalPlacements_1000TileBoard(benchmark::State& state) {
    static const RandomGame g = board_of(1000, 15);
    legal_placements_on(state, g);
}
BENCHMARK(BM_LegalPlacements_1000TileBoard)->Repetitions(5)->ReportAggregatesOnly(true);

// All expansions: bridges (extra placements included), castles, bazaars, ferries.
void BM_LegalPlacementsWithBridges_200TileBoardAllExpansions(benchmark::State& state) {
    static const RandomGame g = [] {
        RandomGameOptions opt;
        opt.seed = 42;
        opt.max_tiles = 200;
        opt.expansions = {"bridges-castles-bazaars", "ferries"};
        auto played = play_random_game(
            catalog_scaled(3, {"carcassonne-base", "carcassonne-bridges-castles-bazaars", "carcassonne-ferries"}), opt);
        if (!played) throw std::runtime_error(played.error().to_string());
        return std::move(played.value());
    }();
    const auto& tiles = g.game.catalog().tiles();
    std::size_t i = 0, found = 0;
    for (auto _ : state) {
        const TileType& t = tiles[i++ % tiles.size()];
        auto moves = g.game.legal_placements(t);
        for (const auto& m : g.game.modules()) {
            auto more = m->extra_placements(g.game, t);
            found += more.size();
            benchmark::DoNotOptimize(more.data());
        }
        found += moves.size();
        benchmark::DoNotOptimize(moves.data());
    }
    state.counters["board_tiles"] = static_cast<double>(g.game.board().size());
    state.counters["open_border"] = static_cast<double>(g.game.board().border_size());
    state.counters["moves_per_call"] = static_cast<double>(found) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_LegalPlacementsWithBridges_200TileBoardAllExpansions)->Repetitions(5)->ReportAggregatesOnly(true);

void BM_RandomGame72WithFinalScoring(benchmark::State& state) {
    const auto cat = catalog_scaled(1);
    std::uint64_t seed = 1;
    for (auto _ : state) {
        RandomGameOptions opt;
        opt.seed = seed++;
        auto g = play_random_game(cat, opt);
        benchmark::DoNotOptimize(g.has_value());
    }
}
BENCHMARK(BM_RandomGame72WithFinalScoring)->Unit(benchmark::kMicrosecond)->Repetitions(5)->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
