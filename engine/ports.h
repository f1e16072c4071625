// Ports: the 12 side ports and the centre of a tile, rotation and facing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meeplecam {

// Index of a port. Side ports walk clockwise from the north-west corner:
// NL N NR | EL E ER | SL S SR | WL W WR, then the centre.
using Port = std::uint8_t;

inline constexpr int kSidePorts = 12;
inline constexpr int kPorts = 13;
inline constexpr Port kCentre = 12;

enum class Side : std::uint8_t { North = 0, East = 1, South = 2, West = 3 };

// Returns the side (0..3) a side port lies on. Assumes `p` is a side port.
constexpr int side_of(Port p) { return p / 3; }

// Returns the port a rotation clockwise by `quarter_turns` x 90 degrees maps `p` to.
constexpr Port rotate_port(Port p, int quarter_turns) {
    if (p == kCentre) return p;
    return static_cast<Port>((p + 3 * (((quarter_turns % 4) + 4) % 4)) % kSidePorts);
}

// Returns the port across the side that touches `p`: N<->S, NL<->SR, NR<->SL, E<->W, ...
constexpr Port facing_port(Port p) {
    const int side = p / 3;
    const int k = p % 3;  // 0 = left half, 1 = middle, 2 = right half
    return static_cast<Port>(((side + 2) % 4) * 3 + (2 - k));
}

// Returns the canonical name of a port ("NL", "N", ..., "C").
std::string_view port_name(Port p);

// Parses a port name; nullopt when it is not one.
std::optional<Port> parse_port(std::string_view name);

// Cell offsets of the four sides (x east, y south).
inline constexpr std::array<int, 4> kSideDx = {0, 1, 0, -1};
inline constexpr std::array<int, 4> kSideDy = {-1, 0, 1, 0};

// Converts a rotation in degrees (0, 90, 180, 270) to quarter turns; nullopt otherwise.
std::optional<int> quarter_turns_from_degrees(long long degrees);

}  // namespace meeplecam
