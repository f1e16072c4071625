// Atomic files: write whole files so a crash leaves either the old or the new content.
#pragma once

#include <string>
#include <string_view>

#include "engine/error.h"

namespace meeplecam {

// Writes `content` to `path` via a temporary file in the same folder, fsync and rename.
Status write_file_atomically(const std::string& path, std::string_view content);
// Reads a whole file; an Invalid error names the path when it cannot be read.
Result<std::string> read_whole_file(const std::string& path);

}  // namespace meeplecam
