// Crash safety, proven by killing: a forked child writes the journal and whole files, and is
// killed with SIGKILL right after each write step (engine/write_steps.h) in turn; the parent
// then reopens what is on disk. Every event confirmed before the kill must come back, nothing
// garbled may, and a whole file is always either its old or its new content.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/atomic_file.h"
#include "engine/journal.h"
#include "engine/random_game.h"
#include "engine/write_steps.h"
#include "replay_fixtures.h"

using namespace meeplecam;

namespace {

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_crash_" + name)).string();
}

// Runs `work` in a forked child armed to die right after write step `kill_after`; returns
// true when the child was killed (false: it finished before the armed step).
bool run_killed_after(long kill_after, const std::function<void()>& work) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        write_steps::kill_after(kill_after);
        work();
        ::_exit(0);  // no Catch teardown in the child
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    if (WIFSIGNALED(status)) {
        REQUIRE(WTERMSIG(status) == SIGKILL);
        return true;
    }
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return false;
}

// One confirmed state of the journal: the write steps taken when the call returned, and the
// events the journal then holds.
struct Confirmed {
    long steps = 0;
    std::vector<Event> events;
};

std::vector<std::string> dumps(const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const Event& e : events) out.push_back(e.to_json().dump());
    return out;
}

}  // namespace

TEST_CASE("killing the journal writer at every write step loses no confirmed event", "[journal][crash]") {
    // A real game: 24 tiles of a random game.
    RandomGameOptions opt;
    opt.seed = 11;
    opt.max_tiles = 24;
    auto played = play_random_game(test::base_catalog(), opt);
    REQUIRE(played);
    const std::vector<Event> all = played->record.events;
    REQUIRE(all.size() >= 20);
    Record header = played->record;
    header.finished = false;
    header.events.assign(all.begin(), all.begin() + 3);  // the match so far when the journal starts

    // The writer's life: create, append, an undo that rewrites the journal without its last 4
    // events (as the app does), then more appends. Each confirmed call is noted.
    const std::string path = temp_path("journal.jsonl");
    auto live = [&](std::vector<Confirmed>* confirmed) {
        const long base = write_steps::taken();
        auto note = [&](const std::vector<Event>& events) {
            if (confirmed) confirmed->push_back({write_steps::taken() - base, events});
        };
        std::vector<Event> held(header.events);
        auto writer = JournalWriter::create(path, header);
        if (!writer) ::_exit(3);
        note(held);
        for (std::size_t i = 3; i < 14; ++i) {
            if (!writer->append(all[i])) ::_exit(4);
            held.push_back(all[i]);
            note(held);
        }
        held.resize(held.size() - 4);  // undo: the journal is rewritten atomically
        Record undone = header;
        undone.events = held;
        auto rewritten = JournalWriter::create(path, undone);
        if (!rewritten) ::_exit(5);
        note(held);
        for (std::size_t i = held.size(); i < all.size(); ++i) {
            if (!rewritten->append(all[i])) ::_exit(6);
            held.push_back(all[i]);
            note(held);
        }
    };

    // Count the steps and note what each confirmed call left, in this process (no kill).
    std::filesystem::remove(path);
    std::vector<Confirmed> confirmed;
    live(&confirmed);
    const long total = confirmed.back().steps;
    REQUIRE(total > 2 * static_cast<long>(all.size()));  // at least a write and an fsync per event

    int killed = 0;
    for (long k = 1; k <= total; ++k) {
        std::filesystem::remove(path);
        REQUIRE(run_killed_after(k, [&] { live(nullptr); }));
        ++killed;
        // The last call confirmed before the kill, and the one in flight.
        std::size_t last = 0;
        while (last + 1 < confirmed.size() && confirmed[last + 1].steps <= k) ++last;
        INFO("killed after write step " << k << " of " << total << "; confirmed state " << last);
        if (!std::filesystem::exists(path)) {
            // Killed before the first journal reached its name: nothing was confirmed yet.
            REQUIRE(confirmed.front().steps > k);
            continue;
        }
        auto rec = recover_journal(path);
        if (confirmed.front().steps > k && !rec) continue;  // the first header not yet complete: nothing confirmed
        REQUIRE(rec);
        const auto got = dumps(rec->record.events);
        const bool is_confirmed = got == dumps(confirmed[last].events);
        const bool is_in_flight = last + 1 < confirmed.size() && got == dumps(confirmed[last + 1].events);
        if (confirmed.front().steps > k) {
            // Before the first create returned: either nothing or the header's events.
            REQUIRE((got.empty() || got == dumps(confirmed.front().events)));
        } else {
            REQUIRE((is_confirmed || is_in_flight));
        }
        // Reopening continues cleanly after whatever survived.
        auto resumed = JournalWriter::resume(path);
        REQUIRE(resumed);
        REQUIRE(resumed->append(all.back()));
        auto again = recover_journal(path);
        REQUIRE(again);
        CHECK(again->problems.empty());
        CHECK(again->record.events.size() == got.size() + 1);
    }
    CHECK(killed == total);
    std::filesystem::remove(path);
}

TEST_CASE("killing an atomic write at every step leaves the old or the new file, whole", "[record][crash]") {
    const std::string path = temp_path("record.json");
    const std::string old_text = std::string(5000, 'o') + "\n";
    const std::string new_text = std::string(70000, 'n') + "\n";  // larger than one pipe-sized write
    auto write_new = [&] {
        if (!write_file_atomically(path, new_text)) ::_exit(3);
    };
    REQUIRE(write_file_atomically(path, old_text));
    const long before = write_steps::taken();
    write_new();
    const long total = write_steps::taken() - before;
    REQUIRE(total >= 4);  // create, write, fsync, rename (+ the folder's fsync)

    for (long k = 1; k <= total; ++k) {
        REQUIRE(write_file_atomically(path, old_text));
        REQUIRE(run_killed_after(k, write_new));
        auto text = read_whole_file(path);
        REQUIRE(text);
        INFO("killed after step " << k << " of " << total);
        REQUIRE((text.value() == old_text || text.value() == new_text));
        // Once the rename is done (the last one or two steps), the new content is what is there.
        if (k >= total - 1) CHECK(text.value() == new_text);
        // Remove the temporary file a killed writer leaves behind (it never has the target's name).
        for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
            const std::string name = entry.path().filename().string();
            if (name.rfind("." + std::filesystem::path(path).filename().string() + ".tmp-", 0) == 0) {
                std::filesystem::remove(entry.path());
            }
        }
    }
    std::filesystem::remove(path);
}
