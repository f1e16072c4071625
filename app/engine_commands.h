// Engine commands of the meeplecam command line: score and legal.
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam score RECORD [--json] [--catalog FILE]`; returns the exit code.
int run_score(const std::vector<std::string>& argv);
// `meeplecam legal RECORD --tile ID [--at x,y --rot r] [--json] [--catalog FILE]`; returns the exit code.
int run_legal(const std::vector<std::string>& argv);

// `meeplecam random-game [--seed N] [--players N] -o OUT.json`: a legal random game, for demos and tests.
int run_random_game(const std::vector<std::string>& argv);


}  // namespace meeplecam::cli
