// Photo commands of the meeplecam command line: score-photo (the final score of a finished
// table from one photograph).
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam score-photo IMAGE --players red,blue [--game G] [--expansions A,B] [--json]
// [--overlay OUT.png] [--calibration C.json]`; returns the exit code.
int run_score_photo(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
