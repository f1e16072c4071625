#include "engine/json_text.h"

#include <algorithm>
#include <cstdio>

namespace meeplecam {

std::optional<std::string> describe_non_text(std::string_view text) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    if (text.size() >= 2 && ((byte(0) == 0xFF && byte(1) == 0xFE) || (byte(0) == 0xFE && byte(1) == 0xFF))) {
        return std::string("the file is UTF-16 text; save it as UTF-8 JSON");
    }
    const std::size_t n = std::min<std::size_t>(text.size(), 64);
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char c = byte(i);
        if (c == 0 || (c < 0x09) || (c > 0x0D && c < 0x20)) {
            char hex[64];
            std::snprintf(hex, sizeof(hex), "%02X %02X %02X %02X", byte(0), text.size() > 1 ? byte(1) : 0,
                          text.size() > 2 ? byte(2) : 0, text.size() > 3 ? byte(3) : 0);
            const bool png = text.size() >= 4 && byte(0) == 0x89 && text.substr(1, 3) == "PNG";
            const bool jpeg = text.size() >= 2 && byte(0) == 0xFF && byte(1) == 0xD8;
            return std::string("not a JSON text file: it starts with the bytes ") + hex +
                   (png ? " (a PNG image)" : jpeg ? " (a JPEG image)" : " (binary data)");
        }
    }
    return std::nullopt;
}

Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source) {
    if (text.empty()) return invalid(source, "the file is empty");
    if (auto binary = describe_non_text(text)) return invalid(source, *binary);
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        std::string what = e.what();
        // Drop nlohmann's "[json.exception.parse_error.101] " prefix; keep the reason.
        if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
        return invalid(source, "not valid JSON (byte " + std::to_string(e.byte) + "): " + what);
    } catch (const nlohmann::json::exception& e) {
        // A number too large for a double (1e999) is out_of_range, not a parse_error.
        std::string what = e.what();
        if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
        return invalid(source, "not valid JSON: " + what);
    }
}

}  // namespace meeplecam
