#include "engine/error.h"

namespace meeplecam {

void fail_check(const char* expr, const char* file, int line, const std::string& what) {
    throw InvariantError(std::string(file) + ":" + std::to_string(line) + ": invariant `" + expr +
                         "` broken: " + what);
}

}  // namespace meeplecam
