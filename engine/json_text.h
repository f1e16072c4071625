// JSON text: parse a file's text with errors a person can act on (empty, binary, UTF-16, syntax).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/error.h"

namespace meeplecam {

// Describes text that is not JSON text at all (binary data, an image, UTF-16); nullopt when it
// looks like text.
std::optional<std::string> describe_non_text(std::string_view text);

// Parses JSON text; Invalid errors name `source` and say what is wrong (the byte offset of a
// syntax error, an empty file, a binary file).
Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source);

}  // namespace meeplecam
