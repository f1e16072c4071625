// Replay fixtures: the shipped catalog and compact ways to build records.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "engine/record.h"

namespace meeplecam::test {

// The embedded base-game catalog (loaded once).
std::shared_ptr<const Catalog> base_catalog();
// A two-player (red, blue) base-game record with the start tile D at [0,0] rot 0 and `events`.
Record base_record(std::initializer_list<nlohmann::json> events, bool finished = false);
// Shorthands for events.
nlohmann::json tile(const std::string& player, const std::string& id, int x, int y, int rot);
nlohmann::json meeple(const std::string& player, int x, int y, const std::string& loc);
// The same record with expansions in play.
Record with_expansions(Record record, std::vector<std::string> expansions);
// Replays and returns the error text ("" when the record replays).
std::string replay_error(const Record& record);
// The number of games a soak plays: `full` times MEEPLECAM_SOAK_FACTOR (a positive number,
// default 1; the sanitizer suite uses 0.1, the long soak 1.25). At least 10.
int soak_games(int full);
// Added to each soak game's index to make its seed: MEEPLECAM_SOAK_SEED (default 0), so a long
// soak can play games CI never saw.
std::uint64_t soak_seed_offset();

}  // namespace meeplecam::test
