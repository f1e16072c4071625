// Score sheet: the per-player totals and explained score events, as text or JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/game.h"

namespace meeplecam {

// Returns one score event as JSON ({"phase", "event", "feature", "points", "winners", ...}).
nlohmann::json score_event_json(const Game& game, const ScoreEvent& ev);
// Returns {"scores": {"red": 12, ...}, "events": [...]}.
nlohmann::json score_sheet_json(const Game& game);
// Returns a human-readable score sheet: totals per player, then every scoring with its reason.
std::string format_score_sheet(const Game& game);

}  // namespace meeplecam
