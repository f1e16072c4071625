// The final-score screen: per player the points from each kind of feature (during the game
// and at the end), the total, and the score over the turns.
#pragma once

#include <QDialog>
#include <QString>

#include <map>
#include <vector>

#include "engine/record.h"

class QLabel;
class QTableWidget;

namespace meeplecam::ui {

class ScoreChart;

struct ScoreBreakdown {
    QString name, color;
    std::map<std::string, int> by_feature;  // "road", "city", "monastery", "farm", ...: points
    int total = 0;
};

// Sums every score event of `game` per player and feature.
std::vector<ScoreBreakdown> score_breakdown(const Game& game);

class FinalScoreDialog : public QDialog {
    Q_OBJECT
public:
    explicit FinalScoreDialog(QWidget* parent = nullptr);
    // Shows the finished (or current) state of a record; errors leave the screen unchanged.
    Status show_record(const Record& record);
    // Shows a game's score without its course (a game read from a photo has no turns).
    void show_game(const Game& game, const QString& title);
    const QTableWidget& table() const { return *table_; }
    const ScoreChart& chart() const { return *chart_; }

private:
    void fill_table(const Game& game);

    QTableWidget* table_ = nullptr;
    QLabel* chart_label_ = nullptr;
    ScoreChart* chart_ = nullptr;
};

}  // namespace meeplecam::ui
