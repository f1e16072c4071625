#include <catch2/catch.hpp>

#include "engine/ports.h"

using namespace meeplecam;

TEST_CASE("ports rotate clockwise by three positions per quarter turn", "[ports]") {
    CHECK(port_name(rotate_port(*parse_port("N"), 1)) == "E");
    CHECK(port_name(rotate_port(*parse_port("NL"), 1)) == "EL");
    CHECK(port_name(rotate_port(*parse_port("WR"), 1)) == "NR");
    CHECK(port_name(rotate_port(*parse_port("S"), 2)) == "N");
    CHECK(port_name(rotate_port(*parse_port("E"), -1)) == "N");
    CHECK(rotate_port(kCentre, 3) == kCentre);
}

TEST_CASE("facing ports pair across a side as the notation says", "[ports]") {
    auto face = [](const char* p) { return std::string(port_name(facing_port(*parse_port(p)))); };
    CHECK(face("N") == "S");
    CHECK(face("NL") == "SR");
    CHECK(face("NR") == "SL");
    CHECK(face("E") == "W");
    CHECK(face("EL") == "WR");
    CHECK(face("ER") == "WL");
    for (Port p = 0; p < kSidePorts; ++p) CHECK(facing_port(facing_port(p)) == p);
}

TEST_CASE("port names parse and unknown names are refused", "[ports]") {
    for (Port p = 0; p < kPorts; ++p) CHECK(parse_port(port_name(p)) == p);
    CHECK_FALSE(parse_port("NW").has_value());
    CHECK_FALSE(parse_port("").has_value());
    CHECK(quarter_turns_from_degrees(270) == 3);
    CHECK_FALSE(quarter_turns_from_degrees(45).has_value());
}
