// LiveMatch: the match being played at the table — its record, the game replayed from it,
// and the journal on disk. Every confirmed event is appended to the journal (fsynced) before
// the call returns; an undo or a correction rewrites the journal atomically with the changed
// record. Plain C++ (no Qt): it lives on the match worker's thread, the window gets copies.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/game.h"
#include "engine/journal.h"
#include "engine/record.h"

namespace meeplecam::ui {

class LiveMatch {
public:
    // Starts a match from `setup` (players, game, expansions; its events, usually just the
    // start tile) and creates its journal at `journal_path`. Errors: an illegal set-up, an
    // unwritable journal.
    static Result<LiveMatch> create(Record setup, const std::string& journal_path);
    // Reopens a journal left by an earlier run: every intact event is kept, a torn or corrupt
    // tail is cut off and described in problems(). Errors: an unreadable header.
    static Result<LiveMatch> resume(const std::string& journal_path);

    LiveMatch(LiveMatch&&) noexcept;
    LiveMatch& operator=(LiveMatch&&) noexcept;
    ~LiveMatch();

    // Confirms one event: checked against the rules first; an illegal event changes nothing
    // and returns the rule it breaks (ErrorKind::Illegal).
    Status play(const Event& event);
    // Removes the last move (the last tile and everything after it). Errors when only the
    // start tile is left.
    Status undo_last_move();
    // Replaces the type or rotation of the tile at `at` (its tile event is rewritten); the whole
    // record must stay legal.
    Status correct_tile(Cell at, const std::string& tile, int rot);
    // Changes the owner (player colour) and/or the feature (port name) of the follower placed
    // at `at`; an empty colour removes it. The whole record must stay legal.
    Status correct_piece(Cell at, const std::string& colour, const std::string& loc);
    // Makes the record `record` (e.g. the tracker's): new events are appended, a changed
    // past rewrites the journal. The set-up must be the same.
    Status replace(Record record);
    // Ends the game: final scoring; the journal records it by its header (finished).
    Status finish();

    const Record& record() const { return record_; }
    // The game with the last turn still open (a follower may come), for legal moves.
    const Game& game() const { return *open_; }
    // The game with the last turn scored (and final scoring once finished), for the scoreboard.
    const Game& scored() const { return *scored_; }
    const std::string& journal_path() const { return journal_.path(); }
    // What a resumed journal lost (empty when it was intact).
    const std::vector<std::string>& problems() const { return problems_; }
    // Events written to the journal by appends, and whole rewrites, since this object began.
    int appended() const { return appended_; }
    int rewrites() const { return rewrites_; }

private:
    LiveMatch(Record record, JournalWriter journal);
    // Replays `record` both ways; fails without changing anything when it is not legal.
    Status adopt(Record record);
    // Rewrites the journal with the current record (atomic).
    Status rewrite_journal();

    Record record_;
    JournalWriter journal_;
    std::unique_ptr<Game> open_;
    std::unique_ptr<Game> scored_;
    std::vector<std::string> problems_;
    int appended_ = 0;
    int rewrites_ = 0;
};

// Returns the event index of the last tile event (the start of the last move), or -1.
int last_move_start(const Record& record);

}  // namespace meeplecam::ui
