// Vision commands of the meeplecam command line: render (synthetic photographs with truth)
// and recognize (read the board in photographs).
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam render SCENE.json -o OUT.png [--seed N] [--preset P] ...`; returns the exit code.
int run_render(const std::vector<std::string>& argv);
// `meeplecam recognize IMAGE... [--game G] [--expansions A,B] [--json]`; returns the exit code.
int run_recognize(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
