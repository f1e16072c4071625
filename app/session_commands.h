// Session commands of the meeplecam command line: render-footage (a scripted match as
// camera frames with truth) and track (the headless live pipeline over frames).
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam render-footage RECORD -o DIR [--seed N] [--preset P]`; returns the exit code.
int run_render_footage(const std::vector<std::string>& argv);
// `meeplecam track --images DIR | --video FILE ... -o RECORD.json`; returns the exit code.
int run_track(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
