// LiveWindow: the live assistant — the camera view with the board drawn over it, the board
// as the engine sees it (legal placements of the drawn tile), scoreboard, move list, score
// events, a non-modal panel for illegal and ambiguous moves, corrections by clicking, undo,
// export/import, the final-score screen. Capture and the match run on worker threads; the
// window only sends them requests and draws what they send back.
#pragma once

#include <QMainWindow>
#include <QMenu>
#include <QPointer>
#include <QString>

#include <atomic>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "engine/record.h"
#include "ui/board_picture.h"
#include "ui/corrections.h"
#include "ui/frame_source.h"
#include "ui/live_view.h"
#include "ui/match_worker.h"

class QComboBox;
class QGroupBox;
class QLabel;
class QListWidget;
class QTableView;
class QVBoxLayout;

namespace meeplecam::ui {

class BoardView;
class FinalScoreDialog;
class ScoreTableModel;

class LiveWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit LiveWindow(QWidget* parent = nullptr);
    ~LiveWindow() override;

    // Starts reading frames from `source` on the capture thread (replaces a running source).
    void start_source(const FrameSourceOptions& source);
    // Stops capture and joins its thread.
    void stop_source();
    // Where the table lies in the camera image: the overlay is drawn there and the tracker
    // starts reading moves from the frames.
    void set_table_calibration(const TableCalibration& table);
    // Uses a calibration file (calibration/calibration_file.h): the match worker undistorts the
    // frames and finds the table's place from the lone start tile (table_found follows).
    void set_calibration(const calibration::Calibration& calibration, const QString& path);
    // Opens the calibration wizard (non-modal); a saved calibration is used at once.
    void open_calibration_wizard();
    // Starts a new match journaled at `journal`, or resumes the one in `journal` (asynchronous:
    // match_ready() follows).
    void new_match(const Record& setup, const QString& journal);
    void resume_match(const QString& journal);

    // The drawn tile (its legal placements are shown); empty: none.
    void set_drawn_tile(const QString& tile);
    // Plays the drawn tile at cell (x, y): one legal rotation is played at once, several are
    // asked for in the panel, none sends it anyway so the engine names the rule it breaks.
    void place_drawn_tile(int x, int y);
    // Plays the drawn tile at (x, y) turned `rot` quarter turns.
    void place_tile(int x, int y, int rot);
    // Puts a follower of the player of the open turn on feature port `loc` of the turn's tile.
    void place_follower(const QString& loc);
    void undo_last_move();
    void finish_game();
    // Shows the final-score screen (the score so far when the game is not finished).
    void show_final_score();
    void export_record(const QString& path);
    // Starts a new match from a record file (its events replayed into a new journal).
    void import_record(const QString& path, const QString& journal);

    // Corrections: asks the match worker for the choices for the tile (or the follower) at
    // (x, y), best first (by the tracker's likelihoods where it read them); they arrive in
    // choices_shown() (and fill the menu a click opened). Then applying one.
    void request_choices(int x, int y, bool follower);
    void correct_tile(int x, int y, const TileChoice& choice);
    void correct_piece(int x, int y, const PieceChoice& choice);

    // For tests and the status bar.
    const Record& record() const { return record_; }
    // The tracker's likelihood of each legal placement, per cell it read a tile in.
    const CellOdds& likelihoods() const { return odds_; }
    // The correction choices last received (for the menu open now, if any).
    const CorrectionChoices& last_choices() const { return choices_; }
    // The correction menu open now (null when none).
    QMenu* correction_menu() const { return menu_.data(); }
    const Game* scored_game() const { return scored_.get(); }
    const Game* open_game() const { return open_.get(); }
    QString source_status() const;
    QString panel_text() const;
    QStringList move_lines() const;
    QStringList score_lines() const;
    const LiveView& live_view() const { return *live_; }
    const BoardView& board_view() const { return *board_; }
    const ScoreTableModel& scoreboard() const { return *scores_; }
    FinalScoreDialog* final_score_dialog() const;
    MatchWorker* worker() const { return match_.worker(); }
    // The running frame source (lives on the capture thread); null when none.
    FrameSource* frame_source() const { return capture_ ? capture_->source() : nullptr; }
    double fps() const { return fps_; }
    // Whether the table's place in the image is known (given, or found from the calibration).
    bool table_known() const { return geometry_.has_value(); }
    double median_frame_latency_ms() const;
    double median_analysis_latency_ms() const;

signals:
    // The match was opened (new or resumed); `lost` lists what a damaged journal lost.
    void match_ready(QStringList lost);
    // The record changed (a move, an undo, a correction) and the window shows it.
    void record_shown();
    // A request was refused (illegal move, bad correction): the reason is in the panel.
    void refused_shown(QString why);
    // Correction choices arrived from the worker (and fill the open menu).
    void choices_shown(meeplecam::ui::CorrectionChoices choices);

protected:
    // Scrolls the move and scoring lists to their ends once the window is laid out.
    void showEvent(QShowEvent* event) override;

private:
    void build_menus();
    void adopt(Record record);
    void refresh();
    void on_frame(const Frame& frame);
    void on_source_state(FrameSource::State state, const QString& message);
    void on_frame_analysed(const FrameReport& report);
    void on_board_click(int x, int y, QPointF within);
    void on_corrections_found(const CorrectionChoices& choices);
    void show_panel(const QString& title, const QString& text, bool alarm);
    void clear_panel();
    void update_status();
    void new_game_dialog();

    MatchThread match_;
    std::unique_ptr<CaptureThread> capture_;
    Record record_;
    std::unique_ptr<Game> open_;
    std::unique_ptr<Game> scored_;
    QString journal_;
    QString drawn_tile_;
    TileArtCache art_;
    std::optional<TableGeometry> geometry_;
    cv::Mat last_frame_;                    // the newest frame shown (the calibration wizard captures it)
    std::atomic<std::int64_t> latest_frame_{-1};  // newest frame index sent (set on the capture thread)
    QString shown_question_;                // the ambiguity or illegal move the panel shows now
    std::vector<FollowerMark> must_return_; // followers a scoring returned, still on the table
    CellOdds odds_;                         // the tracker's likelihood of each placement, per cell it read
    int choices_request_ = 0;               // the last correction request sent to the worker
    CorrectionChoices choices_;             // the last choices received
    QPointer<QMenu> menu_;                  // the correction menu waiting for (or showing) them

    LiveView* live_ = nullptr;
    BoardView* board_ = nullptr;
    ScoreTableModel* scores_ = nullptr;
    QTableView* score_table_ = nullptr;
    QListWidget* moves_ = nullptr;
    QListWidget* score_events_ = nullptr;
    QComboBox* palette_ = nullptr;
    QComboBox* followers_ = nullptr;
    QGroupBox* panel_ = nullptr;
    QLabel* panel_label_ = nullptr;
    QVBoxLayout* panel_buttons_ = nullptr;
    QLabel* source_label_ = nullptr;
    QLabel* fps_label_ = nullptr;
    QLabel* latency_label_ = nullptr;
    QPointer<FinalScoreDialog> final_;

    QString source_status_;
    std::deque<std::int64_t> shown_ns_;   // when recent frames were shown (FPS over the last second)
    std::deque<double> frame_latency_ms_; // capture -> painted, recent frames
    std::deque<double> analysis_latency_ms_;  // capture -> analysed on the worker, recent frames
    double fps_ = 0;
};

}  // namespace meeplecam::ui
