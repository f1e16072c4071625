// `meeplecam catalog check FILE`: validates a tile catalog; for The City and Amazonas, compares its totals with the published game.
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam catalog check FILE`; returns the exit code.
int run_catalog(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
