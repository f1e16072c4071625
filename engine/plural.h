// A count with its noun ("1 tile", "3 tiles") for score explanations.
#pragma once

#include <string>

namespace meeplecam {

inline std::string plural(int n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace meeplecam
