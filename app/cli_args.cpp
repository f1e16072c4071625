#include "app/cli_args.h"

namespace meeplecam::cli {

std::optional<std::string> Args::value(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
}

Result<Args> parse_args(const std::vector<std::string>& argv, const std::set<std::string>& value_options,
                        const std::set<std::string>& flag_options) {
    Args args;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), inline_value;
            const bool has_inline = name.find('=') != std::string::npos;
            if (has_inline) {
                inline_value = name.substr(name.find('=') + 1);
                name = name.substr(0, name.find('='));
            }
            if (value_options.count(name)) {
                if (has_inline) {
                    args.values[name] = inline_value;
                } else if (i + 1 < argv.size()) {
                    args.values[name] = argv[++i];
                } else {
                    return invalid("arguments", "--" + name + " needs a value");
                }
            } else if (flag_options.count(name) && !has_inline) {
                args.flags.insert(name);
            } else {
                return invalid("arguments", "unknown option --" + name + " (see --help)");
            }
        } else if (a == "-o" && value_options.count("output")) {
            if (i + 1 >= argv.size()) return invalid("arguments", "-o needs a value");
            args.values["output"] = argv[++i];
        } else {
            args.positional.push_back(a);
        }
    }
    return args;
}

}  // namespace meeplecam::cli
