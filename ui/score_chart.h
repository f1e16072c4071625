// ScoreChart: every player's score over the turns, as lines.
#pragma once

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

#include "engine/record.h"

namespace meeplecam::ui {

struct ScoreSeries {
    QString name;
    QColor color;
    std::vector<int> scores;  // score after each turn (index 0: before the first turn)
};

// Builds every player's score after each turn of a record (replays of its prefixes; the last
// point is the record's end, with final scoring when it is finished).
std::vector<ScoreSeries> score_series(const Record& record);

class ScoreChart : public QWidget {
    Q_OBJECT
public:
    explicit ScoreChart(QWidget* parent = nullptr) : QWidget(parent) {}
    void set_series(std::vector<ScoreSeries> series);
    // Marks the turn shown on the board (a vertical line); -1 for none.
    void set_cursor(int turn);
    const std::vector<ScoreSeries>& series() const { return series_; }
    QSize sizeHint() const override { return {360, 200}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<ScoreSeries> series_;
    int cursor_ = -1;
};

}  // namespace meeplecam::ui
