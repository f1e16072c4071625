// Vision commands of the meeplecam command line: render (synthetic photographs with truth).
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam render SCENE.json -o OUT.png [--seed N] [--preset P] ...`; returns the exit code.
int run_render(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
