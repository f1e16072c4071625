#include "ui/match_worker.h"

#include <QThread>

#include <chrono>

namespace meeplecam::ui {

void register_meta_types() {
    static const bool done = [] {
        qRegisterMetaType<Frame>();
        qRegisterMetaType<FrameReport>();
        qRegisterMetaType<Record>();
        qRegisterMetaType<Event>();
        qRegisterMetaType<Cell>();
        qRegisterMetaType<FrameSource::State>();
        return true;
    }();
    (void)done;
}

MatchWorker::MatchWorker(QObject* parent) : QObject(parent) {}
MatchWorker::~MatchWorker() = default;

void MatchWorker::publish(const QString& what) {
    if (match_) emit match_changed(match_->record(), what);
}

void MatchWorker::report_status(const Status& st, const QString& what) {
    if (st) {
        publish(what);
    } else {
        emit refused(QString::fromStdString(st.error().to_string()));
    }
}

void MatchWorker::start_match(Record setup, QString journal) {
    auto m = LiveMatch::create(std::move(setup), journal.toStdString());
    if (!m) {
        emit refused(QString::fromStdString(m.error().to_string()));
        return;
    }
    match_.emplace(std::move(m.value()));
    emit match_opened(match_->record(), journal, {});
}

void MatchWorker::resume_match(QString journal) {
    auto m = LiveMatch::resume(journal.toStdString());
    if (!m) {
        emit refused(QString::fromStdString(m.error().to_string()));
        return;
    }
    match_.emplace(std::move(m.value()));
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
    report.analysis_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    report.skipped = skipped_;
    emit frame_analysed(report);
}

void MatchWorker::play(Event event) {
    if (!match_) return emit refused(tr("no match is open"));
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
    report_status(match_->play(event), what);
}

void MatchWorker::undo_last_move() {
    if (!match_) return emit refused(tr("no match is open"));
    report_status(match_->undo_last_move(), tr("last move undone"));
}

void MatchWorker::correct_tile(Cell at, QString tile, int rot) {
    if (!match_) return emit refused(tr("no match is open"));
    report_status(match_->correct_tile(at, tile.toStdString(), rot),
                  tr("tile at [%1, %2] corrected to %3 %4°").arg(at.x).arg(at.y).arg(tile).arg(rot * 90));
}

void MatchWorker::correct_piece(Cell at, QString colour, QString loc) {
    if (!match_) return emit refused(tr("no match is open"));
    report_status(match_->correct_piece(at, colour.toStdString(), loc.toStdString()),
                  colour.isEmpty() ? tr("follower at [%1, %2] removed").arg(at.x).arg(at.y)
                                   : tr("follower at [%1, %2] corrected to %3 on %4").arg(at.x).arg(at.y).arg(colour, loc));
}

void MatchWorker::choose(int candidate) {
    (void)candidate;
    emit refused(tr("no ambiguity is open"));
}

void MatchWorker::finish() {
    if (!match_) return emit refused(tr("no match is open"));
    report_status(match_->finish(), tr("game finished: final scoring"));
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
