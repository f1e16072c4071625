// Tile commands of the meeplecam command line: classify-tile and learn-tiles.
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam classify-tile IMAGE --game G [--expansions ...] [--library FILE] [--json]`; returns the exit code.
int run_classify_tile(const std::vector<std::string>& argv);
// `meeplecam learn-tiles IMAGE... --layout reference|names|FILE -o LIBRARY.json`; returns the exit code.
int run_learn_tiles(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
