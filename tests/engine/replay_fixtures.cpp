#include "replay_fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace meeplecam::test {

std::shared_ptr<const Catalog> base_catalog() {
    static const std::shared_ptr<const Catalog> catalog = [] {
        auto c = Catalog::embedded("carcassonne-base");
        if (!c) throw std::runtime_error(c.error().to_string());
        return std::make_shared<const Catalog>(std::move(c.value()));
    }();
    return catalog;
}

nlohmann::json tile(const std::string& player, const std::string& id, int x, int y, int rot) {
    nlohmann::json j = {{"type", "tile"}, {"tile", id}, {"at", {x, y}}, {"rot", rot}};
    if (!player.empty()) j["player"] = player;
    return j;
}

nlohmann::json meeple(const std::string& player, int x, int y, const std::string& loc) {
    return {{"type", "meeple"}, {"player", player}, {"at", {x, y}}, {"loc", loc}};
}

Record base_record(std::initializer_list<nlohmann::json> events, bool finished) {
    nlohmann::json doc = {{"format", "meeplecam-record"},
                          {"version", 1},
                          {"game", "carcassonne"},
                          {"players", {{{"name", "Ana"}, {"color", "red"}}, {{"name", "Ben"}, {"color", "blue"}}}},
                          {"finished", finished}};
    doc["events"] = nlohmann::json::array({tile("", "D", 0, 0, 0)});
    for (const auto& e : events) doc["events"].push_back(e);
    auto r = parse_record(doc, "test");
    if (!r) throw std::runtime_error(r.error().to_string());
    return r.value();
}

Record with_expansions(Record record, std::vector<std::string> expansions) {
    record.expansions = std::move(expansions);
    return record;
}

std::string replay_error(const Record& record) {
    auto g = replay(record);
    return g ? std::string() : g.error().to_string();
}

int soak_games(int full) {
    double factor = 1.0;
    if (const char* env = std::getenv("MEEPLECAM_SOAK_FACTOR"); env != nullptr && *env != '\0') {
        std::size_t used = 0;
        try {
            factor = std::stod(env, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != std::string(env).size() || !(factor > 0) || factor > 100) {
            throw std::runtime_error(std::string("MEEPLECAM_SOAK_FACTOR must be a number in (0, 100], not '") + env + "'");
        }
    }
    return std::max(10, static_cast<int>(std::lround(full * factor)));
}

std::uint64_t soak_seed_offset() {
    const char* env = std::getenv("MEEPLECAM_SOAK_SEED");
    if (env == nullptr || *env == '\0') return 0;
    std::size_t used = 0;
    unsigned long long v = 0;
    try {
        v = std::stoull(env, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != std::string(env).size()) {
        throw std::runtime_error(std::string("MEEPLECAM_SOAK_SEED must be a whole number, not '") + env + "'");
    }
    return v;
}

}  // namespace meeplecam::test
