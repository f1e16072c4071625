// Render fixtures: the shipped base catalog and random boards to render, shared by vision tests.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/catalog.h"
#include "vision/board_reader.h"
#include "vision/table_renderer.h"

namespace meeplecam::test {

// The embedded base-game catalog (loaded once; scene tiles point into it).
std::shared_ptr<const Catalog> base_catalog_for_render();
// The tiles of the first `n` tiles of a seeded random legal game, ready to render.
std::vector<vision::SceneTile> random_board(int n, std::uint64_t seed);
// The board bench/vision renders for `seed` and `preset`: a random base game of 60-80 tiles
// (60 + seed % 21), rendered with the preset's options and the same seed. Throws on failure.
vision::Rendering render_bench_board(std::uint64_t seed, vision::Difficulty preset);
// The finished game bench/vision's pieces section renders for `seed` and `preset`: a whole random
// base game of 2 + seed % 5 players with its followers, rendered with the preset's options and the
// same seed. Throws on failure.
vision::Rendering render_bench_game(std::uint64_t seed, vision::Difficulty preset = vision::Difficulty::Medium);
// A calm daylight scene: classic art on a plain table, a little tilt (the piece tests' light).
vision::RenderOptions daylight_options();

// One rendered tile as read back: its truth and the type read on its cell (the rotation
// checked modulo the type's symmetry); `read` is null when its cell was not read.
struct TileReadBack {
    const TileType* truth = nullptr;
    const TileType* read = nullptr;
    bool right = false;
};
// The true tiles of a read_back with no tile read on their cell, and those read wrong.
int missed_tiles(const std::vector<TileReadBack>& tiles);
int misread_tiles(const std::vector<TileReadBack>& tiles);
// Reads a rendering with `options` and matches every true tile to the read tile on its cell
// (the board's quarter turn in the top view taken from the first tile's edge). Throws when no
// board is read. `catalog` must hold every type of the truth. The reading itself goes to
// `reading_out` when given.
std::vector<TileReadBack> read_back(const vision::Rendering& rendering, const Catalog& catalog, const vision::ReaderOptions& options = {},
                                    vision::BoardReading* reading_out = nullptr);
// Matches every true tile of `rendering` to the tile `reading` holds on its cell, as read_back.
std::vector<TileReadBack> match_reading(const vision::Rendering& rendering, const Catalog& catalog, const vision::BoardReading& reading);
// Reads a rendering of base-game tiles with `options` and returns the reading's rectification
// error (mm) against its truth; infinity when no board is read. Throws when the reader fails.
double read_rms_mm(const vision::Rendering& rendering, const vision::ReaderOptions& options = {});

}  // namespace meeplecam::test
