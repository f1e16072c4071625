#include "engine/ports.h"

namespace meeplecam {
namespace {
constexpr std::array<std::string_view, kPorts> kPortNames = {
    "NL", "N", "NR", "EL", "E", "ER", "SL", "S", "SR", "WL", "W", "WR", "C"};
}  // namespace

std::string_view port_name(Port p) { return p < kPorts ? kPortNames[p] : std::string_view("?"); }

std::optional<Port> parse_port(std::string_view name) {
    for (Port p = 0; p < kPorts; ++p) {
        if (kPortNames[p] == name) return p;
    }
    return std::nullopt;
}

std::optional<int> quarter_turns_from_degrees(long long degrees) {
    if (degrees == 0 || degrees == 90 || degrees == 180 || degrees == 270) {
        return static_cast<int>(degrees / 90);
    }
    return std::nullopt;
}

}  // namespace meeplecam
