// LiveMatch: every confirmed event is on disk at once; a crash mid-game loses nothing
// confirmed; a corrupt journal gives back every intact event; undo and corrections rewrite it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/journal.h"
#include "ui/live_match.h"

using namespace meeplecam;
namespace fs = std::filesystem;

namespace {

Record golden(const char* name) {
    std::ifstream in(std::string(MEEPLECAM_SOURCE_DIR) + "/tests/golden/" + name);
    auto r = parse_record(nlohmann::json::parse(in).at("record"), name);
    REQUIRE(r);
    return r.value();
}

std::string temp_path(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / "meeplecam_live_match_test";
    fs::create_directories(dir);
    const fs::path p = dir / name;
    fs::remove(p);
    return p.string();
}

// The record's set-up with only its first `events` events.
Record prefix(const Record& r, std::size_t events) {
    Record out = r;
    out.events.resize(events);
    out.finished = false;
    return out;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool same_events(const Record& a, const Record& b) {
    if (a.events.size() != b.events.size()) return false;
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        if (a.events[i].to_json() != b.events[i].to_json()) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("a live match journals every event at once and resumes after a crash with nothing lost", "[ui][journal]") {
    const Record full = golden("15_long_mixed_game.json");
    REQUIRE(full.events.size() == 30);
    const std::string journal = temp_path("crash.journal");
    auto match = ui::LiveMatch::create(prefix(full, 1), journal);
    REQUIRE(match);
    // Play up to the middle of the game; after every event the file already holds it.
    for (std::size_t i = 1; i < 17; ++i) {
        REQUIRE(match->play(full.events[i]));
        auto on_disk = recover_journal(journal);
        REQUIRE(on_disk);
        CHECK(on_disk->record.events.size() == i + 1);
        CHECK(on_disk->problems.empty());
    }
    // The crash: the process dies here. Take the file as it is now (a copy, as a power cut
    // would leave it) and resume from it in a fresh object.
    const std::string crashed = temp_path("crash-copy.journal");
    fs::copy_file(journal, crashed);
    auto resumed = ui::LiveMatch::resume(crashed);
    REQUIRE(resumed);
    CHECK(resumed->problems().empty());
    CHECK(same_events(resumed->record(), prefix(full, 17)));
    CHECK(resumed->game().scores() == match->game().scores());
    // Finish the game from the resumed journal: the hand-checked final score.
    for (std::size_t i = 17; i < full.events.size(); ++i) REQUIRE(resumed->play(full.events[i]));
    REQUIRE(resumed->finish());
    CHECK(resumed->scored().scores() == std::vector<int>{31, 37});
    auto again = recover_journal(crashed);
    REQUIRE(again);
    CHECK(again->record.finished);
    CHECK(same_events(again->record, full));
}

TEST_CASE("a corrupt journal gives back every intact event and says what was lost", "[ui][journal]") {
    const Record full = golden("15_long_mixed_game.json");
    const std::string journal = temp_path("corrupt.journal");
    {
        auto match = ui::LiveMatch::create(prefix(full, 1), journal);
        REQUIRE(match);
        for (std::size_t i = 1; i < 12; ++i) REQUIRE(match->play(full.events[i]));
    }
    // Flip one character inside line 9 (the header is line 1): event 7, blue's B at [0, 1].
    std::string text = slurp(journal);
    std::size_t line_start = 0;
    for (int l = 0; l < 8; ++l) line_start = text.find('\n', line_start) + 1;
    const std::size_t digit = text.find("\"at\":[", line_start) + 6;
    text[digit] = text[digit] == '1' ? '2' : '1';
    std::ofstream(journal, std::ios::binary | std::ios::trunc) << text;

    auto resumed = ui::LiveMatch::resume(journal);
    REQUIRE(resumed);
    CHECK(same_events(resumed->record(), prefix(full, 7)));  // events 0..6 intact
    REQUIRE_FALSE(resumed->problems().empty());
    CHECK(resumed->problems().front().find("line 9") != std::string::npos);
    // The cut journal goes on: the lost event is played again and appended after the intact ones.
    REQUIRE(resumed->play(full.events[7]));
    auto on_disk = recover_journal(journal);
    REQUIRE(on_disk);
    CHECK(on_disk->problems.empty());
    CHECK(same_events(on_disk->record, prefix(full, 8)));
}

TEST_CASE("an illegal move is refused with its rule and never journaled", "[ui][journal]") {
    const Record full = golden("15_long_mixed_game.json");
    const std::string journal = temp_path("illegal.journal");
    auto match = ui::LiveMatch::create(prefix(full, 3), journal);
    REQUIRE(match);
    Event bad = full.events[3];  // blue's V, put on the start tile's cell
    bad.at = {0, 0};
    bad.raw["at"] = {0, 0};
    auto st = match->play(bad);
    REQUIRE_FALSE(st);
    CHECK(st.error().kind == ErrorKind::Illegal);
    CHECK(match->record().events.size() == 3);
    auto on_disk = recover_journal(journal);
    REQUIRE(on_disk);
    CHECK(on_disk->record.events.size() == 3);
}

TEST_CASE("undo and corrections rewrite the journal with the changed record", "[ui][journal]") {
    const Record full = golden("15_long_mixed_game.json");
    const std::string journal = temp_path("undo.journal");
    auto match = ui::LiveMatch::create(prefix(full, 5), journal);
    REQUIRE(match);
    // Undo removes red's X (event 5 would be next; the last move is blue's V + follower).
    REQUIRE(match->undo_last_move());
    CHECK(match->record().events.size() == 3);
    CHECK(same_events(recover_journal(journal)->record, prefix(full, 3)));
    // Correct the tile red placed at [0, -1]: Q 180 -> R 180 (also a city on three sides).
    REQUIRE(match->correct_tile({0, -1}, "R", 2));
    CHECK(match->record().events[1].tile == "R");
    CHECK(recover_journal(journal)->record.events[1].tile == "R");
    // A correction that breaks the rules is refused and changes nothing.
    auto bad = match->correct_tile({0, -1}, "B", 0);  // a monastery in fields: its S side faces D's city
    REQUIRE_FALSE(bad);
    CHECK(match->record().events[1].tile == "R");
    // Re-colour the follower on [0, -1]: the owner is now blue.
    auto recoloured = match->correct_piece({0, -1}, "blue", "S");
    REQUIRE_FALSE(recoloured);  // red placed the tile: only red may put a follower on it
    REQUIRE(match->correct_piece({0, -1}, "", ""));  // removing it is allowed
    // D, R (corrected), and the two corrections: the tile's (naming event 1) and the follower's removal (it stood at 2).
    REQUIRE(match->record().events.size() == 4);
    CHECK(match->record().events[2].to_json()["event"] == 1);
    CHECK(match->record().events[3].to_json()["now"].is_null());
    CHECK(same_events(recover_journal(journal)->record, match->record()));
    // The journal resumes to the same record (the corrections agree with it).
    auto resumed = ui::LiveMatch::resume(journal);
    REQUIRE(resumed);
    CHECK(resumed->problems().empty());
    CHECK(same_events(resumed->record(), match->record()));
    CHECK(match->undo_last_move());
    CHECK_FALSE(match->undo_last_move());  // only the start tile is left
}
