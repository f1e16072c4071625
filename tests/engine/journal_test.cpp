#include <catch2/catch.hpp>

#include <filesystem>

#include <unistd.h>
#include <fstream>

#include "engine/atomic_file.h"
#include "engine/journal.h"
#include "engine/random_game.h"
#include "engine/score_sheet.h"
#include "replay_fixtures.h"

using namespace meeplecam;

namespace {

// A file name unique to this process (test runs in other checkouts must not collide), removed
// when the test ends, so test runs leave nothing behind in the temporary directory.
class TempFile {
public:
    explicit TempFile(const char* name)
        : path_((std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name)).string()) {}
    ~TempFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

void write_bytes(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST_CASE("CRC-32 matches the IEEE check value", "[journal]") {
    CHECK(crc32("123456789") == 0xCBF43926u);
    CHECK(crc32("") == 0u);
}

TEST_CASE("a crash at every byte of the journal loses nothing confirmed", "[journal]") {
    // A real game: 30 tiles of a random game, journaled event by event.
    RandomGameOptions opt;
    opt.seed = 7;
    opt.max_tiles = 30;
    auto played = play_random_game(test::base_catalog(), opt);
    REQUIRE(played);
    Record header = played->record;
    const std::vector<Event> events = header.events;
    header.events.clear();
    header.finished = false;

    const TempFile path_file("meeplecam_journal_test.jsonl");
    const std::string& path = path_file.path();
    std::vector<std::size_t> confirmed_at;  // file size once each event was confirmed
    {
        auto writer = JournalWriter::create(path, header);
        REQUIRE(writer);
        confirmed_at.push_back(std::filesystem::file_size(path));
        for (const Event& e : events) {
            REQUIRE(writer->append(e));
            confirmed_at.push_back(std::filesystem::file_size(path));
        }
    }
    const std::string full = read_whole_file(path).value();
    REQUIRE(full.size() == confirmed_at.back());

    // Simulate the writer dying after every byte: the recovered events are exactly those confirmed.
    const TempFile crashed_file("meeplecam_journal_crash.jsonl");
    const std::string& crashed = crashed_file.path();
    for (std::size_t len = confirmed_at.front(); len <= full.size(); ++len) {
        write_bytes(crashed, std::string_view(full).substr(0, len));
        auto rec = recover_journal(crashed);
        REQUIRE(rec);
        std::size_t confirmed = 0;
        while (confirmed + 1 < confirmed_at.size() && confirmed_at[confirmed + 1] <= len) ++confirmed;
        REQUIRE(rec->record.events.size() == confirmed);
        REQUIRE(rec->problems.size() == (len == confirmed_at[confirmed] ? 0u : 1u));
    }
    // The fully recovered journal replays to the same score sheet as the game.
    auto rec = recover_journal(path);
    REQUIRE(rec);
    rec->record.finished = true;
    auto game = replay(rec->record);
    REQUIRE(game);
    CHECK(score_sheet_json(game.value()) == score_sheet_json(played->game));

    // Resuming after a torn tail cuts it and appends cleanly.
    write_bytes(crashed, std::string_view(full).substr(0, confirmed_at[10] + 7));
    {
        auto writer = JournalWriter::resume(crashed);
        REQUIRE(writer);
        CHECK(writer->events() == 10);
        REQUIRE(writer->append(events[10]));
    }
    auto resumed = recover_journal(crashed);
    REQUIRE(resumed);
    CHECK(resumed->problems.empty());
    CHECK(resumed->record.events.size() == 11);
}

TEST_CASE("a damaged journal recovers every intact event and says what was lost", "[journal][bad-input]") {
    Record header = test::base_record({test::tile("red", "U", 1, 0, 90), test::tile("blue", "U", -1, 0, 90),
                                       test::tile("red", "V", 2, 0, 0)});
    const TempFile path_file("meeplecam_journal_damaged.jsonl");
    const std::string& path = path_file.path();
    REQUIRE(JournalWriter::create(path, header));
    std::string text = read_whole_file(path).value();
    // Flip one character inside the third event's line (line 4: seq 2).
    std::size_t line4 = 0;
    for (int i = 0; i < 3; ++i) line4 = text.find('\n', line4) + 1;
    const std::size_t at = text.find("\"U\"", line4);
    REQUIRE(at != std::string::npos);
    text[at + 1] = 'W';
    write_bytes(path, text);
    auto rec = recover_journal(path);
    REQUIRE(rec);
    CHECK(rec->record.events.size() == 2);
    REQUIRE(rec->problems.size() == 1);
    CHECK_THAT(rec->problems[0], Catch::Contains("line 4") && Catch::Contains("checksum mismatch") &&
                                     Catch::Contains("1 line(s) after it are ignored"));

    write_bytes(path, "not a journal\n");
    CHECK_FALSE(recover_journal(path));
    write_bytes(path, "");
    auto empty = recover_journal(path);
    REQUIRE_FALSE(empty);
    CHECK_THAT(empty.error().message, Catch::Contains("no complete header line"));
}
