#include "app/cli_args.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

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

int report(const Error& e) {
    std::cerr << "meeplecam: " << e.to_string() << "\n";
    return static_cast<int>(e.kind);
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    for (const char ch : text) {
        if (ch == ',') {
            if (!cur.empty()) out.push_back(cur);
            cur.clear();
        } else {
            cur += ch;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

Result<long long> integer_arg(const std::string& text, const std::string& what) {
    long long v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return invalid(what, "expected an integer, got '" + text + "'");
    return v;
}

Result<double> number_arg(const std::string& text, const std::string& what) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) {
        return invalid(what, "expected a number, got '" + text + "'");
    }
    return v;
}

}  // namespace meeplecam::cli
