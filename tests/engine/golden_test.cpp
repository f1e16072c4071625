// Golden replays: whole games with hand-checked scores (tests/golden/*.json). A golden may also list
// refused moves ("expect": {"refused": [{"after": N, "event": {...}, "error": "..."}]}): the record's
// first N events followed by that event must stop the replay as an illegal move at event N, with a
// message containing "error".
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "engine/atomic_file.h"
#include "engine/modules/amazonas.h"
#include "engine/record.h"
#include "engine/score_sheet.h"

using namespace meeplecam;
using nlohmann::json;

namespace {

// True when every field given in `expected` equals the engine's event (winners as a set).
bool matches(const json& expected, const json& actual) {
    for (const auto& [key, value] : expected.items()) {
        if (!actual.contains(key)) return false;
        if (key == "winners") {
            auto a = value.get<std::vector<std::string>>();
            auto b = actual[key].get<std::vector<std::string>>();
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            if (a != b) return false;
        } else if (actual[key] != value) {
            return false;
        }
    }
    return true;
}

std::vector<std::filesystem::path> golden_files() {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(std::string(MEEPLECAM_SOURCE_DIR) + "/tests/golden")) {
        if (e.path().extension() == ".json") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace

TEST_CASE("golden replays give the hand-checked scores and score events", "[golden]") {
    const auto files = golden_files();
    CHECK(files.size() >= 15);
    // Issues 7 and 8: at least 20 hand-checked replays each for The City and Amazonas
    // (listed in docs/rules/city.md and docs/rules/amazonas.md).
    auto count_prefix = [&](const std::string& prefix) {
        return std::count_if(files.begin(), files.end(), [&](const std::filesystem::path& p) { return p.filename().string().rfind(prefix, 0) == 0; });
    };
    CHECK(count_prefix("city_") >= 20);
    CHECK(count_prefix("amazonas_") >= 20);
    for (const auto& path : files) {
        DYNAMIC_SECTION(path.filename().string()) {
            auto text = read_whole_file(path.string());
            REQUIRE(text);
            const json doc = json::parse(text.value());
            auto record = parse_record(doc.at("record"), path.string());
            REQUIRE(record);
            auto game = replay(record.value());
            if (!game) FAIL(game.error().to_string());
            const json sheet = score_sheet_json(game.value());
            INFO(doc.value("title", ""));
            INFO("engine: " << sheet.dump(1));
            CHECK(sheet["scores"] == doc.at("expect").at("scores"));
            std::vector<bool> used(sheet["events"].size(), false);
            for (const auto& want : doc.at("expect").at("events")) {
                bool found = false;
                for (std::size_t i = 0; i < used.size() && !found; ++i) {
                    if (!used[i] && matches(want, sheet["events"][i])) used[i] = found = true;
                }
                INFO("expected event: " << want.dump());
                CHECK(found);
            }
            CHECK(sheet["events"].size() == doc.at("expect").at("events").size());
            // Refused moves: the record's first `after` events, then `event`, must stop the replay
            // as an illegal move (exit 3) at that event with a message naming the rule.
            for (const auto& refused : doc.at("expect").value("refused", json::array())) {
                json cut = doc.at("record");
                const auto after = refused.at("after").get<std::size_t>();
                REQUIRE(after <= cut["events"].size());
                cut["events"] = json(std::vector<json>(cut["events"].begin(), cut["events"].begin() + static_cast<long>(after)));
                cut["events"].push_back(refused.at("event"));
                cut["finished"] = false;
                auto cut_record = parse_record(cut, path.string());
                REQUIRE(cut_record);
                auto refused_game = replay(cut_record.value());
                INFO("refused move: " << refused.dump());
                REQUIRE_FALSE(refused_game);
                CHECK(refused_game.error().kind == ErrorKind::Illegal);
                CHECK_THAT(refused_game.error().to_string(),
                           Catch::Contains("event " + std::to_string(after)) &&
                               Catch::Contains(refused.at("error").get<std::string>()));
            }
            const auto& players = game.value().players();
            const AmazonasModule* amazonas = nullptr;
            for (const auto& m : game.value().modules()) {
                if (!amazonas) amazonas = dynamic_cast<const AmazonasModule*>(m.get());
            }
            if (doc.at("expect").contains("boats")) {  // Amazonas: boat positions at the end
                REQUIRE(amazonas);
                json boats = json::object();
                for (std::size_t p = 0; p < players.size(); ++p) boats[players[p].color] = amazonas->boats()[p];
                CHECK(boats == doc.at("expect").at("boats"));
            }
            if (doc.at("expect").contains("boat_moves")) {  // Amazonas: every move, in order, with its turn's event
                REQUIRE(amazonas);
                json moves = json::array();
                for (const auto& m : amazonas->boat_moves()) {
                    moves.push_back({{"event", m.event_index}, {"player", players[static_cast<std::size_t>(m.player)].color},
                                     {"from", m.from}, {"to", m.to}});
                }
                CHECK(moves == doc.at("expect").at("boat_moves"));
            }
        }
    }
}
