// ReviewWindow: open a match record and step through it — board, scoreboard, score events, chart.
#pragma once

#include <QMainWindow>

#include <memory>
#include <optional>

#include "engine/record.h"
#include "ui/board_picture.h"

class QLabel;
class QListWidget;
class QSlider;
class QTableView;

namespace meeplecam::ui {

class BoardView;
class ScoreChart;
class ScoreTableModel;

class ReviewWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit ReviewWindow(QWidget* parent = nullptr);
    ~ReviewWindow() override;

    // Opens a record file; on error keeps the current match and returns the error (also shown
    // in the status bar).
    Status open_record(const QString& path);
    // Shows the game after the first `events` events of the record (0..event_count()).
    void show_step(int events);
    int event_count() const;
    int step() const { return step_; }
    // The step line ("event 12 / 30"; at a correction event, its one-line description too).
    QString step_text() const;

    // For tests: the widgets' current contents.
    const ScoreTableModel& scoreboard() const { return *scores_; }
    const BoardView& board_view() const { return *board_; }
    const ScoreChart& chart() const { return *chart_; }
    QStringList score_lines() const;

private:
    void open_dialog();
    void build_chart();

    std::optional<Record> record_;
    QString path_;
    int step_ = 0;
    TileArtCache art_;
    BoardView* board_ = nullptr;
    ScoreChart* chart_ = nullptr;
    QSlider* slider_ = nullptr;
    QLabel* step_label_ = nullptr;
    QTableView* table_ = nullptr;
    QListWidget* events_ = nullptr;
    ScoreTableModel* scores_ = nullptr;
};

}  // namespace meeplecam::ui
