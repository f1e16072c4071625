// Correction: a record event saying that an earlier tile or follower event was changed — which
// event, what it was, what it became, and who changed it. The corrected event holds the new
// value (so a record replays to exactly the board on the table); the correction event is the
// audit trail, changes nothing on replay and is checked to agree with the event it names.
// Format and rules: docs/record-format.md ("Corrections").
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "engine/event.h"
#include "engine/record.h"

namespace meeplecam {


struct Correction {
    int event = -1;              // index of the corrected event in the record (a removed follower: where it stood)
    std::string what;            // "tile" or "follower"
    Cell at;                     // the cell of the tile (or of the follower's tile)
    nlohmann::json was;          // tile: {"tile", "rot" (degrees)}; follower: {"player", "loc"}; null: a follower added
    nlohmann::json now;          // as `was`; null: the follower was removed
    std::string by = "players";  // who corrected it: "players" (by hand) or "camera" (the tracker re-read it)
};

// Reads the correction event `e`, the record's event number `index` (its fields only; see
// check_corrections for how it agrees with the record). Errors name `where` and the field.
Result<Correction> parse_correction(const Event& e, int index, const std::string& where);
// Builds the record event of a correction.
Event correction_event(const Correction& c);
// Checks that every correction agrees with the record: each one's `was` is what the previous
// correction of the same tile or follower made it, and the latest one names an event that
// holds its `now` (a removed follower: no follower at that cell). Errors (Invalid) name the
// correction's event index.
Status check_corrections(const Record& record);

// Rewrites the tile event at `at` to `tile` turned `rot` quarter turns and appends the
// correction event. Invalid when no tile was placed at `at` or nothing changes. The caller
// replays the record to see that it is still legal.
Status correct_tile_event(Record& record, Cell at, const std::string& tile, int rot, const std::string& by = "players");
// Rewrites the follower event at `at` (owner colour and port), removes it (empty colour) or,
// when none is there, inserts one right after the tile event at `at`; appends the correction
// event (later corrections' indices follow the shift). Invalid when there is nothing to change.
Status correct_follower_event(Record& record, Cell at, const std::string& colour, const std::string& loc,
                              const std::string& by = "players");
// Cuts the record to its first `keep` events; corrections after the cut of events before it stay (the
// events they name keep their corrected values), those of cut events go with them.
void truncate_events(Record& record, std::size_t keep);
// Returns the record with only its first `count` events, less the correction events among them
// (what the board looked like then, in its corrected form; a correction there may have been
// corrected again later, which the prefix no longer shows).
Record record_prefix(const Record& record, std::size_t count);
// Returns one line for a correction event: "correction of event 7 (tile at [1, 0]): Q 90° -> R 0° by the players".
std::string describe_correction(const Event& e);

}  // namespace meeplecam
