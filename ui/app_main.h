// The `meeplecam app` command: the desktop window (review mode for now), or headless output.
#pragma once

#include <string>
#include <vector>

namespace meeplecam::ui {

// Runs `meeplecam app [--record FILE] [--screenshot OUT.png]`; returns the exit code.
int run_app(const std::string& program, const std::vector<std::string>& argv);

}  // namespace meeplecam::ui
