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
// A calm daylight scene: classic art on a plain table, a little tilt (the piece tests' light).
vision::RenderOptions daylight_options();

}  // namespace meeplecam::test
