#include "ui/match_worker.h"

#include <QThread>

#include <chrono>
#include <filesystem>
#include <system_error>
#include <utility>

#include "engine/journal.h"
#include "session/draw_zone.h"
#include "session/start_tile.h"
#include "vision/piece_detector.h"
#include "ui/worker_thread.h"

namespace meeplecam::ui {
namespace {

// Softmax scales of the follower correction menu: a feature 3 mm further from the blob the
// tracker saw is e times less likely; so is a player colour 10 Lab units further from its colour.
constexpr double kFeatureScaleMm = 3.0;
constexpr double kColourScaleLab = 10.0;

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

void register_meta_types() {
    static const bool done = [] {
        qRegisterMetaType<Frame>();
        qRegisterMetaType<FrameReport>();
        qRegisterMetaType<TableCalibration>();
        qRegisterMetaType<calibration::Calibration>();
        qRegisterMetaType<Record>();
        qRegisterMetaType<Event>();
        qRegisterMetaType<Cell>();
        qRegisterMetaType<CellOdds>();
        qRegisterMetaType<CorrectionChoices>();
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
    // A plane from the start tile alone drifts away from it: refit it as tiles come down.
    options.refit_plane = calibration_ && calibration_->table && calibration_->table->source == "start-tile";
    if (frame_colours_.calibrated) options.piece_colours = frame_colours_.models;
    auto t = session::Tracker::create(match_->record(), options, table_->image_to_table_mm);
    if (!t) {
        emit refused(tr("the tracker cannot start: %1").arg(QString::fromStdString(t.error().to_string())));
        return;
    }
    tracker_.emplace(std::move(t.value()));
}

void MatchWorker::set_table(TableCalibration table) {
    table_ = table;
    table_given_ = true;
    restart_tracker();
}

void MatchWorker::set_calibration(calibration::Calibration calibration) {
    calibration_ = std::move(calibration);
    undistorter_.reset();
    // Calibrated player colours hold after the file's white balance: frames get it too.
    frame_colours_ = calibration::FrameColours{};
    if (auto found = calibration::frame_colours_of(*calibration_)) {
        frame_colours_ = std::move(found).value();
    } else {
        emit refused(tr("calibration colours not used (daylight colours instead): %1").arg(QString::fromStdString(found.error().to_string())));
    }
    next_locate_ns_ = 0;
    if (table_given_) return;
    table_.reset();
    tracker_.reset();
}

const vision::TileClassifier* MatchWorker::classifier_for_match(FrameReport& report) {
    const Record& record = match_->record();
    std::string key = record.game + "|" + record.edition;
    for (const auto& e : record.expansions) key += "|" + e;
    if (classifier_ && key == classifier_key_) return &*classifier_;
    auto catalog = catalog_for(record);
    if (!catalog) {
        report.notes << tr("calibrated table: %1").arg(QString::fromStdString(catalog.error().to_string()));
        return nullptr;
    }
    auto c = vision::TileClassifier::create(*catalog.value());
    if (!c) {
        report.notes << tr("calibrated table: %1").arg(QString::fromStdString(c.error().to_string()));
        return nullptr;
    }
    classifier_.emplace(std::move(c.value()));
    classifier_catalog_ = catalog.value();  // the classifier keeps the catalog's tile types
    classifier_key_ = key;
    return &*classifier_;
}

void MatchWorker::set_draw_zone(QRectF zone_mm) {
    draw_zone_mm_ = zone_mm;
    zone_tile_.clear();
    next_zone_ns_ = 0;
}

void MatchWorker::read_draw_zone(const cv::Mat& frame, std::int64_t captured_ns, FrameReport& report) {
    if (captured_ns < next_zone_ns_) return;
    next_zone_ns_ = captured_ns + 500'000'000;
    const vision::TileClassifier* classifier = classifier_for_match(report);
    if (!classifier) return;
    const std::string where = "frame " + std::to_string(report.index);
    auto h = calibration::image_to_table_for_size(*calibration_->table, frame.size(), where);
    if (!h) {
        report.notes << tr("draw zone: %1").arg(QString::fromStdString(h.error().to_string()));
        return;
    }
    session::DrawZoneOptions options;
    options.zone_mm = {draw_zone_mm_.x(), draw_zone_mm_.y(), draw_zone_mm_.width(), draw_zone_mm_.height()};
    auto seen = session::read_draw_zone(frame, h.value(), *classifier, options, where);
    if (!seen) {
        report.notes << tr("draw zone: %1").arg(QString::fromStdString(seen.error().to_string()));
        return;
    }
    const QString tile = seen->has_value() ? QString::fromStdString((*seen)->tile) : QString();
    if (tile == zone_tile_) return;
    zone_tile_ = tile;
    emit drawn_tile_seen(tile, seen->has_value() ? (*seen)->confidence : 0.0);
}

bool MatchWorker::locate_table(const cv::Mat& frame, std::int64_t captured_ns, FrameReport& report) {
    if (captured_ns < next_locate_ns_) return false;
    next_locate_ns_ = captured_ns + 1'000'000'000;
    const vision::TileClassifier* classifier = classifier_for_match(report);
    if (!classifier) return true;
    session::StartTileOptions options;
    if (!draw_zone_mm_.isEmpty()) options.ignore_mm = {draw_zone_mm_.x(), draw_zone_mm_.y(), draw_zone_mm_.width(), draw_zone_mm_.height()};
    auto fix = session::locate_start_tile(frame, *calibration_, match_->record(), *classifier_catalog_, *classifier, options,
                                          "frame " + std::to_string(report.index));
    if (!fix) {
        report.notes << tr("calibrated table: %1").arg(QString::fromStdString(fix.error().to_string()));
        return true;
    }
    TableCalibration table;
    table.image_to_table_mm = fix->image_to_board_mm;
    table.tile_mm = options.tile_mm;
    table_ = table;
    restart_tracker();
    const QString what = tr("start tile found at (%1, %2) mm on the calibrated table, turned %3°: the camera reads the moves now")
                             .arg(fix->centre_mm.x, 0, 'f', 0)
                             .arg(fix->centre_mm.y, 0, 'f', 0)
                             .arg(fix->turn_deg, 0, 'f', 1);
    report.notes << what;
    emit table_found(table, what);
    return true;
}

void MatchWorker::start_tracker_from(const cv::Mat& frame) {
    // The tracker takes the table as it is at its first settled frame (stable_frames still
    // frames in a row): the same frame that many times is that, so its confirmed look is the
    // lone start tile of the search and a tile put down while the search ran is a move.
    for (int i = 0; i < tracker_->options().stable_frames; ++i) tracker_->on_frame(frame);
}

void MatchWorker::start_match(Record setup, QString journal) {
    const std::string path = journal.toStdString();
    std::error_code exists_error;
    if (std::filesystem::exists(path, exists_error)) {
        auto previous = recover_journal(path);
        if (previous && !previous->record.finished && previous->record.events.size() > 1) {
            std::error_code ec;
            std::filesystem::rename(path, path + ".previous", ec);  // atomic; the open match's writer follows the file
            if (ec) return emit refused(tr("%1: the unfinished match there cannot be kept aside (%2); no new match started")
                                            .arg(journal, QString::fromStdString(ec.message())));
            emit previous_match_kept(journal + ".previous", static_cast<int>(previous->record.events.size()));
        }
    }
    auto m = LiveMatch::create(std::move(setup), path);
    if (!m) {
        emit refused(QString::fromStdString(m.error().to_string()));
        return;
    }
    match_.emplace(std::move(m.value()));
    if (calibration_ && !table_given_) table_.reset();  // a new match: the start tile is put down anew
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
    if (cancelled_.load()) return;
    if (frame.index < latest_index_.load()) {
        ++skipped_;  // a newer frame is already queued: skip this one
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    FrameReport report;
    report.index = frame.index;
    report.captured_ns = frame.captured_ns;
    cv::Mat image = frame.image;
    if (calibration_ && calibration::undistorts_frames(*calibration_) && !image.empty()) {
        if (!undistorter_ || undistorter_->size() != image.size()) {
            auto u = calibration::FrameUndistorter::create(*calibration_->camera, image.size(), "frame " + std::to_string(frame.index));
            if (u) {
                undistorter_.emplace(std::move(u.value()));
            } else {
                undistorter_.reset();
                report.notes << tr("calibration: %1").arg(QString::fromStdString(u.error().to_string()));
                image = cv::Mat();
            }
        }
        if (undistorter_) image = undistorter_->apply(image);
        report.undistort_ms = ms_since(t0);
    }
    image = frame_colours_.balance(image);
    if (cancelled_.load()) return;
    if (!table_ && calibration_ && match_ && !match_->record().finished && image.type() == CV_8UC3) {
        const auto ts = std::chrono::steady_clock::now();
        if (locate_table(image, frame.captured_ns, report)) report.search_ms = ms_since(ts);
        if (tracker_) start_tracker_from(image);
    }
    if (cancelled_.load()) return;
    if (tracker_ && match_ && !match_->record().finished && image.type() == CV_8UC3) {
        const auto tt = std::chrono::steady_clock::now();
        session::TrackerUpdate up = tracker_->on_frame(image);
        report.tracker_ms = ms_since(tt);
        if (up.state != session::FrameState::Moving && calibration_ && calibration_->table && !draw_zone_mm_.isEmpty()) {
            read_draw_zone(image, frame.captured_ns, report);
        }
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
            if (auto taken = tracker_->choose(0); taken) {
                chosen = true;
                report.notes << tr("ambiguous: took the first of %1 candidates").arg(up.ambiguity.size());
                for (const auto& n : taken->notes) report.notes << QString::fromStdString(n);
                up.committed.insert(up.committed.end(), taken->committed.begin(), taken->committed.end());
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
    report.analysis_ms = ms_since(t0);
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

std::optional<PieceOdds> MatchWorker::piece_odds(Cell at) const {
    if (!tracker_) return std::nullopt;
    const auto reading = tracker_->follower_readings().find(at);
    if (reading == tracker_->follower_readings().end()) return std::nullopt;
    PieceOdds odds;
    std::vector<double> mm;
    for (const auto& f : reading->second.features) mm.push_back(f.mm);
    const std::vector<double> share = shares_from_distances(mm, kFeatureScaleMm);
    for (std::size_t i = 0; i < share.size(); ++i) {
        for (const std::string& port : reading->second.features[i].ports) odds.port[port] = share[i];
    }
    if (reading->second.has_colour && match_) {
        // Each player's colour as calibrated (the file's colours), else the daylight colours.
        const auto daylight = vision::ColourModels::daylight();
        std::vector<std::string> names;
        std::vector<double> distance;
        for (const PlayerInfo& p : match_->record().players) {
            std::optional<cv::Vec3d> lab;
            if (calibration_ && calibration_->colours) {
                if (auto c = calibration_->colours->players.find(p.color); c != calibration_->colours->players.end()) lab = c->second.lab_mean;
            }
            if (!lab) {
                if (const vision::ColourModel* m = daylight.find(p.color)) lab = m->lab;
            }
            if (!lab) continue;
            names.push_back(p.color);
            distance.push_back(cv::norm(cv::Vec3d(reading->second.lab) - *lab));
        }
        const std::vector<double> colour = shares_from_distances(distance, kColourScaleLab);
        for (std::size_t i = 0; i < colour.size(); ++i) odds.colour[names[i]] = colour[i];
    }
    return odds;
}

void MatchWorker::find_corrections(Cell at, bool follower, int request) {
    if (cancelled_.load()) return;  // nobody is waiting for the menu any more
    CorrectionChoices out;
    out.request = request;
    out.at = at;
    out.follower = follower;
    if (match_) {
        out.events = match_->record().events.size();
        if (follower) {
            const std::optional<PieceOdds> odds = piece_odds(at);
            out.pieces = record_piece_choices(match_->record(), at, odds ? &*odds : nullptr);
        } else {
            std::vector<TileOdds> odds;
            bool judged = false;
            if (tracker_) {
                if (auto it = tracker_->likelihoods().find(at); it != tracker_->likelihoods().end()) {
                    judged = true;
                    for (const auto& c : it->second) odds.push_back({c.tile, c.rot, c.confidence});
                }
            }
            out.tiles = record_tile_choices(match_->record(), match_->game(), at, judged ? &odds : nullptr);
        }
    }
    emit corrections_found(std::move(out));
}

void MatchWorker::choose(int candidate) {
    if (!tracker_) return emit refused(tr("no ambiguity is open (no tracker runs)"));
    change([&](session::Tracker& t) -> Status {
               auto taken = t.choose(candidate);
               if (!taken) return taken.error();
               return Ok{};
           },
           [](LiveMatch&) -> Status { return Ok{}; },
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

MatchThread::~MatchThread() { stop(); }

void MatchThread::stop() {
    if (!thread_) return;
    MatchWorker* worker = std::exchange(worker_, nullptr);
    worker->cancel_analysis();  // an atomic flag: the worker may be mid-frame on its thread
    stop_worker_thread(std::exchange(thread_, nullptr), worker);
}

}  // namespace meeplecam::ui
