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

// Prints "meeplecam: <error>" to stderr; returns the exit code of its kind (2 or 3).
int report(const Error& e);

// Splits "a,b,c" into its items (empty items dropped).
std::vector<std::string> split_list(const std::string& text);

// Parses a whole decimal integer; the error names `what`.
Result<long long> integer_arg(const std::string& text, const std::string& what);

// Parses a whole finite decimal number; the error names `what`.
Result<double> number_arg(const std::string& text, const std::string& what);

}  // namespace meeplecam::cli
