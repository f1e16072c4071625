#include "ui/live_match.h"

#include <algorithm>

#include "engine/correction.h"
#include "engine/ports.h"

namespace meeplecam::ui {
namespace {

struct Replays {
    std::unique_ptr<Game> open;
    std::unique_ptr<Game> scored;
};

// Replays a record twice: with its last turn open (live) and closed (scored).
Result<Replays> replay_both(const Record& record) {
    ReplayOptions live;
    live.close_last_turn = false;
    live.apply_finish = false;
    auto open = replay(record, live);
    if (!open) return open.error();
    auto scored = replay(record);
    if (!scored) return scored.error();
    return Replays{std::make_unique<Game>(std::move(open.value())), std::make_unique<Game>(std::move(scored.value()))};
}

bool same_setup(const Record& a, const Record& b) {
    if (a.game != b.game || a.expansions != b.expansions || a.edition != b.edition || a.options != b.options) return false;
    if (a.players.size() != b.players.size()) return false;
    for (std::size_t i = 0; i < a.players.size(); ++i) {
        if (a.players[i].name != b.players[i].name || a.players[i].color != b.players[i].color) return false;
    }
    return true;
}

bool same_event(const Event& a, const Event& b) { return a.to_json() == b.to_json(); }

}  // namespace

int last_move_start(const Record& record) {
    for (int i = static_cast<int>(record.events.size()) - 1; i >= 0; --i) {
        if (record.events[static_cast<std::size_t>(i)].type == "tile") return i;
    }
    return -1;
}

LiveMatch::LiveMatch(Record record, JournalWriter journal) : record_(std::move(record)), journal_(std::move(journal)) {}
LiveMatch::LiveMatch(LiveMatch&&) noexcept = default;
LiveMatch& LiveMatch::operator=(LiveMatch&&) noexcept = default;
LiveMatch::~LiveMatch() = default;

Result<LiveMatch> LiveMatch::create(Record setup, const std::string& journal_path) {
    auto games = replay_both(setup);
    if (!games) return games.error();
    auto journal = JournalWriter::create(journal_path, setup);
    if (!journal) return journal.error();
    LiveMatch m(std::move(setup), std::move(journal.value()));
    m.open_ = std::move(games->open);
    m.scored_ = std::move(games->scored);
    return m;
}

Result<LiveMatch> LiveMatch::resume(const std::string& journal_path) {
    auto recovered = recover_journal(journal_path);
    if (!recovered) return recovered.error();
    // Keep the longest legal prefix: a journal only ever holds confirmed (legal) events, but a
    // hand-edited or foreign one may not.
    Record record = recovered->record;
    std::vector<std::string> problems = recovered->problems;
    auto games = replay_both(record);
    while (!games && !record.events.empty()) {
        problems.push_back("event " + std::to_string(record.events.size() - 1) + " dropped: " + games.error().to_string());
        record.events.pop_back();
        games = replay_both(record);
    }
    if (!games) return games.error();
    auto journal = JournalWriter::resume(journal_path);
    if (!journal) return journal.error();
    LiveMatch m(std::move(record), std::move(journal.value()));
    m.open_ = std::move(games->open);
    m.scored_ = std::move(games->scored);
    m.problems_ = std::move(problems);
    if (m.journal_.events() != static_cast<int>(m.record_.events.size())) {
        if (auto st = m.rewrite_journal(); !st) return st.error();
    }
    return m;
}

Status LiveMatch::adopt(Record record) {
    auto games = replay_both(record);
    if (!games) return games.error();
    record_ = std::move(record);
    open_ = std::move(games->open);
    scored_ = std::move(games->scored);
    return Ok{};
}

Status LiveMatch::rewrite_journal() {
    auto journal = JournalWriter::create(journal_.path(), record_);
    if (!journal) return journal.error();
    journal_ = std::move(journal.value());
    ++rewrites_;
    return Ok{};
}

Status LiveMatch::play(const Event& event) {
    if (record_.finished) return illegal("event " + std::to_string(record_.events.size()), "the game is over");
    Record next = record_;
    next.events.push_back(event);
    if (auto st = adopt(std::move(next)); !st) return st;
    if (auto st = journal_.append(event); !st) return st;
    ++appended_;
    return Ok{};
}

Status LiveMatch::undo_last_move() {
    const int start = last_move_start(record_);
    if (start <= 0) return invalid("undo", "no move to undo (only the start tile is on the board)");
    Record next = record_;
    truncate_events(next, static_cast<std::size_t>(start));
    next.finished = false;
    if (auto st = adopt(std::move(next)); !st) return st;
    return rewrite_journal();
}

Status LiveMatch::correct_tile(Cell at, const std::string& tile, int rot) {
    Record next = record_;
    if (auto st = correct_tile_event(next, at, tile, rot); !st) return st;
    if (auto st = adopt(std::move(next)); !st) {
        return Error{st.error().kind, "correction of the tile at " + to_string(at), st.error().to_string()};
    }
    return rewrite_journal();
}

Status LiveMatch::correct_piece(Cell at, const std::string& colour, const std::string& loc) {
    Record next = record_;
    if (auto st = correct_follower_event(next, at, colour, loc); !st) return st;
    if (auto st = adopt(std::move(next)); !st) {
        return Error{st.error().kind, "correction of the follower at " + to_string(at), st.error().to_string()};
    }
    return rewrite_journal();
}

Status LiveMatch::replace(Record record) {
    if (!same_setup(record, record_)) return invalid("replace", "the record belongs to another set-up");
    std::size_t common = 0;
    while (common < record.events.size() && common < record_.events.size() &&
           same_event(record.events[common], record_.events[common])) {
        ++common;
    }
    const bool extends = common == record_.events.size() && record.finished == record_.finished;
    const std::size_t old_size = record_.events.size();
    if (auto st = adopt(std::move(record)); !st) return st;
    if (!extends) return rewrite_journal();
    for (std::size_t i = old_size; i < record_.events.size(); ++i) {
        if (auto st = journal_.append(record_.events[i]); !st) return st;
        ++appended_;
    }
    return Ok{};
}

Status LiveMatch::finish() {
    if (record_.finished) return Ok{};
    Record next = record_;
    next.finished = true;
    if (auto st = adopt(std::move(next)); !st) return st;
    return rewrite_journal();
}

}  // namespace meeplecam::ui
