// Event: one entry of a match record (a tile placed, a follower placed, a discard, ...).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/board.h"

namespace meeplecam {

struct Event {
    std::string type;    // "tile", "meeple", "discard", or a rule module's type
    std::string player;  // player colour; empty for the start tile
    std::string tile;    // tile id (tile, discard)
    Cell at;             // tile, meeple
    int rot = 0;         // quarter turns (the record stores degrees)
    std::string loc;     // meeple: port name or "C"
    nlohmann::json raw;  // the event as read, for rule modules' own fields

    // Builds the JSON form written to records (degrees for rot).
    nlohmann::json to_json() const;
};

}  // namespace meeplecam
