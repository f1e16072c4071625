// Record: the meeplecam-record v1 match file — read, validated, written, replayed.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/event.h"
#include "engine/game.h"

namespace meeplecam {

struct Record {
    std::string game = "carcassonne";     // carcassonne | city | amazonas
    std::vector<std::string> expansions;  // rule module names (carcassonne only)
    std::string edition = "C3";
    std::vector<PlayerInfo> players;
    std::vector<Event> events;
    bool finished = false;
    nlohmann::json options = nlohmann::json::object();  // rule options, by module (see docs/record-format.md)

    nlohmann::json to_json() const;
};

// Parses a record document; errors name `source` and the offending event or field.
Result<Record> parse_record(const nlohmann::json& doc, const std::string& source);
// Parses one event's fields (a journal line); how corrections agree with the rest of the
// record is checked by parse_record and replay (engine/correction.h).
Result<Event> parse_record_event(const nlohmann::json& j, const std::string& where);
// Parses record text (reports the byte offset of a JSON syntax error).
Result<Record> parse_record_text(std::string_view text, const std::string& source);
// Reads a record file.
Result<Record> read_record(const std::string& path);
// Writes a record file atomically (temporary file, fsync, rename).
Status write_record(const Record& record, const std::string& path);

struct ReplayOptions {
    std::shared_ptr<const Catalog> catalog;  // replaces the game's shipped catalog when set (--catalog)
    bool check_consistency = false;          // verify board invariants after every tile
    bool apply_finish = true;                // run final scoring when the record says finished
    bool close_last_turn = true;             // score the record's last turn (the record is what happened)
};

// Builds the catalog a record's game and expansions use.
Result<std::shared_ptr<const Catalog>> catalog_for(const Record& record, const ReplayOptions& options = {});
// Creates an empty game (no events applied) set up as the record says.
Result<Game> new_game_for(const Record& record, const ReplayOptions& options = {});
// Replays every event; an illegal or invalid event stops the replay with its index and the rule.
Result<Game> replay(const Record& record, const ReplayOptions& options = {});

}  // namespace meeplecam
