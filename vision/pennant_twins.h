// Pennant twins: tile types that differ only in their city's pennants (M/N, O/P, Q/R, S/T,
// F/G), which the cell classifier's layouts cannot tell apart (board_reader.h, stage 4b).
#pragma once

#include <vector>

#include "engine/catalog.h"

namespace meeplecam::vision {

// Returns, per type, the index of its pennant twin (same features, other pennant count) or -1.
std::vector<int> pennant_twins(const Catalog& catalog);

}  // namespace meeplecam::vision
