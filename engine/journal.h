// Journal: the autosave of a live match — every confirmed event appended and fsynced at once,
// so a crash or power loss loses nothing confirmed; recovery keeps every intact event.
#pragma once

#include <string>
#include <vector>

#include "engine/record.h"

namespace meeplecam {

// Format (JSON Lines, UTF-8): line 1 {"format": "meeplecam-journal", "version": 1, "record": {record
// header: game, expansions, edition, players, options}}; then one line per event
// {"seq": n, "event": {...}, "crc": "%08x"} where crc is the CRC-32 of the event's compact JSON.
class JournalWriter {
public:
    // Creates (or replaces) a journal holding `header`'s set-up and its events so far.
    static Result<JournalWriter> create(const std::string& path, const Record& header);
    // Reopens a recovered journal to continue appending after its last intact event (a torn
    // tail is cut off first).
    static Result<JournalWriter> resume(const std::string& path);
    JournalWriter(JournalWriter&& other) noexcept;
    JournalWriter& operator=(JournalWriter&& other) noexcept;
    JournalWriter(const JournalWriter&) = delete;
    ~JournalWriter();

    // Appends one event and fsyncs; returns only when the event is on disk.
    Status append(const Event& event);
    int events() const { return next_seq_; }
    const std::string& path() const { return path_; }

private:
    JournalWriter(std::string path, int fd, int next_seq) : path_(std::move(path)), fd_(fd), next_seq_(next_seq) {}
    std::string path_;
    int fd_ = -1;
    int next_seq_ = 0;
};

struct JournalRecovery {
    Record record;                      // the set-up and every intact event, in order
    std::size_t intact_bytes = 0;       // length of the intact prefix of the file
    std::vector<std::string> problems;  // what was lost and where ("line 9: ...")
};

// Reads a journal back: every intact event up to the first torn or corrupt line. Fails only
// when the header itself is unreadable (nothing can be recovered then).
Result<JournalRecovery> recover_journal(const std::string& path);

// Returns the CRC-32 (IEEE) of `data`.
std::uint32_t crc32(std::string_view data);

}  // namespace meeplecam
