#include "engine/correction.h"

#include <limits>
#include <map>
#include <utility>

#include "engine/ports.h"

namespace meeplecam {
namespace {

using nlohmann::json;

// Checks one side of a correction ({"tile", "rot"} or {"player", "loc"}, or null when allowed).
Status check_value(const json& v, const std::string& what, const char* field, bool null_ok, const std::string& where) {
    const std::string name = std::string("'") + field + "'";
    if (v.is_null()) {
        if (null_ok) return Ok{};
        return invalid(where, name + " of a " + what + " correction must be " +
                                  (what == "tile" ? "{\"tile\": ID, \"rot\": degrees}" : "{\"player\": colour, \"loc\": port} (null: added or removed)"));
    }
    if (!v.is_object()) return invalid(where, name + " must be an object or null");
    if (what == "tile") {
        if (!v.contains("tile") || !v["tile"].is_string() || v["tile"].get<std::string>().empty()) {
            return invalid(where, name + " needs \"tile\": a tile id");
        }
        if (!v.contains("rot") || !v["rot"].is_number_integer() || !quarter_turns_from_degrees(v["rot"].get<long long>())) {
            return invalid(where, name + " needs \"rot\": 0, 90, 180 or 270");
        }
        return Ok{};
    }
    if (!v.contains("player") || !v["player"].is_string() || v["player"].get<std::string>().empty()) {
        return invalid(where, name + " needs \"player\": a player colour");
    }
    if (!v.contains("loc") || !v["loc"].is_string() || !parse_port(v["loc"].get<std::string>())) {
        return invalid(where, name + " needs \"loc\": a port (N, NL, NR, E, ..., WR or C)");
    }
    return Ok{};
}

json tile_value(const std::string& tile, int rot) { return {{"tile", tile}, {"rot", ((rot % 4) + 4) % 4 * 90}}; }
json follower_value(const Event& e) { return {{"player", e.player}, {"loc", e.loc}}; }

std::string value_text(const json& v) {
    if (v.is_null()) return "none";
    if (v.contains("tile")) return v["tile"].get<std::string>() + " " + std::to_string(v["rot"].get<long long>()) + "°";
    return v["player"].get<std::string>() + " on " + v["loc"].get<std::string>();
}

// The value an event holds now, in a correction's terms (null when it is not of that kind at `at`).
json held_value(const Event& e, const std::string& what, Cell at) {
    if (what == "tile" && e.type == "tile" && e.at == at) return tile_value(e.tile, e.rot);
    if (what == "follower" && e.type == "meeple" && e.at == at) return follower_value(e);
    return nullptr;
}

// Shifts the event index of every correction naming an event at or after `from` by `by`.
void shift_corrections(Record& record, std::size_t from, int by) {
    for (auto& e : record.events) {
        if (e.type != "correction" || !e.raw.contains("event") || !e.raw["event"].is_number_integer()) continue;
        const long long index = e.raw["event"].get<long long>();
        if (index >= static_cast<long long>(from)) e.raw["event"] = index + by;
    }
}

}  // namespace

Result<Correction> parse_correction(const Event& e, int index, const std::string& where) {
    const json& j = e.raw;
    if (!j.is_object()) return invalid(where, "a correction must be a JSON object");
    Correction c;
    if (!j.contains("what") || !j["what"].is_string() || (j["what"] != "tile" && j["what"] != "follower")) {
        return invalid(where, "'what' must be \"tile\" or \"follower\"");
    }
    c.what = j["what"].get<std::string>();
    if (!j.contains("event") || !j["event"].is_number_integer()) return invalid(where, "'event' must be the index of the corrected event");
    const long long target = j["event"].get<long long>();
    if (!j.contains("at")) return invalid(where, "missing 'at' (the cell of the corrected " + c.what + ")");
    const json& at = j["at"];
    if (!at.is_array() || at.size() != 2 || !at[0].is_number_integer() || !at[1].is_number_integer()) {
        return invalid(where, "'at' must be [x, y] with two integers");
    }
    c.at = {static_cast<int>(at[0].get<long long>()), static_cast<int>(at[1].get<long long>())};
    if (!j.contains("was") || !j.contains("now")) return invalid(where, "a correction needs 'was' and 'now'");
    c.was = j["was"];
    c.now = j["now"];
    if (auto st = check_value(c.was, c.what, "was", c.what == "follower", where); !st) return st.error();
    if (auto st = check_value(c.now, c.what, "now", c.what == "follower", where); !st) return st.error();
    if (c.was == c.now) return invalid(where, "'was' and 'now' are the same: nothing was corrected");
    // A removed follower's event is gone: its index may be where the correction itself stands.
    const long long limit = c.now.is_null() ? index : index - 1;
    if (target < 0 || target > limit) {
        return invalid(where, "'event' " + std::to_string(target) + " must name an earlier event (0.." + std::to_string(limit) + ")");
    }
    c.event = static_cast<int>(target);
    if (j.contains("by")) {
        if (!j["by"].is_string() || (j["by"] != "players" && j["by"] != "camera")) {
            return invalid(where, "'by' must be \"players\" or \"camera\"");
        }
        c.by = j["by"].get<std::string>();
    }
    return c;
}

Event correction_event(const Correction& c) {
    Event e;
    e.type = "correction";
    e.raw = {{"type", "correction"}, {"event", c.event},  {"what", c.what}, {"at", {c.at.x, c.at.y}},
             {"was", c.was},         {"now", c.now},      {"by", c.by}};
    return e;
}

Status check_corrections(const Record& record) {
    std::map<std::pair<std::string, Cell>, std::pair<int, Correction>> latest;  // (what, cell) -> (its event index, correction)
    for (std::size_t i = 0; i < record.events.size(); ++i) {
        const Event& e = record.events[i];
        if (e.type != "correction") continue;
        const int index = static_cast<int>(i);
        const std::string where = "event " + std::to_string(index) + " (correction)";
        auto c = parse_correction(e, index, where);
        if (!c) return c.error();
        const auto key = std::make_pair(c->what, c->at);
        const auto previous = latest.find(key);
        if (previous != latest.end() && previous->second.second.now != c->was) {
            return invalid(where, "'was' (" + value_text(c->was) + ") is not what event " + std::to_string(previous->second.first) +
                                      " corrected the " + c->what + " at " + to_string(c->at) + " to (" +
                                      value_text(previous->second.second.now) + ")");
        }
        latest[key] = {index, c.value()};
    }
    for (const auto& [key, entry] : latest) {
        const auto& [index, c] = entry;
        const std::string where = "event " + std::to_string(index) + " (correction)";
        if (c.now.is_null()) {
            for (std::size_t i = 0; i < record.events.size(); ++i) {
                if (!held_value(record.events[i], c.what, c.at).is_null()) {
                    return invalid(where, "it removed the follower at " + to_string(c.at) + ", but event " + std::to_string(i) +
                                              " still places one there");
                }
            }
            continue;
        }
        const Event& target = record.events[static_cast<std::size_t>(c.event)];
        const json held = held_value(target, c.what, c.at);
        if (held.is_null()) {
            return invalid(where, "event " + std::to_string(c.event) + " (" + target.type + ") is not the " + c.what + " at " +
                                      to_string(c.at) + " it corrects");
        }
        if (held != c.now) {
            return invalid(where, "event " + std::to_string(c.event) + " holds " + value_text(held) + ", not what the correction made it (" +
                                      value_text(c.now) + ")");
        }
    }
    return Ok{};
}

Status correct_tile_event(Record& record, Cell at, const std::string& tile, int rot, const std::string& by) {
    const std::string where = "correction of the tile at " + to_string(at);
    rot = ((rot % 4) + 4) % 4;
    for (std::size_t i = 0; i < record.events.size(); ++i) {
        Event& e = record.events[i];
        if (e.type != "tile" || e.at != at) continue;
        if (e.tile == tile && e.rot == rot) return invalid(where, "the tile is already " + tile + " " + std::to_string(rot * 90) + "°");
        Correction c{static_cast<int>(i), "tile", at, tile_value(e.tile, e.rot), tile_value(tile, rot), by};
        e.tile = tile;
        e.rot = rot;
        e.raw = e.to_json();
        record.events.push_back(correction_event(c));
        return Ok{};
    }
    return invalid(where, "no tile was placed there");
}

Status correct_follower_event(Record& record, Cell at, const std::string& colour, const std::string& loc, const std::string& by) {
    const std::string where = "correction of the follower at " + to_string(at);
    if (!colour.empty() && !parse_port(loc)) return invalid(where, "unknown feature port '" + loc + "'");
    for (std::size_t i = 0; i < record.events.size(); ++i) {
        Event& e = record.events[i];
        if (e.type != "meeple" || e.at != at) continue;
        Correction c{static_cast<int>(i), "follower", at, follower_value(e), nullptr, by};
        if (colour.empty()) {
            record.events.erase(record.events.begin() + static_cast<std::ptrdiff_t>(i));
            shift_corrections(record, i + 1, -1);
        } else {
            if (e.player == colour && e.loc == loc) return invalid(where, "the follower is already " + colour + " on " + loc);
            e.player = colour;
            e.loc = loc;
            e.raw = e.to_json();
            c.now = follower_value(e);
        }
        record.events.push_back(correction_event(c));
        return Ok{};
    }
    if (colour.empty()) return invalid(where, "no follower was placed there");
    for (std::size_t i = 0; i < record.events.size(); ++i) {
        if (record.events[i].type != "tile" || record.events[i].at != at) continue;
        Event m;
        m.type = "meeple";
        m.player = colour;
        m.at = at;
        m.loc = loc;
        m.raw = m.to_json();
        shift_corrections(record, i + 1, +1);
        record.events.insert(record.events.begin() + static_cast<std::ptrdiff_t>(i + 1), m);
        record.events.push_back(correction_event({static_cast<int>(i + 1), "follower", at, nullptr, follower_value(m), by}));
        return Ok{};
    }
    return invalid(where, "no tile was placed there");
}

void truncate_events(Record& record, std::size_t keep) {
    if (keep >= record.events.size()) return;
    std::vector<Event> kept(record.events.begin(), record.events.begin() + static_cast<std::ptrdiff_t>(keep));
    for (std::size_t i = keep; i < record.events.size(); ++i) {
        const Event& e = record.events[i];
        if (e.type == "correction" && e.raw.contains("event") && e.raw["event"].is_number_integer() &&
            e.raw["event"].get<long long>() < static_cast<long long>(keep)) {
            kept.push_back(e);
        }
    }
    record.events = std::move(kept);
}

Record record_prefix(const Record& record, std::size_t count) {
    Record prefix = record;
    prefix.events.clear();
    for (std::size_t i = 0; i < count && i < record.events.size(); ++i) {
        if (record.events[i].type != "correction") prefix.events.push_back(record.events[i]);
    }
    return prefix;
}

std::string describe_correction(const Event& e) {
    auto c = parse_correction(e, std::numeric_limits<int>::max() / 2, "correction");
    if (!c) return "correction (" + c.error().message + ")";
    const std::string who = c->by == "camera" ? "the camera" : "the players";
    std::string change;
    if (c->was.is_null()) {
        change = "added " + value_text(c->now);
    } else if (c->now.is_null()) {
        change = "removed " + value_text(c->was);
    } else {
        change = value_text(c->was) + " -> " + value_text(c->now);
    }
    return "correction of event " + std::to_string(c->event) + " (" + c->what + " at " + to_string(c->at) + "): " + change + " by " + who;
}

}  // namespace meeplecam
