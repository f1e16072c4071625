#include "engine/record.h"

#include <cstdio>
#include <optional>
#include <set>

#include "engine/atomic_file.h"
#include "engine/correction.h"
#include "engine/json_text.h"
#include "engine/modules/city.h"

namespace meeplecam {
namespace {

using nlohmann::json;

const std::set<std::string> kGames = {"carcassonne", "city", "amazonas"};

// The embedded catalog each game's tiles come from.
std::string base_catalog_name(const std::string& game) {
    if (game == "carcassonne") return "carcassonne-base";
    return game;
}

Result<Cell> parse_cell(const json& j, const std::string& where) {
    if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_number_integer()) {
        return invalid(where, "'at' must be [x, y] with two integers");
    }
    const long long x = j[0].get<long long>(), y = j[1].get<long long>();
    constexpr long long kLimit = 1'000'000;
    if (x < -kLimit || x > kLimit || y < -kLimit || y > kLimit) {
        return invalid(where, "'at' is out of range (|x|, |y| <= 1000000)");
    }
    return Cell{static_cast<int>(x), static_cast<int>(y)};
}

Result<std::string> parse_string(const json& j, const char* field, const std::string& where, bool required) {
    if (!j.contains(field)) {
        if (required) return invalid(where, std::string("missing '") + field + "'");
        return std::string();
    }
    if (!j[field].is_string() || j[field].get<std::string>().empty()) {
        return invalid(where, std::string("'") + field + "' must be a non-empty string");
    }
    return j[field].get<std::string>();
}

Result<Event> parse_event(const json& j, const std::string& where) {
    if (!j.is_object()) return invalid(where, "an event must be a JSON object");
    Event e;
    e.raw = j;
    auto type = parse_string(j, "type", where, true);
    if (!type) return type.error();
    e.type = type.value();
    auto player = parse_string(j, "player", where, e.type == "meeple" || e.type == "discard");
    if (!player) return player.error();
    e.player = player.value();
    if (e.type == "tile" || e.type == "discard") {
        auto tile = parse_string(j, "tile", where, true);
        if (!tile) return tile.error();
        e.tile = tile.value();
    }
    if (e.type == "tile" || e.type == "meeple") {
        if (!j.contains("at")) return invalid(where, "missing 'at'");
        auto at = parse_cell(j["at"], where);
        if (!at) return at.error();
        e.at = at.value();
    }
    if (e.type == "tile") {
        if (!j.contains("rot")) return invalid(where, "missing 'rot'");
        if (!j["rot"].is_number_integer()) return invalid(where, "'rot' must be 0, 90, 180 or 270");
        auto q = quarter_turns_from_degrees(j["rot"].get<long long>());
        if (!q) return invalid(where, "'rot' must be 0, 90, 180 or 270, not " + j["rot"].dump());
        e.rot = *q;
    }
    if (e.type == "meeple") {
        auto loc = parse_string(j, "loc", where, true);
        if (!loc) return loc.error();
        e.loc = loc.value();
        if (!parse_port(e.loc)) return invalid(where, "unknown port '" + e.loc + "' (use N, NL, NR, E, ..., WR or C)");
    }
    return e;
}

}  // namespace

Result<Event> parse_record_event(const json& j, const std::string& where) { return parse_event(j, where); }

json Event::to_json() const {
    json j = raw.is_object() ? raw : json::object();
    j["type"] = type;
    if (!player.empty()) j["player"] = player;
    if (type == "tile" || type == "discard") j["tile"] = tile;
    if (type == "tile" || type == "meeple") j["at"] = {at.x, at.y};
    if (type == "tile") j["rot"] = rot * 90;
    if (type == "meeple") j["loc"] = loc;
    return j;
}

json Record::to_json() const {
    json j;
    j["format"] = "meeplecam-record";
    j["version"] = 1;
    j["game"] = game;
    j["expansions"] = expansions;
    j["edition"] = edition;
    j["players"] = json::array();
    for (const auto& p : players) j["players"].push_back({{"name", p.name}, {"color", p.color}});
    j["events"] = json::array();
    for (const auto& e : events) j["events"].push_back(e.to_json());
    j["finished"] = finished;
    if (!options.empty()) j["options"] = options;
    return j;
}

Result<Record> parse_record(const json& doc, const std::string& source) {
    if (!doc.is_object()) return invalid(source, "a record must be a JSON object");
    if (!doc.contains("format") || doc["format"] != "meeplecam-record") {
        return invalid(source, "'format' must be \"meeplecam-record\"");
    }
    if (!doc.contains("version")) return invalid(source, "missing 'version'");
    if (!doc["version"].is_number_integer()) return invalid(source, "'version' must be an integer, not " + doc["version"].dump());
    if (doc["version"].get<long long>() != 1) {
        return invalid(source, "record version " + doc["version"].dump() + " is not supported (this build reads 1)");
    }
    Record r;
    if (doc.contains("game")) {
        if (!doc["game"].is_string() || !kGames.count(doc["game"].get<std::string>())) {
            return invalid(source, "'game' must be one of carcassonne, city, amazonas");
        }
        r.game = doc["game"].get<std::string>();
    }
    if (doc.contains("expansions")) {
        if (!doc["expansions"].is_array()) return invalid(source, "'expansions' must be an array of names");
        for (const auto& x : doc["expansions"]) {
            if (!x.is_string()) return invalid(source, "'expansions' must be an array of names");
            r.expansions.push_back(x.get<std::string>());
        }
        if (!r.expansions.empty() && r.game != "carcassonne") {
            return invalid(source, "'expansions' apply only to the game carcassonne");
        }
    }
    if (doc.contains("edition")) {
        if (!doc["edition"].is_string()) return invalid(source, "'edition' must be a string such as \"C3\"");
        r.edition = doc["edition"].get<std::string>();
    }
    if (!doc.contains("players") || !doc["players"].is_array() || doc["players"].empty()) {
        return invalid(source, "'players' must be a non-empty array");
    }
    for (std::size_t i = 0; i < doc["players"].size(); ++i) {
        const json& jp = doc["players"][i];
        const std::string where = source + ": players[" + std::to_string(i) + "]";
        if (!jp.is_object()) return invalid(where, "a player must be an object {name, color}");
        auto color = parse_string(jp, "color", where, true);
        if (!color) return color.error();
        auto name = parse_string(jp, "name", where, false);
        if (!name) return name.error();
        r.players.push_back(PlayerInfo{name.value().empty() ? color.value() : name.value(), color.value()});
    }
    if (!doc.contains("events") || !doc["events"].is_array()) return invalid(source, "'events' must be an array");
    for (std::size_t i = 0; i < doc["events"].size(); ++i) {
        auto e = parse_event(doc["events"][i], source + ": event " + std::to_string(i));
        if (!e) return e.error();
        r.events.push_back(std::move(e.value()));
    }
    if (auto st = check_corrections(r); !st) {
        Error e = st.error();
        e.where = source + ": " + e.where;
        return e;
    }
    if (doc.contains("options")) {
        if (!doc["options"].is_object()) return invalid(source, "'options' must be an object {module: {...}}");
        r.options = doc["options"];
    }
    if (doc.contains("finished")) {
        if (!doc["finished"].is_boolean()) return invalid(source, "'finished' must be true or false");
        r.finished = doc["finished"].get<bool>();
    }
    return r;
}

Result<Record> parse_record_text(std::string_view text, const std::string& source) {
    auto doc = parse_json_text(text, source);
    if (!doc) return doc.error();
    return parse_record(doc.value(), source);
}

Result<Record> read_record(const std::string& path) {
    auto text = read_whole_file(path);
    if (!text) return text.error();
    if (text.value().empty()) return invalid(path, "the file is empty");
    return parse_record_text(text.value(), path);
}

Status write_record(const Record& record, const std::string& path) {
    return write_file_atomically(path, record.to_json().dump(2) + "\n");
}

Result<std::shared_ptr<const Catalog>> catalog_for(const Record& record, const ReplayOptions& options) {
    if (options.catalog) return options.catalog;
    auto base = Catalog::embedded(base_catalog_name(record.game));
    if (!base) return invalid("game", "no rules for game '" + record.game + "' in this build yet");
    auto catalog = std::make_shared<Catalog>(std::move(base.value()));
    std::set<std::string> merged;  // several modules of one expansion share its catalog
    for (const auto& name : record.expansions) {
        auto modules = RuleModuleRegistry::builtin().create(name);
        if (!modules) return modules.error();
        for (const auto& module : modules.value()) {
            for (const auto& extra : module->catalogs()) {
                if (!merged.insert(extra).second) continue;
                auto more = Catalog::embedded(extra);
                if (!more) return more.error();
                if (auto st = catalog->merge(more.value()); !st) return st.error();
            }
        }
    }
    return std::shared_ptr<const Catalog>(std::move(catalog));
}

Result<Game> new_game_for(const Record& record, const ReplayOptions& options) {
    auto catalog = catalog_for(record, options);
    if (!catalog) return catalog.error();
    std::vector<std::unique_ptr<RuleModule>> modules;
    std::set<std::string> seen;
    for (auto& module : family_modules(record.game)) {  // a spin-off family's own rules (Amazonas)
        const std::string part(module->name());
        seen.insert(part);
        const nlohmann::json own = record.options.contains(part) ? record.options[part] : nlohmann::json::object();
        if (auto st = module->configure(own); !st) return st.error();
        modules.push_back(std::move(module));
    }
    for (const auto& name : record.expansions) {
        auto created = RuleModuleRegistry::builtin().create(name);
        if (!created) return created.error();
        for (auto& module : created.value()) {
            const std::string part(module->name());
            if (!seen.insert(part).second) {
                return invalid("expansions", "rule module '" + part + "' is included twice (via '" + name + "')");
            }
            const nlohmann::json own = record.options.contains(part) ? record.options[part] : nlohmann::json::object();
            if (auto st = module->configure(own); !st) return st.error();
            modules.push_back(std::move(module));
        }
    }
    if (record.game == "city") {  // a game family: its rules come as a module the record does not list
        if (record.players.size() < 2 || record.players.size() > 4) {
            return invalid("players", "the City is played by 2 to 4 players, not " + std::to_string(record.players.size()));
        }
        auto city = make_city_module();
        const nlohmann::json own = record.options.contains("city") ? record.options["city"] : nlohmann::json::object();
        if (auto st = city->configure(own); !st) return st.error();
        seen.insert("city");
        modules.push_back(std::move(city));
    }
    for (const auto& [key, value] : record.options.items()) {
        if (!seen.count(key)) return invalid("options", "options for '" + key + "', which is not in play");
    }
    GameOptions game_options;
    game_options.edition = record.edition;
    if (record.game == "amazonas") game_options.followers_per_player = 4;  // Amazonas: 4 meeples (+ 2 camps)
    game_options.check_consistency = options.check_consistency;
    return Game::create(catalog.value(), record.players, game_options, std::move(modules));
}

Result<Game> replay(const Record& record, const ReplayOptions& options) {
    if (auto st = check_corrections(record); !st) return st.error();
    auto game = new_game_for(record, options);
    if (!game) return game.error();
    for (std::size_t i = 0; i < record.events.size(); ++i) {
        if (auto st = game.value().apply(record.events[i], static_cast<int>(i)); !st) return st.error();
    }
    if (record.finished && options.apply_finish) {
        if (auto st = game.value().finish(); !st) return st.error();
    } else if (options.close_last_turn) {
        if (auto st = game.value().close_turn(); !st) return st.error();
    }
    return game;
}

}  // namespace meeplecam
