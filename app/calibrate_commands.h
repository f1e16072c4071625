// `meeplecam calibrate ...`: print the targets, calibrate the camera, the table plane and the
// player colours into one calibration file, and show it.
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam calibrate SUBCOMMAND ...`; returns the exit code (0 ok, 2 bad input).
int run_calibrate(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
