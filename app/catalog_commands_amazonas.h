// `meeplecam catalog check FILE` with the Amazonas totals (see catalog_commands_amazonas.cpp).
#pragma once

#include <string>
#include <vector>

namespace meeplecam::cli {

// `meeplecam catalog check FILE`; returns the exit code.
int run_catalog_amazonas(const std::vector<std::string>& argv);

}  // namespace meeplecam::cli
