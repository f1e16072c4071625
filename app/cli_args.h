// Command-line arguments: positional values and --options, with clear errors.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/error.h"

namespace meeplecam::cli {

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;  // --name value
    std::set<std::string> flags;                // --name

    bool has(const std::string& flag) const { return flags.count(flag) > 0; }
    std::optional<std::string> value(const std::string& name) const;
};

// Parses argv after the subcommand. `value_options` take a value; `flag_options` do not.
Result<Args> parse_args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
                        const std::set<std::string>& flag_options);

}  // namespace meeplecam::cli
