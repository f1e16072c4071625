#include "ui/match_worker.h"

#include <QThread>

#include <chrono>

namespace meeplecam::ui {

void register_meta_types() {
    static const bool done = [] {
        qRegisterMetaType<Frame>();
        qRegisterMetaType<FrameReport>();
        qRegisterMetaType<TableCalibration>();
        qRegisterMetaType<Record>();
        qRegisterMetaType<Event>();
        qRegisterMetaType<Cell>();
        qRegisterMetaType<CellOdds>();
        qRegisterMetaType<FrameSource::State>();
        return true;
    }();
    (void)done;
}

MatchWorker::MatchWorker(QObject* parent) : QObject(parent) {}
MatchWorker::~MatchWorker() = default;

void MatchWorker::publish(const QString& what) {
    if (tracker_) {
        CellOdds odds;
        for (const auto& [cell, ranked] : tracker_->likelihoods()) {
            for (const auto& c : ranked) odds[cell].push_back({c.tile, c.rot, c.confidence});
        }
        emit likelihoods_changed(std::move(odds));
    }
    if (match_) emit match_changed(match_->record(), what);
}

void MatchWorker::report_status(const Status& st, const QString& what) {
    if (st) {
        publish(what);
    } else {
        emit refused(QString::fromStdString(st.error().to_string()));
    }
}

void MatchWorker::restart_tracker() {
    tracker_.reset();
    if (!match_ || !table_) return;
    session::TrackerOptions options;
    options.tile_mm = table_->tile_mm;
    options.gap_mm = table_->gap_mm;
    auto t = session::Tracker::create(match_->record(), options, table_->image_to_table_mm);
    if (!t) {
        emit refused(tr("the tracker cannot start: %1").arg(QString::fromStdString(t.error().to_string())));
        return;
    }
    tracker_.emplace(std::move(t.value()));
}

void MatchWorker::set_table(TableCalibration table) {
    table_ = table;
    restart_tracker();
}

void MatchWorker::start_match(Record setup, QString journal) {
    auto m = LiveMatch::create(std::move(setup), journal.toStdString());
    if (!m) {
        emit refused(QString::fromStdString(m.error().to_string()));
        return;
    }
    match_.emplace(std::move(m.value()));
    restart_tracker();
    emit match_opened(match_->record(), journal, {});
}

void MatchWorker::resume_match(QString journal) {
    auto m = LiveMatch::resume(journal.toStdString());
    if (!m) {
        emit refused(QString::fromStdString(m.error().to_string()));
        return;
    }
    match_.emplace(std::move(m.value()));
    restart_tracker();
    QStringList lost;
    for (const auto& p : match_->problems()) lost << QString::fromStdString(p);
    emit match_opened(match_->record(), journal, lost);
}

void MatchWorker::analyse_frame(Frame frame) {
    if (frame.index < latest_index_.load()) {
        ++skipped_;  // a newer frame is already queued: skip this one
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    FrameReport report;
    report.index = frame.index;
    report.captured_ns = frame.captured_ns;
    if (tracker_ && match_ && !match_->record().finished && frame.image.type() == CV_8UC3) {
        const session::TrackerUpdate up = tracker_->on_frame(frame.image);
        report.analysed = up.analysed;
        report.table_state = up.state == session::FrameState::Moving     ? tr("table: moving")
                             : up.state == session::FrameState::Occluded ? tr("table: hand over the board")
                                                                         : tr("table: still");
        for (const auto& c : up.ambiguity) report.ambiguity.push_back({c.tile, c.at, c.rot, c.confidence});
        if (up.illegal) {
            report.illegal = tr("tile %1 at [%2, %3] %4°: %5")
                                 .arg(QString::fromStdString(up.illegal->move.tile))
                                 .arg(up.illegal->move.at.x)
                                 .arg(up.illegal->move.at.y)
                                 .arg(up.illegal->move.rot * 90)
                                 .arg(QString::fromStdString(up.illegal->rule));
        }
        for (const auto& f : up.must_return) report.must_return.push_back({f.colour, f.at, f.loc});
        for (const auto& f : up.removed_by_mistake) {
            report.notes << tr("the %1 follower at [%2, %3] is gone without a scoring").arg(QString::fromStdString(f.colour)).arg(f.at.x).arg(f.at.y);
        }
        for (const auto& n : up.notes) report.notes << QString::fromStdString(n);
        report.committed = static_cast<int>(up.committed.size());
        bool chosen = false;
        if (auto_choose_ && up.analysed && !up.ambiguity.empty()) {
            if (auto st = tracker_->choose(0); st) {
                chosen = true;
                report.notes << tr("ambiguous: took the first of %1 candidates").arg(up.ambiguity.size());
            }
        }
        if (!up.committed.empty() || chosen) {
            if (auto st = match_->replace(tracker_->record()); !st) {
                emit refused(QString::fromStdString(st.error().to_string()));
            } else {
                QStringList what;
                for (const Event& e : up.committed) what << QString::fromStdString(e.to_json().dump());
                publish(tr("seen on the table: %1").arg(what.join(", ")));
            }
        }
    }
    report.analysis_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    report.skipped = skipped_;
    emit frame_analysed(report);
}

void MatchWorker::change(const std::function<Status(session::Tracker&)>& on_tracker, const std::function<Status(LiveMatch&)>& on_match,
                         const QString& what) {
    if (!match_) return emit refused(tr("no match is open"));
    if (tracker_) {
        if (auto st = on_tracker(*tracker_); !st) return emit refused(QString::fromStdString(st.error().to_string()));
        return report_status(match_->replace(tracker_->record()), what);
    }
    report_status(on_match(*match_), what);
}

void MatchWorker::play(Event event) {
    const QString what = event.type == "tile"
                             ? tr("%1 placed %2 at [%3, %4], %5°")
                                   .arg(QString::fromStdString(event.player), QString::fromStdString(event.tile))
                                   .arg(event.at.x)
                                   .arg(event.at.y)
                                   .arg(event.rot * 90)
                             : tr("%1: %2 at [%3, %4] %5")
                                   .arg(QString::fromStdString(event.player), QString::fromStdString(event.type))
                                   .arg(event.at.x)
                                   .arg(event.at.y)
                                   .arg(QString::fromStdString(event.loc));
    change([&](session::Tracker& t) { return t.record_event(event); }, [&](LiveMatch& m) { return m.play(event); }, what);
}

void MatchWorker::undo_last_move() {
    change([](session::Tracker& t) { return t.undo_last_move(); }, [](LiveMatch& m) { return m.undo_last_move(); }, tr("last move undone"));
}

void MatchWorker::correct_tile(Cell at, QString tile, int rot) {
    const std::string id = tile.toStdString();
    change([&](session::Tracker& t) { return t.correct_tile(at, id, rot); }, [&](LiveMatch& m) { return m.correct_tile(at, id, rot); },
           tr("tile at [%1, %2] corrected to %3 %4°").arg(at.x).arg(at.y).arg(tile).arg(rot * 90));
}

void MatchWorker::correct_piece(Cell at, QString colour, QString loc) {
    const std::string c = colour.toStdString(), l = loc.toStdString();
    change([&](session::Tracker& t) { return t.correct_piece(at, c, l); }, [&](LiveMatch& m) { return m.correct_piece(at, c, l); },
           colour.isEmpty() ? tr("follower at [%1, %2] removed").arg(at.x).arg(at.y)
                            : tr("follower at [%1, %2] corrected to %3 on %4").arg(at.x).arg(at.y).arg(colour, loc));
}

void MatchWorker::choose(int candidate) {
    if (!tracker_) return emit refused(tr("no ambiguity is open (no tracker runs)"));
    change([&](session::Tracker& t) { return t.choose(candidate); }, [](LiveMatch&) -> Status { return Ok{}; },
           tr("the players chose candidate %1").arg(candidate + 1));
}

void MatchWorker::finish() {
    change([](session::Tracker& t) { return t.finish(); }, [](LiveMatch& m) { return m.finish(); }, tr("game finished: final scoring"));
}

void MatchWorker::export_record(QString path) {
    if (!match_) return emit exported(path, false, tr("no match is open"));
    auto st = write_record(match_->record(), path.toStdString());
    emit exported(path, bool(st), st ? tr("record written to %1").arg(path) : QString::fromStdString(st.error().to_string()));
}

MatchThread::MatchThread() {
    register_meta_types();
    thread_ = new QThread;
    thread_->setObjectName(QStringLiteral("match"));
    worker_ = new MatchWorker;
    worker_->moveToThread(thread_);
    thread_->start();
}

MatchThread::~MatchThread() {
    stop();
    delete worker_;
    delete thread_;
}

void MatchThread::stop() {
    if (!thread_->isRunning()) return;
    thread_->quit();
    thread_->wait();
}

}  // namespace meeplecam::ui
