// MatchWorker: the match's owner, on its own QThread — the LiveMatch (record, game, journal)
// and the frames' analysis. The window sends it moves, undo and corrections as queued calls
// and receives the record back as a value after every change; it never waits for it.
#pragma once

#include <QObject>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <optional>

#include <opencv2/core.hpp>

#include "calibration/calibrated_frame.h"
#include "calibration/player_colours.h"
#include "calibration/calibration_file.h"
#include "engine/record.h"
#include "session/tracker.h"
#include "vision/tile_classifier.h"
#include "ui/corrections.h"
#include "ui/frame_source.h"
#include "ui/live_match.h"

class QThread;

namespace meeplecam::ui {

// One way the players may answer an ambiguous move (the tracker's candidates, best first).
struct MoveChoice {
    std::string tile;
    Cell at;
    int rot = 0;             // quarter turns
    double confidence = 0;   // 0..1
};

// A follower the window should point at (one a scoring returned that is still on the table).
struct FollowerMark {
    std::string colour;
    Cell at;
    std::string loc;
};

// Where the table lies in the camera image: what the tracker needs to read moves.
struct TableCalibration {
    cv::Matx33d image_to_table_mm = cv::Matx33d::eye();  // camera px -> table mm, start tile's centre at 0
    double tile_mm = 45.0;                                // tile side
    double gap_mm = 1.0;                                  // gap between tiles
};

// What the worker did with one frame (sent to the window for the status bar and overlays).
struct FrameReport {
    std::int64_t index = -1;        // the frame's index
    std::int64_t captured_ns = 0;   // when it was captured
    double analysis_ms = 0;         // time spent analysing it on the worker, of which:
    double undistort_ms = 0;        //   undistorting it (a calibration with a lens)
    double search_ms = 0;           //   looking for the start tile (a calibration, no table yet; 0: not this frame)
    double tracker_ms = 0;          //   the tracker
    std::int64_t skipped = 0;       // older frames dropped so far because a newer one was waiting
    int committed = 0;              // events the tracker recorded on this frame
    QString table_state;            // "moving", "hand over the board", "still"; empty: no tracker
    bool analysed = false;          // the tracker read the table on this frame
    std::vector<MoveChoice> ambiguity;       // non-empty: the players must choose
    QString illegal;                // a move on the table that breaks a rule, with the rule
    std::vector<FollowerMark> must_return;   // followers to take off the table
    QStringList notes;              // what the tracker saw but did not record
};

// The correction menu's choices for one clicked tile or follower, found on the match thread
// (each choice is tried as a correction and the record replayed: ~100 replays for a tile).
struct CorrectionChoices {
    int request = 0;                  // the request this answers
    Cell at;
    bool follower = false;            // the follower's choices (else the tile's)
    std::size_t events = 0;           // the record's length they were found for
    std::vector<TileChoice> tiles;
    std::vector<PieceChoice> pieces;
};

class MatchWorker : public QObject {
    Q_OBJECT
public:
    explicit MatchWorker(QObject* parent = nullptr);
    ~MatchWorker() override;

    // Call from the capture thread (direct connection): tells the worker a newer frame exists,
    // so a backlog of queued older frames is dropped instead of analysed.
    void note_newer_frame(std::int64_t index) { latest_index_.store(index); }
    // Call from any thread (MatchThread::stop): frames still queued are dropped unanalysed, an
    // analysis in progress stops at its next stage (undistort, start-tile search, tracker) and
    // correction menus are no longer looked for. Moves, undo, corrections and finish still run
    // and are journaled. Cannot be undone.
    void cancel_analysis() { cancelled_.store(true); }

public slots:
    // Starts a new match journaled at `journal` (replaces any open match). An unfinished match
    // with moves already journaled there (a new game started mid-game, or a journal the players
    // chose not to resume) is not overwritten: it is kept as `journal`.previous (replacing an
    // older one there), and previous_match_kept() says so.
    void start_match(meeplecam::Record setup, QString journal);
    // Resumes the match of an existing journal; problems (what was lost) are reported.
    void resume_match(QString journal);
    // Headless: answer every ambiguity at once with the tracker's first candidate (nobody is there to ask).
    void set_auto_choose(bool on) { auto_choose_ = on; }
    // Gives the tracker the table's place in the image; the tracker runs from then on.
    void set_table(meeplecam::ui::TableCalibration table);
    // Takes the table plane and the lens from a calibration file: frames are undistorted as
    // the file needs, and once a frame shows the lone start tile on the calibrated table
    // (session/start_tile.h) the table's place is known and the tracker starts; table_found()
    // tells the window. A table given by set_table() wins. Each new match looks again.
    void set_calibration(meeplecam::calibration::Calibration calibration);
    // A draw zone on the calibrated table (mm, the calibration's frame; empty: none): on still
    // frames the tile shown there is read (session/draw_zone.h) and drawn_tile_seen() sent
    // when it changes. Needs a calibration with a table plane.
    void set_draw_zone(QRectF zone_mm);
    // Analyses a frame (the newest one only; see note_newer_frame).
    void analyse_frame(meeplecam::ui::Frame frame);
    void play(meeplecam::Event event);
    void undo_last_move();
    void correct_tile(meeplecam::Cell at, QString tile, int rot);
    void correct_piece(meeplecam::Cell at, QString colour, QString loc);
    // Finds the correction choices for the tile (or the follower) at `at`, ranked by the
    // tracker's likelihoods when it read them; corrections_found() follows.
    void find_corrections(meeplecam::Cell at, bool follower, int request);
    // Answers an open ambiguity with the tracker's candidate `candidate`.
    void choose(int candidate);
    void finish();
    // Writes the record atomically to `path` (export).
    void export_record(QString path);

signals:
    // The match changed: the whole record, and a sentence saying what happened.
    void match_changed(meeplecam::Record record, QString what);
    // The match was (re)opened; `lost` lists what a damaged journal lost (empty when intact).
    void match_opened(meeplecam::Record record, QString journal, QStringList lost);
    // start_match() kept the unfinished match of `events` events that was journaled there at `path`.
    void previous_match_kept(QString path, int events);
    // A move or correction was refused: where and the rule it breaks; nothing changed.
    void refused(QString why);
    void frame_analysed(meeplecam::ui::FrameReport report);
    // The table's place in the image was found from the calibration (`what` says how).
    void table_found(meeplecam::ui::TableCalibration table, QString what);
    // The tile shown in the draw zone (type id; empty: the zone is empty again), with the classifier's confidence.
    void drawn_tile_seen(QString tile, double confidence);
    // The tracker's likelihood of every legal placement, per cell it read a tile in (sent with
    // every change of the match while a tracker runs).
    void likelihoods_changed(meeplecam::ui::CellOdds odds);
    void exported(QString path, bool ok, QString message);
    void corrections_found(meeplecam::ui::CorrectionChoices choices);

private:
    void publish(const QString& what);
    void report_status(const Status& st, const QString& what);
    // (Re)creates the tracker from the match's record when both a match and a table exist.
    void restart_tracker();
    // Runs a change on the tracker (when there is one) and journals its record, or directly on
    // the match; reports the outcome.
    void change(const std::function<Status(session::Tracker&)>& on_tracker, const std::function<Status(LiveMatch&)>& on_match,
                const QString& what);

    // With a calibration and no table yet: looks for the start tile (at most once a second);
    // whether it looked on this frame.
    bool locate_table(const cv::Mat& frame, std::int64_t captured_ns, FrameReport& report);
    // Starts the tracker just made from the frame the start tile was found on: its first
    // confirmed look is that table (the start tile alone), whatever later frames show.
    void start_tracker_from(const cv::Mat& frame);
    // Reads the draw zone of a still frame (at most twice a second).
    void read_draw_zone(const cv::Mat& frame, std::int64_t captured_ns, FrameReport& report);
    // The tracker's reading of the follower at `at` as shares of ports and colours; none when it did not read one there.
    std::optional<PieceOdds> piece_odds(Cell at) const;
    // The tile classifier of the match's catalog (made once per game, edition and expansions); null on error (noted in `report`).
    const vision::TileClassifier* classifier_for_match(FrameReport& report);

    std::optional<LiveMatch> match_;
    std::optional<TableCalibration> table_;
    bool table_given_ = false;                              // set_table() was called: the calibration does not replace it
    std::optional<calibration::Calibration> calibration_;
    std::optional<calibration::FrameUndistorter> undistorter_;
    calibration::FrameColours frame_colours_;  // the calibration's player colours and white balance (daylight, none)
    std::optional<vision::TileClassifier> classifier_;      // for the start tile, of classifier_catalog_
    std::shared_ptr<const Catalog> classifier_catalog_;
    std::string classifier_key_;                            // game, edition and expansions the classifier was made for
    std::int64_t next_locate_ns_ = 0;
    QRectF draw_zone_mm_;
    std::int64_t next_zone_ns_ = 0;
    QString zone_tile_;                                     // the tile last seen in the draw zone
    std::optional<session::Tracker> tracker_;
    std::atomic<std::int64_t> latest_index_{-1};
    std::atomic<bool> cancelled_{false};                    // cancel_analysis() was called
    std::int64_t skipped_ = 0;
    bool auto_choose_ = false;
};

// Owns a MatchWorker on its own QThread. Stopping never waits for the match thread: the
// worker's frame analysis is cancelled at once (MatchWorker::cancel_analysis); on its thread,
// after the requests already queued (a move sent just before closing is still journaled), the
// thread quits, the worker is deleted there as the thread finishes (its journal closed: every
// event was fsynced when it was recorded) and the QThread deletes itself (ui/worker_thread.h).
class MatchThread {
public:
    MatchThread();
    ~MatchThread();  // stop()
    MatchThread(const MatchThread&) = delete;
    MatchThread& operator=(const MatchThread&) = delete;
    // The worker; null once stopped.
    MatchWorker* worker() const { return worker_; }
    // The match thread; null once stopped (it finishes and deletes itself then).
    QThread* thread() const { return thread_; }
    // Cancels the analysis and asks the thread to finish its queued requests and quit; returns
    // at once (idempotent). Signals the worker sends meanwhile still reach live receivers.
    void stop();

private:
    QThread* thread_ = nullptr;
    MatchWorker* worker_ = nullptr;
};

// Registers the value types sent through queued signals (once per process).
void register_meta_types();

}  // namespace meeplecam::ui

Q_DECLARE_METATYPE(meeplecam::ui::FrameReport)
Q_DECLARE_METATYPE(meeplecam::ui::TableCalibration)
Q_DECLARE_METATYPE(meeplecam::calibration::Calibration)
Q_DECLARE_METATYPE(meeplecam::Record)
Q_DECLARE_METATYPE(meeplecam::Event)
Q_DECLARE_METATYPE(meeplecam::Cell)
Q_DECLARE_METATYPE(meeplecam::ui::CellOdds)
Q_DECLARE_METATYPE(meeplecam::ui::CorrectionChoices)
