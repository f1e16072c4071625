// Table surfaces: procedural table tops (wood, cloth, plain, busy) the renderer lays tiles on.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

#include <opencv2/core.hpp>

namespace meeplecam::vision {

enum class TableSurface : std::uint8_t { Wood, Cloth, Plain, Busy };

// Returns "wood", "cloth", "plain" or "busy".
std::string_view table_surface_name(TableSurface s);

// Draws a table top (CV_8UC3) of `size` pixels at `px_per_mm` pixels per millimetre, so
// planks, folds and patterns keep their real size whatever the resolution. Each call picks
// its own colours and pattern from `rng`. Assumes a non-empty size and px_per_mm > 0.
cv::Mat render_table_surface(TableSurface kind, cv::Size size, double px_per_mm, std::mt19937_64& rng);

}  // namespace meeplecam::vision
