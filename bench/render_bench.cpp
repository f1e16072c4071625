// Renderer benchmarks: a 72-tile board at 1920x1080 per difficulty preset (and with pieces), and tile art alone;
// and the reader's lattice refit on that medium frame (its outline search's edge sums on every line or the read ones).
// Target (issue 4): well under 1 s per 72-tile frame on the 2-core dev machine.
#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>

#include "engine/random_game.h"
#include "vision/board_reader.h"
#include "vision/table_renderer.h"
#include "vision/tile_art.h"

using namespace meeplecam;

namespace {

const RandomGame& full_game() {
    static const RandomGame game = [] {
        auto catalog = Catalog::embedded("carcassonne-base");
        if (!catalog) throw std::runtime_error(catalog.error().to_string());
        RandomGameOptions opt;
        opt.seed = 42;
        auto g = play_random_game(std::make_shared<const Catalog>(std::move(catalog.value())), opt);
        if (!g) throw std::runtime_error(g.error().to_string());
        return std::move(g.value());
    }();
    return game;
}

void render_72(benchmark::State& state, vision::Difficulty difficulty) {
    const auto tiles = vision::scene_tiles(full_game().game.board());
    const auto options = vision::RenderOptions::for_difficulty(difficulty);
    std::uint64_t seed = 1;
    for (auto _ : state) {
        auto r = vision::render_table(tiles, options, seed++);
        if (!r) throw std::runtime_error(r.error().to_string());
        benchmark::DoNotOptimize(r->image.data);
    }
    state.counters["tiles"] = static_cast<double>(tiles.size());
}

// The same frame with the game's followers standing on the board.
void BM_RenderMediumWithPieces(benchmark::State& state) {
    const auto scene = vision::scene_of(full_game().game);
    const auto options = vision::RenderOptions::for_difficulty(vision::Difficulty::Medium);
    std::uint64_t seed = 1;
    for (auto _ : state) {
        auto r = vision::render_table(scene, options, seed++);
        if (!r) throw std::runtime_error(r.error().to_string());
        benchmark::DoNotOptimize(r->image.data);
    }
    state.counters["pieces"] = static_cast<double>(scene.pieces.size());
}
BENCHMARK(BM_RenderMediumWithPieces)->Unit(benchmark::kMillisecond)->MinTime(3.0);

void BM_RenderEasy(benchmark::State& state) { render_72(state, vision::Difficulty::Easy); }
void BM_RenderMedium(benchmark::State& state) { render_72(state, vision::Difficulty::Medium); }
void BM_RenderHard(benchmark::State& state) { render_72(state, vision::Difficulty::Hard); }
BENCHMARK(BM_RenderEasy)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_RenderMedium)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_RenderHard)->Unit(benchmark::kMillisecond)->MinTime(3.0);

void BM_TileArt(benchmark::State& state) {
    const auto& catalog = full_game().game.catalog();
    const auto& style = vision::builtin_tile_styles().front();
    std::mt19937_64 rng(1);
    const int size = static_cast<int>(state.range(0));
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& type = catalog.tiles()[i++ % catalog.tiles().size()];
        benchmark::DoNotOptimize(vision::render_tile(type, 0, size, style, rng).data);
    }
}
BENCHMARK(BM_TileArt)->Arg(128)->Arg(256)->Unit(benchmark::kMicrosecond);

// The lattice refit (refine_lattice) of the medium 72-tile frame's first lattice, process CPU of
// all threads; arg 1: edge sums only on the lines the outline search reads (the default), 0: on all.
void BM_RefineLattice(benchmark::State& state) {
    const auto tiles = vision::scene_tiles(full_game().game.board());
    const auto r = vision::render_table(tiles, vision::RenderOptions::for_difficulty(vision::Difficulty::Medium), 1);
    if (!r) throw std::runtime_error(r.error().to_string());
    auto found = vision::find_lattice(r->image);
    if (!found) throw std::runtime_error(found.error().to_string());
    const auto found_cells = vision::occupied_cells(found.value());
    vision::RefineOptions options;
    options.integrate_read_lines_only = state.range(0) != 0;
    for (auto _ : state) {
        auto view = found.value();
        view.not_table = view.not_table.clone();  // the refit writes into it
        auto cells = found_cells;
        if (auto st = vision::refine_lattice(r->image, view, cells, {}, options); !st) throw std::runtime_error(st.error().to_string());
        benchmark::DoNotOptimize(view.top.data);
    }
    state.counters["cells"] = static_cast<double>(found_cells.size());
}
BENCHMARK(BM_RefineLattice)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->MinTime(3.0);

}  // namespace

BENCHMARK_MAIN();
